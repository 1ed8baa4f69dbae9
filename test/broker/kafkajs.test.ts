// KafkaJS 2.2.4, a client this project did not write (its own, older
// protocol versions: Produce v7, Fetch v11, JoinGroup v5, non-flexible),
// against the embedded broker: admin, produce with every codec it has,
// a consumer group of two.
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import { CompressionCodecs, CompressionTypes, Kafka, logLevel, type Consumer, type Producer, type Admin } from 'kafkajs'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { compareExactly, until } from './support.js'
import { testMessages } from './messages.js'

const require = createRequire(import.meta.url)
CompressionCodecs[CompressionTypes.Snappy] = require('kafkajs-snappy')
CompressionCodecs[CompressionTypes.LZ4] = new (require('kafkajs-lz4'))().codec

const CODECS = [
  ['none', CompressionTypes.None],
  ['gzip', CompressionTypes.GZIP],
  ['snappy', CompressionTypes.Snappy],
  ['lz4', CompressionTypes.LZ4],
] as const

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
  await cluster?.stop()
  cluster = undefined
})

async function start(brokers = 3): Promise<Kafka> {
  cluster = await startCluster({ brokers })
  return new Kafka({
    clientId: 'kafkajs-on-wafka',
    brokers: cluster.bootstrapServers.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 100 },
  })
}

async function open<T extends Producer | Consumer | Admin>(c: T): Promise<T> {
  clients.push(c)
  await c.connect()
  return c
}

interface Got {
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
  timestamp: number
}

async function consume(kafka: Kafka, groupId: string, topic: string, into: Got[]): Promise<Consumer> {
  const consumer = await open(kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 }))
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      // KafkaJS gives headers as an object: a repeated name becomes an array of its values, in order.
      const headers: [string, Buffer | null][] = []
      for (const [k, v] of Object.entries(message.headers ?? {}))
        for (const one of Array.isArray(v) ? v : [v]) headers.push([k, (one as Buffer | undefined) ?? null])
      into.push({
        partition,
        offset: message.offset,
        key: message.key,
        value: message.value,
        headers,
        timestamp: Number(message.timestamp),
      })
    },
  })
  return consumer
}

describe('KafkaJS 2.2.4 against the embedded broker', () => {
  it('admin: creates, lists, describes and deletes topics; fetches offsets', async () => {
    const kafka = await start()
    const admin = await open(kafka.admin())
    expect(await admin.createTopics({ topics: [{ topic: 'kjs-a', numPartitions: 3 }, { topic: 'kjs-b' }] })).toBe(true)
    expect((await admin.listTopics()).sort()).toEqual(['kjs-a', 'kjs-b'])
    const md = await admin.fetchTopicMetadata({ topics: ['kjs-a'] })
    expect(md.topics[0].partitions.length).toBe(3)
    await admin.createPartitions({ topicPartitions: [{ topic: 'kjs-a', count: 5 }] })
    expect((await admin.fetchTopicOffsets('kjs-a')).length).toBe(5)
    const cfg = await admin.describeConfigs({
      resources: [{ type: 2, name: 'kjs-a', configNames: ['cleanup.policy'] }],
      includeSynonyms: false,
    })
    expect(cfg.resources[0].configEntries.map((c) => [c.configName, c.configValue])).toEqual([['cleanup.policy', 'delete']])
    const described = await admin.describeCluster()
    expect(described.brokers.length).toBe(3)
    await admin.deleteTopics({ topics: ['kjs-b'] })
    expect(await admin.listTopics()).toEqual(['kjs-a'])
  })

  it.each(CODECS)('%s: produced by KafkaJS, consumed by a KafkaJS group exactly', async (name, codec) => {
    const kafka = await start()
    const admin = await open(kafka.admin())
    const topic = `kjs-${name}`
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })
    // KafkaJS cannot write a null header value.
    const sent = testMessages(31 + codec, 200, { nullHeaderValues: false })
    const producer = await open(kafka.producer({ idempotent: codec % 2 === 0, maxInFlightRequests: 1 }))
    for (let at = 0; at < sent.length; at += 40) {
      await producer.send({
        topic,
        compression: codec,
        acks: -1,
        messages: sent.slice(at, at + 40).map((m) => ({
          key: m.key,
          value: m.value,
          timestamp: String(m.timestamp),
          // Object headers: a repeated name as an array, which KafkaJS writes in order.
          headers: m.headers.reduce<Record<string, Buffer[]>>((h, [k, v]) => ((h[k] ??= []).push(v!), h), {}),
        })),
      })
    }
    const got: Got[] = []
    await consume(kafka, `kjs-group-${name}`, topic, got)
    await until(
      () => got.length >= sent.length,
      30_000,
      () => `${got.length} of ${sent.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    // Header order across different names is KafkaJS's object order, so compare them sorted by name.
    const byName = (h: [string, Buffer | null][]) => [...h].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    expect(
      compareExactly(
        sent.map((m) => ({ ...m, headers: byName(m.headers) })),
        got.map((g) => ({ ...g, headers: byName(g.headers) })),
      ),
    ).toEqual([])
  })

  it('a group of two KafkaJS consumers splits the partitions and commits', async () => {
    const kafka = await start()
    const admin = await open(kafka.admin())
    await admin.createTopics({ topics: [{ topic: 'kjs-g', numPartitions: 4 }] })
    const got: Got[][] = [[], []]
    await consume(kafka, 'kjs-two', 'kjs-g', got[0])
    await consume(kafka, 'kjs-two', 'kjs-g', got[1])
    await until(
      async () => {
        const { groups } = await admin.describeGroups(['kjs-two'])
        return (
          groups[0].state === 'Stable' && groups[0].members.length === 2 && groups[0].members.every((m) => m.memberAssignment.length > 0)
        )
      },
      30_000,
      () => 'a stable group of two',
    )
    const producer = await open(kafka.producer())
    // Without headers: keyed ones only, which the key tells apart.
    const sent = testMessages(41, 100)
      .filter((m) => m.key !== null)
      .map((m) => ({ ...m, headers: [] as [string, Buffer | null][] }))
    await producer.send({ topic: 'kjs-g', messages: sent.map((m) => ({ key: m.key, value: m.value, timestamp: String(m.timestamp) })) })
    const total = () => got[0].length + got[1].length
    await until(
      () => total() >= sent.length,
      30_000,
      () => `${total()} of ${sent.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(compareExactly(sent, got.flat())).toEqual([])
    const parts = got.map((g) => new Set(g.map((m) => m.partition)))
    expect(parts[0].size).toBeGreaterThan(0)
    expect(parts[1].size).toBeGreaterThan(0)
    for (const p of parts[0]) expect(parts[1].has(p)).toBe(false)
    await Promise.all(clients.filter((c) => c !== admin && c !== producer).map((c) => c.disconnect()))
    const offsets = await admin.fetchOffsets({ groupId: 'kjs-two', topics: ['kjs-g'] })
    const ends = await admin.fetchTopicOffsets('kjs-g')
    expect(offsets[0].partitions.map((p) => [p.partition, p.offset]).sort()).toEqual(ends.map((e) => [e.partition, e.offset]).sort())
  })
})
