import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import * as platformatic from '@platformatic/kafka'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch, loadCodecs } from '../../src/codec/index.js'
import { Fetch, FindCoordinator, JoinGroup, Metadata, Produce, type ApiSpec, type Input } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

/**
 * Agreement with two independent implementations of the same APIs:
 * KafkaJS (requests/<api>/v<N>, the older versions) and @platformatic/kafka
 * (<api>V<N>, the flexible ones). Requests: the bytes they write are the
 * bytes we write for the same input (or, where they build record batches
 * themselves, we decode theirs and write back the same bytes). Responses:
 * they decode what we encode to the same values.
 */

const require = createRequire(import.meta.url)
const pk = platformatic as any

async function kafkajsRequest(api: string, version: number, args: object): Promise<Buffer> {
  const request = require(`kafkajs/src/protocol/requests/${api}/v${version}/request`)(args)
  return (await request.encode()).buffer
}

async function kafkajsResponse(api: string, version: number, bytes: Buffer): Promise<any> {
  return require(`kafkajs/src/protocol/requests/${api}/v${version}/response`).decode(bytes)
}

function platformaticRequest(api: string, version: number, ...args: unknown[]): Buffer {
  return pk[`${api}V${version}`].createRequest(...args).buffer
}

function platformaticResponse(spec: ApiSpec, api: string, version: number, bytes: Buffer): any {
  return pk[`${api}V${version}`].parseResponse(1, spec.apiKey, version, pk.Reader.from(bytes))
}

function request<Req>(api: ApiSpec<Req, any>, version: number, req: Input<Req>): Buffer {
  const w = new Writer()
  api.encodeRequest(w, version, req)
  return Buffer.from(w.finish())
}

function response<Res>(api: ApiSpec<any, Res>, version: number, res: Input<Res>): Buffer {
  const w = new Writer()
  api.encodeResponse(w, version, res)
  return Buffer.from(w.finish())
}

/** Decodes a request they wrote, and checks that writing it back gives their bytes. */
function decodeTheirs<Req>(api: ApiSpec<Req, any>, version: number, bytes: Buffer): Req {
  const r = new Reader(bytes)
  const req = api.decodeRequest(r, version)
  expect(r.remaining).toBe(0)
  expect(request(api, version, req as Input<Req>).equals(bytes)).toBe(true)
  return req
}

const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)
const TOPIC_ID = Buffer.from('0123456789abcdef0123456789abcdef', 'hex').toString('base64url')
/** The same UUID as @platformatic/kafka writes and reads it. */
const TOPIC_ID_DASHED = '01234567-89ab-cdef-0123-456789abcdef'

