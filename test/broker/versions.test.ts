// Every served API answers at every version ApiVersions advertises: a
// representative request at each version gets a response that decodes (the
// codecs refuse a field a version lacks, so this catches handlers that set
// one), and each handler's error answer encodes at each version too.
import { describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster } from '../../src/broker/index.js'
import { handlers } from '../../src/broker/dispatch.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'
import { apis } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { logLevel } from '../../src/logger.js'
import { keepLog } from './support.js'

const TOPIC_ID_PLACEHOLDER = 'TOPIC_ID'
const batch = encodeRecordBatch([{ key: 'k', value: 'v' }])

/** A request per API that means something at every version (topic ids filled in where a version uses them). */
/** Any ACL (DescribeAcls' filter, DeleteAcls' filters). */
const ACL_FILTER = {
  resourceTypeFilter: 1,
  resourceNameFilter: null,
  patternTypeFilter: 1,
  principalFilter: null,
  hostFilter: null,
  operation: 1,
  permissionType: 1,
}

const SAMPLES: Record<string, (v: number) => unknown> = {
  Produce: (v) => ({
    acks: 1,
    timeoutMs: 1000,
    topicData: [
      {
        name: v < 13 ? 'vt' : '',
        topicId: v >= 13 ? TOPIC_ID_PLACEHOLDER : undefined,
        partitionData: [
          { index: 0, records: batch },
          { index: 9, records: batch },
        ],
      },
    ],
  }),
  Fetch: (v) => ({
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [
      {
        topic: v < 13 ? 'vt' : '',
        topicId: v >= 13 ? TOPIC_ID_PLACEHOLDER : undefined,
        partitions: [
          { partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 },
          { partition: 9, fetchOffset: 0n, partitionMaxBytes: 1 },
        ],
      },
    ],
  }),
  ListOffsets: () => ({
    replicaId: -1,
    topics: [
      {
        name: 'vt',
        partitions: [
          { partitionIndex: 0, timestamp: -1n },
          { partitionIndex: 1, timestamp: 0n },
          { partitionIndex: 9, timestamp: -2n },
        ],
      },
    ],
  }),
  Metadata: (v) => ({
    topics: v === 0 ? [] : [{ name: 'vt' }, { name: 'missing' }, { name: 'bad name' }],
    allowAutoTopicCreation: v >= 4 ? false : undefined,
  }),
  OffsetCommit: () => ({
    groupId: 'vg',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    topics: [{ name: 'vt', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: 'm' }] }],
  }),
  OffsetFetch: (v) =>
    v >= 8
      ? {
          groups: [
            { groupId: 'vg', topics: null },
            { groupId: 'none', topics: [{ name: 'vt', partitionIndexes: [0] }] },
          ],
        }
      : { groupId: 'vg', topics: [{ name: 'vt', partitionIndexes: [0, 1] }] },
  FindCoordinator: (v) => (v >= 4 ? { keyType: 0, coordinatorKeys: ['vg', 'other'] } : { key: 'vg', keyType: 0 }),
  JoinGroup: (v) => ({
    groupId: `vj${v}`,
    sessionTimeoutMs: 6000,
    rebalanceTimeoutMs: 1000,
    memberId: '',
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
  }),
  Heartbeat: () => ({ groupId: 'vj', generationId: 1, memberId: 'nobody' }),
  LeaveGroup: (v) => (v >= 3 ? { groupId: 'vj', members: [{ memberId: 'nobody' }] } : { groupId: 'vj', memberId: 'nobody' }),
  SyncGroup: () => ({ groupId: 'vj', generationId: 1, memberId: 'nobody', assignments: [] }),
  DescribeGroups: () => ({ groups: ['vg', 'none'] }),
  ListGroups: () => ({}),
  ApiVersions: () => ({ clientSoftwareName: 'v', clientSoftwareVersion: '1' }),
  CreateTopics: () => ({
    topics: [
      { name: 'vt', numPartitions: 1, replicationFactor: 1 },
      { name: 'fresh', numPartitions: 2, replicationFactor: 1 },
    ],
    timeoutMs: 100,
    validateOnly: true,
  }),
  DeleteTopics: (v) => (v >= 6 ? { topics: [{ name: 'missing' }] } : { topicNames: ['missing'] }),
  InitProducerId: () => ({ transactionalId: null, transactionTimeoutMs: 1000 }),
  DescribeConfigs: () => ({
    resources: [
      { resourceType: 2, resourceName: 'vt', configurationKeys: null },
      { resourceType: 4, resourceName: '0', configurationKeys: ['num.partitions'] },
    ],
  }),
  CreatePartitions: () => ({ topics: [{ name: 'vt', count: 1, assignments: null }], timeoutMs: 100, validateOnly: true }),
  DeleteGroups: () => ({ groupsNames: ['none'] }),
  ConsumerGroupHeartbeat: (v) => ({
    groupId: 'vc',
    memberId: `vm${v}`,
    memberEpoch: 0,
    rebalanceTimeoutMs: 1000,
    subscribedTopicNames: ['vt'],
    topicPartitions: [],
  }),
  ConsumerGroupDescribe: () => ({ groupIds: ['vc', 'none'], includeAuthorizedOperations: false }),
  DescribeTopicPartitions: () => ({ topics: [{ name: 'vt' }, { name: 'none' }], responsePartitionLimit: 10, cursor: null }),
  ElectLeaders: () => ({ electionType: 0, topicPartitions: [{ topic: 'vt', partitions: [0, 9] }], timeoutMs: 100 }),
  DescribeCluster: () => ({ includeClusterAuthorizedOperations: false }),
  // On a plaintext listener both are answered ILLEGAL_SASL_STATE (the exchange itself is tested in security.test.ts).
  SaslHandshake: () => ({ mechanism: 'PLAIN' }),
  SaslAuthenticate: () => ({ authBytes: Buffer.from('\0u\0p') }),
  DeleteRecords: () => ({
    topics: [
      {
        name: 'vt',
        partitions: [
          { partitionIndex: 0, offset: 0n },
          { partitionIndex: 9, offset: 0n },
        ],
      },
    ],
    timeoutMs: 100,
  }),
  OffsetForLeaderEpoch: () => ({
    replicaId: -1,
    topics: [{ topic: 'vt', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }],
  }),
  IncrementalAlterConfigs: () => ({
    resources: [{ resourceType: 2, resourceName: 'vt', configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }],
    validateOnly: true,
  }),
  DescribeUserScramCredentials: () => ({ users: null }),
  DescribeClientQuotas: () => ({ components: [{ entityType: 'client-id', matchType: 2, match: null }], strict: false }),
  AlterClientQuotas: () => ({
    entries: [{ entity: [{ entityType: 'client-id', entityName: 'vc' }], ops: [{ key: 'producer_byte_rate', value: 1e9, remove: false }] }],
    validateOnly: true,
  }),
  DescribeLogDirs: () => ({ topics: [{ topic: 'vt', partitions: [0, 1] }] }),
  DescribeQuorum: () => ({ topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] }),
  // Refused (no such feature), so every version answers without changing the feature.
  UpdateFeatures: () => ({ timeoutMs: 1000, featureUpdates: [{ feature: 'no.such.version', maxVersionLevel: 1 }] }),
  ListConfigResources: (v) => ({ resourceTypes: v >= 1 ? [2] : [] }),
  DescribeAcls: () => ({ ...ACL_FILTER }),
  CreateAcls: () => ({
    creations: [
      { resourceType: 2, resourceName: 'vt', resourcePatternType: 3, principal: 'User:v', host: '*', operation: 3, permissionType: 3 },
    ],
  }),
  DeleteAcls: () => ({ filters: [{ ...ACL_FILTER }] }),
  AlterPartitionReassignments: () => ({ timeoutMs: 1000, topics: [{ name: 'vt', partitions: [{ partitionIndex: 0, replicas: null }] }] }),
  ListPartitionReassignments: () => ({ timeoutMs: 1000, topics: null }),
  DescribeTransactions: () => ({ transactionalIds: ['vtx', 'unknown'] }),
  DescribeProducers: () => ({ topics: [{ name: 'vt', partitionIndexes: [0, 1, 7] }] }),
  ListTransactions: () => ({
    stateFilters: ['Ongoing', 'NoSuchState'],
    producerIdFilters: [],
    durationFilter: -1n,
    transactionalIdPattern: null,
  }),
  AlterUserScramCredentials: () => ({ deletions: [{ name: 'nobody', mechanism: 1 }], upsertions: [] }),
  // Refused on a PLAINTEXT listener (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), as Kafka's: the answer still decodes at each version.
  CreateDelegationToken: (v) => ({
    ...(v >= 3 ? { ownerPrincipalType: 'User', ownerPrincipalName: 'owner' } : {}),
    renewers: [{ principalType: 'User', principalName: 'renewer' }],
    maxLifetimeMs: -1n,
  }),
  RenewDelegationToken: () => ({ hmac: Buffer.alloc(64, 1), renewPeriodMs: -1n }),
  ExpireDelegationToken: () => ({ hmac: Buffer.alloc(64, 1), expiryTimePeriodMs: -1n }),
  DescribeDelegationToken: () => ({ owners: [{ principalType: 'User', principalName: 'owner' }] }),
  ShareGroupHeartbeat: () => ({
    groupId: 'vs',
    memberId: 'versions-share-member-0',
    memberEpoch: 0,
    rackId: null,
    subscribedTopicNames: ['vt'],
  }),
  ShareGroupDescribe: () => ({ groupIds: ['vs'], includeAuthorizedOperations: true }),
  StreamsGroupHeartbeat: (v) => ({
    groupId: 'vst',
    memberId: `vsm${v}`,
    memberEpoch: 0,
    endpointInformationEpoch: -1,
    rebalanceTimeoutMs: 1000,
    topology: {
      epoch: 0,
      subtopologies: [
        {
          subtopologyId: '0',
          sourceTopics: ['vt'],
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
    processId: 'vsp',
    shutdownApplication: false,
  }),
  StreamsGroupDescribe: (v) => ({ groupIds: ['vst', 'none'], includeAuthorizedOperations: false, includeTopologyDescription: v >= 1 }),
  ShareFetch: () => ({
    groupId: 'vs',
    memberId: 'versions-share-member-0',
    shareSessionEpoch: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1 << 20,
    maxRecords: 10,
    batchSize: 10,
    shareAcquireMode: 0,
    isRenewAck: false,
    topics: [{ topicId: TOPIC_ID_PLACEHOLDER, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    forgottenTopicsData: [],
  }),
  ShareAcknowledge: () => ({
    groupId: 'vs',
    memberId: 'versions-share-member-0',
    shareSessionEpoch: -1,
    isRenewAck: false,
    topics: [
      {
        topicId: TOPIC_ID_PLACEHOLDER,
        partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }] }],
      },
    ],
  }),
  DescribeShareGroupOffsets: () => ({ groups: [{ groupId: 'vs', topics: [{ topicName: 'vt', partitions: [0] }] }] }),
  AlterShareGroupOffsets: () => ({
    groupId: 'vs-offsets',
    topics: [{ topicName: 'vt', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
  }),
  DeleteShareGroupOffsets: () => ({ groupId: 'vs-offsets', topics: [{ topicName: 'vt' }] }),
  AlterConfigs: () => ({
    resources: [{ resourceType: 2, resourceName: 'vt', configs: [{ name: 'retention.ms', value: '1000' }] }],
    validateOnly: true,
  }),
  OffsetDelete: () => ({ groupId: 'vg', topics: [{ name: 'vt', partitions: [{ partitionIndex: 0 }] }] }),
  AddPartitionsToTxn: (v) =>
    v < 4
      ? {
          v3AndBelowTransactionalId: 'vtx',
          v3AndBelowProducerId: 1n,
          v3AndBelowProducerEpoch: 0,
          v3AndBelowTopics: [{ name: 'vt', partitions: [0] }],
        }
      : {
          transactions: [
            { transactionalId: 'vtx', producerId: 1n, producerEpoch: 0, verifyOnly: true, topics: [{ name: 'vt', partitions: [0] }] },
            { transactionalId: 'vtx2', producerId: 2n, producerEpoch: 0, verifyOnly: false, topics: [{ name: 'vt', partitions: [1] }] },
          ],
        },
  AddOffsetsToTxn: () => ({ transactionalId: 'vtx', producerId: 1n, producerEpoch: 0, groupId: 'vg' }),
  EndTxn: () => ({ transactionalId: 'vtx', producerId: 1n, producerEpoch: 0, committed: true }),
  TxnOffsetCommit: (v) => ({
    transactionalId: 'vtx',
    groupId: 'vg',
    producerId: 1n,
    producerEpoch: 0,
    topics: [
      {
        name: v < 6 ? 'vt' : '',
        topicId: v >= 6 ? TOPIC_ID_PLACEHOLDER : undefined,
        partitions: [{ partitionIndex: 0, committedOffset: 1n }],
      },
    ],
  }),
}

describe('every served API at every advertised version', () => {
  it('has a sample request here', () => {
    expect(
      Object.values(handlers)
        .map((h) => h.spec.name)
        .filter((n) => !SAMPLES[n]),
    ).toEqual([])
  })

  it('answers with a response that decodes', async () => {
    const problems: string[] = []
    // Warnings and errors: the INFO a sample causes (Metadata v1-3 auto-creating `missing`) is the broker working.
    const cluster = await startCluster({ brokers: 1, topics: [{ name: 'vt', partitions: 2 }], ...keepLog(problems, logLevel.WARN) })
    try {
      const c = await RawClient.open(cluster.bootstrapServers)
      const { Metadata } = await import('../../src/protocol/messages/index.js')
      const topicId = (await c.request(Metadata, 12, { topics: [{ name: 'vt' }] })).topics[0].topicId
      const failures: string[] = []
      for (const h of Object.values(handlers)) {
        for (let v = h.minVersion; v <= h.maxVersion; v++) {
          const req = JSON.parse(
            JSON.stringify(SAMPLES[h.spec.name](v), (_k, x) =>
              typeof x === 'bigint' ? `${x}n` : x === TOPIC_ID_PLACEHOLDER ? topicId : x,
            ),
            (_k, x) =>
              typeof x === 'string' && /^-?\d+n$/.test(x) ? BigInt(x.slice(0, -1)) : x && x.type === 'Buffer' ? Buffer.from(x.data) : x,
          )
          try {
            await c.request(h.spec, v, req)
          } catch (err) {
            failures.push(`${h.spec.name} v${v}: ${(err as Error).message}`)
          }
          if (c.closed) break
        }
      }
      expect(failures).toEqual([])
      expect(problems).toEqual([])
      c.close()
    } finally {
      await cluster.stop()
    }
  })

  it('error answers encode at every version', async () => {
    const cluster = await startCluster({ brokers: 1 })
    try {
      const failures: string[] = []
      for (const h of Object.values(handlers)) {
        const spec = apis[h.spec.apiKey] as ApiSpec
        for (let v = h.minVersion; v <= h.maxVersion; v++) {
          const w = new Writer()
          try {
            const sample = SAMPLES[h.spec.name](v) as any
            if (sample.topicData) sample.topicData[0].topicId = v >= 13 ? 'AAAAAAAAAAAAAAAAAAAAAQ' : undefined
            if (sample.topics?.[0]?.topicId === TOPIC_ID_PLACEHOLDER) sample.topics[0].topicId = 'AAAAAAAAAAAAAAAAAAAAAQ'
            spec.encodeRequest(w, v, sample)
            const req = spec.decodeRequest(new Reader(Buffer.from(w.finish())), v)
            const ctx = { cluster: { controller: { clusterId: 'c' } }, version: v } as any
            spec.encodeResponse(new Writer(), v, h.errorResponse(req, 7, ctx))
          } catch (err) {
            failures.push(`${h.spec.name} v${v}: ${(err as Error).message}`)
          }
        }
      }
      expect(failures).toEqual([])
    } finally {
      await cluster.stop()
    }
  })
})
