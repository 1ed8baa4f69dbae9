import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Admin } from '../../src/admin/admin.js'
import { Cluster } from '../../src/cluster/cluster.js'
import type { Answered } from '../../src/cluster/client.js'
import { Routes } from '../../src/cluster/route.js'
import { shardedRequest } from '../../src/cluster/sharded.js'
import type { Input } from '../../src/protocol/api.js'
import { KafkaError, kafkaError } from '../../src/errors.js'
import { Connection } from '../../src/net/connection.js'
import { ProducerIdentity } from '../../src/producer/producer-identity.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  FindCoordinator,
  InitProducerId,
  ListOffsets,
  Metadata,
  OffsetFetch,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
} from '../../src/protocol/messages/index.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'

/**
 * The routing seam, Cluster.request(api, body, route), against librdkafka's
 * mock cluster and its error injection: where each attempt goes, what a
 * failure makes it forget, and that the caller's budget bounds the retries.
 */
describe.each(['legacy', 'modern'] as const)('routing against the %s librdkafka mock', (build) => {
  let mock: MockCluster
  const clusters: Cluster[] = []
  const cluster = async (extra: Partial<ConstructorParameters<typeof Cluster>[0]> = {}) => {
    const c = new Cluster({ clientId: 'wafka-routing', brokers: mock.bootstrap.split(','), requestTimeoutMs: 5000, ...extra })
    clusters.push(c)
    await c.connect()
    return c
  }
  /** Each request of these APIs as `API@node`, in order. */
  const recorded = (...apis: Array<{ apiKey: number; name: string }>) => {
    const seen: string[] = []
    const send = Connection.prototype.request
    vi.spyOn(Connection.prototype, 'request').mockImplementation(function (this: Connection, api, body, opts) {
      if (apis.some((a) => a.apiKey === api.apiKey)) seen.push(`${api.name}@${this.nodeId ?? 'bootstrap'}`)
      return send.call(this, api, body, opts)
    })
    return seen
  }

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    await mock.createTopic('routed', { partitions: 2, replicationFactor: 3 })
  })
  afterEach(() => vi.restoreAllMocks())
  afterAll(async () => {
    await Promise.all(clusters.map((c) => c.disconnect()))
    await mock?.stop()
  })

  const offsetFetch =
    (groupId: string) =>
    (v: number): Input<OffsetFetchRequest> =>
      v >= 8
        ? { groups: [{ groupId, topics: [{ name: 'routed', partitionIndexes: [0] }] }] }
        : { groupId, topics: [{ name: 'routed', partitionIndexes: [0] }] }
  const topLevel = (res: OffsetFetchResponse, from: Answered) => {
    const code = from.version >= 8 ? res.groups[0].errorCode : res.errorCode
    if (code) throw kafkaError(code, { api: 'OffsetFetch', broker: from.broker })
  }

  it('a coordinator that moved is forgotten, found again, and the request retried there', async () => {
    const groupId = `moving-${build}`
    const c = await cluster()
    const first = await c.coordinator('group', groupId)
    const next = mock.brokers.map((b) => b.id).find((id) => id !== first)!
    await mock.setCoordinator('group', groupId, next)
    await mock.pushBrokerRequestErrors(first, OffsetFetch.apiKey, [ErrorCodes.NOT_COORDINATOR])
    const seen = recorded(OffsetFetch, FindCoordinator)
    const { nodeId } = await c.request(OffsetFetch, offsetFetch(groupId), Routes.group(groupId), { check: topLevel })
    expect(nodeId).toBe(next)
    expect(seen).toEqual([`OffsetFetch@${first}`, expect.stringMatching(/^FindCoordinator@/), `OffsetFetch@${next}`])
  })

  it('a transaction coordinator that is not available yet is asked again (InitProducerId through ProducerIdentity)', async () => {
    const c = await cluster()
    const txn = `txn-${build}`
    const coordinator = await c.coordinator('transaction', txn)
    await mock.pushBrokerRequestErrors(coordinator, InitProducerId.apiKey, [ErrorCodes.COORDINATOR_NOT_AVAILABLE])
    const seen = recorded(InitProducerId, FindCoordinator)
    const identity = new ProducerIdentity(c, txn, 60_000)
    await identity.init()
    expect(identity.ready).toBe(true)
    // Forgotten after the error, so looked up again before the retry.
    expect(seen).toEqual([`InitProducerId@${coordinator}`, expect.stringMatching(/^FindCoordinator@/), `InitProducerId@${coordinator}`])
  })

  it('stale metadata is refreshed before the retry, which goes to the new leader', async () => {
    await mock.setLeader('routed', 0, 1)
    const c = await cluster()
    expect(await c.leaderFor('routed', 0)).toBe(1)
    await mock.setLeader('routed', 0, 2) // the cache still says broker 1, which answers NOT_LEADER_OR_FOLLOWER
    const seen = recorded(ListOffsets, Metadata)
    const { res, nodeId } = await c.request(
      ListOffsets,
      { replicaId: -1, topics: [{ name: 'routed', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] },
      Routes.leader('routed', 0),
      {
        check: (r) =>
          r.topics[0].partitions[0].errorCode &&
          (() => {
            throw kafkaError(r.topics[0].partitions[0].errorCode, { api: 'ListOffsets' })
          })(),
      },
    )
    expect(nodeId).toBe(2)
    expect(res.topics[0].partitions[0].offset).toBe(0n)
    expect(seen).toEqual(['ListOffsets@1', expect.stringMatching(/^Metadata@/), 'ListOffsets@2'])
  })

  it('a sharded request sends again only the shard whose leader moved, to the new leader', async () => {
    await mock.setLeader('routed', 0, 1)
    await mock.setLeader('routed', 1, 2)
    const c = await cluster()
    expect([await c.leaderFor('routed', 0), await c.leaderFor('routed', 1)]).toEqual([1, 2])
    await mock.setLeader('routed', 1, 3) // the cache still says broker 2, which answers NOT_LEADER_OR_FOLLOWER
    const seen = recorded(ListOffsets)
    const answers = await shardedRequest(
      c,
      ListOffsets,
      [0, 1].map((partition) => ({ topic: 'routed', partition })),
      (shard) => ({
        replicaId: -1,
        topics: [{ name: 'routed', partitions: shard.map((tp) => ({ partitionIndex: tp.partition, timestamp: -1n })) }],
      }),
      {
        check: (r) => {
          for (const p of r.topics[0].partitions) if (p.errorCode) throw kafkaError(p.errorCode, { api: 'ListOffsets' })
        },
      },
    )
    expect(answers.map((a) => a.nodeId).sort()).toEqual([1, 3])
    expect([...seen].sort()).toEqual(['ListOffsets@1', 'ListOffsets@2', 'ListOffsets@3'])
    expect(seen[2]).toBe('ListOffsets@3')
  })

  it("the caller's budget bounds the retries, with backoff between them; 0 is a single attempt", async () => {
    const c = await cluster({ retryBackoffMs: 50, retryBackoffMaxMs: 100 })
    const leader = await c.leaderFor('routed', 1)
    const body = { replicaId: -1, topics: [{ name: 'routed', partitions: [{ partitionIndex: 1, timestamp: -1n }] }] }
    const check = (r: any) => {
      const code = r.topics[0].partitions[0].errorCode
      if (code) throw kafkaError(code, { api: 'ListOffsets' })
    }
    await mock.pushBrokerRequestErrors(leader, ListOffsets.apiKey, Array(100).fill(ErrorCodes.LEADER_NOT_AVAILABLE))
    try {
      const seen = recorded(ListOffsets)
      const started = Date.now()
      const err = await c.request(ListOffsets, body, Routes.leader('routed', 1), { retryMs: 800, check }).catch((e) => e)
      const took = Date.now() - started
      expect(err).toBeInstanceOf(KafkaError)
      expect(err).toMatchObject({ type: 'LEADER_NOT_AVAILABLE', retriable: true })
      expect(took).toBeLessThan(800 + 1000)
      // Backoff (50 ms doubling to 100 ms, plus a metadata refresh each time) spaces the attempts: a handful, not a spin.
      expect(seen.length).toBeGreaterThan(2)
      expect(seen.length).toBeLessThan(20)

      seen.length = 0
      const once = await c.request(ListOffsets, body, Routes.leader('routed', 1), { retryMs: 0, check }).catch((e) => e)
      expect(once).toMatchObject({ type: 'LEADER_NOT_AVAILABLE' })
      expect(seen).toEqual([`ListOffsets@${leader}`])
    } finally {
      // Drain what is left so later tests see a healthy broker.
      while ((await mock.brokerErrorCount(leader, ListOffsets.apiKey)) > 0)
        await c.request(ListOffsets, body, Routes.node(leader), { retryMs: 0 }).catch(() => {})
    }
  })

  it('fifty concurrent admin calls put no pile of listeners on the client signal (no MaxListenersExceededWarning)', async () => {
    const c = await cluster()
    const admin = new Admin(c)
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const calls = Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0 ? admin.fetchTopicMetadata({ topics: ['routed'] }) : admin.fetchTopicOffsets('routed'),
      )
      await Promise.all(calls)
      await new Promise((r) => setImmediate(r)) // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})