describe('Metadata', () => {
  const topics = ['orders', 'payments']
  const res = {
    throttleTimeMs: 0,
    brokers: [
      { nodeId: 1, host: 'kafka-1', port: 9092, rack: 'r1' },
      { nodeId: 2, host: 'kafka-2', port: 9093, rack: null },
    ],
    clusterId: 'cluster-a',
    controllerId: 2,
    topics: [
      {
        errorCode: 0,
        name: 'orders',
        topicId: TOPIC_ID,
        isInternal: false,
        partitions: [
          { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 4, replicaNodes: [1, 2], isrNodes: [1, 2], offlineReplicas: [] },
          { errorCode: 0, partitionIndex: 1, leaderId: 2, leaderEpoch: 5, replicaNodes: [2, 1], isrNodes: [2], offlineReplicas: [1] },
        ],
        topicAuthorizedOperations: -2147483648,
      },
    ],
  }

  it('requests v0-6 are the bytes KafkaJS writes', async () => {
    for (const v of range(0, 6)) {
      const theirs = await kafkajsRequest('metadata', v, { topics, allowAutoTopicCreation: false })
      expect(
        request(Metadata, v, { topics: topics.map((name) => ({ name })), allowAutoTopicCreation: v >= 4 ? false : true }),
        `v${v}`,
      ).toEqual(theirs)
    }
  })

  it('requests v9-12 are the bytes @platformatic/kafka writes', () => {
    for (const v of range(9, 12)) {
      for (const flags of [
        [false, false],
        [true, true],
      ]) {
        let theirs = platformaticRequest('metadata', v, topics, ...flags)
        // Its v11 writer keeps IncludeClusterAuthorizedOperations, which only
        // v8-10 have (one byte before the last two): drop it to compare the rest.
        if (v === 11) theirs = Buffer.concat([theirs.subarray(0, -3), theirs.subarray(-2)])
        const ours = request(Metadata, v, {
          topics: topics.map((name) => ({ name })),
          allowAutoTopicCreation: flags[0],
          includeTopicAuthorizedOperations: flags[1],
        })
        expect(ours, `v${v}`).toEqual(theirs)
      }
    }
  })

  it('responses v0-6 decode in KafkaJS to the same brokers, topics and partitions', async () => {
    for (const v of range(0, 6)) {
      const theirs = await kafkajsResponse('metadata', v, response(Metadata, v, res))
      expect(
        theirs.brokers.map((b: any) => [b.nodeId, b.host, b.port]),
        `v${v}`,
      ).toEqual(res.brokers.map((b) => [b.nodeId, b.host, b.port]))
      if (v >= 1) expect(theirs.brokers.map((b: any) => b.rack)).toEqual(['r1', null])
      if (v >= 1) expect(theirs.controllerId).toBe(2)
      if (v >= 2) expect(theirs.clusterId).toBe('cluster-a')
      expect(
        theirs.topicMetadata.map((t: any) => [
          t.topic,
          t.topicErrorCode,
          t.partitionMetadata.map((p: any) => [p.partitionId, p.leader, p.replicas, p.isr]),
        ]),
      ).toEqual(
        res.topics.map((t) => [t.name, t.errorCode, t.partitions.map((p) => [p.partitionIndex, p.leaderId, p.replicaNodes, p.isrNodes])]),
      )
      if (v >= 5) expect(theirs.topicMetadata[0].partitionMetadata[1].offlineReplicas).toEqual([1])
    }
  })

  it('responses v9-12 decode in @platformatic/kafka to the same values', () => {
    for (const v of range(9, 12)) {
      const theirs = platformaticResponse(Metadata, 'metadata', v, response(Metadata, v, res))
      expect(theirs.brokers, `v${v}`).toEqual(res.brokers)
      expect(theirs.clusterId).toBe('cluster-a')
      expect(theirs.controllerId).toBe(2)
      const t = theirs.topics[0]
      expect([t.name, t.errorCode, t.isInternal, t.topicAuthorizedOperations]).toEqual(['orders', 0, false, -2147483648])
      if (v >= 10) expect(t.topicId).toBe(TOPIC_ID_DASHED)
      expect(t.partitions).toEqual(res.topics[0].partitions)
    }
  })
})

