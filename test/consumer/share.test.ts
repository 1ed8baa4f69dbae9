// The share consumer's pieces that need no broker: its options (Java's
// names and defaults, unknown keys refused), acknowledgements as the
// protocol's batches, and the share session's epochs and partition lists.
// Its behaviour against Kafka 4.4 is test/kafka/share-groups.test.ts.
import { describe, expect, it } from 'vitest'
import { ConfigError, ConnectionError, Kafka } from '../../src/index.js'
import { MetadataCache } from '../../src/cluster/metadata.js'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { silentLogger } from '../../src/logger.js'
import { ShareFetcher } from '../../src/consumer/share/share-fetcher.js'
import { ShareMembership } from '../../src/consumer/share/share-membership.js'
import { CoordinatorLink } from '../../src/consumer/coordinator-link.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'
import { until } from '../kafka/consumer-support.js'
import { AcknowledgeTypes, PartitionAcknowledgements, PendingAcknowledgements } from '../../src/consumer/share/acknowledgements.js'
import { resolveShareConsumerConfig } from '../../src/consumer/share/config.js'
import { CLOSE_EPOCH, OPEN_EPOCH, ShareSession } from '../../src/consumer/share/share-session.js'

describe('share consumer options', () => {
  it("take Java's KafkaShareConsumer defaults", () => {
    expect(resolveShareConsumerConfig({ groupId: 'g' })).toMatchObject({
      acknowledgementMode: 'implicit',
      maxPollRecords: 500,
      shareAcquireMode: 'batch_optimized',
      minBytes: 1,
      maxBytes: 52_428_800,
      maxWaitTimeInMs: 500,
      requestTimeoutMs: 30_000,
    })
  })

  it('refuse an unknown key, a missing groupId, a value out of range or not among the choices', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:9'] })
    expect(() => kafka.shareConsumer({ groupId: 'g', maxPollRecord: 5 } as never)).toThrow(/maxPollRecord.*maxPollRecords/s)
    expect(() => kafka.shareConsumer({} as never)).toThrow(ConfigError)
    expect(() => kafka.shareConsumer({ groupId: 'g', maxPollRecords: 0 })).toThrow(/maxPollRecords/)
    expect(() => kafka.shareConsumer({ groupId: 'g', acknowledgementMode: 'manual' as never })).toThrow(/'implicit', 'explicit'/)
    expect(() => kafka.shareConsumer({ groupId: 'g', shareAcquireMode: 'strict' as never })).toThrow(/'batch_optimized', 'record_limit'/)
  })

  it("refuse a consumer's option that a share group keeps elsewhere, saying where", () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:9'] })
    expect(() => kafka.shareConsumer({ groupId: 'g', autoOffsetReset: 'earliest' } as never)).toThrow(/share\.auto\.offset\.reset/)
    expect(() => kafka.shareConsumer({ groupId: 'g', autoCommit: true } as never)).toThrow(/acknowledg/)
  })
})

describe('acknowledgements', () => {
  it('consecutive offsets of one type are one batch with one type; mixed types list one per offset', () => {
    const a = new PartitionAcknowledgements('t', 0, 1)
    for (const o of [5n, 3n, 4n]) a.add(o, AcknowledgeTypes.ACCEPT)
    a.add(9n, AcknowledgeTypes.REJECT)
    a.add(10n, AcknowledgeTypes.RELEASE)
    a.add(11n, AcknowledgeTypes.GAP)
    expect(a.batches()).toEqual([
      { firstOffset: 3n, lastOffset: 5n, acknowledgeTypes: [AcknowledgeTypes.ACCEPT] },
      { firstOffset: 9n, lastOffset: 11n, acknowledgeTypes: [AcknowledgeTypes.REJECT, AcknowledgeTypes.RELEASE, AcknowledgeTypes.GAP] },
    ])
  })

  it('a later acknowledgement of an offset replaces the earlier one; take() empties the pending set', () => {
    const p = new PendingAcknowledgements()
    p.add('t', 0, 1, 7n, AcknowledgeTypes.ACCEPT)
    p.add('t', 0, 1, 7n, AcknowledgeTypes.RELEASE)
    p.add('u', 2, 3, 1n, AcknowledgeTypes.ACCEPT)
    const taken = p.take()
    expect(taken.map((a) => [a.topic, a.partition, a.nodeId, a.batches()])).toEqual([
      ['t', 0, 1, [{ firstOffset: 7n, lastOffset: 7n, acknowledgeTypes: [AcknowledgeTypes.RELEASE] }]],
      ['u', 2, 3, [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [AcknowledgeTypes.ACCEPT] }]],
    ])
    expect(p.size).toBe(0)
  })

  it("a partition's records acquired from another broker void the acknowledgements pending for the old one", () => {
    const p = new PendingAcknowledgements()
    p.add('t', 0, 1, 7n, AcknowledgeTypes.ACCEPT)
    p.add('t', 0, 2, 8n, AcknowledgeTypes.ACCEPT)
    expect(p.take().map((a) => [a.nodeId, a.size])).toEqual([[2, 1]])
  })
})

