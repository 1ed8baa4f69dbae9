// wafka produces, kcat (a real librdkafka client) reads back: for each mock
// cluster build and each codec, 200,000 keyed messages with headers, null
// and empty keys and values, unicode strings and binary Buffers, sent by many
// concurrent send() calls to a 3-broker cluster, must come back as exactly
// the same set — every key, value and header byte — each partition in the
// order sent, and every keyed message where the Java client would put it.
// (Header names carry no NUL: librdkafka keeps them as C strings, so kcat
// would print them cut short; NUL bytes elsewhere are fine.)
//
// Randomized but replayable: the seed is printed; WAFKA_PRODUCER_INTEROP_SEED
// replays it, WAFKA_PRODUCER_INTEROP_COUNT changes the message count.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { murmur2Partition } from '../../src/producer/partitioners/index.js'
import { Prng } from '../../bench/support/prng.js'
import { kcatConsume } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { seedFromEnv } from '../prng.js'
import { describeWire, fingerprint, hex, sendAll } from './load.js'
import { workload } from './random-messages.js'

const seed = seedFromEnv('WAFKA_PRODUCER_INTEROP_SEED')
const COUNT = Number(process.env.WAFKA_PRODUCER_INTEROP_COUNT ?? 200_000)
/** The mock keeps ~5 MiB a partition: 24 of them hold ~120 MiB, several times what a run writes. */
const PARTITIONS = 24
const CHUNK = 500
const WINDOW = 16
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const
const BUILDS = ['legacy', 'modern'] as const
const MAX_REPORTED = 5

console.log(`producer interop seed ${seed}, ${COUNT} messages a case (replay: WAFKA_PRODUCER_INTEROP_SEED=${seed})`)

const peers = requirePeers()

describe.skipIf(!peers)(`wafka produces, kcat reads back (seed ${seed})`, () => {
  let mock: MockCluster | undefined
  const open: Array<{ disconnect(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.disconnect()))
    await mock?.stop()
    mock = undefined
  })

  describe.each(BUILDS)('%s mock', (build) => {
    it.each(CODECS)(
      '%s: every byte back, each partition in send order',
      async (compression) => {
        const caseSeed = Prng.derive(seed, BUILDS.indexOf(build) * CODECS.length + CODECS.indexOf(compression))
        const t0 = Date.now()
        const { messages, wire, index } = workload(caseSeed, COUNT)
        const tGenerated = Date.now()

        mock = await startMockCluster({ brokers: 3, build })
        const topic = `interop-${compression}`
        await mock.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 3 })
        const kafka = new Kafka({ clientId: 'wafka-interop', brokers: mock.bootstrap.split(',') })
        const producer = kafka.producer({ compression })
        open.push(producer)
        await producer.connect()
        const outcome = await sendAll(producer, topic, messages, { chunk: CHUNK, window: WINDOW, deadlineMs: 90_000 })
        expect(outcome.rejected.map((r) => `chunk ${r.chunk}: ${r.error}`)).toEqual([])
        expect(outcome.pending, 'sends still pending after 90 s').toEqual([])
        for (const r of outcome.results) for (const m of r) expect(Number(m.baseOffset)).toBeGreaterThanOrEqual(0)
        const tProduced = Date.now()

        const read = await kcatConsume(mock.bootstrap, topic, { timeoutMs: 120_000 })
        const tConsumed = Date.now()

        const problems: string[] = []
        const report = (s: string) => {
          if (problems.length < MAX_REPORTED) problems.push(s)
        }
        const seen = new Uint8Array(COUNT)
        const lastIndex = new Map<number, { index: number; offset: number }>()
        const partitionOfKey = new Map<string, number>()
        let unmatched = 0
        let duplicates = 0
        let reordered = 0
        let misplaced = 0
        // kcat prints each partition in offset order, partitions interleaved.
        for (const m of read) {
          const i = index.get(fingerprint(m.key, m.value, m.headers))
          if (i === undefined) {
            unmatched++
            report(`partition ${m.partition} offset ${m.offset}: not a message that was sent: ${describeWire(m)}`)
            continue
          }
          if (seen[i]++) {
            duplicates++
            report(`message ${i} read again at ${m.partition}/${m.offset}`)
          }
          const last = lastIndex.get(m.partition)
          if (last && (i < last.index || m.offset <= last.offset)) {
            reordered++
            report(`partition ${m.partition}: message ${i} at offset ${m.offset} after message ${last.index} at offset ${last.offset}`)
          }
          lastIndex.set(m.partition, { index: i, offset: m.offset })
          const key = wire[i].key
          if (key !== null) {
            // Where the Java client puts it (murmur2), and every record of a key in one partition.
            const expected = murmur2Partition(key, PARTITIONS)
            const k = key.toString('hex')
            if (m.partition !== expected || (partitionOfKey.get(k) ?? m.partition) !== m.partition) {
              misplaced++
              report(`message ${i} (key ${hex(key)}) in partition ${m.partition}, murmur2 says ${expected}`)
            }
            partitionOfKey.set(k, m.partition)
          }
        }
        const missing: number[] = []
        for (let i = 0; i < COUNT; i++) if (!seen[i]) missing.push(i)
        for (const i of missing.slice(0, MAX_REPORTED)) report(`message ${i} was never read: ${describeWire(wire[i])}`)

        const partitionsUsed = lastIndex.size
        const mb = (
          wire.reduce(
            (n, w) =>
              n + (w.key?.length ?? 0) + (w.value?.length ?? 0) + w.headers.reduce((a, [k, v]) => a + k.length + (v?.length ?? 0), 0),
            0,
          ) / 1e6
        ).toFixed(1)
        console.log(
          `${build}/${compression}: ${COUNT} messages (${mb} MB of keys, values, headers) over ${partitionsUsed} partitions; ` +
            `generate ${tGenerated - t0} ms, wafka produce ${tProduced - tGenerated} ms, kcat consume ${tConsumed - tProduced} ms, check ${Date.now() - tConsumed} ms`,
        )
        const summary = { read: read.length, unmatched, duplicates, missing: missing.length, reordered, misplaced }
        expect({ ...summary, problems }, `seed ${seed} (${build}/${compression}, case seed ${caseSeed})`).toEqual({
          read: COUNT,
          unmatched: 0,
          duplicates: 0,
          missing: 0,
          reordered: 0,
          misplaced: 0,
          problems: [],
        })
        expect(partitionsUsed).toBe(PARTITIONS)
      },
      240_000,
    )
  })
})

