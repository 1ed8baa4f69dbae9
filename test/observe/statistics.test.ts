// statisticsIntervalMs against the embedded broker: the consumer.stats and
// producer.stats events (and the wafka:stats channel) give per-broker
// request counts equal to the requests the client's onRequest saw, each
// partition's high watermark, position and lag as consumed, and the
// producer's batches holding exactly the records sent.
import * as dc from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel, type ConsumerStatistics, type ProducerStatistics } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from '../consumer/support.js'

describe('statisticsIntervalMs', () => {
  let cluster: RunningCluster
  let brokers: string[]

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
    brokers = cluster.bootstrapServers.split(',')
    const kafka = new Kafka({ clientId: 'stats', brokers, logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'stats', numPartitions: 2 }] })
    await admin.disconnect()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('producer then consumer: batches, records, positions, lag and request counts equal what happened', async () => {
    // The user's onRequest sees every answered request: the statistics must count the same.
    const answered = new Map<string, number>()
    const kafka = new Kafka({
      clientId: 'stats',
      brokers,
      logLevel: logLevel.NOTHING,
      onRequest: (e) => void (e.type === 'request' && answered.set(e.broker, (answered.get(e.broker) ?? 0) + 1)),
    })
    const published: unknown[] = []
    const onChannel = (m: unknown) => void published.push(m)
    dc.subscribe('wafka:stats', onChannel)
    try {
      const producer = kafka.producer({ statisticsIntervalMs: 50, lingerMs: 0 })
      const producerStats: ProducerStatistics[] = []
      producer.on(producer.events.STATS, (e) => void producerStats.push(e.payload))
      await producer.connect()
      for (const partition of [0, 1, 0])
        await producer.send({ topic: 'stats', messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${i}`, partition })) })
      const sentAt = Date.now()
      await until(
        () => producerStats.some((s) => s.time > sentAt),
        5_000,
        () => 'no producer.stats after the sends',
      )
      const p = producerStats.findLast((s) => s.time > sentAt)!
      expect(p.batches).toMatchObject({ batches: 3, records: 15, recordsPerBatchAvg: 5 })
      expect(p.batches.bytesPerBatchMax).toBeGreaterThan(0)
      expect(p.bufferedBytes).toBe(0)
      expect(p.brokers).toHaveLength(1)
      const [broker] = p.brokers!
      expect(broker.broker).toBe(brokers[0])
      await producer.disconnect()
      expect(broker.requests).toBeLessThanOrEqual(answered.get(brokers[0])!)
      expect(broker.requests).toBeGreaterThanOrEqual(3) // the three Produce requests at least
      expect(published.some((m) => (m as ProducerStatistics).type === 'producer')).toBe(true)

      answered.clear()
      const consumer = kafka.consumer({ groupId: 'stats-group', autoOffsetReset: 'earliest', statisticsIntervalMs: 50 })
      const consumerStats: ConsumerStatistics[] = []
      consumer.on(consumer.events.STATS, (e) => void consumerStats.push(e.payload))
      await consumer.connect()
      await consumer.subscribe({ topics: ['stats'] })
      let handled = 0
      await consumer.run({ eachMessage: async () => void handled++ })
      await until(
        () => handled === 15,
        10_000,
        () => `${handled} of 15`,
      )
      const doneAt = Date.now()
      await until(
        () => consumerStats.some((s) => s.time > doneAt),
        5_000,
        () => 'no consumer.stats after consuming',
      )
      const c = consumerStats.findLast((s) => s.time > doneAt)!
      const byPartition = Object.fromEntries(c.partitions.map((s) => [s.partition, s]))
      expect(byPartition[0]).toMatchObject({ topic: 'stats', highWatermark: '10', position: '10', lag: 0 })
      expect(byPartition[1]).toMatchObject({ topic: 'stats', highWatermark: '5', position: '5', lag: 0 })
      expect(c.groupId).toBe('stats-group')
      const total = c.brokers!.reduce((n, b) => n + b.requests, 0)
      const seen = [...answered.values()].reduce((n, v) => n + v, 0)
      expect(total).toBeGreaterThan(0)
      expect(total).toBeLessThanOrEqual(seen)
      for (const b of c.brokers!) {
        expect(b.latencyMaxMs).toBeGreaterThanOrEqual(b.latencyAvgMs)
        expect(b.inFlight).toBeGreaterThanOrEqual(0)
      }
      await consumer.disconnect()
      // Stopped with the client: no snapshot after disconnect.
      const count = consumerStats.length
      await new Promise((r) => setTimeout(r, 150))
      expect(consumerStats.length).toBe(count)
    } finally {
      dc.unsubscribe('wafka:stats', onChannel)
    }
  })

  it('the option is checked by the options table', () => {
    const kafka = new Kafka({ clientId: 'stats', brokers, logLevel: logLevel.NOTHING })
    expect(() => kafka.consumer({ groupId: 'g', statisticsIntervalMs: -1 })).toThrow(/statisticsIntervalMs/)
    expect(() => kafka.producer({ statisticsIntervalMs: 'x' as never })).toThrow(/statisticsIntervalMs/)
    expect(() => kafka.consumer({ groupId: 'g', statisticsInterval: 5 } as never)).toThrow(/statisticsInterval/)
  })
})
