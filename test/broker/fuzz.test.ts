// Mutated requests against the embedded broker for a bounded time: valid
// frames of the served APIs with bytes flipped, cut, extended, or with a
// wrong size. The broker must stay up, keep answering a well-behaved client,
// and never fail inside a handler or while encoding a response (those are
// reported in the broker's log as "failed" / "could not encode").
//
// Randomized but replayable: WAFKA_BROKER_FUZZ_SEED replays a seed,
// WAFKA_BROKER_FUZZ_MS changes the time budget.
import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { mutate } from './mutate.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster } from '../../src/broker/index.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import {
  ApiVersions,
  CreatePartitions,
  CreateTopics,
  DeleteGroups,
  DeleteTopics,
  DescribeCluster,
  DescribeConfigs,
  DescribeGroups,
  Fetch,
  FindCoordinator,
  Heartbeat,
  InitProducerId,
  JoinGroup,
  LeaveGroup,
  ListConfigResources,
  ListGroups,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  Produce,
  SyncGroup,
  UpdateFeatures,
} from '../../src/protocol/messages/index.js'
import { seedFromEnv } from '../prng.js'
import { RawClient } from './raw-client.js'
import { keepLog } from './support.js'

const seed = seedFromEnv('WAFKA_BROKER_FUZZ_SEED')
const BUDGET_MS = Number(process.env.WAFKA_BROKER_FUZZ_MS ?? 8000)
console.log(`broker fuzz seed ${seed} (replay: WAFKA_BROKER_FUZZ_SEED=${seed})`)

const batch = encodeRecordBatch([{ key: 'k', value: 'v', headers: { h: 'x' } }, { value: 'w' }], { compression: 'gzip' })

/** Valid requests to start from, each at a version the broker serves. */
const SEEDS: [ApiSpec, number, unknown][] = [
  [ApiVersions, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' }],
  [Metadata, 12, { topics: [{ name: 'fz' }], allowAutoTopicCreation: true }],
  [Metadata, 4, { topics: [{ name: 'fz' }], allowAutoTopicCreation: false }],
  [Produce, 9, { acks: -1, timeoutMs: 1000, topicData: [{ name: 'fz', partitionData: [{ index: 0, records: batch }] }] }],
  [Produce, 3, { acks: 1, timeoutMs: 1000, topicData: [{ name: 'fz', partitionData: [{ index: 1, records: batch }] }] }],
  [
    Fetch,
    12,
    {
      maxWaitMs: 5,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [{ topic: 'fz', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    },
  ],
  [
    Fetch,
    4,
    {
      maxWaitMs: 5,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [{ topic: 'fz', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    },
  ],
  [ListOffsets, 7, { replicaId: -1, topics: [{ name: 'fz', partitions: [{ partitionIndex: 0, timestamp: -3n }] }] }],
  [ListOffsets, 11, { replicaId: -1, topics: [{ name: 'fz', partitions: [{ partitionIndex: 0, timestamp: -6n }] }] }],
  [ApiVersions, 5, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1', clusterId: 'c', nodeId: 0 }],
  [UpdateFeatures, 2, { featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }], validateOnly: true }],
  [ListConfigResources, 1, { resourceTypes: [2, 4, 32] }],
  [
    OffsetFetch,
    10,
    {
      groups: [{ groupId: 'g1', memberId: null, memberEpoch: -1, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionIndexes: [0] }] }],
    },
  ],
  [
    OffsetCommit,
    10,
    {
      groupId: 'g3',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partitionIndex: 0, committedOffset: 1n }] }],
    },
  ],
  [
    CreateTopics,
    7,
    { topics: [{ name: 'fz2', numPartitions: 2, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '10' }] }], timeoutMs: 100 },
  ],
  [CreatePartitions, 3, { topics: [{ name: 'fz', count: 4, assignments: null }], timeoutMs: 100 }],
  [DeleteTopics, 6, { topics: [{ name: 'fz2' }], timeoutMs: 100 }],
  [DescribeConfigs, 4, { resources: [{ resourceType: 2, resourceName: 'fz', configurationKeys: null }], includeSynonyms: true }],
  [DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 }],
  [FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g1', 'g2'] }],
  [FindCoordinator, 1, { key: 'g1', keyType: 0 }],
  [
    JoinGroup,
    9,
    {
      groupId: 'g1',
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: 300,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 1, 0, 2, 'f'.charCodeAt(0), 'z'.charCodeAt(0)]) }],
    },
  ],
  [
    JoinGroup,
    3,
    {
      groupId: 'g1',
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: 300,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    },
  ],
  [
    SyncGroup,
    5,
    {
      groupId: 'g1',
      generationId: 1,
      memberId: 'm',
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: 'm', assignment: Buffer.alloc(4) }],
    },
  ],
  [Heartbeat, 4, { groupId: 'g1', generationId: 1, memberId: 'm' }],
  [LeaveGroup, 5, { groupId: 'g1', members: [{ memberId: 'm', groupInstanceId: 'i' }] }],
  [
    OffsetCommit,
    9,
    {
      groupId: 'g2',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 'fz', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: 'm' }] }],
    },
  ],
  [OffsetFetch, 9, { groups: [{ groupId: 'g2', topics: null }] }],
  [OffsetFetch, 5, { groupId: 'g2', topics: [{ name: 'fz', partitionIndexes: [0, 1] }] }],
  [ListGroups, 5, { statesFilter: ['Stable'], typesFilter: [] }],
  [DescribeGroups, 5, { groups: ['g1', 'g2'] }],
  [DeleteGroups, 2, { groupsNames: ['g2'] }],
  [InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 1000 }],
]

describe('broker fuzz', () => {
  it(
    `stays up and serves a well-behaved client through ${BUDGET_MS} ms of mutated requests (seed ${seed})`,
    async () => {
      const problems: string[] = []
      const cluster = await startCluster({
        brokers: 2,
        topics: [{ name: 'fz', partitions: 2 }],
        maxRequestBytes: 1 << 20,
        ...keepLog(problems),
      })
      const rng = new Prng(seed)
      const addresses = cluster.bootstrapServers.split(',')
      let sent = 0
      let closed = 0
      let answered = 0
      try {
        const deadline = Date.now() + BUDGET_MS
        while (Date.now() < deadline) {
          const c = await RawClient.open(rng.pick(addresses))
          for (let i = 0; i < 20 && !c.closed; i++) {
            const [spec, version, req] = rng.pick(SEEDS)
            c.write(mutate(rng, RawClient.frame(spec, version, req as never, i + 1)))
            sent++
            // Some get an answer, some a closed connection, a cut-short one neither: don't wait long.
            const body = await c.readFrame(150).catch(() => undefined)
            if (body === null) closed++
            else if (body) answered++
          }
          c.close()
          // Between rounds, a well-behaved client must be served.
          const good = await RawClient.open(rng.pick(addresses))
          const v = await good.request(ApiVersions, 3, { clientSoftwareName: 'good', clientSoftwareVersion: '1' })
          expect(v.errorCode).toBe(0)
          const md = await good.request(Metadata, 12, { topics: [{ name: 'fz' }] })
          expect(md.topics[0].errorCode).toBe(0)
          good.close()
        }
        console.log(`broker fuzz: ${sent} mutated requests, ${answered} answered, ${closed} connections closed on them`)
        expect(answered).toBeGreaterThan(0)
        expect(closed).toBeGreaterThan(0)
        expect(problems.filter((p) => / failed: | could not encode /.test(p))).toEqual([])
      } finally {
        await cluster.stop()
      }
    },
    BUDGET_MS + 30_000,
  )
})