// The two ways concurrent sends lost their call order, made small and
// deterministic: a send waiting for the topic's metadata, and sends waiting
// for buffer space. Records of a send called later must follow those of
// every send called before it (as Java's blocking send() gives).
describe.skipIf(!peers)('sends append in call order', () => {
  let mock: MockCluster | undefined
  const open: Array<{ disconnect(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.disconnect()))
    await mock?.stop()
    mock = undefined
  })

  it('while the topic metadata is being fetched', async () => {
    mock = await startMockCluster({ brokers: 1, build: 'modern' })
    await mock.createTopic('order', { partitions: 1, replicationFactor: 1 })
    const producer = new Kafka({ clientId: 'wafka-order', brokers: mock.bootstrap.split(',') }).producer()
    open.push(producer)
    await producer.connect()
    // Each answer takes 100 ms and a connection pipelines 5 requests: the
    // Metadata requests of the first 5 sends are answered at 100 ms, the next 5 at 200 ms.
    await mock.setRtt(-1, 100)
    const early = Array.from({ length: 10 }, (_, i) => producer.send({ topic: 'order', messages: [{ value: `early-${i}` }] }))
    await new Promise((r) => setTimeout(r, 150)) // the topic is known now
    const late = producer.send({ topic: 'order', messages: [{ value: 'late' }] })
    await Promise.all([...early, late])
    await mock.setRtt(-1, 0)
    const read = await kcatConsume(mock.bootstrap, 'order')
    expect(read.map((m) => m.value!.toString())).toEqual([...Array.from({ length: 10 }, (_, i) => `early-${i}`), 'late'])
  })

  it('while waiting for buffer space', async () => {
    mock = await startMockCluster({ brokers: 1, build: 'modern' })
    await mock.createTopic('order', { partitions: 1, replicationFactor: 1 })
    const producer = new Kafka({ clientId: 'wafka-order', brokers: mock.bootstrap.split(',') }).producer({
      bufferMemory: 3000,
      batchSize: 1000,
      lingerMs: 0,
    })
    open.push(producer)
    await producer.connect()
    await producer.send({ topic: 'order', messages: [{ value: 'first' }] })
    await mock.setRtt(-1, 20)
    // 8 sends of 10 records of ~220 bytes: at most ~13 records fit in bufferMemory.
    const sends = Array.from({ length: 8 }, (_, s) =>
      producer.send({ topic: 'order', messages: Array.from({ length: 10 }, (_, i) => ({ value: `${s}-${i}`.padEnd(200, '.') })) }),
    )
    await Promise.all(sends)
    await mock.setRtt(-1, 0)
    const read = await kcatConsume(mock.bootstrap, 'order')
    expect(read.map((m) => m.value!.toString().replace(/\.+$/, ''))).toEqual([
      'first',
      ...Array.from({ length: 80 }, (_, k) => `${Math.floor(k / 10)}-${k % 10}`),
    ])
  })
})
