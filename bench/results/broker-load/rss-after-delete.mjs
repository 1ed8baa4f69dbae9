// Where a deleted topic's memory goes: V8 heap, array buffers, glibc malloc's main arena ([heap]) -- and whether
// malloc_trim(0) gives the rest back (then it is allocator retention, not live objects). Linux, gdb on PATH;
// `npm run build:js` first, then: node --expose-gc bench/results/broker-load/rss-after-delete.mjs [keep]
// (bench/results/broker-load.md, "The RSS kept after every topic is deleted").
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { startCluster } from '../../../dist/broker.js'
import { Kafka } from '../../../dist/index.js'

const keep = process.argv[2] === 'keep' // interleave small batches to a topic that stays
const heapRss = () => {
  const s = readFileSync('/proc/self/smaps', 'utf8')
  const at = s.indexOf(' [heap]\n')
  return at < 0 ? 0 : Number(/\nRss:\s+(\d+) kB/.exec(s.slice(at))[1]) * 1024
}
const mb = (n) => (n / 1048576).toFixed(0) + ' MB'
const show = (what) => {
  gc()
  gc()
  const m = process.memoryUsage()
  console.log(
    what.padEnd(28),
    'rss',
    mb(m.rss),
    'heapTotal',
    mb(m.heapTotal),
    'heapUsed',
    mb(m.heapUsed),
    'arrayBuffers',
    mb(m.arrayBuffers),
    '[heap] rss',
    mb(heapRss()),
  )
}
show('start')
const cluster = await startCluster({ brokers: 3 })
const kafka = new Kafka({ clientId: 'rss-exp', brokers: cluster.bootstrapServers.split(','), logLevel: 0 })
const admin = kafka.admin()
const producer = kafka.producer({ acks: -1 })
await admin.connect()
await producer.connect()
await admin.createTopics({
  topics: [
    { topic: 'big', numPartitions: 8, replicationFactor: 3 },
    { topic: 'kept', numPartitions: 1, replicationFactor: 3 },
  ],
})
const value = Buffer.alloc(400, 7)
for (let i = 0; i < 3000; i++) {
  await producer.send({
    topic: 'big',
    messages: Array.from({ length: 20 }, (_, j) => ({ key: `${i}-${j}`, value, partition: (i + j) % 8 })),
  })
  if (keep) await producer.send({ topic: 'kept', messages: [{ key: `${i}`, value: 'x' }] })
}
show('written')
await admin.deleteTopics({ topics: ['big'] })
await new Promise((r) => setTimeout(r, 3000))
show('big deleted')
execSync(`gdb -p ${process.pid} -batch -ex 'call (int)malloc_trim(0)'`, { stdio: 'ignore' })
show('after malloc_trim(0)')
await producer.disconnect()
await admin.disconnect()
await cluster.stop()
