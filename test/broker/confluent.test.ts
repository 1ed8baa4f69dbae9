// @confluentinc/kafka-javascript (librdkafka 2.15, newer protocol versions
// than kcat's 2.0.2), a client this project did not write,
// against the embedded broker through its KafkaJS-style API: admin (create,
// list, describe and delete topics), produce with every codec librdkafka has,
// idempotent, and a group of two consumers reading everything back exactly once,
// classic and KIP-848 (group.protocol=consumer).
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka as Wafka } from '../../src/index.js'
import { requirePeers } from '../peers/available.js'
import { ckjsDir } from '../peers/build.mjs'
import { compareExactly, received, until, type Received } from './support.js'
import { testMessages } from './messages.js'

type Untyped = any

// Needs the package built by `node test/peers/build.mjs --install` (which the modern mock cluster needs too).
const peers = requirePeers({ builds: ['modern'], kcat: false })
const ckjs: Untyped = peers ? createRequire(join(ckjsDir, 'package.json'))(ckjsDir) : null

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

interface Got {
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
  timestamp: number
}

/** Header order across different names is the KafkaJS-style object's order, so compare them sorted by name. */
const byName = (h: [string, Buffer | null][]) => [...h].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))

describe.skipIf(!peers)('@confluentinc/kafka-javascript (librdkafka 2.15) against the embedded broker', () => {
  let cluster: RunningCluster | undefined
  const clients: Array<{ disconnect(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
    await cluster?.stop()
    cluster = undefined
  })

  const start = async () => {
    cluster = await startCluster({ brokers: 3 })
    return new ckjs.KafkaJS.Kafka({
      kafkaJS: { clientId: 'ckjs-on-wafka', brokers: cluster.bootstrapServers.split(','), logLevel: ckjs.KafkaJS.logLevel.NOTHING },
    })
  }
  const open = async <T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(c: T): Promise<T> => {
    clients.push(c)
    await c.connect()
    return c
  }
  /** A group member (classic unless `kip848`: then group.protocol=consumer, whose session the broker sets). */
  const consume = async (kafka: Untyped, groupId: string, topic: string, into: Got[], kip848 = false) => {
    const consumer = await open(
      kafka.consumer(
        kip848
          ? { kafkaJS: { groupId, fromBeginning: true }, 'group.protocol': 'consumer', 'fetch.wait.max.ms': 100 }
          : { kafkaJS: { groupId, fromBeginning: true, sessionTimeout: 10_000 }, 'fetch.wait.max.ms': 100 },
      ),
    )
    await consumer.subscribe({ topics: [topic] })
    consumer.run({
      eachMessage: async ({ partition, message }: Untyped) => {
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

  it('admin: creates, lists and deletes topics; wafka sees what it made', async () => {
    const kafka = await start()
    const admin = await open(kafka.admin())
    expect(
      await admin.createTopics({
        topics: [
          { topic: 'ck-a', numPartitions: 3 },
          { topic: 'ck-b', numPartitions: 1 },
        ],
      }),
    ).toBe(true)
    expect((await admin.listTopics()).filter((t: string) => t.startsWith('ck-')).sort()).toEqual(['ck-a', 'ck-b'])
    // An existing topic: false, as KafkaJS answers.
    expect(await admin.createTopics({ topics: [{ topic: 'ck-a', numPartitions: 3 }] })).toBe(false)
    const md = await admin.fetchTopicMetadata({ topics: ['ck-a'] })
    expect(md.map((t: Untyped) => t.name)).toEqual(['ck-a'])
    expect(md[0].partitions.map((p: Untyped) => p.partitionId).sort()).toEqual([0, 1, 2])

    const wafka = new Wafka({ clientId: 'after-ckjs', brokers: cluster!.bootstrapServers.split(',') }).admin()
    await wafka.connect()
    try {
      const seen = await wafka.fetchTopicMetadata({ topics: ['ck-a'] })
      expect(seen.topics[0].partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2])
      await admin.deleteTopics({ topics: ['ck-b'] })
      expect((await wafka.listTopics()).filter((t) => t.startsWith('ck-'))).toEqual(['ck-a'])
      expect((await admin.listTopics()).filter((t: string) => t.startsWith('ck-'))).toEqual(['ck-a'])
    } finally {
      await wafka.disconnect()
    }
  })

  it.each(CODECS)(
    '%s: produced by librdkafka (idempotent, acks=all), read back exactly once by a group of two',
    async (codec) => {
      const kafka = await start()
      const admin = await open(kafka.admin())
      const topic = `ck-${codec}`
      await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] })
      // What this client can send: its KafkaJS-style headers carry no null value, and an empty value goes out
      // as a null one (wafka reads the stored record so too, while the Java client's and KafkaJS's empty values stay empty).
      const sent = testMessages(61 + CODECS.indexOf(codec), 300, { nullHeaderValues: false }).map((m) => ({
        ...m,
        value: m.value?.length ? m.value : null,
      }))
      // librdkafka sends a batch uncompressed when compressing would not shrink it (as random bytes would not):
      // compressible ones too, so each codec is written.
      sent.push(
        ...Array.from({ length: 100 }, (_, i) => ({
          key: Buffer.from(`plain-${i}`),
          value: Buffer.from(`${i} `.repeat(500)),
          headers: [] as [string, Buffer | null][],
          timestamp: 1_700_000_000_000 + i,
        })),
      )
      const producer = await open(kafka.producer({ kafkaJS: { idempotent: true, acks: -1 }, 'compression.codec': codec, 'linger.ms': 5 }))
      for (let at = 0; at < sent.length; at += 50)
        await producer.send({
          topic,
          messages: sent.slice(at, at + 50).map((m) => ({
            key: m.key,
            value: m.value,
            timestamp: String(m.timestamp),
            headers: m.headers.reduce<Record<string, Buffer[]>>((h, [k, v]) => ((h[k] ??= []).push(v!), h), {}),
          })),
        })

      const got: Got[][] = [[], []]
      await consume(kafka, `ck-group-${codec}`, topic, got[0])
      await consume(kafka, `ck-group-${codec}`, topic, got[1])
      const total = () => got[0].length + got[1].length
      await until(
        () => total() >= sent.length,
        60_000,
        () => `${total()} of ${sent.length}`,
      )
      // A moment more: anything read twice shows up.
      await new Promise((r) => setTimeout(r, 500))
      expect(
        compareExactly(
          sent.map((m) => ({ ...m, headers: byName(m.headers) })),
          got.flat().map((g) => ({ ...g, offset: BigInt(g.offset), headers: byName(g.headers) })),
        ),
      ).toEqual([])

      // The batches the broker stored carry the codec librdkafka wrote: wafka reads the attributes.
      const wafka = new Wafka({ clientId: 'after-ckjs', brokers: cluster!.bootstrapServers.split(',') })
      const reader = wafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 100 })
      const codecs = new Set<number>()
      const byWafka: Received[] = []
      await reader.connect()
      try {
        reader.assign([{ topic, partitions: [0, 1, 2, 3] }])
        await reader.run({
          eachMessage: async ({ partition, message }) => {
            codecs.add(message.attributes & 0x07)
            byWafka.push(received(partition, message))
          },
        })
        await until(
          () => byWafka.length >= sent.length,
          30_000,
          () => `wafka read ${byWafka.length} of ${sent.length}`,
        )
      } finally {
        await reader.disconnect()
      }
      if (codec === 'none') expect([...codecs]).toEqual([0])
      else expect([...codecs]).toContain(CODECS.indexOf(codec))
      expect(
        compareExactly(
          sent.map((m) => ({ ...m, headers: byName(m.headers) })),
          byWafka.map((g) => ({ ...g, headers: byName(g.headers) })),
        ),
      ).toEqual([])
    },
    120_000,
  )

  it('a KIP-848 group (group.protocol=consumer) of two librdkafka consumers splits the partitions and reads everything once', async () => {
    const kafka = await start()
    const admin = await open(kafka.admin())
    const topic = 'ck-kip848'
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] })
    const got: Got[][] = [[], []]
    await consume(kafka, 'ck-kip848-group', topic, got[0], true)
    await consume(kafka, 'ck-kip848-group', topic, got[1], true)
    // Both members own partitions, as wafka's admin describes the group (ConsumerGroupDescribe).
    const wafka = new Wafka({ clientId: 'after-ckjs', brokers: cluster!.bootstrapServers.split(',') }).admin()
    await wafka.connect()
    try {
      await until(
        async () => {
          // GROUP_ID_NOT_FOUND until the first member's heartbeat made the group (as Kafka 4 answers): not yet.
          const notYet = (e: { type?: string }) => (e?.type === 'GROUP_ID_NOT_FOUND' ? null : Promise.reject(e))
          const g = (await wafka.describeGroups(['ck-kip848-group']).catch(notYet))?.groups[0]
          if (!g) return false
          return g.groupType === 'consumer' && g.members.length === 2 && g.members.every((m) => (m.assignment ?? []).length > 0)
        },
        60_000,
        () => 'a KIP-848 group of two, each owning partitions',
      )
      const producer = await open(kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } }))
      const sent = testMessages(71, 200, { nullHeaderValues: false })
        .filter((m) => m.key !== null && m.value?.length)
        .map((m) => ({ ...m, headers: [] as [string, Buffer | null][] }))
      await producer.send({ topic, messages: sent.map((m) => ({ key: m.key, value: m.value, timestamp: String(m.timestamp) })) })
      const total = () => got[0].length + got[1].length
      await until(
        () => total() >= sent.length,
        60_000,
        () => `${total()} of ${sent.length}`,
      )
      await new Promise((r) => setTimeout(r, 500))
      expect(
        compareExactly(
          sent,
          got.flat().map((g) => ({ ...g, offset: BigInt(g.offset) })),
        ),
      ).toEqual([])
      const owned = got.map((g) => new Set(g.map((m) => m.partition)))
      for (const p of owned[0]) expect(owned[1].has(p)).toBe(false)
    } finally {
      await wafka.disconnect()
    }
  }, 120_000)
})
