// The embedded broker's options as Kafka users give them: startCluster()
// refuses an unknown option by name with the nearest valid one (the client's
// mechanism, a ConfigError), and DescribeConfigs on a broker reports the
// values the cluster acts on, with their source (DEFAULT_CONFIG when left
// out, STATIC_BROKER_CONFIG when given).
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { ConfigError } from '../../src/errors.js'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { CreateTopics, DescribeConfigs, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { brokerConfigs } from './support.js'

const DEFAULT = 5
const STATIC = 4

const open: Array<{ stop(): unknown; close?: never } | RawClient> = []
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await ('request' in o ? (o as RawClient).close() : (o as RunningCluster).stop())
})

async function start(options: StartClusterOptions): Promise<{ cluster: RunningCluster; client: RawClient }> {
  const cluster = await startCluster(options)
  open.push(cluster)
  const client = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  open.push(client)
  return { cluster, client }
}

describe('startCluster options', () => {
  it('refuses an unknown option by name, with the nearest valid one, as the client does', async () => {
    const error = await startCluster({ brokrs: 3 } as StartClusterOptions).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(/^unknown startCluster option brokrs: did you mean brokers\?/)
    const far = await startCluster({ nothingLikeIt: 1 } as StartClusterOptions).catch((e) => e)
    expect(far).toBeInstanceOf(ConfigError)
    expect(far.message).toMatch(/^unknown startCluster option nothingLikeIt \(valid: brokers, port, /)
  })

  it('refuses a value out of its bounds or of the wrong kind, naming the option and its Kafka name', async () => {
    const e1 = await startCluster({ defaultPartitions: 0 }).catch((e) => e)
    expect(e1).toBeInstanceOf(ConfigError)
    expect(e1.message).toBe('startCluster option defaultPartitions must be an integer from 1 to 10000, not 0 (Kafka: num.partitions)')
    const e2 = await startCluster({ brokers: 2, defaultReplicationFactor: 3 }).catch((e) => e)
    expect(e2.message).toMatch(/defaultReplicationFactor \(default\.replication\.factor\) is 3, more than the 2 broker\(s\)/)
    const e3 = await startCluster({ autoCreateTopics: 'no' as unknown as boolean }).catch((e) => e)
    expect(e3.message).toMatch(/autoCreateTopics must be true or false/)
  })
})

describe('DescribeConfigs on a broker reports what the cluster does', () => {
  it('on 3 brokers: default.replication.factor 3 (what an auto-created topic gets), the other defaults as in force', async () => {
    const { client } = await start({ brokers: 3 })
    const configs = await brokerConfigs(client)
    expect(configs['default.replication.factor']).toEqual(['3', DEFAULT])
    expect(configs['num.partitions']).toEqual(['1', DEFAULT])
    expect(configs['auto.create.topics.enable']).toEqual(['true', DEFAULT])
    expect(configs['min.insync.replicas']).toEqual(['1', DEFAULT])
    expect(configs['offsets.topic.replication.factor']).toEqual(['3', DEFAULT])
    expect(configs['transaction.state.log.replication.factor']).toEqual(['3', DEFAULT])
    expect(configs['transaction.state.log.min.isr']).toEqual(['2', DEFAULT])
    expect(configs['group.initial.rebalance.delay.ms']).toEqual(['0', DEFAULT])
    expect(configs['log.segment.bytes']).toEqual(['1073741824', DEFAULT])
    expect(configs['log.retention.ms']).toEqual(['604800000', DEFAULT])
    // An auto-created topic gets what the broker reports.
    const md = await client.request(Metadata, 12, { topics: [{ topicId: null, name: 'auto' }], allowAutoTopicCreation: true })
    expect(md.topics[0].errorCode).toBe(0)
    const after = await client.request(Metadata, 12, { topics: [{ topicId: null, name: 'auto' }], allowAutoTopicCreation: false })
    expect(after.topics[0].partitions.map((p) => p.replicaNodes.length)).toEqual([3])
  })

  it('options given are STATIC_BROKER_CONFIG, with their values', async () => {
    const { client } = await start({ brokers: 2, defaultPartitions: 4, defaultReplicationFactor: 1, autoCreateTopics: false })
    const configs = await brokerConfigs(client, '1')
    expect(configs['num.partitions']).toEqual(['4', STATIC])
    expect(configs['default.replication.factor']).toEqual(['1', STATIC])
    expect(configs['auto.create.topics.enable']).toEqual(['false', STATIC])
    expect(configs['offsets.topic.replication.factor']).toEqual(['2', DEFAULT])
    const created = await client.request(CreateTopics, 7, {
      topics: [{ name: 'c', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    })
    expect([created.topics[0].numPartitions, created.topics[0].replicationFactor]).toEqual([4, 1])
  })
})

async function topicConfigs(client: RawClient, topic: string): Promise<Record<string, [string | null, number]>> {
  const res = await client.request(DescribeConfigs, 4, {
    resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false,
  })
  return Object.fromEntries(res.results[0].configs.map((c) => [c.name, [c.value, c.configSource]]))
}

describe("the broker's log.* options are its topics' defaults", () => {
  it("a topic without its own value takes the broker's (STATIC_BROKER_CONFIG), acts on it, and its own value wins", async () => {
    const { client } = await start({
      brokers: 2,
      defaultReplicationFactor: 1,
      minInsyncReplicas: 2,
      logSegmentBytes: 2_000_000,
      logRetentionMs: 3_600_000,
      logRetentionBytes: 5_000_000,
      logCleanupPolicy: 'compact,delete',
      uncleanLeaderElectionEnable: true,
      topics: [{ name: 'plain' }, { name: 'own', configs: { 'min.insync.replicas': '1', 'retention.ms': '1000' } }],
    })
    const plain = await topicConfigs(client, 'plain')
    expect(plain['min.insync.replicas']).toEqual(['2', STATIC])
    expect(plain['segment.bytes']).toEqual(['2000000', STATIC])
    expect(plain['retention.ms']).toEqual(['3600000', STATIC])
    expect(plain['retention.bytes']).toEqual(['5000000', STATIC])
    expect(plain['cleanup.policy']).toEqual(['compact,delete', STATIC])
    expect(plain['unclean.leader.election.enable']).toEqual(['true', STATIC])
    expect(plain['max.message.bytes']).toEqual(['1048588', DEFAULT])
    const own = await topicConfigs(client, 'own')
    expect(own['min.insync.replicas']).toEqual(['1', 1])
    expect(own['retention.ms']).toEqual(['1000', 1])
    // The broker's (dynamic-capable) configs show the static values too, not Kafka's defaults.
    const broker = await brokerConfigs(client)
    expect(broker['min.insync.replicas']).toEqual(['2', STATIC])
    expect(broker['log.cleanup.policy']).toEqual(['compact,delete', STATIC])
    // min.insync.replicas 2 on a topic of one replica: acks=all is refused, as Kafka does; the topic's own 1 takes it.
    const produce = async (topic: string) => {
      const md = await client.request(Metadata, 12, { topics: [{ topicId: null, name: topic }], allowAutoTopicCreation: false })
      const leader = md.topics[0].partitions[0].leaderId
      const b = md.brokers.find((x) => x.nodeId === leader)!
      const to = await RawClient.open(`${b.host}:${b.port}`)
      open.push(to)
      const res = await to.request(Produce, 9, {
        acks: -1,
        timeoutMs: 2000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch([{ key: 'k', value: 'v' }]) }] }],
      })
      return res.responses[0].partitionResponses[0].errorCode
    }
    expect(await produce('plain')).toBe(ErrorCodes.NOT_ENOUGH_REPLICAS)
    expect(await produce('own')).toBe(ErrorCodes.NONE)
  })

  it("log.flush.* given by Kafka's names are the topics' flush.messages / flush.ms, reported as STATIC_BROKER_CONFIG", async () => {
    const { client } = await start({
      config: { 'log.flush.interval.messages': '10', 'log.flush.interval.ms': '2000', 'log.flush.scheduler.interval.ms': '500' },
      topics: [{ name: 'flushed' }],
    })
    const t = await topicConfigs(client, 'flushed')
    expect(t['flush.messages']).toEqual(['10', STATIC])
    expect(t['flush.ms']).toEqual(['2000', STATIC])
  })

  it("log.flush.interval.ms unset is derived from log.flush.scheduler.interval.ms, reported as Kafka 4.4 does: the topic's flush.ms the derived value (DEFAULT_CONFIG), the broker's log.flush.interval.ms null (DEFAULT_CONFIG)", async () => {
    // Kafka 4.4 with log.flush.scheduler.interval.ms=500 alone answers exactly these (seen: DescribeConfigs v4 on one broker).
    const { client } = await start({ config: { 'log.flush.scheduler.interval.ms': '500' }, topics: [{ name: 'derived' }] })
    const t = await topicConfigs(client, 'derived')
    expect(t['flush.ms']).toEqual(['500', DEFAULT])
    expect(t['flush.messages']).toEqual(['9223372036854775807', DEFAULT])
    const broker = await brokerConfigs(client)
    expect(broker['log.flush.interval.ms']).toEqual([null, DEFAULT])
    expect(broker['log.flush.scheduler.interval.ms']).toEqual(['500', STATIC])
    // Neither set: flush.ms is never, as Kafka's Long.MAX.
    const { client: plain } = await start({ topics: [{ name: 'plain' }] })
    expect((await topicConfigs(plain, 'plain'))['flush.ms']).toEqual(['9223372036854775807', DEFAULT])
    expect((await brokerConfigs(plain))['log.flush.interval.ms']).toEqual([null, DEFAULT])
  })

  it('advertisedHost is the host clients are given; the listener binds host', async () => {
    const { client } = await start({ host: '0.0.0.0', advertisedHost: 'localhost' })
    const md = await client.request(Metadata, 12, { topics: [], allowAutoTopicCreation: false })
    expect(md.brokers.map((b) => b.host)).toEqual(['localhost'])
    const { cluster } = await start({ host: '0.0.0.0' })
    expect(cluster.bootstrapServers).toMatch(/^127\.0\.0\.1:\d+$/)
  })
})
