// What every API checks with StandardAuthorizer, on real Kafka 4.4 and on
// the embedded broker with the same assertions: a SASL user with no ACL
// (bob, not a super user) is refused by each API with Kafka's code in
// Kafka's place (the topic's partition, the group, the cluster, the
// transactional id), listing all topics and groups shows him none, and with
// ACLs the authorized-operations bitfields are Kafka's. On
// the embedded broker with allow.everyone.if.no.acl.found the same requests
// pass the checks (whatever else they then answer), and what a DENY leaves
// out of the listings.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ZERO_UUID, type ApiSpec } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { requireSecuredKafka, startSecuredKafka, USERS } from '../security/secured-kafka.js'
import { Kafka } from '../../src/kafka.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator } from './support.js'

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
const { TOPIC_AUTHORIZATION_FAILED: TOPIC, GROUP_AUTHORIZATION_FAILED: GROUP } = ErrorCodes
const { CLUSTER_AUTHORIZATION_FAILED: CLUSTER, TRANSACTIONAL_ID_AUTHORIZATION_FAILED: TXN } = ErrorCodes
const AUTH_CODES = new Set([TOPIC, GROUP, CLUSTER, TXN])
const bit = (...ops: number[]) => ops.reduce((b, op) => b | (1 << op), 0)

const t = [{ name: 't', partitionIndexes: [0] }]
const tp = (extra = {}) => [{ name: 't', partitions: [{ partitionIndex: 0, ...extra }] }]