describe('a share session', () => {
  const tp = (topic: string, partition: number) => ({ topic, partition, topicId: `${topic}-id` })

  it('opens at epoch 0 with every partition, then names only what is added and forgotten, one epoch further each answer', () => {
    const s = new ShareSession(1)
    expect(s.nextEpoch).toBe(OPEN_EPOCH)
    expect(s.plan([tp('a', 0), tp('a', 1)])).toEqual({
      added: [
        { topicId: 'a-id', partition: 0 },
        { topicId: 'a-id', partition: 1 },
      ],
      forgotten: [],
    })
    s.answered()
    expect(s.nextEpoch).toBe(1)
    expect(s.plan([tp('a', 0), tp('a', 1)])).toEqual({ added: [], forgotten: [] })
    s.answered()
    expect(s.plan([tp('a', 1), tp('b', 0)])).toEqual({
      added: [{ topicId: 'b-id', partition: 0 }],
      forgotten: [{ topicId: 'a-id', partition: 0 }],
    })
    s.answered()
    expect(s.nextEpoch).toBe(3)
  })

  it('lost (SHARE_SESSION_NOT_FOUND, a failed request): the next request opens a new one with every partition', () => {
    const s = new ShareSession(1)
    s.plan([tp('a', 0)])
    s.answered()
    s.reset()
    expect(s.opening).toBe(true)
    expect(s.plan([tp('a', 0)]).added).toEqual([{ topicId: 'a-id', partition: 0 }])
  })

  it('wraps from int32 max to 1, never to 0 (which would open a new session); -1 closes', () => {
    const s = new ShareSession(1)
    for (let i = 0; i < 3; i++) s.answered()
    ;(s as unknown as { epoch: number }).epoch = 0x7fffffff
    s.answered()
    expect(s.nextEpoch).toBe(1)
    expect(CLOSE_EPOCH).toBe(-1)
  })

  it('runs its requests one at a time, in order, whatever each one does', async () => {
    const s = new ShareSession(1)
    const order: string[] = []
    const slow = s.exclusive(async () => {
      await new Promise((r) => setTimeout(r, 20))
      order.push('first')
      throw new Error('first failed')
    })
    const second = s.exclusive(async () => void order.push('second'))
    await expect(slow).rejects.toThrow('first failed')
    await second
    expect(order).toEqual(['first', 'second'])
  })
})