describe('Produce', () => {
  const messages = [
    { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: 1_700_000_000_000 },
    { key: null, value: Buffer.from('v2'), timestamp: 1_700_000_000_005 },
  ]

  // Kafka 4 removed Produce v0-2 and Fetch v0-3 (message sets); wafka writes record batches, v3+.
  it('requests v3-7 that KafkaJS writes decode, and encode back to the same bytes', async () => {
    for (const v of range(3, 7)) {
      const theirs = await kafkajsRequest('produce', v, {
        acks: -1,
        timeout: 30000,
        transactionalId: v >= 3 ? 'tx-1' : undefined,
        topicData: [{ topic: 'orders', partitions: [{ partition: 3, messages }] }],
      })
      const req = decodeTheirs(Produce, v, theirs)
      expect(req.transactionalId).toBe(v >= 3 ? 'tx-1' : null)
      expect([req.acks, req.timeoutMs]).toEqual([-1, 30000])
      expect(req.topicData.map((t) => [t.name, t.partitionData.map((p) => p.index)])).toEqual([['orders', [3]]])
      const { batches } = decodeRecordSet(req.topicData[0].partitionData[0].records!)
      const records = batches.flatMap((b) => b.records)
      expect(records.map((r) => [r.key?.toString() ?? null, r.value?.toString()])).toEqual([
        ['k1', 'v1'],
        [null, 'v2'],
      ])
    }
  })

  it('requests v7-11 that @platformatic/kafka writes decode, and encode back to the same bytes', () => {
    for (const v of range(7, 11)) {
      const toProduce = messages.map((m) => ({
        topic: 'orders',
        partition: 1,
        key: m.key ?? undefined,
        value: m.value,
        timestamp: BigInt(m.timestamp),
      }))
      const theirs = platformaticRequest('produce', v, 1, 5000, toProduce, { compression: 'none', producerId: 7n, producerEpoch: 0 })
      const req = decodeTheirs(Produce, v, theirs)
      expect([req.transactionalId, req.acks, req.timeoutMs]).toEqual([null, 1, 5000])
      expect(req.topicData[0].name).toBe('orders')
      expect(req.topicData[0].partitionData[0].index).toBe(1)
      const { batches } = decodeRecordSet(req.topicData[0].partitionData[0].records!)
      expect(batches[0].producerId).toBe(7n)
      expect(batches[0].records.map((r) => r.value?.toString())).toEqual(['v1', 'v2'])
    }
  })

  const res = {
    responses: [
      {
        name: 'orders',
        partitionResponses: [
          {
            index: 3,
            errorCode: 0,
            baseOffset: 1234567890123n,
            logAppendTimeMs: -1n,
            logStartOffset: 17n,
            recordErrors: [],
            errorMessage: null,
          },
        ],
      },
    ],
    throttleTimeMs: 12,
  }

  it('responses decode in KafkaJS (v3-7) and @platformatic/kafka (v7-11) to the same values', async () => {
    for (const v of range(3, 7)) {
      const theirs = await kafkajsResponse('produce', v, response(Produce, v, res))
      const p = theirs.topics[0].partitions[0]
      expect([theirs.topics[0].topicName, p.partition, p.errorCode, p.offset ?? p.baseOffset], `v${v}`).toEqual([
        'orders',
        3,
        0,
        '1234567890123',
      ])
      if (v >= 2) expect(p.logAppendTime ?? p.timestamp).toBe('-1')
      if (v >= 5) expect(p.logStartOffset).toBe('17')
    }
    for (const v of range(7, 11)) {
      const theirs = platformaticResponse(Produce, 'produce', v, response(Produce, v, res))
      expect(theirs, `v${v}`).toEqual(res)
    }
  })
})

