// A deleted topic's memory goes with it (issue 22's load item: the embedded
// broker held 3.9 GB after franz-go's suite deleted every topic): its
// replicas' records.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from './support.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

let cluster: RunningCluster | undefined
afterEach(async () => {
  await cluster?.stop()
  cluster = undefined
})

const used = () => {
  gc()
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

describe('topic deletion', () => {
  it('returns the records it held (3 brokers, RF 3, 8 partitions, ~40 MB written and read)', async () => {
    cluster = await startCluster({ brokers: 3 })
    const kafka = new Kafka({ clientId: 'delete-memory-test', brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    const producer = kafka.producer({ acks: -1, idempotent: true })
    const consumer = kafka.consumer({ groupId: 'g' })
    try {
      await admin.connect()
      await producer.connect()
      const before = used()
      await admin.createTopics({ topics: [{ topic: 'big', numPartitions: 8, replicationFactor: 3 }] })
      const value = Buffer.alloc(10_000, 7)
      for (let i = 0; i < 40; i++)
        await producer.send({ topic: 'big', messages: Array.from({ length: 100 }, (_, j) => ({ key: `${i}-${j}`, value })) })
      const full = used()
      await consumer.connect()
      await consumer.subscribe({ topics: ['big'], fromBeginning: true })
      let read = 0
      await consumer.run({ eachMessage: async () => void read++ })
      await until(
        () => read >= 4000,
        30_000,
        () => `${read} read`,
      )
      await consumer.disconnect()
      await admin.deleteTopics({ topics: ['big'] })
      await new Promise((r) => setTimeout(r, 500))
      const after = used()
      // Three copies of 40 MB were held; what is left is within a few MB of the start (clients' buffers, caches).
      expect(full - before).toBeGreaterThan(100e6)
      expect(after - before).toBeLessThan(10e6)
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
  }, 60_000)

  it('small batches too: neither a kept topic written beside them nor an idle follower holds them (3 brokers, RF 3)', async () => {
    cluster = await startCluster({ brokers: 3 })
    const kafka = new Kafka({ clientId: 'delete-memory-test', brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    const producer = kafka.producer({ acks: -1 })
    try {
      await admin.connect()
      await producer.connect()
      await admin.createTopics({
        topics: [
          { topic: 'small', numPartitions: 8, replicationFactor: 3 },
          { topic: 'kept', numPartitions: 1, replicationFactor: 1 },
        ],
      })
      const before = used()
      const value = Buffer.alloc(400, 7)
      // Batches of ~1 KB, each request with a tiny one for the topic that stays: copied one after the other.
      for (let i = 0; i < 1000; i++)
        await producer.sendBatch({
          topicMessages: [
            { topic: 'small', messages: Array.from({ length: 24 }, (_, j) => ({ key: `${i}-${j}`, value, partition: j % 8 })) },
            { topic: 'kept', messages: [{ key: `${i}`, value: 'x' }] },
          ],
        })
      const full = used()
      await admin.deleteTopics({ topics: ['small'] })
      await new Promise((r) => setTimeout(r, 500))
      const after = used()
      // ~10 MB written, three copies; the kept topic's 1,000 records are ~0.1 MB. Its batches once shared Node's
      // 8 KiB pool slabs with the deleted ones and kept them (and a follower with nothing left to fetch its replicas).
      expect(full - before).toBeGreaterThan(25e6)
      expect(after - before).toBeLessThan(3e6)
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
  }, 60_000)
})
