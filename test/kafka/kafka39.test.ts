// The basics against the newest Kafka 3.9 (what many production clusters
// still run; transactions v1, classic groups): producer codecs read back by
// the Java consumer, a wafka group consuming and committing, admin, and
// consecutive transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, type Consumer, type Kafka, KafkaError, type Producer, ConfigResourceTypes } from '../../src/index.js'
import { javaConsume, javaProduce } from '../peers/java-client.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'
import { until, wafka } from './support.js'

const kafkaOk = requireKafka('3.9')
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

describe.skipIf(!kafkaOk)('against real Kafka 3.9', () => {
  let cluster: KafkaCluster
  let kafka: Kafka
  let admin: Admin
  const producers: Producer[] = []
  const consumers: Consumer[] = []

  beforeAll(async () => {
    cluster = await startKafka({ version: '3.9' })
    kafka = wafka(cluster)
    admin = kafka.admin()
    await admin.connect()
  })
  afterAll(async () => {
    await Promise.allSettled([...producers, ...consumers].map((c) => c.disconnect()))
    await admin?.disconnect()
    await cluster?.stop()
  })

  it("admin: cluster, topics with configs, the broker's error messages", async () => {
    expect(cluster.version).toMatch(/^3\.9\./)
    const d = await admin.describeCluster()
    expect([d.clusterId, d.brokers.map((b) => b.nodeId)]).toEqual([cluster.clusterId, [1]])
    await admin.createTopics({
      topics: [
        { topic: 'codecs', numPartitions: 1 },
        { topic: 'group', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
      ],
    })
    const { resources } = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'group', configNames: ['retention.ms'] }],
    })
    expect(resources[0].configEntries[0].configValue).toBe('3600000')
    const e = await admin.createTopics({ topics: [{ topic: 'rf3', numPartitions: 1, replicationFactor: 3 }] }).then(
      () => null,
      (x: unknown) => x,
    )
    expect(e).toBeInstanceOf(KafkaError)
    expect((e as KafkaError).message).toMatch(/Unable to replicate the partition 3 time\(s\)/)
  })

  it('producer: every codec, read back byte for byte by the Java consumer', async () => {
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
    const expected: Array<{ key: string | null; value: string | null; headers: Array<[string, string | null]> }> = []
    for (const codec of CODECS) {
      const p = kafka.producer({ compression: codec })
      producers.push(p)
      await p.connect()
      const messages = [
        {
          key: null,
          value: `${codec} no key`,
          headers: [
            ['h', 'v'],
            ['h', null],
          ] as Array<[string, string | null]>,
        },
        { key: `${codec}-bin`, value: binary, headers: [] as Array<[string, string | null]> },
        { key: '', value: null, headers: [] as Array<[string, string | null]> },
      ]
      await p.send({ topic: 'codecs', messages: messages.map((m) => ({ ...m, partition: 0 })) })
      await p.disconnect()
      for (const m of messages) {
        expected.push({
          key: m.key === null ? null : Buffer.from(m.key).toString('hex'),
          value: m.value === null ? null : Buffer.from(m.value).toString('hex'),
          headers: m.headers.map(([k, v]) => [k, v === null ? null : Buffer.from(v).toString('hex')]),
        })
      }
    }
    const back = await javaConsume(cluster, 'codecs', { count: expected.length })
    expect(
      back.map((r) => ({
        key: r.key?.toString('hex') ?? null,
        value: r.value?.toString('hex') ?? null,
        headers: r.headers.map(([k, v]) => [k, v?.toString('hex') ?? null]),
      })),
    ).toEqual(expected)
  })

  it('consumer group: a wafka member reads what the Java producer wrote and commits it', async () => {
    const sent = await javaProduce(
      cluster,
      'group',
      Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    )
    expect(sent.every((s) => 'offset' in s)).toBe(true)
    const c = kafka.consumer({ groupId: 'g39', heartbeatIntervalMs: 300, sessionTimeoutMs: 6000, autoCommitIntervalMs: 200 })
    consumers.push(c)
    await c.connect()
    await c.subscribe({ topics: ['group'], fromBeginning: true })
    const seen: string[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      '300 read',
      () => seen.length,
      (n) => n >= 300,
      30_000,
    )
    expect([...seen].sort()).toEqual(Array.from({ length: 300 }, (_, i) => `v${i}`).sort())
    await until(
      'committed',
      async () => (await admin.fetchOffsets({ groupId: 'g39', topics: ['group'] }))[0].partitions.reduce((n, p) => n + Number(p.offset), 0),
      (n) => n === 300,
    )

    const { groups } = await admin.describeGroups(['g39'])
    expect([groups[0].state, groups[0].protocolType, groups[0].members.length]).toEqual(['Stable', 'consumer', 1])
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).toContain('g39')
    await c.disconnect()
    await until(
      'g39 empty',
      async () => (await admin.describeGroups(['g39'])).groups[0].state,
      (s) => s === 'Empty',
    )
    await admin.resetOffsets({ groupId: 'g39', topic: 'group', earliest: true })
    expect((await admin.fetchOffsets({ groupId: 'g39', topics: ['group'] }))[0].partitions.map((p) => p.offset)).toEqual(['0', '0', '0'])
    await admin.deleteGroups(['g39'])
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('g39')
  })

  it('transactions (v1): consecutive commits and aborts on one producer, read_committed by Java', async () => {
    await admin.createTopics({ topics: [{ topic: 'txn39', numPartitions: 1 }] })
    const p = kafka.producer({ transactionalId: 'tx39' })
    producers.push(p)
    await p.connect()
    for (let i = 0; i < 4; i++) {
      const txn = await p.transaction()
      await txn.send({ topic: 'txn39', messages: [{ value: `t${i}` }] })
      if (i === 2) await txn.abort()
      else await txn.commit()
    }
    const back = await javaConsume(cluster, 'txn39', { props: { 'isolation.level': 'read_committed' } })
    expect(back.map((r) => r.value!.toString())).toEqual(['t0', 't1', 't3'])
  })
})