describe('Fetch', () => {
  beforeAll(() => loadCodecs())

  it('requests v4-11 are the bytes KafkaJS writes', async () => {
    const partitions = [
      { partition: 0, fetchOffset: '42', maxBytes: 1048576, currentLeaderEpoch: 3, logStartOffset: -1 },
      { partition: 5, fetchOffset: '9007199254740993', maxBytes: 65536, currentLeaderEpoch: -1, logStartOffset: -1 },
    ]
    const args = {
      replicaId: -1,
      maxWaitTime: 500,
      minBytes: 1,
      maxBytes: 52428800,
      isolationLevel: 1,
      sessionId: 7,
      sessionEpoch: 2,
      topics: [{ topic: 'orders', partitions }],
      forgottenTopics: [{ topic: 'old', partitions: [1, 2] }],
      rackId: 'rack-a',
    }
    for (const v of range(4, 11)) {
      const theirs = await kafkajsRequest('fetch', v, args)
      const ours = request(Fetch, v, {
        replicaId: -1,
        maxWaitMs: 500,
        minBytes: 1,
        maxBytes: 52428800,
        isolationLevel: 1,
        sessionId: 7,
        sessionEpoch: 2,
        topics: [
          {
            topic: 'orders',
            partitions: partitions.map((p) => ({
              partition: p.partition,
              fetchOffset: BigInt(p.fetchOffset),
              partitionMaxBytes: p.maxBytes,
              currentLeaderEpoch: p.currentLeaderEpoch,
              logStartOffset: -1n,
            })),
          },
        ],
        forgottenTopicsData: v >= 7 ? [{ topic: 'old', partitions: [1, 2] }] : [],
        rackId: 'rack-a',
      })
      expect(ours, `v${v}`).toEqual(theirs)
    }
  })

  it('requests v13-17 are the bytes @platformatic/kafka writes', () => {
    // (Its v12 writer puts a topic id where v12 still has the topic name, so v12 is left out.)
    for (const v of range(13, 17)) {
      const partitions = [{ partition: 2, currentLeaderEpoch: 4, fetchOffset: 100n, lastFetchedEpoch: 3, partitionMaxBytes: 1024 }]
      const theirs = platformaticRequest('fetch', v, 500, 1, 1 << 20, 0, 0, -1, [{ topicId: TOPIC_ID_DASHED, partitions }], [], 'r')
      const ours = request(Fetch, v, {
        maxWaitMs: 500,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topicId: TOPIC_ID, partitions }],
        rackId: 'r',
      })
      expect(ours, `v${v}`).toEqual(theirs)
    }
  })

  async function batch(): Promise<Buffer> {
    return encodeRecordBatch(
      [
        { key: 'k1', value: 'v1', timestamp: 1_700_000_000_000 },
        { key: null, value: 'v2', timestamp: 1_700_000_000_001, headers: { h: 'x' } },
      ],
      { baseOffset: 10n },
    )
  }

  function fetchResponse(records: Buffer, version: number) {
    const topicId = version >= 13
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: version >= 7 ? 77 : 0,
      responses: [
        {
          topic: topicId ? '' : 'orders',
          topicId: topicId ? TOPIC_ID : undefined,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 12n,
              lastStableOffset: 12n,
              logStartOffset: 0n,
              abortedTransactions: [{ producerId: 5n, firstOffset: 3n }],
              preferredReadReplica: -1,
              divergingEpoch: { epoch: 2, endOffset: 9n },
              records,
            },
          ],
        },
      ],
    }
  }

  it('responses v4-11 decode in KafkaJS, records and all', async () => {
    const records = await batch()
    for (const v of range(4, 11)) {
      const res = fetchResponse(records, v)
      // Fields Java would refuse to drop: leave them out where the version lacks them.
      delete (res.responses[0].partitions[0] as any).divergingEpoch
      const theirs = await kafkajsResponse('fetch', v, response(Fetch, v, res))
      if (v >= 7) expect([theirs.errorCode, theirs.sessionId]).toEqual([0, 77])
      const p = theirs.responses[0].partitions[0]
      expect([theirs.responses[0].topicName, p.partition, p.errorCode, p.highWatermark], `v${v}`).toEqual(['orders', 0, 0, '12'])
      expect(p.abortedTransactions).toEqual([{ producerId: '5', firstOffset: '3' }])
      expect(p.messages.map((m: any) => [m.offset, m.key?.toString() ?? null, m.value.toString()])).toEqual([
        ['10', 'k1', 'v1'],
        ['11', null, 'v2'],
      ])
    }
  })

  it('responses v12-17 decode in @platformatic/kafka, records and all (it skips our tagged fields)', async () => {
    const records = await batch()
    for (const v of range(12, 17)) {
      const theirs = platformaticResponse(Fetch, 'fetch', v, response(Fetch, v, fetchResponse(records, v)))
      expect(theirs.sessionId).toBe(77)
      if (v >= 13) expect(theirs.responses[0].topicId).toBe(TOPIC_ID_DASHED)
      const p = theirs.responses[0].partitions[0]
      expect([p.partitionIndex, p.highWatermark, p.lastStableOffset, p.preferredReadReplica], `v${v}`).toEqual([0, 12n, 12n, -1])
      expect(p.abortedTransactions).toEqual([{ producerId: 5n, firstOffset: 3n }])
      const got = p.records.flatMap((b: any) =>
        b.records.map((r: any) => [b.firstOffset + BigInt(r.offsetDelta), r.key?.toString() ?? null, r.value.toString()]),
      )
      expect(got).toEqual([
        [10n, 'k1', 'v1'],
        [11n, null, 'v2'],
      ])
    }
  })
})

