// wafka's own producer, consumer and admin against the embedded broker.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, type Consumer, type Producer } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Controller } from '../../src/broker/controller.js'
import { compareExactly, received, until, type Received } from './support.js'
import { testMessages } from './messages.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
  await cluster?.stop()
  cluster = undefined
})

async function start(topics: { name: string; partitions?: number }[] = [], brokers = 3) {
  cluster = await startCluster({ brokers, topics })
  return new Kafka({ clientId: 'wafka-broker-test', brokers: cluster.bootstrapServers.split(',') })
}

async function connected<T extends Producer | Consumer>(c: T): Promise<T> {
  clients.push(c)
  await c.connect()
  return c
}

/** Runs a group consumer collecting into `into`. */
async function consume(kafka: Kafka, groupId: string, topic: string, into: Received[]): Promise<Consumer> {
  const consumer = await connected(kafka.consumer({ groupId, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 }))
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({ eachMessage: async ({ partition, message }) => void into.push(received(partition, message)) })
  return consumer
}

describe('wafka producer and consumer', () => {
  it.each(CODECS)('%s: every message back exactly, each partition in send order', async (compression) => {
    const topic = `codec-${compression}`
    const kafka = await start([{ name: topic, partitions: 3 }])
    const sent = testMessages(CODECS.indexOf(compression) + 1, 400)
    const producer = await connected(kafka.producer({ compression }))
    for (let at = 0; at < sent.length; at += 50) {
      const meta = await producer.send({
        topic,
        messages: sent.slice(at, at + 50).map((m) => ({ key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })),
      })
      for (const r of meta) expect(r.errorCode).toBe(0)
    }
    const got: Received[] = []
    await consume(kafka, `g-${compression}`, topic, got)
    await until(
      () => got.length >= sent.length,
      30_000,
      () => `${got.length} of ${sent.length} read`,
    )
    await new Promise((r) => setTimeout(r, 200)) // anything extra would show up now
    expect(compareExactly(sent, got)).toEqual([])
  })

  it('a group of three: disjoint assignment covering every partition, each message once, commits honoured', async () => {
    const topic = 'grouped'
    const kafka = await start([{ name: topic, partitions: 6 }])
    const admin = kafka.admin()
    clients.push(admin)
    await admin.connect()
    const got: Received[][] = [[], [], []]
    const members = await Promise.all(got.map((into) => consume(kafka, 'three', topic, into)))
    await until(
      async () => {
        const {
          groups: [g],
        } = await admin.describeGroups(['three'])
        return g.state === 'Stable' && g.members.length === 3 && g.members.every((m) => m.memberAssignment.length > 0)
      },
      30_000,
      () => 'a stable group of three',
    )
    const producer = await connected(kafka.producer())
    const sent = testMessages(7, 600)
    await producer.send({ topic, messages: sent.map((m) => ({ key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })) })
    const total = () => got.reduce((n, g) => n + g.length, 0)
    await until(
      () => total() >= sent.length,
      30_000,
      () => `${total()} of ${sent.length} read`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(compareExactly(sent, got.flat())).toEqual([])
    const owned = got.map((g) => new Set(g.map((m) => m.partition)))
    for (const s of owned) expect(s.size).toBeGreaterThan(0)
    const all = owned.flatMap((s) => [...s])
    expect(new Set(all).size).toBe(all.length) // disjoint
    await Promise.all(members.map((m) => m.disconnect()))
    const offsets = await admin.fetchOffsets({ groupId: 'three', topics: [topic] })
    const ends = await admin.fetchTopicOffsets(topic)
    const committed = new Map(offsets[0].partitions.map((p) => [p.partition, String(p.offset)]))
    for (const e of ends) expect(committed.get(e.partition)).toBe(String(e.offset))
    // A new member starts where the group left off: only what came after.
    const more = testMessages(8, 30)
    await producer.send({ topic, messages: more.map((m) => ({ key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })) })
    const after: Received[] = []
    await consume(kafka, 'three', topic, after)
    await until(
      () => after.length >= more.length,
      30_000,
      () => `${after.length} of ${more.length} read after the restart`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(compareExactly(more, after)).toEqual([])
  })
})

describe('wafka admin', () => {
  it('creates, describes, grows and deletes topics; describes the cluster and groups', async () => {
    const kafka = await start([], 3)
    const admin = kafka.admin()
    clients.push(admin)
    await admin.connect()
    await admin.createTopics({
      topics: [
        { topic: 'a', numPartitions: 4, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: '1000' }] },
        { topic: 'b' },
      ],
    })
    expect((await admin.listTopics()).sort()).toEqual(['a', 'b'])
    const md = await admin.fetchTopicMetadata({ topics: ['a'] })
    expect(md.topics[0].partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2, 3])
    expect(new Set(md.topics[0].partitions.map((p) => p.leader))).toEqual(new Set([0, 1, 2]))
    // KafkaJS's contract: false when the topic was there already.
    expect(await admin.createTopics({ topics: [{ topic: 'a' }] })).toBe(false)
    const configs = await admin.describeConfigs({ resources: [{ type: 2, name: 'a', configNames: ['retention.ms', 'cleanup.policy'] }] })
    const entries = new Map(
      configs.resources[0].configEntries.map((c: { configName: string; configValue: string }) => [c.configName, c.configValue]),
    )
    expect(entries).toEqual(
      new Map([
        ['retention.ms', '1000'],
        ['cleanup.policy', 'delete'],
      ]),
    )
    await admin.createPartitions({ topicPartitions: [{ topic: 'a', count: 6 }] })
    expect((await admin.fetchTopicMetadata({ topics: ['a'] })).topics[0].partitions.length).toBe(6)
    const described = await admin.describeCluster()
    expect(described.brokers.map((b: { nodeId: number }) => b.nodeId).sort()).toEqual([0, 1, 2])
    await admin.alterConfigs({
      resources: [
        {
          type: 2,
          name: 'a',
          configEntries: [
            { name: 'retention.ms', value: '5000' },
            { name: 'max.message.bytes', operation: 'DELETE' },
          ],
        },
      ],
    })
    const altered = await admin.describeConfigs({ resources: [{ type: 2, name: 'a', configNames: ['retention.ms'] }] })
    expect(altered.resources[0].configEntries.map((c: { configValue: string }) => c.configValue)).toEqual(['5000'])
    await expect(
      admin.alterConfigs({ resources: [{ type: 2, name: 'a', configEntries: [{ name: 'no.such.config', value: '1' }] }] }),
    ).rejects.toThrow(/INVALID_CONFIG|Unknown topic config/)
    await admin.deleteTopics({ topics: ['a'] })
    expect(await admin.listTopics()).toEqual(['b'])

    const producer = await connected(kafka.producer())
    await producer.send({ topic: 'b', messages: [{ value: 'x' }] })
    const got: Received[] = []
    const consumer = await consume(kafka, 'listed', 'b', got)
    await until(
      () => got.length === 1,
      20_000,
      () => 'the message',
    )
    expect((await admin.listGroups()).groups.map((g: { groupId: string }) => g.groupId)).toEqual(['listed'])
    await expect(admin.deleteGroups(['listed'])).rejects.toThrow(/NON_EMPTY_GROUP|not empty/i)
    await consumer.disconnect()
    await admin.deleteGroups(['listed'])
    expect((await admin.listGroups()).groups).toEqual([])
  })
})