describe('a share fetch round', () => {
  // Two leaders: partition 0 on broker 1, partition 1 on broker 2. Broker 1 is unreachable.
  function cluster(sent: Array<{ node: number; body: any }>) {
    const metadata = new MetadataCache()
    metadata.topics.set('t', {
      name: 't',
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      isInternal: false,
      errorCode: 0,
      partitions: [0, 1].map((partition) => ({
        partition,
        leader: partition + 1,
        leaderEpoch: 0,
        replicas: [partition + 1],
        isr: [partition + 1],
        offlineReplicas: [],
        errorCode: 0,
      })),
    })
    return {
      metadata,
      log: (ns: string) => silentLogger.namespace(ns),
      refreshMetadata: async () => {},
      async send(node: number, _api: unknown, body: any) {
        sent.push({ node, body })
        if (node === 1) throw new ConnectionError('broker 1 is down')
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          errorMessage: null,
          acquisitionLockTimeoutMs: 30_000,
          responses: [
            {
              topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
              partitions: [
                {
                  partitionIndex: 1,
                  errorCode: 0,
                  errorMessage: null,
                  acknowledgeErrorCode: 0,
                  acknowledgeErrorMessage: null,
                  currentLeader: { leaderId: 2, leaderEpoch: 0 },
                  // Offsets 0-2 in the batch; 0-3 acquired: 3 has no record (a gap).
                  records: encodeRecordBatch([{ value: 'a' }, { value: 'b' }, { value: 'c' }]),
                  acquiredRecords: [{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 2 }],
                },
              ],
            },
          ],
          nodeEndpoints: [],
        }
      },
    }
  }

  it('hands over what a broker acquired though another failed, with delivery counts; an acquired offset without a record goes back as a gap', async () => {
    const sent: Array<{ node: number; body: any }> = []
    const pending = new PendingAcknowledgements()
    const fetcher = new ShareFetcher(
      cluster(sent) as never,
      resolveShareConsumerConfig({ groupId: 'g' }),
      () => 'member',
      pending,
      () => {},
      (err) => {
        throw err
      },
    )
    const got = await fetcher.fetch([
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
    ])
    expect(got.map((d) => [d.partition, d.messages.map((m) => [m.value!.toString(), m.deliveryCount, m.nodeId])])).toEqual([
      [
        1,
        [
          ['a', 2, 2],
          ['b', 2, 2],
          ['c', 2, 2],
        ],
      ],
    ])
    expect(sent.map((s) => [s.node, s.body.shareSessionEpoch, s.body.maxRecords, s.body.batchSize, s.body.shareAcquireMode])).toEqual(
      expect.arrayContaining([
        [1, 0, 500, 500, 0],
        [2, 0, 500, 500, 0],
      ]),
    )
    expect(pending.take().map((a) => [a.partition, a.nodeId, a.batches()])).toEqual([
      [1, 2, [{ firstOffset: 3n, lastOffset: 3n, acknowledgeTypes: [AcknowledgeTypes.GAP] }]],
    ])
  })
})

describe('share-group membership', () => {
  const topicId = 'AAAAAAAAAAAAAAAAAAAAAg'
  function scripted(answers: Array<(req: any) => any>) {
    let i = 0
    const cluster = new ScriptedCluster((api, req) => {
      expect(api.name).toBe('ShareGroupHeartbeat')
      const a = answers[Math.min(i++, answers.length - 1)]
      return { heartbeatIntervalMs: 5, ...a(req) }
    })
    cluster.metadata.topics.set('jobs', { name: 'jobs', topicId, isInternal: false, errorCode: 0, partitions: [] })
    return cluster
  }
  const hooks = (assigned: string[][], fatal: Error[]) => ({
    assigned: (l: Array<{ topic: string; partition: number }>) => void assigned.push(l.map((p) => `${p.topic}-${p.partition}`)),
    topics: () => ['jobs'],
    emit: () => {},
    fatal: (e: Error) => void fatal.push(e),
  })
  const config = resolveShareConsumerConfig({ groupId: 'g', retryBackoffMs: 1, retryBackoffMaxMs: 5 })
  const requests = (c: ScriptedCluster) => c.sent.map((s) => [...s.requests.values()].at(-1))

  it('joins at epoch 0 with its subscription, takes the assignment by topic id, and when fenced drops it and joins again at 0', async () => {
    const cluster = scripted([
      () => ({ memberEpoch: 1, assignment: { topicPartitions: [{ topicId, partitions: [0, 1] }] } }),
      () => ({ errorCode: ErrorCodes.FENCED_MEMBER_EPOCH, memberEpoch: 0 }),
      () => ({ memberEpoch: 3, assignment: { topicPartitions: [{ topicId, partitions: [1] }] } }),
      () => ({ memberEpoch: 3 }),
    ])
    const assigned: string[][] = []
    const m = new ShareMembership(new CoordinatorLink(cluster, 'g'), config, hooks(assigned, []))
    await m.start()
    await until(
      () => assigned.length >= 3,
      5000,
      () => JSON.stringify(assigned),
    )
    await m.leave()
    expect(assigned.slice(0, 3)).toEqual([['jobs-0', 'jobs-1'], [], ['jobs-1']])
    const sent = requests(cluster)
    expect(sent.slice(0, 3).map((r) => [r.memberEpoch, r.subscribedTopicNames])).toEqual([
      [0, ['jobs']],
      [1, null],
      [0, ['jobs']],
    ])
    // The leave: epoch -1, same member id throughout.
    expect(sent.at(-1).memberEpoch).toBe(-1)
    expect(new Set(sent.map((r) => r.memberId))).toEqual(new Set([m.memberId]))
    expect(m.current).toBe('left')
  })

  it('an error no heartbeat can fix (GROUP_AUTHORIZATION_FAILED) fails the start and stops the member', async () => {
    const cluster = scripted([() => ({ errorCode: ErrorCodes.GROUP_AUTHORIZATION_FAILED, memberEpoch: 0 })])
    const fatal: Error[] = []
    const m = new ShareMembership(new CoordinatorLink(cluster, 'g'), config, hooks([], fatal))
    await expect(m.start()).rejects.toThrow(/GROUP_AUTHORIZATION_FAILED/)
    expect(fatal).toHaveLength(1)
    expect(m.current).toBe('failed')
    expect(cluster.sent).toHaveLength(1)
  })

  it('a coordinator that moved is looked up again and the heartbeat retried', async () => {
    const cluster = scripted([() => ({ errorCode: ErrorCodes.NOT_COORDINATOR, memberEpoch: 0 }), () => ({ memberEpoch: 1 })])
    const m = new ShareMembership(new CoordinatorLink(cluster, 'g'), config, hooks([], []))
    await m.start()
    expect(m.epoch).toBe(1)
    await m.leave()
    expect(
      requests(cluster)
        .map((r) => r.memberEpoch)
        .slice(0, 2),
    ).toEqual([0, 0])
  })
})

