// The embedded broker's admin APIs at the protocol level, through a bare
// socket, answered as Apache Kafka 4.4's controller answers them (librdkafka's
// 0081_admin runs each family): CreatePartitions with replica assignments,
// the legacy AlterConfigs, DescribeConfigs of groups, the SCRAM credential
// APIs (and a user they create authenticating).
import { Buffer } from 'node:buffer'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ZERO_UUID } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  AlterConfigs,
  AlterUserScramCredentials,
  ApiVersions,
  ConsumerGroupHeartbeat,
  CreatePartitions,
  DeleteTopics,
  DescribeConfigs,
  DescribeUserScramCredentials,
  IncrementalAlterConfigs,
  Metadata,
} from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator } from './support.js'

let cluster: RunningCluster
let client: RawClient

beforeEach(async () => {
  cluster = await startCluster({ brokers: 3, topics: [{ name: 't', partitions: 2, replicationFactor: 2 }] })
  client = await RawClient.open(cluster.bootstrapServers.split(',')[0])
})
const dataDirs: string[] = []
afterEach(async () => {
  client.close()
  await cluster.stop()
  for (const d of dataDirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function replicasOf(topic: string): Promise<number[][]> {
  const md = await client.request(Metadata, 12, { topics: [{ name: topic }], allowAutoTopicCreation: false })
  return md.topics[0].partitions.map((p) => p.replicaNodes)
}

describe('CreatePartitions with replica assignments', () => {
  const grow = (topics: Array<{ name: string; count: number; assignments: number[][] | null }>, validateOnly = false) =>
    client.request(CreatePartitions, 3, {
      topics: topics.map((t) => ({ ...t, assignments: t.assignments?.map((brokerIds) => ({ brokerIds })) ?? null })),
      timeoutMs: 5000,
      validateOnly,
    })

  it('places the new partitions on the replicas asked for, the first leading', async () => {
    const res = await grow([
      {
        name: 't',
        count: 4,
        assignments: [
          [2, 0],
          [1, 2],
        ],
      },
    ])
    expect(res.results).toEqual([expect.objectContaining({ name: 't', errorCode: ErrorCodes.NONE })])
    expect((await replicasOf('t')).slice(2)).toEqual([
      [2, 0],
      [1, 2],
    ])
    const md = await client.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })
    expect(md.topics[0].partitions.slice(2).map((p) => p.leaderId)).toEqual([2, 1])
  })

  it("refuses what Kafka's controller refuses, with INVALID_REPLICA_ASSIGNMENT and its reasons", async () => {
    const cases: Array<[number[][], RegExp]> = [
      [[[0, 1]], /Attempted to add 2 additional partition\(s\), but only 1 assignment\(s\) were specified/],
      [
        [
          [0, 1],
          [1, 7],
        ],
        /includes broker 7, but no such broker is registered/,
      ],
      [
        [
          [0, 1],
          [1, 1],
        ],
        /includes the broker 1 more than once/,
      ],
      [[[0, 1], [2]], /partition with 1 replica\(s\), but this is not consistent with previous partitions, which have 2/],
      [[[0, 1], []], /empty replica list/],
    ]
    for (const [assignments, why] of cases) {
      const res = await grow([{ name: 't', count: 4, assignments }])
      expect(res.results[0]).toMatchObject({ errorCode: ErrorCodes.INVALID_REPLICA_ASSIGNMENT, errorMessage: expect.stringMatching(why) })
    }
    expect(await replicasOf('t')).toHaveLength(2)
  })

  it('checks without changing under validateOnly, and refuses a topic named twice', async () => {
    const res = await grow([{ name: 't', count: 3, assignments: [[1, 2]] }], true)
    expect(res.results[0].errorCode).toBe(ErrorCodes.NONE)
    expect(await replicasOf('t')).toHaveLength(2)
    const twice = await grow([
      { name: 't', count: 3, assignments: null },
      { name: 't', count: 4, assignments: null },
    ])
    expect(twice.results).toEqual([expect.objectContaining({ name: 't', errorCode: ErrorCodes.INVALID_REQUEST })])
    expect(await replicasOf('t')).toHaveLength(2)
  })
})

const TOPIC = 2
const BROKER = 4
const GROUP = 32

async function describe_(resourceType: number, resourceName: string, keys: string[] | null = null) {
  const res = await client.request(DescribeConfigs, 4, {
    resources: [{ resourceType, resourceName, configurationKeys: keys }],
    includeSynonyms: false,
    includeDocumentation: false,
  })
  return res.results[0]
}
const valuesOf = (r: { configs: Array<{ name: string; value: string | null; configSource: number }> }) =>
  Object.fromEntries(r.configs.map((c) => [c.name, [c.value, c.configSource]]))

describe('legacy AlterConfigs', () => {
  const alter = (
    resources: Array<{ resourceType: number; resourceName: string; configs: Record<string, string | null> }>,
    validateOnly = false,
  ) =>
    client.request(AlterConfigs, 2, {
      resources: resources.map((r) => ({ ...r, configs: Object.entries(r.configs).map(([name, value]) => ({ name, value })) })),
      validateOnly,
    })

  it('is advertised at v0-2, as Kafka 4.4 serves it', async () => {
    const res = await client.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
    expect(res.apiKeys.find((k) => k.apiKey === 33)).toMatchObject({ minVersion: 0, maxVersion: 2 })
  })

  it("replaces all of a topic's dynamic configs: those not named go back to their defaults", async () => {
    let res = await alter([{ resourceType: TOPIC, resourceName: 't', configs: { 'retention.ms': '1000', 'segment.ms': '60000' } }])
    expect(res.responses[0]).toMatchObject({ errorCode: ErrorCodes.NONE, resourceName: 't' })
    expect(valuesOf(await describe_(TOPIC, 't', ['retention.ms', 'segment.ms']))).toEqual({
      'retention.ms': ['1000', 1],
      'segment.ms': ['60000', 1],
    })
    res = await alter([{ resourceType: TOPIC, resourceName: 't', configs: { 'segment.ms': '70000' } }])
    expect(res.responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect(valuesOf(await describe_(TOPIC, 't', ['retention.ms', 'segment.ms']))).toEqual({
      'retention.ms': ['604800000', 5],
      'segment.ms': ['70000', 1],
    })
  })

  it('answers per resource: a missing topic, a bad value, validateOnly changing nothing', async () => {
    const res = await alter([
      { resourceType: TOPIC, resourceName: 'nope', configs: { 'retention.ms': '1' } },
      { resourceType: TOPIC, resourceName: 't', configs: { 'retention.ms': 'soon' } },
    ])
    expect(res.responses.map((r) => r.errorCode)).toEqual([ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, ErrorCodes.INVALID_CONFIG])
    expect((await alter([{ resourceType: TOPIC, resourceName: 't', configs: { 'retention.ms': '5' } }], true)).responses[0].errorCode).toBe(
      ErrorCodes.NONE,
    )
    expect(valuesOf(await describe_(TOPIC, 't', ['retention.ms']))).toEqual({ 'retention.ms': ['604800000', 5] })
  })

  it('refuses configs that conflict together (min.compaction.lag.ms above max) and a key named twice, changing nothing', async () => {
    const lag = await alter([
      { resourceType: TOPIC, resourceName: 't', configs: { 'min.compaction.lag.ms': '5000', 'max.compaction.lag.ms': '1000' } },
    ])
    expect(lag.responses[0]).toMatchObject({ errorCode: ErrorCodes.INVALID_CONFIG })
    expect(lag.responses[0].errorMessage).toContain('min.compaction.lag.ms (5000) > max.compaction.lag.ms (1000)')
    const twice = await client.request(AlterConfigs, 2, {
      resources: [
        {
          resourceType: TOPIC,
          resourceName: 't',
          configs: [
            { name: 'retention.ms', value: '1' },
            { name: 'retention.ms', value: '2' },
          ],
        },
      ],
      validateOnly: false,
    })
    expect(twice.responses[0]).toMatchObject({ errorCode: ErrorCodes.INVALID_REQUEST })
    expect(valuesOf(await describe_(TOPIC, 't', ['retention.ms', 'min.compaction.lag.ms']))).toEqual({
      'retention.ms': ['604800000', 5],
      'min.compaction.lag.ms': ['0', 5],
    })
  })

  it("sets a broker's dynamic configs, per broker and cluster-wide, replacing what was set", async () => {
    const res = await alter([
      { resourceType: BROKER, resourceName: '0', configs: { 'sasl.kerberos.min.time.before.relogin': '58000', 'background.threads': '9' } },
      { resourceType: BROKER, resourceName: '', configs: { 'log.cleanup.policy': 'compact' } },
    ])
    expect(res.responses.map((r) => r.errorCode)).toEqual([ErrorCodes.NONE, ErrorCodes.NONE])
    const keys = ['sasl.kerberos.min.time.before.relogin', 'background.threads', 'log.cleanup.policy']
    expect(valuesOf(await describe_(BROKER, '0', keys))).toEqual({
      'sasl.kerberos.min.time.before.relogin': ['58000', 2],
      'background.threads': ['9', 2],
      'log.cleanup.policy': ['compact', 3],
    })
    await alter([{ resourceType: BROKER, resourceName: '0', configs: { 'background.threads': '8' } }])
    expect(valuesOf(await describe_(BROKER, '0', keys))).toMatchObject({
      'sasl.kerberos.min.time.before.relogin': ['60000', 5],
      'background.threads': ['8', 2],
    })
    const bad = await alter([
      { resourceType: BROKER, resourceName: '0', configs: { 'background.threads': '0' } },
      { resourceType: BROKER, resourceName: '7', configs: {} },
    ])
    expect(bad.responses.map((r) => r.errorCode)).toEqual([ErrorCodes.INVALID_CONFIG, ErrorCodes.INVALID_REQUEST])
  })
})

describe('group configs', () => {
  it("describes any group's configs, Kafka 4.4's keys at the broker's defaults", async () => {
    const r = await describe_(GROUP, 'no-such-group')
    expect(r.errorCode).toBe(ErrorCodes.NONE)
    const values = valuesOf(r)
    expect(values).toMatchObject({
      'consumer.session.timeout.ms': ['45000', 5],
      'consumer.heartbeat.interval.ms': ['5000', 5],
      'share.session.timeout.ms': ['45000', 5],
      'share.heartbeat.interval.ms': ['5000', 5],
      'share.record.lock.duration.ms': ['30000', 5],
      'share.auto.offset.reset': ['latest', 5],
      'streams.num.standby.replicas': ['0', 5],
    })
  })
})

describe('IncrementalAlterConfigs of brokers and groups', () => {
  const alter = (resourceType: number, resourceName: string, configs: Array<[string, number, string | null]>) =>
    client.request(IncrementalAlterConfigs, 1, {
      resources: [
        { resourceType, resourceName, configs: configs.map(([name, configOperation, value]) => ({ name, configOperation, value })) },
      ],
      validateOnly: false,
    })
  const [SET, DELETE, APPEND, SUBTRACT] = [0, 1, 2, 3]

  it("sets and deletes a group's configs, checked against Kafka's bounds", async () => {
    expect((await alter(GROUP, 'g', [['consumer.session.timeout.ms', SET, '50000']])).responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect(valuesOf(await describe_(GROUP, 'g', ['consumer.session.timeout.ms']))).toEqual({ 'consumer.session.timeout.ms': ['50000', 8] })
    expect((await alter(GROUP, 'g', [['consumer.session.timeout.ms', SET, '1000']])).responses[0].errorCode).toBe(ErrorCodes.INVALID_CONFIG)
    expect((await alter(GROUP, 'g', [['no.such.config', SET, '1']])).responses[0].errorCode).toBe(ErrorCodes.INVALID_CONFIG)
    expect((await alter(GROUP, 'g', [['consumer.session.timeout.ms', DELETE, null]])).responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect(valuesOf(await describe_(GROUP, 'g', ['consumer.session.timeout.ms']))).toEqual({ 'consumer.session.timeout.ms': ['45000', 5] })
  })

  it("takes a broker's own lower default session timeout as in bounds (Kafka's group.consumer.min.session.timeout.ms would be set so)", async () => {
    client.close()
    await cluster.stop()
    cluster = await startCluster({ brokers: 1, consumerGroupSessionTimeoutMs: 6000, consumerGroupHeartbeatIntervalMs: 1000 })
    client = await RawClient.open(cluster.bootstrapServers)
    const set = await alter(GROUP, 'g', [
      ['consumer.session.timeout.ms', SET, '8000'],
      ['consumer.heartbeat.interval.ms', SET, '1500'],
    ])
    expect(set.responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect((await alter(GROUP, 'g', [['consumer.session.timeout.ms', SET, '5000']])).responses[0].errorCode).toBe(ErrorCodes.INVALID_CONFIG)
  })

  it("a group's consumer.heartbeat.interval.ms is what its KIP-848 members are told", async () => {
    expect((await alter(GROUP, 'kg', [['consumer.heartbeat.interval.ms', SET, '7000']])).responses[0].errorCode).toBe(ErrorCodes.NONE)
    const join = {
      groupId: 'kg',
      memberId: 'm1',
      memberEpoch: 0,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    }
    const boot = await RawClient.open(cluster.bootstrapServers.split(',')[0])
    await groupCoordinator(boot, 'kg').finally(() => boot.close())
    for (const address of cluster.bootstrapServers.split(',')) {
      const c = await RawClient.open(address)
      try {
        const res = await c.request(ConsumerGroupHeartbeat, 0, join)
        if (res.errorCode === ErrorCodes.NOT_COORDINATOR) continue
        expect(res).toMatchObject({ errorCode: ErrorCodes.NONE, heartbeatIntervalMs: 7000 })
        return
      } finally {
        c.close()
      }
    }
    throw new Error('no broker coordinates group kg')
  })

  it("sets, appends to, subtracts from and deletes a broker's dynamic configs", async () => {
    const set = await alter(BROKER, '1', [
      ['background.threads', SET, '9'],
      ['log.cleanup.policy', APPEND, 'compact'],
    ])
    expect(set.responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect(valuesOf(await describe_(BROKER, '1', ['background.threads', 'log.cleanup.policy']))).toEqual({
      'background.threads': ['9', 2],
      'log.cleanup.policy': ['delete,compact', 2],
    })
    const unset = await alter(BROKER, '1', [
      ['background.threads', DELETE, ''],
      ['log.cleanup.policy', SUBTRACT, 'compact'],
    ])
    expect(unset.responses[0].errorCode).toBe(ErrorCodes.NONE)
    expect(valuesOf(await describe_(BROKER, '1', ['background.threads', 'log.cleanup.policy']))).toEqual({
      'background.threads': ['10', 5],
      'log.cleanup.policy': ['delete', 2],
    })
  })
})

describe('SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials)', () => {
  const admin = () => {
    const a = new Kafka({ clientId: 'scram-admin', brokers: cluster.bootstrapServers.split(',') }).admin()
    return a.connect().then(() => a)
  }

  it('are advertised at v0, and kept with or without SASL listeners', async () => {
    const res = await client.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
    expect(res.apiKeys.filter((k) => k.apiKey === 50 || k.apiKey === 51)).toEqual([
      expect.objectContaining({ apiKey: 50, minVersion: 0, maxVersion: 0 }),
      expect.objectContaining({ apiKey: 51, minVersion: 0, maxVersion: 0 }),
    ])
    const a = await admin()
    try {
      expect(await a.describeUserScramCredentials()).toEqual([])
      await a.alterUserScramCredentials({
        upsertions: [
          { user: 'carol', mechanism: 'SCRAM-SHA-256', password: 'c-secret', iterations: 8192 },
          { user: 'dave', mechanism: 'SCRAM-SHA-512', password: 'd-secret' },
        ],
      })
      expect(await a.describeUserScramCredentials()).toEqual(
        expect.arrayContaining([
          { user: 'carol', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 8192 }] },
          { user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
        ]),
      )
      await a.alterUserScramCredentials({ deletions: [{ user: 'carol', mechanism: 'SCRAM-SHA-256' }] })
      expect(await a.describeUserScramCredentials()).toEqual([
        { user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
      ])
    } finally {
      await a.disconnect()
    }
  })

  it("answers Kafka's errors per user", async () => {
    const salt = Buffer.alloc(16, 1)
    const saltedPassword = Buffer.alloc(32, 2)
    const res = await client.request(AlterUserScramCredentials, 0, {
      deletions: [{ name: 'ghost', mechanism: 1 }],
      upsertions: [
        { name: 'twice', mechanism: 1, iterations: 4096, salt, saltedPassword },
        { name: 'twice', mechanism: 2, iterations: 4096, salt, saltedPassword },
        { name: 'few', mechanism: 1, iterations: 1000, salt, saltedPassword },
        { name: 'many', mechanism: 2, iterations: 20000, salt, saltedPassword },
        { name: 'odd', mechanism: 9, iterations: 4096, salt, saltedPassword },
        { name: '', mechanism: 1, iterations: 4096, salt, saltedPassword },
      ],
    })
    const byUser = Object.fromEntries(res.results.map((r) => [r.user, [r.errorCode, r.errorMessage]]))
    expect(byUser).toEqual({
      ghost: [ErrorCodes.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      twice: [ErrorCodes.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
      few: [ErrorCodes.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      many: [ErrorCodes.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      odd: [ErrorCodes.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      '': [ErrorCodes.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
    })
    const described = await client.request(DescribeUserScramCredentials, 0, { users: [{ name: 'ghost' }, { name: 'x' }, { name: 'x' }] })
    expect(described.results.map((r) => [r.user, r.errorCode])).toEqual([
      ['ghost', ErrorCodes.RESOURCE_NOT_FOUND],
      ['x', ErrorCodes.DUPLICATE_RESOURCE],
    ])
  })

  it('a user AlterUserScramCredentials creates authenticates with SCRAM; deleted, it no longer does', async () => {
    await cluster.stop()
    cluster = await startCluster({ brokers: 3, sasl: { users: { root: 'root-secret' } } })
    const kafka = (username: string, password: string, mechanism: 'scram-sha-256' | 'scram-sha-512') =>
      new Kafka({
        clientId: `scram-${username}`,
        brokers: cluster.bootstrapServers.split(','),
        sasl: { mechanism, username, password },
        authenticationTimeoutMs: 5000,
        logLevel: 0,
      }).admin()
    const root = kafka('root', 'root-secret', 'scram-sha-512')
    await root.connect()
    try {
      expect((await root.describeUserScramCredentials({ users: ['root'] }))[0].credentials.map((c) => c.mechanism)).toEqual([
        'SCRAM-SHA-256',
        'SCRAM-SHA-512',
      ])
      await root.alterUserScramCredentials({ upsertions: [{ user: 'erin', mechanism: 'SCRAM-SHA-512', password: 'erin-secret' }] })
      const erin = kafka('erin', 'erin-secret', 'scram-sha-512')
      await erin.connect()
      expect((await erin.describeCluster()).brokers).toHaveLength(3)
      await erin.disconnect()
      // Her SCRAM-SHA-256 credential was never made; a wrong password fails too.
      await expect(kafka('erin', 'erin-secret', 'scram-sha-256').connect()).rejects.toThrow(/uthentication/)
      await expect(kafka('erin', 'nope', 'scram-sha-512').connect()).rejects.toThrow(/uthentication/)
      await root.alterUserScramCredentials({ deletions: [{ user: 'erin', mechanism: 'SCRAM-SHA-512' }] })
      await expect(kafka('erin', 'erin-secret', 'scram-sha-512').connect()).rejects.toThrow(/uthentication/)
    } finally {
      await root.disconnect()
    }
  })
})

describe('DeleteTopics and Metadata on 3 brokers', () => {
  // Kafka 4.4 (KRaft) deletes a topic with one metadata record: no broker shows it once DeleteTopics has answered,
  // and only an explicit or auto-creating request makes it again, under a new topic id. wafka's delete and
  // auto-create both run whole on one event loop, so they cannot interleave: this pins that contract.
  it('no broker shows a deleted topic; auto-creation after the delete makes a new one', async () => {
    const before = (await client.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })).topics[0].topicId
    const deleted = await client.request(DeleteTopics, 6, { topics: [{ name: 't', topicId: ZERO_UUID }], topicNames: [], timeoutMs: 5000 })
    expect(deleted.responses[0].errorCode).toBe(ErrorCodes.NONE)
    for (const address of cluster.bootstrapServers.split(',')) {
      const other = await RawClient.open(address)
      try {
        const named = await other.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })
        expect(named.topics[0].errorCode).toBe(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
        const all = await other.request(Metadata, 12, { topics: null, allowAutoTopicCreation: true })
        expect(all.topics.map((t) => t.name)).not.toContain('t')
      } finally {
        other.close()
      }
    }
    const again = await client.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: true })
    expect(again.topics[0].topicId).not.toBe(before)
  })
})

describe('with a data dir', () => {
  it('keeps group and broker configs and SCRAM credentials across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-admin-'))
    dataDirs.push(dataDir)
    await cluster.stop()
    client.close()
    cluster = await startCluster({ brokers: 1, dataDir })
    const a = new Kafka({ clientId: 'dd', brokers: cluster.bootstrapServers.split(','), logLevel: 0 }).admin()
    await a.connect()
    await a.alterUserScramCredentials({ upsertions: [{ user: 'frank', mechanism: 'SCRAM-SHA-256', password: 'f-secret' }] })
    await a.disconnect()
    client = await RawClient.open(cluster.bootstrapServers)
    await client.request(AlterConfigs, 2, {
      resources: [
        { resourceType: GROUP, resourceName: 'g', configs: [{ name: 'consumer.heartbeat.interval.ms', value: '6000' }] },
        { resourceType: BROKER, resourceName: '0', configs: [{ name: 'background.threads', value: '4' }] },
      ],
      validateOnly: false,
    })
    client.close()
    await cluster.stop()
    // Back with SASL on: frank, made by AlterUserScramCredentials before the restart, authenticates.
    cluster = await startCluster({ brokers: 1, dataDir, sasl: { users: { root: 'root-secret' } } })
    client = await RawClient.open(cluster.bootstrapServers)
    const frank = new Kafka({
      clientId: 'dd2',
      brokers: cluster.bootstrapServers.split(','),
      sasl: { mechanism: 'scram-sha-256', username: 'frank', password: 'f-secret' },
      logLevel: 0,
    }).admin()
    await frank.connect()
    try {
      expect((await frank.describeUserScramCredentials()).map((u) => u.user).sort()).toEqual(['frank', 'root'])
      const configs = await frank.describeConfigs({
        resources: [
          { type: GROUP, name: 'g', configNames: ['consumer.heartbeat.interval.ms'] },
          { type: BROKER, name: '0', configNames: ['background.threads'] },
        ],
      })
      expect(configs.resources.map((r: { configEntries: Array<{ configValue: string }> }) => r.configEntries[0].configValue)).toEqual([
        '6000',
        '4',
      ])
    } finally {
      await frank.disconnect()
    }
  })
})