/** Each API: its request and where its refusal is answered. */
const CASES: Array<[string, ApiSpec<any, any>, number, object, (r: any) => number, number]> = [
  [
    'Metadata by name',
    M.Metadata,
    12,
    { topics: [{ name: 't', topicId: ZERO_UUID }], allowAutoTopicCreation: false },
    (r) => r.topics[0].errorCode,
    TOPIC,
  ],
  [
    'Fetch',
    M.Fetch,
    12,
    {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    },
    (r) => r.responses[0].partitions[0].errorCode,
    TOPIC,
  ],
  ['ListOffsets', M.ListOffsets, 7, { replicaId: -1, topics: tp({ timestamp: -1n }) }, (r) => r.topics[0].partitions[0].errorCode, TOPIC],
  [
    'ListOffsets v11',
    M.ListOffsets,
    11,
    { replicaId: -1, topics: tp({ timestamp: -6n }) },
    (r) => r.topics[0].partitions[0].errorCode,
    TOPIC,
  ],
  [
    'OffsetForLeaderEpoch',
    M.OffsetForLeaderEpoch,
    4,
    { replicaId: -1, topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] },
    (r) => r.topics[0].partitions[0].errorCode,
    TOPIC,
  ],
  [
    'CreateTopics',
    M.CreateTopics,
    7,
    { topics: [{ name: 'new', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 },
    (r) => r.topics[0].errorCode,
    TOPIC,
  ],
  [
    'DeleteTopics',
    M.DeleteTopics,
    6,
    { topics: [{ name: 'doomed', topicId: ZERO_UUID }], timeoutMs: 5000 },
    (r) => r.responses[0].errorCode,
    TOPIC,
  ],
  [
    'CreatePartitions',
    M.CreatePartitions,
    3,
    { topics: [{ name: 't', count: 2, assignments: null }], timeoutMs: 5000, validateOnly: true },
    (r) => r.results[0].errorCode,
    TOPIC,
  ],
  ['DeleteRecords', M.DeleteRecords, 2, { topics: tp({ offset: 0n }), timeoutMs: 5000 }, (r) => r.topics[0].partitions[0].errorCode, TOPIC],
  ['DescribeProducers', M.DescribeProducers, 0, { topics: t }, (r) => r.topics[0].partitions[0].errorCode, TOPIC],
  [
    'DescribeTopicPartitions',
    M.DescribeTopicPartitions,
    0,
    { topics: [{ name: 't' }], responsePartitionLimit: 10, cursor: null },
    (r) => r.topics[0].errorCode,
    TOPIC,
  ],
  [
    'DescribeConfigs of a topic',
    M.DescribeConfigs,
    4,
    { resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }] },
    (r) => r.results[0].errorCode,
    TOPIC,
  ],
  [
    'DescribeConfigs of a broker',
    M.DescribeConfigs,
    4,
    { resources: [{ resourceType: 4, resourceName: '0', configurationKeys: null }] },
    (r) => r.results[0].errorCode,
    CLUSTER,
  ],
  [
    'IncrementalAlterConfigs',
    M.IncrementalAlterConfigs,
    1,
    {
      resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }],
      validateOnly: true,
    },
    (r) => r.responses[0].errorCode,
    TOPIC,
  ],
  [
    'AlterConfigs',
    M.AlterConfigs,
    2,
    { resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', value: '1000' }] }], validateOnly: true },
    (r) => r.responses[0].errorCode,
    TOPIC,
  ],
  ['FindCoordinator (group)', M.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g'] }, (r) => r.coordinators[0].errorCode, GROUP],
  ['FindCoordinator (transaction)', M.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx'] }, (r) => r.coordinators[0].errorCode, TXN],
  [
    'JoinGroup',
    M.JoinGroup,
    9,
    {
      groupId: 'g',
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 10000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    },
    (r) => r.errorCode,
    GROUP,
  ],
  [
    'SyncGroup',
    M.SyncGroup,
    5,
    { groupId: 'g', generationId: 1, memberId: 'm', protocolType: 'consumer', protocolName: 'range', assignments: [] },
    (r) => r.errorCode,
    GROUP,
  ],
  ['Heartbeat', M.Heartbeat, 4, { groupId: 'g', generationId: 1, memberId: 'm' }, (r) => r.errorCode, GROUP],
  ['LeaveGroup', M.LeaveGroup, 4, { groupId: 'g', members: [{ memberId: 'm' }] }, (r) => r.errorCode, GROUP],
  [
    'OffsetCommit',
    M.OffsetCommit,
    8,
    { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', topics: tp({ committedOffset: 0n }) },
    (r) => r.topics[0].partitions[0].errorCode,
    GROUP,
  ],
  ['OffsetFetch', M.OffsetFetch, 7, { groupId: 'g', topics: t }, (r) => r.errorCode, GROUP],
  [
    'OffsetCommit v10 (topics by id)',
    M.OffsetCommit,
    10,
    {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partitionIndex: 0, committedOffset: 0n }] }],
    },
    (r) => r.topics[0].partitions[0].errorCode,
    GROUP,
  ],
  [
    'OffsetFetch v10 (topics by id)',
    M.OffsetFetch,
    10,
    { groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionIndexes: [0] }] }] },
    (r) => r.groups[0].errorCode,
    GROUP,
  ],
  [
    'OffsetDelete',
    M.OffsetDelete,
    0,
    { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
    (r) => r.errorCode,
    GROUP,
  ],
  ['DescribeGroups', M.DescribeGroups, 5, { groups: ['g'] }, (r) => r.groups[0].errorCode, GROUP],
  ['DeleteGroups', M.DeleteGroups, 2, { groupsNames: ['g'] }, (r) => r.results[0].errorCode, GROUP],
  [
    'DescribeShareGroupOffsets',
    M.DescribeShareGroupOffsets,
    1,
    { groups: [{ groupId: 'g', topics: [{ topicName: 't', partitions: [0] }] }] },
    (r) => r.groups[0].errorCode,
    GROUP,
  ],
  [
    'AlterShareGroupOffsets',
    M.AlterShareGroupOffsets,
    0,
    { groupId: 'g', topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] },
    (r) => r.errorCode,
    GROUP,
  ],
  ['DeleteShareGroupOffsets', M.DeleteShareGroupOffsets, 0, { groupId: 'g', topics: [{ topicName: 't' }] }, (r) => r.errorCode, GROUP],
  [
    'ConsumerGroupHeartbeat',
    M.ConsumerGroupHeartbeat,
    0,
    { groupId: 'g', memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 10000, subscribedTopicNames: ['t'], topicPartitions: [] },
    (r) => r.errorCode,
    GROUP,
  ],
  ['ConsumerGroupDescribe', M.ConsumerGroupDescribe, 0, { groupIds: ['g'] }, (r) => r.groups[0].errorCode, GROUP],
  [
    'StreamsGroupHeartbeat',
    M.StreamsGroupHeartbeat,
    0,
    {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      endpointInformationEpoch: -1,
      rebalanceTimeoutMs: 10000,
      topology: {
        epoch: 0,
        subtopologies: [
          {
            subtopologyId: '0',
            sourceTopics: ['t'],
            sourceTopicRegex: [],
            stateChangelogTopics: [],
            repartitionSinkTopics: [],
            repartitionSourceTopics: [],
            copartitionGroups: [],
          },
        ],
      },
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
      processId: 'p',
      shutdownApplication: false,
    },
    (r) => r.errorCode,
    GROUP,
  ],
  ['StreamsGroupDescribe', M.StreamsGroupDescribe, 0, { groupIds: ['g'] }, (r) => r.groups[0].errorCode, GROUP],
  ['InitProducerId (idempotent)', M.InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 }, (r) => r.errorCode, CLUSTER],
  ['InitProducerId (transactional)', M.InitProducerId, 4, { transactionalId: 'tx', transactionTimeoutMs: 60000 }, (r) => r.errorCode, TXN],
  [
    'AddPartitionsToTxn',
    M.AddPartitionsToTxn,
    3,
    {
      v3AndBelowTransactionalId: 'tx',
      v3AndBelowProducerId: 0n,
      v3AndBelowProducerEpoch: 0,
      v3AndBelowTopics: [{ name: 't', partitions: [0] }],
    },
    (r) => r.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode,
    TXN,
  ],
  [
    'AddOffsetsToTxn',
    M.AddOffsetsToTxn,
    3,
    { transactionalId: 'tx', producerId: 0n, producerEpoch: 0, groupId: 'g' },
    (r) => r.errorCode,
    TXN,
  ],
  ['EndTxn', M.EndTxn, 3, { transactionalId: 'tx', producerId: 0n, producerEpoch: 0, committed: true }, (r) => r.errorCode, TXN],
  [
    'TxnOffsetCommit',
    M.TxnOffsetCommit,
    3,
    {
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 0n,
      producerEpoch: 0,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: tp({ committedOffset: 0n }),
    },
    (r) => r.topics[0].partitions[0].errorCode,
    TXN,
  ],
  ['DescribeTransactions', M.DescribeTransactions, 0, { transactionalIds: ['tx'] }, (r) => r.transactionStates[0].errorCode, TXN],
  [
    'ElectLeaders',
    M.ElectLeaders,
    2,
    { electionType: 0, topicPartitions: [{ topic: 't', partitions: [0] }], timeoutMs: 1000 },
    (r) => r.errorCode,
    CLUSTER,
  ],
  ['DescribeLogDirs', M.DescribeLogDirs, 4, { topics: null }, (r) => r.errorCode, CLUSTER],
  ['ListConfigResources (DESCRIBE_CONFIGS on the cluster)', M.ListConfigResources, 1, { resourceTypes: [] }, (r) => r.errorCode, CLUSTER],
  [
    'UpdateFeatures (ALTER on the cluster)',
    M.UpdateFeatures,
    2,
    { timeoutMs: 5000, featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: 2, upgradeType: 1 }], validateOnly: true },
    // With Kafka's message's ending (what kafka-features.sh prints).
    (r) => (r.errorMessage?.endsWith(' needs ALTER permission.') ? r.errorCode : -1),
    CLUSTER,
  ],
  [
    'DescribeQuorum',
    M.DescribeQuorum,
    2,
    { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] },
    (r) => r.errorCode,
    CLUSTER,
  ],
  // Users named: Kafka 4.4 answers no refusal of users: null (its error response walks the null list).
  ['DescribeUserScramCredentials', M.DescribeUserScramCredentials, 0, { users: [{ name: 'x' }] }, (r) => r.errorCode, CLUSTER],
  [
    'AlterUserScramCredentials',
    M.AlterUserScramCredentials,
    0,
    { deletions: [{ name: 'x', mechanism: 1 }], upsertions: [] },
    (r) => r.results[0].errorCode,
    CLUSTER,
  ],
  ['DescribeClientQuotas', M.DescribeClientQuotas, 1, { components: [], strict: false }, (r) => r.errorCode, CLUSTER],
  [
    'AlterClientQuotas',
    M.AlterClientQuotas,
    1,
    {
      entries: [{ entity: [{ entityType: 'user', entityName: 'x' }], ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] }],
      validateOnly: true,
    },
    (r) => r.entries[0].errorCode,
    CLUSTER,
  ],
  [
    'CreateAcls',
    M.CreateAcls,
    3,
    {
      creations: [
        { resourceType: 2, resourceName: 't', resourcePatternType: 3, principal: 'User:x', host: '*', operation: 3, permissionType: 3 },
      ],
    },
    (r) => r.results[0].errorCode,
    CLUSTER,
  ],
  [
    'DescribeAcls',
    M.DescribeAcls,
    3,
    {
      resourceTypeFilter: 1,
      resourceNameFilter: null,
      patternTypeFilter: 1,
      principalFilter: null,
      hostFilter: null,
      operation: 1,
      permissionType: 1,
    },
    (r) => r.errorCode,
    CLUSTER,
  ],
  [
    'DeleteAcls',
    M.DeleteAcls,
    3,
    {
      filters: [
        {
          resourceTypeFilter: 1,
          resourceNameFilter: null,
          patternTypeFilter: 1,
          principalFilter: null,
          hostFilter: null,
          operation: 1,
          permissionType: 1,
        },
      ],
    },
    (r) => r.filterResults[0].errorCode,
    CLUSTER,
  ],
]