describe('a share session the broker lost', () => {
  it('reports the acknowledgements that went with it as not applied, and opens a new session with every partition', async () => {
    const topicId = 'AAAAAAAAAAAAAAAAAAAAAw'
    const metadata = new MetadataCache()
    metadata.topics.set('t', {
      name: 't',
      topicId,
      isInternal: false,
      errorCode: 0,
      partitions: [{ partition: 0, leader: 1, leaderEpoch: 0, replicas: [1], isr: [1], offlineReplicas: [], errorCode: 0 }],
    })
    const sent: any[] = []
    const answers = [
      // Round 1: offset 0 acquired.
      {
        errorCode: 0,
        responses: [
          {
            topicId,
            partitions: [
              {
                partitionIndex: 0,
                errorCode: 0,
                acknowledgeErrorCode: 0,
                records: encodeRecordBatch([{ value: 'x' }]),
                acquiredRecords: [{ firstOffset: 0n, lastOffset: 0n, deliveryCount: 1 }],
              },
            ],
          },
        ],
      },
      // Round 2: the broker no longer knows the session.
      { errorCode: ErrorCodes.SHARE_SESSION_NOT_FOUND, responses: [] },
      { errorCode: 0, responses: [] },
    ]
    const fake = {
      metadata,
      log: (ns: string) => silentLogger.namespace(ns),
      refreshMetadata: async () => {},
      async send(_node: number, _api: unknown, body: any) {
        sent.push(body)
        return answers[sent.length - 1]
      },
    }
    const pending = new PendingAcknowledgements()
    const outcomes: Array<{ count: number; error: string | null }> = []
    const fetcher = new ShareFetcher(
      fake as never,
      resolveShareConsumerConfig({ groupId: 'g' }),
      () => 'member',
      pending,
      (results) => outcomes.push(...results.map((r) => ({ count: r.count, error: r.error?.message ?? null }))),
      (err) => {
        throw err
      },
    )
    const [first] = await fetcher.fetch([{ topic: 't', partition: 0 }])
    pending.add('t', 0, first.messages[0].nodeId, first.messages[0].offsetBigInt, AcknowledgeTypes.ACCEPT)
    expect(await fetcher.fetch([{ topic: 't', partition: 0 }])).toEqual([])
    await fetcher.fetch([{ topic: 't', partition: 0 }])
    expect(
      sent.map((b) => [
        b.shareSessionEpoch,
        b.topics.map((t: any) => t.partitions.map((p: any) => [p.partitionIndex, p.acknowledgementBatches.length])),
      ]),
    ).toEqual([
      [0, [[[0, 0]]]],
      // The acknowledgement goes with the fetch at epoch 1, and is lost with the session.
      [1, [[[0, 1]]]],
      // Epoch 0 again: the partition named again, no acknowledgement (none may open a session).
      [0, [[[0, 0]]]],
    ])
    expect(outcomes).toEqual([{ count: 1, error: expect.stringMatching(/SHARE_SESSION_NOT_FOUND/) }])
  })
})
