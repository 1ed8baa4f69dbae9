// statisticsIntervalMs against the embedded broker: the consumer.stats and
// producer.stats events (and the wafka:stats channel) give per-broker
// request counts equal to the requests answered until the snapshot, as the
// client's onRequest and the wafka:request channel saw them, each
// partition's high watermark, position and lag as consumed, and the
// producer's batches holding exactly the records sent.
import * as dc from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, channelNames, logLevel, type ConsumerStatistics, type ProducerStatistics, type RequestContext } from '../../src/index.js'
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
    // Requests answered so far, per client and broker, as two other mechanisms see them: the user's onRequest
    // (which the statistics' listener is composed with) and the wafka:request tracing channel (its context gets
    // `size` when the answer arrives). A snapshot is taken and handed to the stats listener in one tick, so the
    // counts read there are exactly what it covers.
    const told = new Map<string, number>()
    const traced = new Map<string, number>()
    const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1)
    const onTraced = {
      start() {},
      end() {},
      asyncStart() {},
      error() {},
      asyncEnd: (ctx: unknown) => {
        const c = ctx as RequestContext
        if (c.size !== undefined) bump(traced, `${c.clientId} ${c.broker}`)
      },
    }
    dc.tracingChannel(channelNames.request).subscribe(onTraced)
    const client = (clientId: string) =>
      new Kafka({
        clientId,
        brokers,
        logLevel: logLevel.NOTHING,
        onRequest: (e) => void (e.type === 'request' && bump(told, `${clientId} ${e.broker}`)),
      })
    /** A snapshot, and each of its brokers' requests as onRequest and the channel had counted them when it was taken. */
    type Seen<S> = { stats: S; told: number[]; traced: number[] }
    const seen = <S extends ProducerStatistics | ConsumerStatistics>(clientId: string, s: S): Seen<S> => ({
      stats: s,
      told: s.brokers!.map((b) => told.get(`${clientId} ${b.broker}`) ?? 0),
      traced: s.brokers!.map((b) => traced.get(`${clientId} ${b.broker}`) ?? 0),
    })
    const expectExact = (list: Array<Seen<ProducerStatistics | ConsumerStatistics>>) => {
      for (const { stats, told, traced } of list) {
        expect(stats.brokers!.map((b) => b.requests)).toEqual(told)
        expect(stats.brokers!.map((b) => b.requests)).toEqual(traced)
      }
    }
    const published: unknown[] = []
    const onChannel = (m: unknown) => void published.push(m)
    dc.subscribe('wafka:stats', onChannel)
    try {
      const producer = client('stats-producer').producer({ statisticsIntervalMs: 50, lingerMs: 0 })
      const producerStats: Array<Seen<ProducerStatistics>> = []
      producer.on(producer.events.STATS, (e) => void producerStats.push(seen('stats-producer', e.payload)))
      await producer.connect()
      for (const partition of [0, 1, 0]) {
        await producer.send({ topic: 'stats', messages: Array.from({ length: 5 }, (_, i) => ({ value: `v${i}`, partition })) })
        // Each send in a window of its own: the totals run across windows.
        const taken = producerStats.length
        await until(
          () => producerStats.length > taken,
          5_000,
          () => 'no producer.stats after a send',
        )
      }
      const sentAt = Date.now()
      await until(
        () => producerStats.some(({ stats }) => stats.time > sentAt),
        5_000,
        () => 'no producer.stats after the sends',
      )
      const p = producerStats.findLast(({ stats }) => stats.time > sentAt)!.stats
      expect(p.batches).toMatchObject({ batches: 3, records: 15, recordsPerBatchAvg: 5 })
      expect(p.batches.bytesPerBatchMax).toBeGreaterThan(0)
      expect(p.bufferedBytes).toBe(0)
      expect(p.brokers).toHaveLength(1)
      const [broker] = p.brokers!
      expect(broker.broker).toBe(brokers[0])
      await producer.disconnect()
      expect(broker.requests).toBeGreaterThanOrEqual(4) // a Metadata and the three Produce requests at least
      expectExact(producerStats)
      expect(published.some((m) => (m as ProducerStatistics).type === 'producer')).toBe(true)

      const consumer = client('stats-consumer').consumer({ groupId: 'stats-group', autoOffsetReset: 'earliest', statisticsIntervalMs: 50 })
      const consumerStats: Array<Seen<ConsumerStatistics>> = []
      consumer.on(consumer.events.STATS, (e) => void consumerStats.push(seen('stats-consumer', e.payload)))
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
        () => consumerStats.some(({ stats }) => stats.time > doneAt),
        5_000,
        () => 'no consumer.stats after consuming',
      )
      const c = consumerStats.findLast(({ stats }) => stats.time > doneAt)!.stats
      const byPartition = Object.fromEntries(c.partitions.map((s) => [s.partition, s]))
      expect(byPartition[0]).toMatchObject({ topic: 'stats', highWatermark: '10', position: '10', lag: 0 })
      expect(byPartition[1]).toMatchObject({ topic: 'stats', highWatermark: '5', position: '5', lag: 0 })
      expect(c.groupId).toBe('stats-group')
      // Joining a group and fetching 15 records takes a handful of requests at least (FindCoordinator, JoinGroup,
      // SyncGroup, OffsetFetch, Fetch).
      expect(c.brokers!.reduce((n, b) => n + b.requests, 0)).toBeGreaterThanOrEqual(5)
      for (const b of c.brokers!) {
        expect(b.latencyMaxMs).toBeGreaterThanOrEqual(b.latencyAvgMs)
        expect(b.inFlight).toBeGreaterThanOrEqual(0)
      }
      await consumer.disconnect()
      expectExact(consumerStats)
      // Stopped with the client: no snapshot after disconnect.
      const count = consumerStats.length
      await new Promise((r) => setTimeout(r, 150))
      expect(consumerStats.length).toBe(count)
    } finally {
      dc.unsubscribe('wafka:stats', onChannel)
      dc.tracingChannel(channelNames.request).unsubscribe(onTraced)
    }
  })

  it('the option is checked by the options table', () => {
    const kafka = new Kafka({ clientId: 'stats', brokers, logLevel: logLevel.NOTHING })
    expect(() => kafka.consumer({ groupId: 'g', statisticsIntervalMs: -1 })).toThrow(/statisticsIntervalMs/)
    expect(() => kafka.producer({ statisticsIntervalMs: 'x' as never })).toThrow(/statisticsIntervalMs/)
    expect(() => kafka.consumer({ groupId: 'g', statisticsInterval: 5 } as never)).toThrow(/statisticsInterval/)
  })
})