describe('records and offsets', () => {
  it('deleteRecords moves the low watermark: earlier records are gone for consumers and ListOffsets', async () => {
    const kafka = await start([{ name: 'd', partitions: 1 }])
    const producer = await connected(kafka.producer())
    for (let i = 0; i < 5; i++) await producer.send({ topic: 'd', messages: [{ value: `r${i}` }] })
    const admin = kafka.admin()
    clients.push(admin)
    await admin.deleteRecords({ topic: 'd', partitions: [{ partition: 0, offset: 3 }] })
    expect(await admin.fetchTopicOffsets('d')).toMatchObject([{ partition: 0, low: '3', high: '5' }])
    const got: Received[] = []
    await consume(kafka, 'after-delete', 'd', got)
    await until(
      () => got.length >= 2,
      20_000,
      () => `${got.length} of 2`,
    )
    await new Promise((r) => setTimeout(r, 200))
    expect(got.map((m) => m.value?.toString())).toEqual(['r3', 'r4'])
  })
})

describe('cluster controls', () => {
  it('moveLeader (replication factor 1): the partition moves with its data; the producer follows the new leader', async () => {
    const kafka = await start([{ name: 'm', partitions: 1, replicationFactor: 1 }])
    const producer = await connected(kafka.producer())
    await producer.send({ topic: 'm', messages: [{ value: 'before' }] })
    const before = cluster!.metadataLog.filter((r) => r.type === 'partition-change').length
    const admin = kafka.admin()
    clients.push(admin)
    const leader = (await admin.fetchTopicMetadata({ topics: ['m'] })).topics[0].partitions[0].leader
    cluster!.moveLeader('m', 0, (leader + 1) % 3)
    expect(cluster!.metadataLog.filter((r) => r.type === 'partition-change').length).toBe(before + 1)
    await producer.send({ topic: 'm', messages: [{ value: 'after' }] })
    const got: Received[] = []
    await consume(kafka, 'mover', 'm', got)
    await until(
      () => got.length >= 2,
      20_000,
      () => `${got.length} of 2`,
    )
    expect(got.map((m) => [m.offset, m.value?.toString()])).toEqual([
      [0n, 'before'],
      [1n, 'after'],
    ])
    expect((await admin.fetchTopicMetadata({ topics: ['m'] })).topics[0].partitions[0]).toMatchObject({
      leader: (leader + 1) % 3,
      isr: [(leader + 1) % 3],
    })
  })

  it('stopBroker / startBroker (replication factor 1): its partitions lose their leader, then get it back with their data', async () => {
    const kafka = await start([{ name: 's', partitions: 3, replicationFactor: 1 }])
    const producer = await connected(kafka.producer())
    await producer.send({ topic: 's', messages: [0, 1, 2].map((p) => ({ value: `p${p}`, partition: p })) })
    const admin = kafka.admin()
    clients.push(admin)
    const leaderOf0 = (await admin.fetchTopicMetadata({ topics: ['s'] })).topics[0].partitions.find((p) => p.partitionId === 0)!.leader
    await cluster!.stopBroker(leaderOf0)
    expect(cluster!.brokers[leaderOf0].running).toBe(false)
    const during = (await admin.fetchTopicMetadata({ topics: ['s'] })).topics[0].partitions.find((p) => p.partitionId === 0)!
    expect(during.leader).toBe(-1)
    await cluster!.startBroker(leaderOf0)
    await producer.send({ topic: 's', messages: [{ value: 'back', partition: 0 }] })
    const got: Received[] = []
    await consume(kafka, 'restarted', 's', got)
    await until(
      () => got.length >= 4,
      20_000,
      () => `${got.length} of 4`,
    )
    expect(got.filter((m) => m.partition === 0).map((m) => m.value?.toString())).toEqual(['p0', 'back'])
  })

  it('injectError: the next N requests of an API get the code; the producer retries through a retriable one', async () => {
    const kafka = await start([{ name: 'e', partitions: 1 }])
    const producer = await connected(kafka.producer())
    await producer.send({ topic: 'e', messages: [{ value: 'warm' }] })
    cluster!.injectError(0, 6, 2) // Produce: NOT_LEADER_OR_FOLLOWER twice
    const [meta] = await producer.send({ topic: 'e', messages: [{ value: 'through' }] })
    expect(meta.baseOffset).toBe('1')
    cluster!.injectError(0, 87, 1) // INVALID_RECORD: not retriable
    await expect(producer.send({ topic: 'e', messages: [{ value: 'refused' }] })).rejects.toThrow(/INVALID_RECORD/)
  })

  it('the metadata log replays to the same image', async () => {
    await start([
      { name: 'r1', partitions: 2 },
      { name: 'r2', partitions: 3 },
    ])
    cluster!.moveLeader('r1', 1, 2)
    await cluster!.stopBroker(1)
    const replayed = Controller.replay(cluster!.metadataLog)
    const image = (c: Controller) => ({
      brokers: [...c.brokers.values()],
      topics: [...c.topics.values()].map((t) => ({ ...t, configs: [...t.configs] })),
    })
    const live = Controller.replay([]) // an empty log is an empty image
    expect(image(live)).toEqual({ brokers: [], topics: [] })
    expect(JSON.parse(JSON.stringify(cluster!.metadataLog))).toEqual(cluster!.metadataLog) // plain data, persistable
    const r = image(replayed)
    expect(r.brokers.find((b) => b.id === 1)?.fenced).toBe(true)
    expect(r.topics.find((t) => t.name === 'r1')!.partitions[1].leader).toBe(2)
    expect(r.topics.map((t) => t.partitions.length)).toEqual([2, 3])
  })
})
