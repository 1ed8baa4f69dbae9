// A new idempotent producer whose first bootstrap broker is down: it asks
// another broker for its producer id and sends, as the Java producer does.
// (It used to find a live bootstrap connection, then ask for its producer id
// through the first bootstrap address again: ECONNREFUSED until connect()
// gave up, a minute later. Seen when the consumer failover test's helper
// producer started after the coordinator's broker, broker 1, was killed.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'

const kafka = requireKafka('4')

describe.skipIf(!kafka)('a producer bootstrapping past a dead broker', () => {
  let cluster: KafkaCluster
  beforeAll(async () => {
    cluster = await startKafka({ brokers: 3 })
  })
  afterAll(() => cluster?.stop())

  it('connects and sends when the first bootstrap address refuses connections', async () => {
    const admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'first-dead', numPartitions: 6, replicationFactor: 3 }] })
    await admin.disconnect()
    await cluster.kill(1)
    const producer = new Kafka({ brokers: cluster.bootstrap.split(','), retryBackoffMs: 100 }).producer({ lingerMs: 5 })
    const started = Date.now()
    try {
      await producer.connect()
      const connectedMs = Date.now() - started
      await producer.send({ topic: 'first-dead', messages: Array.from({ length: 100 }, (_, i) => ({ value: `v${i}` })) })
      // Within a few retries, not at a timeout.
      expect(connectedMs).toBeLessThan(10_000)
    } finally {
      await producer.disconnect()
    }
    const offsets = await (async () => {
      const a = new Kafka({ brokers: cluster.bootstrap.split(',').slice(1) }).admin()
      await a.connect()
      try {
        return await a.fetchTopicOffsets('first-dead')
      } finally {
        await a.disconnect()
      }
    })()
    expect(offsets.reduce((n, p) => n + Number(p.high), 0)).toBe(100)
  }, 120_000)
})