describe('FindCoordinator', () => {
  it('requests: KafkaJS v0-2, @platformatic/kafka v4-6', async () => {
    expect(request(FindCoordinator, 0, { key: 'group-1' })).toEqual(await kafkajsRequest('findCoordinator', 0, { groupId: 'group-1' }))
    for (const v of [1, 2]) {
      const theirs = await kafkajsRequest('findCoordinator', v, { coordinatorKey: 'tx-1', coordinatorType: 1 })
      expect(request(FindCoordinator, v, { key: 'tx-1', keyType: 1 }), `v${v}`).toEqual(theirs)
    }
    for (const v of range(4, 6)) {
      expect(request(FindCoordinator, v, { keyType: 0, coordinatorKeys: ['g1', 'g2'] }), `v${v}`).toEqual(
        platformaticRequest('findCoordinator', v, 0, ['g1', 'g2']),
      )
    }
  })

  it('responses: KafkaJS v0-2, @platformatic/kafka v4-6', async () => {
    for (const v of range(0, 2)) {
      const theirs = await kafkajsResponse(
        'findCoordinator',
        v,
        response(FindCoordinator, v, { errorCode: 0, errorMessage: null, nodeId: 3, host: 'kafka-3', port: 9094 }),
      )
      expect([theirs.errorCode, theirs.coordinator], `v${v}`).toEqual([0, { nodeId: 3, host: 'kafka-3', port: 9094 }])
    }
    const coordinators = [
      { key: 'g1', nodeId: 3, host: 'kafka-3', port: 9094, errorCode: 0, errorMessage: null },
      { key: 'g2', nodeId: 1, host: 'kafka-1', port: 9092, errorCode: 0, errorMessage: null },
    ]
    for (const v of range(4, 6)) {
      const theirs = platformaticResponse(
        FindCoordinator,
        'findCoordinator',
        v,
        response(FindCoordinator, v, { throttleTimeMs: 5, coordinators }),
      )
      expect(theirs, `v${v}`).toEqual({ throttleTimeMs: 5, coordinators })
    }
  })
})

describe('JoinGroup', () => {
  const metadata = Buffer.from('0000000000010001610000000000', 'hex')

  it('requests: KafkaJS v0-5, @platformatic/kafka v6-9', async () => {
    for (const v of range(0, 5)) {
      const theirs = await kafkajsRequest('joinGroup', v, {
        groupId: 'g',
        sessionTimeout: 30000,
        rebalanceTimeout: 60000,
        memberId: '',
        groupInstanceId: v >= 5 ? 'instance-1' : null,
        protocolType: 'consumer',
        groupProtocols: [{ name: 'range', metadata }],
      })
      const ours = request(JoinGroup, v, {
        groupId: 'g',
        sessionTimeoutMs: 30000,
        rebalanceTimeoutMs: 60000,
        memberId: '',
        groupInstanceId: v >= 5 ? 'instance-1' : null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata }],
      })
      expect(ours, `v${v}`).toEqual(theirs)
    }
    for (const v of range(6, 9)) {
      const theirs = platformaticRequest(
        'joinGroup',
        v,
        'g',
        30000,
        60000,
        'm-1',
        null,
        'consumer',
        [{ name: 'range', metadata }],
        'restart',
      )
      const ours = request(JoinGroup, v, {
        groupId: 'g',
        sessionTimeoutMs: 30000,
        rebalanceTimeoutMs: 60000,
        memberId: 'm-1',
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata }],
        reason: v >= 8 ? 'restart' : null,
      })
      expect(ours, `v${v}`).toEqual(theirs)
    }
  })

  const res = {
    throttleTimeMs: 0,
    errorCode: 0,
    generationId: 9,
    protocolType: 'consumer',
    protocolName: 'range',
    leader: 'm-1',
    skipAssignment: false,
    memberId: 'm-1',
    members: [
      { memberId: 'm-1', groupInstanceId: null, metadata },
      { memberId: 'm-2', groupInstanceId: 'i-2', metadata: Buffer.alloc(0) },
    ],
  }

  it('responses: KafkaJS v0-5, @platformatic/kafka v6-9', async () => {
    for (const v of range(0, 5)) {
      const theirs = await kafkajsResponse('joinGroup', v, response(JoinGroup, v, res))
      expect([theirs.generationId, theirs.groupProtocol, theirs.leaderId, theirs.memberId], `v${v}`).toEqual([9, 'range', 'm-1', 'm-1'])
      expect(theirs.members.map((m: any) => [m.memberId, m.memberMetadata])).toEqual(res.members.map((m) => [m.memberId, m.metadata]))
      if (v >= 5) expect(theirs.members.map((m: any) => m.groupInstanceId)).toEqual([null, 'i-2'])
    }
    for (const v of range(6, 9)) {
      const theirs = platformaticResponse(JoinGroup, 'joinGroup', v, response(JoinGroup, v, res))
      expect(theirs.members, `v${v}`).toEqual(res.members)
      expect([theirs.generationId, theirs.protocolName, theirs.leader, theirs.memberId]).toEqual([9, 'range', 'm-1', 'm-1'])
      if (v >= 7) expect(theirs.protocolType).toBe('consumer')
      if (v >= 9) expect(theirs.skipAssignment).toBe(false)
    }
  })
})