/** A raw client authenticated as `user` with SASL PLAIN (handshake v1, authenticate v2). */
async function saslClient(bootstrap: string, user: string, password: string): Promise<RawClient> {
  const c = await RawClient.open(bootstrap)
  expect((await c.request(M.SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0)
  const auth = await c.request(M.SaslAuthenticate, 2, { authBytes: Buffer.from(`\0${user}\0${password}`) })
  expect(auth.errorCode, auth.errorMessage ?? '').toBe(0)
  return c
}

/** An ACL for bob on a literal resource: ALLOW (3), or DENY (2) when `permissionType` says so. */
const forBob = (resourceType: number, resourceName: string, operation: number, permissionType = 3) => ({
  resourceType,
  resourceName,
  resourcePatternType: 3,
  principal: 'User:bob',
  host: '*',
  operation,
  permissionType,
})

/** Alice, a super user, makes these ACLs on the broker at `bootstrap`. */
async function aliceGrants(bootstrap: string, acl: Array<ReturnType<typeof forBob>>): Promise<void> {
  const admin = new Kafka({
    clientId: 'checks-alice',
    brokers: [bootstrap],
    sasl: { mechanism: 'plain', username: 'alice', password: USERS.alice },
  }).admin()
  await admin.connect()
  await admin.createAcls({ acl })
  await admin.disconnect()
}

/**
 * Asks again, every 100 ms and at most `retries` times, while `again` holds
 * of the answer: Kafka's brokers apply an ACL, and load a coordinator, a
 * moment after they are asked to. The last answer.
 */
async function askWhile<R>(ask: () => Promise<R>, again: (r: R) => boolean, retries = 100): Promise<R> {
  let r = await ask()
  for (let i = 0; i < retries && again(r); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    r = await ask()
  }
  return r
}

/** A broker with StandardAuthorizer, topics t and doomed, and bob (no ACL) on a SASL PLAIN listener. */
type Target = { bootstrap: string; stop(): Promise<void> }
const targets: Array<[string, boolean, () => Promise<Target>]> = [
  [
    'real Kafka',
    requireSecuredKafka(),
    async () => {
      const k = await startSecuredKafka()
      const admin = new Kafka({ clientId: 'checks-admin', brokers: k.listener('RIG') }).admin()
      await admin.connect()
      await admin.createTopics({ topics: ['t', 'doomed'].map((topic) => ({ topic, numPartitions: 1 })) })
      await admin.disconnect()
      return { bootstrap: k.listener('SASL')[0], stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    true,
    async () => {
      const c = await startCluster({
        topics: ['t', 'doomed'].map((name) => ({ name, partitions: 1 })),
        sasl: { users: { ...USERS }, mechanisms: ['PLAIN'] },
        config: { 'authorizer.class.name': AUTHORIZER, 'super.users': 'User:alice' },
      })
      return { bootstrap: c.bootstrapServers.split(',')[0], stop: () => c.stop() }
    },
  ],
]

describe.each(targets)('every API with StandardAuthorizer and no ACL, on %s', (_name, available, start) => {
  if (!available) return void it.skip('needs its peer')
  let target: Target
  let client: RawClient
  beforeAll(async () => {
    target = await start()
    client = await saslClient(target.bootstrap, 'bob', USERS.bob)
  }, 120_000)
  afterAll(async () => {
    client?.close()
    await target?.stop()
  })

  it.each(CASES)('%s: refused', async (_api, spec, version, req, code, refusal) => {
    expect(code(await client.request(spec, version, req as never))).toBe(refusal)
  })

  it('listing all topics and groups: none', async () => {
    const all = await client.request(M.Metadata, 12, { topics: null, allowAutoTopicCreation: false })
    expect(all.topics).toEqual([])
    const groups = await client.request(M.ListGroups, 4, { statesFilter: [] })
    expect(groups.groups).toEqual([])
  })

  it('with ACLs made by a super user: the authorized operations Kafka tells (Metadata, DescribeCluster)', async () => {
    // READ on t, WRITE on t denied; ALTER and IDEMPOTENT_WRITE on the cluster.
    await aliceGrants(target.bootstrap, [
      forBob(2, 't', 3),
      forBob(2, 't', 4, 2),
      forBob(4, 'kafka-cluster', 7),
      forBob(4, 'kafka-cluster', 12),
    ])
    const ask = () =>
      client.request(M.Metadata, 12, {
        topics: [{ name: 't', topicId: ZERO_UUID }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: true,
      })
    // Kafka's brokers apply an ACL once its record reaches them: a moment.
    const meta = await askWhile(ask, (m) => m.topics[0].errorCode !== 0, 50)
    expect(meta.topics[0]).toMatchObject({ errorCode: 0, topicAuthorizedOperations: bit(3, 8) })
    const cluster = await client.request(M.DescribeCluster, 1, { includeClusterAuthorizedOperations: true, endpointType: 1 })
    expect(cluster.clusterAuthorizedOperations).toBe(bit(7, 8, 12))
  })

  it('TxnOffsetCommit in a transaction: a topic it may not READ is refused, the readable one committed', async () => {
    // WRITE on the transactional id, READ on the group and on t; nothing on doomed.
    await aliceGrants(target.bootstrap, [forBob(5, 'tx-read', 4), forBob(3, 'g-read', 3), forBob(2, 't', 3)])
    // Until Kafka's broker has applied the ACLs and made its coordinators' topics: bounded retries.
    const settled = <R>(ask: () => Promise<R>, code: (r: R) => number): Promise<R> =>
      askWhile(ask, (r) => [TXN, GROUP, 14, 15, 16].includes(code(r)))
    for (const [keyType, key] of [
      [0, 'g-read'],
      [1, 'tx-read'],
    ] as const) {
      const found = await settled(
        () => client.request(M.FindCoordinator, 4, { keyType, coordinatorKeys: [key] }),
        (r) => r.coordinators[0].errorCode,
      )
      expect(found.coordinators[0].errorCode).toBe(0)
    }
    const producer = await settled(
      () => client.request(M.InitProducerId, 4, { transactionalId: 'tx-read', transactionTimeoutMs: 60000 }),
      (r) => r.errorCode,
    )
    expect(producer.errorCode).toBe(0)
    const { producerId, producerEpoch } = producer
    const added = await client.request(M.AddOffsetsToTxn, 3, { transactionalId: 'tx-read', producerId, producerEpoch, groupId: 'g-read' })
    expect(added.errorCode).toBe(0)
    const committed = await client.request(M.TxnOffsetCommit, 3, {
      transactionalId: 'tx-read',
      groupId: 'g-read',
      producerId,
      producerEpoch,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: ['t', 'doomed'].map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 0n }] })),
    })
    expect(Object.fromEntries(committed.topics.map((x) => [x.name, x.partitions.map((p) => p.errorCode)]))).toEqual({
      t: [ErrorCodes.NONE],
      doomed: [TOPIC],
    })
    const ended = await client.request(M.EndTxn, 3, { transactionalId: 'tx-read', producerId, producerEpoch, committed: false })
    expect(ended.errorCode).toBe(0)
  })

  it("OffsetCommit checks READ on each topic before the coordinator: an unreadable topic is refused whatever the member, the rest get the group's answer", async () => {
    // READ on the group and on t; nothing on doomed.
    await aliceGrants(target.bootstrap, [forBob(3, 'g-commit', 3), forBob(2, 't', 3)])
    // Until Kafka's broker has applied the ACLs and loaded the group's coordinator: bounded retries.
    const found = await askWhile(
      () => client.request(M.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-commit'] }),
      (r) => r.coordinators[0].errorCode !== 0,
    )
    expect(found.coordinators[0].errorCode).toBe(0)
    // A member of a generation the group (which does not exist) never had.
    const commit = (names: string[]) =>
      client.request(M.OffsetCommit, 8, {
        groupId: 'g-commit',
        generationIdOrMemberEpoch: 5,
        memberId: 'nobody',
        topics: names.map((name) => ({ name, partitions: [{ partitionIndex: 0, committedOffset: 0n }] })),
      })
    const codes = (r: Awaited<ReturnType<typeof commit>>) =>
      Object.fromEntries(r.topics.map((x) => [x.name, x.partitions.map((p) => p.errorCode)]))
    const mixed = await askWhile(
      () => commit(['doomed', 't']),
      (r) => [14, 15, 16].includes(codes(r).t?.[0]),
    )
    expect(codes(mixed)).toEqual({ doomed: [TOPIC], t: [ErrorCodes.ILLEGAL_GENERATION] })
    // Only an unreadable topic: the coordinator is not asked, so the member's generation is not an error.
    expect(codes(await commit(['doomed']))).toEqual({ doomed: [TOPIC] })
  })
  it('share-group offsets check each topic (DESCRIBE to describe, READ to alter or delete): an unauthorized one is refused, after the rest in a description and before them in a change', async () => {
    // READ and DELETE on the group, READ on t; nothing on doomed.
    await aliceGrants(target.bootstrap, [forBob(3, 'g-share', 3), forBob(3, 'g-share', 6), forBob(2, 't', 3)])
    const found = await askWhile(
      () => client.request(M.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-share'] }),
      (r) => r.coordinators[0].errorCode !== 0,
    )
    expect(found.coordinators[0].errorCode).toBe(0)
    const alter = () =>
      client.request(M.AlterShareGroupOffsets, 0, {
        groupId: 'g-share',
        topics: ['t', 'doomed'].map((topicName) => ({ topicName, partitions: [{ partitionIndex: 0, startOffset: 0n }] })),
      })
    // Until Kafka's broker has loaded the group's coordinator: bounded retries.
    const altered = await askWhile(alter, (r) => [14, 15, 16].includes(r.errorCode))
    expect([altered.errorCode, altered.responses.map((t) => [t.topicName, t.partitions.map((p) => p.errorCode)])]).toEqual([
      0,
      [
        ['doomed', [TOPIC]],
        ['t', [0]],
      ],
    ])
    const described = await client.request(M.DescribeShareGroupOffsets, 1, {
      groups: [{ groupId: 'g-share', topics: ['doomed', 't'].map((topicName) => ({ topicName, partitions: [0] })) }],
    })
    expect(described.groups[0].topics.map((t) => [t.topicName, t.topicId, t.partitions.map((p) => [p.startOffset, p.errorCode])])).toEqual([
      ['t', expect.not.stringMatching(/^A{22}$/), [[0n, 0]]],
      ['doomed', ZERO_UUID, [[-1n, TOPIC]]],
    ])
    const all = await client.request(M.DescribeShareGroupOffsets, 1, { groups: [{ groupId: 'g-share', topics: null }] })
    expect(all.groups[0].topics.map((t) => t.topicName)).toEqual(['t'])
    const deleted = await client.request(M.DeleteShareGroupOffsets, 0, {
      groupId: 'g-share',
      topics: ['t', 'doomed'].map((topicName) => ({ topicName })),
    })
    expect([deleted.errorCode, deleted.responses.map((t) => [t.topicName, t.errorCode])]).toEqual([
      0,
      [
        ['doomed', TOPIC],
        ['t', 0],
      ],
    ])
  }, 60_000)

  it('a KIP-848 regex subscription is resolved to the topics the member may DESCRIBE only', async () => {
    // READ on the group, DESCRIBE on t; nothing on doomed, which the regex matches too.
    await aliceGrants(target.bootstrap, [forBob(3, 'g-regex', 3), forBob(2, 't', 8)])
    const found = await askWhile(
      () => client.request(M.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-regex'] }),
      (r) => r.coordinators[0].errorCode !== 0,
    )
    expect(found.coordinators[0].errorCode).toBe(0)
    const meta = await client.request(M.Metadata, 12, { topics: [{ name: 't', topicId: ZERO_UUID }], allowAutoTopicCreation: false })
    expect(meta.topics[0].errorCode).toBe(0)
    const beat = (memberId: string, memberEpoch: number, topicPartitions: Array<{ topicId: string; partitions: number[] }> | null) =>
      client.request(M.ConsumerGroupHeartbeat, 1, {
        groupId: 'g-regex',
        memberId,
        memberEpoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: memberEpoch === 0 ? 30000 : -1,
        subscribedTopicNames: memberEpoch === 0 ? [] : null,
        subscribedTopicRegex: memberEpoch === 0 ? 't|doomed' : null,
        serverAssignor: memberEpoch === 0 ? 'uniform' : null,
        topicPartitions,
      })
    const memberId = 'regex-member-0000000'
    // Until Kafka's broker has loaded the group's coordinator: bounded retries.
    let r = await askWhile(
      () => beat(memberId, 0, []),
      (b) => [14, 15, 16].includes(b.errorCode),
    )
    expect(r.errorCode, r.errorMessage ?? '').toBe(0)
    let epoch = r.memberEpoch
    let assigned = r.assignment?.topicPartitions ?? []
    // The regex is resolved off the heartbeat path: bounded heartbeats until it lands.
    for (let i = 0; i < 150 && assigned.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      r = await beat(memberId, epoch, assigned)
      expect(r.errorCode, r.errorMessage ?? '').toBe(0)
      epoch = r.memberEpoch
      if (r.assignment) assigned = r.assignment.topicPartitions
    }
    expect(assigned).toEqual([{ topicId: meta.topics[0].topicId, partitions: [0] }])
    expect((await beat(memberId, -1, null)).errorCode).toBe(0)
  }, 60_000)
})

describe('every API on the embedded broker with allow.everyone.if.no.acl.found', () => {
  let cluster: RunningCluster
  let client: RawClient
  beforeAll(async () => {
    cluster = await startCluster({
      topics: ['t', 'doomed'].map((name) => ({ name, partitions: 1 })),
      config: { 'authorizer.class.name': AUTHORIZER, 'allow.everyone.if.no.acl.found': 'true' },
    })
    client = await RawClient.open(cluster.bootstrapServers)
  })
  afterAll(async () => {
    client?.close()
    await cluster?.stop()
  })

  it.each(CASES)('%s: not refused', async (_api, spec, version, req, code) => {
    const answered = code(await client.request(spec, version, req as never))
    expect(AUTH_CODES.has(answered), `answered ${answered}`).toBe(false)
  })

  it('listing all: the topics and groups it may not DESCRIBE are left out', async () => {
    const listed = async () => {
      const all = await client.request(M.Metadata, 12, { topics: null, allowAutoTopicCreation: false })
      const groups = await client.request(M.ListGroups, 4, { statesFilter: [] })
      return { topics: all.topics.map((x) => x.name).sort(), groups: groups.groups.map((g) => g.groupId).sort() }
    }
    await client.request(M.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['listed-txn'] })
    for (const groupId of ['open-group', 'secret-group']) {
      expect(await groupCoordinator(client, groupId)).toBe(0)
      const c = await client.request(M.OffsetCommit, 8, {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: tp({ committedOffset: 0n }),
      })
      expect(c.topics[0].partitions[0].errorCode).toBe(ErrorCodes.NONE)
    }
    // With everyone allowed where no ACL is, ANONYMOUS may make ACLs: denying itself DESCRIBE on the cluster, a topic and a group.
    const deny = (resourceType: number, resourceName: string) => ({
      resourceType,
      resourceName,
      resourcePatternType: 3,
      principal: 'User:ANONYMOUS',
      host: '*',
      operation: 8,
      permissionType: 2,
    })
    const made = await client.request(M.CreateAcls, 3, { creations: [deny(4, 'kafka-cluster'), deny(2, 'new'), deny(3, 'secret-group')] })
    expect(made.results.map((r) => r.errorCode)).toEqual([0, 0, 0])
    const after = await listed()
    // __transaction_state: made by the first FindCoordinator for a transactional id (above), as Kafka's broker makes it.
    expect(after.topics).toEqual(['__consumer_offsets', '__transaction_state', 't'])
    expect(after.groups).toContain('open-group')
    expect(after.groups).not.toContain('secret-group')
  })
})
