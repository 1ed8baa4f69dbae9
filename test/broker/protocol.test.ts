// The embedded broker at the protocol level, through a bare socket: what it
// advertises and refuses, produce validation and idempotence, fetch (long
// poll, size limits, the stored bytes), ListOffsets, leadership.
import { Buffer } from 'node:buffer'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ApiVersions,
  CreateTopics,
  DeleteTopics,
  Fetch,
  InitProducerId,
  JoinGroup,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetDelete,
  OffsetFetch,
  OffsetForLeaderEpoch,
  Produce,
  SyncGroup,
} from '../../src/protocol/messages/index.js'
import { encodeData } from '../../src/protocol/api.js'
import { ConsumerProtocolSubscription } from '../../src/protocol/messages/ConsumerProtocol.js'
import { RawClient } from './raw-client.js'
import { keepLog } from './support.js'

let cluster: RunningCluster
let problems: string[]
const open: RawClient[] = []

beforeEach(async () => {
  problems = []
  cluster = await startCluster({ brokers: 2, topics: [{ name: 't', partitions: 2 }], ...keepLog(problems) })
})
afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster.stop()
})

async function client(broker = 0): Promise<RawClient> {
  const b = cluster.brokers[broker]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

/** The broker leading t/partition, and a client connected to it. */
async function leaderClient(topic: string, partition: number): Promise<RawClient> {
  const md = await (await client()).request(Metadata, 12, { topics: [{ name: topic }] })
  return client(md.topics[0].partitions.find((p) => p.partitionIndex === partition)!.leaderId)
}

function batch(values: string[], opts: Parameters<typeof encodeRecordBatch>[1] = {}, timestamps?: number[]): Buffer {
  return encodeRecordBatch(
    values.map((value, i) => ({ key: `k${i}`, value, timestamp: timestamps?.[i] })),
    opts,
  )
}

const produce = (c: RawClient, records: Buffer, opts: { acks?: number; version?: number; partition?: number } = {}) =>
  c.request(Produce, opts.version ?? 11, {
    acks: opts.acks ?? -1,
    timeoutMs: 5000,
    topicData: [{ name: 't', partitionData: [{ index: opts.partition ?? 0, records }] }],
  })
const produced = (r: Awaited<ReturnType<typeof produce>>) => r.responses[0].partitionResponses[0]

/** A well-behaved request still answered: the broker serves on after bad input. */
async function stillServes(): Promise<void> {
  const c = await client()
  const r = await c.request(ApiVersions, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' })
  expect(r.errorCode).toBe(0)
}

describe('what the broker advertises and refuses', () => {
  it('ApiVersions lists exactly the served APIs, flexible versions included', async () => {
    const r = await (await client()).request(ApiVersions, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' })
    const keys = new Map(r.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]))
    expect(keys.get(0)).toEqual([3, 13]) // Produce
    expect(keys.get(1)).toEqual([4, 18]) // Fetch
    expect(keys.get(18)).toEqual([0, 5]) // ApiVersions: v5 checks the client's cluster and node (KIP-1242)
    expect(keys.get(2)).toEqual([1, 11]) // ListOffsets
    expect(keys.get(8)).toEqual([2, 10]) // OffsetCommit: v10 by topic id
    expect(keys.get(9)).toEqual([1, 10]) // OffsetFetch: v10 by topic id
    expect(keys.get(57)).toEqual([0, 2]) // UpdateFeatures
    expect(keys.get(74)).toEqual([0, 1]) // ListConfigResources
    expect(keys.get(24)).toEqual([0, 5]) // AddPartitionsToTxn: the clients' versions and the brokers' v4+ (KIP-890)
    expect(keys.get(26)).toEqual([0, 5]) // EndTxn: v5 bumps the epoch at each end (KIP-890 part 2)
    expect(keys.get(43)).toEqual([0, 2]) // ElectLeaders
    expect(keys.get(75)).toEqual([0, 0]) // DescribeTopicPartitions
    expect(keys.get(68)).toEqual([0, 1]) // ConsumerGroupHeartbeat (KIP-848)
    expect(keys.get(69)).toEqual([0, 1]) // ConsumerGroupDescribe
    expect(keys.get(29)).toEqual([1, 3]) // DescribeAcls
    expect(keys.get(46)).toEqual([0, 0]) // ListPartitionReassignments
    expect(keys.get(55)).toEqual([0, 2]) // DescribeQuorum
  })

  it('ApiVersions at a version it does not speak: v0 answer, UNSUPPORTED_VERSION and the versions it does', async () => {
    const c = await client()
    // v6 is past every version there is: the answer is v0-shaped whatever was asked (KIP-511).
    const frame = RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' }, 7)
    frame.writeInt16BE(6, 6) // the header's request_api_version
    c.write(frame)
    const body = (await c.readFrame())!
    const { Reader } = await import('../../src/protocol/reader.js')
    const r = new Reader(body)
    expect(r.int32()).toBe(7)
    const res = ApiVersions.decodeResponse(r, 0)
    expect(res.errorCode).toBe(ErrorCodes.UNSUPPORTED_VERSION)
    expect(res.apiKeys.find((k) => k.apiKey === 18)).toMatchObject({ minVersion: 0, maxVersion: 5 })
  })

  // A version beyond the served ones is what stays unserved (InitProducerId v6, KIP-939's two-phase commit).
  it('a served API at a version it does not serve gets UNSUPPORTED_VERSION in every entry, not a closed connection', async () => {
    const c = await client()
    const ip = await c.request(InitProducerId, 6, { transactionalId: null, transactionTimeoutMs: 60_000 })
    expect(ip.errorCode).toBe(ErrorCodes.UNSUPPORTED_VERSION)
    expect(c.closed).toBe(false)
  })

  it('an unknown API key closes that connection only', async () => {
    const c = await client()
    const w = Buffer.alloc(4 + 10)
    w.writeInt32BE(10, 0)
    w.writeInt16BE(999, 4) // no such API
    w.writeInt16BE(0, 6)
    w.writeInt32BE(1, 8)
    w.writeInt16BE(-1, 12)
    c.write(w)
    expect(await c.readFrame()).toBeNull()
    expect(problems.join('\n')).toMatch(/unreadable request header/)
    await stillServes()
  })

  it('a request larger than socket.request.max.bytes closes the connection before it is read', async () => {
    await cluster.stop()
    cluster = await startCluster({ brokers: 1, maxRequestBytes: 1024, ...keepLog(problems) })
    const c = await client()
    const big = Buffer.alloc(8)
    big.writeInt32BE(10 * 1024 * 1024, 0) // announces 10 MiB, sends 4 bytes of it
    c.write(big)
    expect(await c.readFrame()).toBeNull()
    expect(problems.join('\n')).toMatch(/socket\.request\.max\.bytes/)
    await stillServes()
  })

  it("at maxConnections a new connection waits to be taken, unread, as Kafka's acceptor waits for a slot; it is served once one goes", async () => {
    await cluster.stop()
    cluster = await startCluster({ brokers: 1, maxConnections: 3, ...keepLog(problems) })
    const held = [await client(), await client(), await client()]
    for (const c of held)
      expect((await c.request(ApiVersions, 3, { clientSoftwareName: 'n', clientSoftwareVersion: '1' })).errorCode).toBe(0)
    const extra = await client()
    extra.write(RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'n', clientSoftwareVersion: '1' }))
    await expect(extra.readFrame(500)).rejects.toThrow(/no response within 500 ms/)
    expect(extra.closed).toBe(false)
    held[0].close()
    expect(await extra.readFrame(10_000)).not.toBeNull()
    held[1].close()
    await held[1].whenClosed
    await stillServes()
  })

  it('malformed frames close that connection only: too short for a header, a body cut short', async () => {
    const tiny = await client()
    tiny.write(Buffer.from([0, 0, 0, 2, 0, 3]))
    expect(await tiny.readFrame()).toBeNull()
    const cut = await client()
    const frame = RawClient.frame(Metadata, 12, { topics: [{ name: 'a-long-topic-name' }] })
    const truncated = frame.subarray(0, frame.length - 12)
    truncated.writeInt32BE(truncated.length - 4, 0)
    cut.write(truncated)
    expect(await cut.readFrame()).toBeNull()
    expect(problems.join('\n')).toMatch(/malformed Metadata v12 request/)
    await stillServes()
  })

  it('invalid topic names: INVALID_TOPIC_EXCEPTION from CreateTopics and Metadata', async () => {
    const c = await client()
    const r = await c.request(CreateTopics, 7, {
      topics: [
        { name: 'bad name!', numPartitions: 1, replicationFactor: 1 },
        { name: 'x'.repeat(250), numPartitions: 1, replicationFactor: 1 },
      ],
      timeoutMs: 1000,
    })
    expect(r.topics.map((t) => t.errorCode)).toEqual([ErrorCodes.INVALID_TOPIC_EXCEPTION, ErrorCodes.INVALID_TOPIC_EXCEPTION])
    const md = await c.request(Metadata, 12, { topics: [{ name: '..' }], allowAutoTopicCreation: true })
    expect(md.topics[0].errorCode).toBe(ErrorCodes.INVALID_TOPIC_EXCEPTION)
  })
})

describe('produce', () => {
  it('a batch with a bad CRC is CORRUPT_MESSAGE and nothing is stored; the next one is', async () => {
    const c = await leaderClient('t', 0)
    const bad = batch(['a', 'b'])
    bad[bad.length - 1] ^= 0xff
    expect(produced(await produce(c, bad)).errorCode).toBe(ErrorCodes.CORRUPT_MESSAGE)
    const ok = produced(await produce(c, batch(['c'])))
    expect(ok).toMatchObject({ errorCode: 0, baseOffset: 0n })
  })

  it('refuses two batches in one partition, control batches and unknown acks', async () => {
    const c = await leaderClient('t', 0)
    expect(produced(await produce(c, Buffer.concat([batch(['a']), batch(['b'])]))).errorCode).toBe(ErrorCodes.INVALID_RECORD)
    expect(produced(await produce(c, batch(['a'], { control: true }))).errorCode).toBe(ErrorCodes.INVALID_RECORD)
    expect(produced(await produce(c, batch(['a']), { acks: 2 })).errorCode).toBe(ErrorCodes.INVALID_REQUIRED_ACKS)
  })

  it('assigns offsets and stores the bytes as received: Fetch returns them unchanged but for offset and epoch', async () => {
    const c = await leaderClient('t', 1)
    const b1 = batch(['x', 'y', 'z'], { compression: 'gzip' })
    const b2 = batch(['w'], { compression: 'zstd' })
    expect(produced(await produce(c, b1, { partition: 1 })).baseOffset).toBe(0n)
    expect(produced(await produce(c, b2, { partition: 1 })).baseOffset).toBe(3n)
    const f = await c.request(Fetch, 12, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [{ topic: 't', partitions: [{ partition: 1, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    })
    const p = f.responses[0].partitions[0]
    expect(p.highWatermark).toBe(4n)
    const stored = p.records!
    expect(stored.length).toBe(b1.length + b2.length)
    // Only the base offset (0-7) and the leader epoch (12-15) are the broker's.
    const same = (a: Buffer, b: Buffer) =>
      Buffer.compare(Buffer.concat([a.subarray(8, 12), a.subarray(16)]), Buffer.concat([b.subarray(8, 12), b.subarray(16)]))
    expect(same(stored.subarray(0, b1.length), b1)).toBe(0)
    expect(same(stored.subarray(b1.length), b2)).toBe(0)
    expect(stored.readBigInt64BE(b1.length)).toBe(3n)
  })

  it('acks=0 gets no response; the connection serves on', async () => {
    const c = await leaderClient('t', 0)
    c.write(
      RawClient.frame(
        Produce,
        9,
        { acks: 0, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }] },
        99,
      ),
    )
    const next = produced(await produce(c, batch(['b'])))
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 1n })
  })

  it('acks=0 that fails (an injected error) closes the connection instead of answering, as Kafka', async () => {
    const c = await leaderClient('t', 0)
    cluster.injectError(0, ErrorCodes.NOT_LEADER_OR_FOLLOWER, 1)
    c.write(
      RawClient.frame(
        Produce,
        9,
        { acks: 0, timeoutMs: 1000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }] },
        98,
      ),
    )
    // Nothing answers the acks=0 request: the next read sees the close, not a response frame.
    expect(await c.readFrame(5_000)).toBeNull()
  })

  it('a partition this broker does not lead: NOT_LEADER_OR_FOLLOWER, with the leader (v10+)', async () => {
    const md = await (await client()).request(Metadata, 12, { topics: [{ name: 't' }] })
    const leader = md.topics[0].partitions[0].leaderId
    const other = await client(1 - leader)
    const r = await produce(other, batch(['a']))
    expect(produced(r).errorCode).toBe(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
    expect(produced(r).currentLeader.leaderId).toBe(leader)
    expect(r.nodeEndpoints.map((n) => n.nodeId)).toEqual([leader])
  })

  it('Produce v13 names topics by id; an unknown id is UNKNOWN_TOPIC_ID', async () => {
    const c = await leaderClient('t', 0)
    const md = await c.request(Metadata, 12, { topics: [{ name: 't' }] })
    const topicId = md.topics[0].topicId
    const r = await c.request(Produce, 13, {
      acks: 1,
      timeoutMs: 1000,
      topicData: [
        { topicId, partitionData: [{ index: 0, records: batch(['a']) }] },
        { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionData: [{ index: 0, records: batch(['b']) }] },
      ],
    })
    expect(r.responses.map((t) => t.partitionResponses[0].errorCode)).toEqual([0, ErrorCodes.UNKNOWN_TOPIC_ID])
  })
})

describe('idempotence: per producer id and epoch, the last five batches of a partition', () => {
  it('a retried batch is answered with its first offset; a gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an old epoch is refused', async () => {
    const c = await leaderClient('t', 0)
    const init = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 })
    expect(init.errorCode).toBe(0)
    const pid = init.producerId
    const b = (seq: number, n: number, epoch = 0) =>
      batch(
        Array.from({ length: n }, (_, i) => `s${seq + i}`),
        { producerId: pid, producerEpoch: epoch, baseSequence: seq },
      )
    expect(produced(await produce(c, b(0, 3)))).toMatchObject({ errorCode: 0, baseOffset: 0n })
    expect(produced(await produce(c, b(3, 2)))).toMatchObject({ errorCode: 0, baseOffset: 3n })
    // The same batch again (a retry): its original offset, nothing appended.
    expect(produced(await produce(c, b(0, 3)))).toMatchObject({ errorCode: 0, baseOffset: 0n })
    expect(produced(await produce(c, b(3, 2)))).toMatchObject({ errorCode: 0, baseOffset: 3n })
    expect(produced(await produce(c, b(9, 1))).errorCode).toBe(ErrorCodes.OUT_OF_ORDER_SEQUENCE_NUMBER)
    expect(produced(await produce(c, b(5, 1)))).toMatchObject({ errorCode: 0, baseOffset: 5n })
    // A new epoch starts at sequence 0; after it, the old epoch is fenced.
    expect(produced(await produce(c, b(4, 1, 1))).errorCode).toBe(ErrorCodes.OUT_OF_ORDER_SEQUENCE_NUMBER)
    expect(produced(await produce(c, b(0, 1, 1)))).toMatchObject({ errorCode: 0, baseOffset: 6n })
    expect(produced(await produce(c, b(6, 1, 0))).errorCode).toBe(ErrorCodes.INVALID_PRODUCER_EPOCH)
    const f = await c.request(ListOffsets, 7, {
      replicaId: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
    })
    expect(f.topics[0].partitions[0].offset).toBe(7n)
  })

  it('only the last five batches are remembered', async () => {
    const c = await leaderClient('t', 0)
    const { producerId } = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 })
    const b = (seq: number) => batch([`s${seq}`], { producerId, producerEpoch: 0, baseSequence: seq })
    for (let s = 0; s < 6; s++) expect(produced(await produce(c, b(s))).errorCode).toBe(0)
    expect(produced(await produce(c, b(1)))).toMatchObject({ errorCode: 0, baseOffset: 1n })
    // Sequence 0 fell out of the window: not a duplicate it can recognise, and not next in line.
    expect(produced(await produce(c, b(0))).errorCode).toBe(ErrorCodes.OUT_OF_ORDER_SEQUENCE_NUMBER)
  })
})

describe('fetch', () => {
  const fetch = (
    c: RawClient,
    o: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; partitionMaxBytes?: number; offset?: bigint } = {},
    timeoutMs?: number,
  ) =>
    c.request(
      Fetch,
      12,
      {
        maxWaitMs: o.maxWaitMs ?? 0,
        minBytes: o.minBytes ?? 0,
        maxBytes: o.maxBytes ?? 1 << 20,
        topics: [
          { topic: 't', partitions: [{ partition: 0, fetchOffset: o.offset ?? 0n, partitionMaxBytes: o.partitionMaxBytes ?? 1 << 20 }] },
        ],
      },
      timeoutMs,
    )

  it('a long poll is woken by new data, well before its maxWaitMs', async () => {
    const reader = await leaderClient('t', 0)
    const writer = await leaderClient('t', 0)
    const waiting = fetch(reader, { maxWaitMs: 60_000, minBytes: 1 }, 90_000)
    await new Promise((r) => setTimeout(r, 100))
    await produce(writer, batch(['wake']))
    const p = (await waiting).responses[0].partitions[0]
    // Had it not been woken it would still be waiting (the test would time out at 60 s).
    expect(p.records!.length).toBeGreaterThan(0)
    expect(p.highWatermark).toBe(1n)
  })

  it('minBytes not reached: answers at maxWaitMs with what there is', async () => {
    const c = await leaderClient('t', 0)
    await produce(c, batch(['a']))
    const p = (await fetch(c, { maxWaitMs: 200, minBytes: 1 << 20 })).responses[0].partitions[0]
    expect(p.records!.length).toBeGreaterThan(0)
  })

  it('partition and request limits: whole batches, but always the first (KIP-74)', async () => {
    const c = await leaderClient('t', 0)
    const b1 = batch(['x'.repeat(500)])
    await produce(c, b1)
    await produce(c, batch(['y'.repeat(500)]))
    expect((await fetch(c, { partitionMaxBytes: 10 })).responses[0].partitions[0].records!.length).toBe(b1.length)
    expect((await fetch(c, { maxBytes: 10 })).responses[0].partitions[0].records!.length).toBe(b1.length)
    expect((await fetch(c, { partitionMaxBytes: b1.length * 2 + 200 })).responses[0].partitions[0].records!.length).toBe(b1.length * 2)
  })

  it('an offset past the log end is OFFSET_OUT_OF_RANGE, with no offsets (-1), as Kafka 4.4 answers', async () => {
    const c = await leaderClient('t', 0)
    await produce(c, batch(['a']))
    expect((await fetch(c, { offset: 5n })).responses[0].partitions[0]).toMatchObject({
      errorCode: ErrorCodes.OFFSET_OUT_OF_RANGE,
      highWatermark: -1n,
      lastStableOffset: -1n,
      logStartOffset: -1n,
      abortedTransactions: null,
    })
  })

  it('a partition error comes with an empty record set, never a null one (librdkafka refuses the whole response)', async () => {
    const md = await (await client()).request(Metadata, 12, { topics: [{ name: 't' }] })
    const leader = md.topics[0].partitions.find((p) => p.partitionIndex === 0)!.leaderId
    const atLeader = await client(leader)
    const elsewhere = await client(1 - leader)
    await produce(atLeader, batch(['a']))
    // v4 writes records as int32-sized bytes (-1 null), v12 as compact bytes (0 null): the decoder tells null from empty.
    for (const version of [4, 12]) {
      const ask = (c: RawClient, topic: string, fetchOffset: bigint, currentLeaderEpoch = -1) =>
        c.request(Fetch, version, {
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 1 << 20,
          topics: [{ topic, partitions: [{ partition: 0, fetchOffset, currentLeaderEpoch, partitionMaxBytes: 1 << 20 }] }],
        })
      const cases: [Awaited<ReturnType<typeof ask>>, number][] = [
        [await ask(atLeader, 't', 5n), ErrorCodes.OFFSET_OUT_OF_RANGE],
        [await ask(atLeader, 'nope', 0n), ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION],
      ]
      // v11+ consumers may fetch from a follower (KIP-392); v9+ carry the leader epoch they know.
      if (version < 11) cases.push([await ask(elsewhere, 't', 0n), ErrorCodes.NOT_LEADER_OR_FOLLOWER])
      else cases.push([await ask(atLeader, 't', 0n, 99), ErrorCodes.UNKNOWN_LEADER_EPOCH])
      for (const [res, code] of cases) {
        const p = res.responses[0].partitions[0]
        expect([version, p.errorCode]).toEqual([version, code])
        expect(p.records).not.toBeNull()
        expect(p.records!.length).toBe(0)
      }
    }
  })
})

describe('ListOffsets', () => {
  it('earliest, latest, by timestamp (the first record at or after it) and the max timestamp', async () => {
    const c = await leaderClient('t', 0)
    const t0 = 1_700_000_000_000
    await produce(c, batch(['a', 'b', 'c'], {}, [t0, t0 + 10, t0 + 20]))
    await produce(c, batch(['d', 'e'], { compression: 'lz4' }, [t0 + 50, t0 + 30]))
    const ask = async (timestamp: bigint) => {
      const r = await c.request(ListOffsets, 7, { replicaId: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp }] }] })
      const p = r.topics[0].partitions[0]
      return [p.errorCode, p.offset, p.timestamp]
    }
    expect(await ask(-2n)).toEqual([0, 0n, -1n])
    expect(await ask(-1n)).toEqual([0, 5n, -1n])
    expect(await ask(BigInt(t0 + 5))).toEqual([0, 1n, BigInt(t0 + 10)])
    expect(await ask(BigInt(t0 + 21))).toEqual([0, 3n, BigInt(t0 + 50)])
    expect(await ask(BigInt(t0 + 51))).toEqual([0, -1n, -1n])
    expect(await ask(-3n)).toEqual([0, 3n, BigInt(t0 + 50)])
  })
})

describe('fetch sessions (KIP-227)', () => {
  const part = (partition: number, fetchOffset = 0n) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20 })
  const fetch = (c: RawClient, sessionId: number, sessionEpoch: number, partitions: ReturnType<typeof part>[], forgotten: number[] = []) =>
    c.request(Fetch, 12, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      sessionId,
      sessionEpoch,
      topics: partitions.length ? [{ topic: 't', partitions }] : [],
      forgottenTopicsData: forgotten.length ? [{ topic: 't', partitions: forgotten }] : [],
    })
  const partitionsIn = (r: Awaited<ReturnType<typeof fetch>>) => r.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex))

  it('a full fetch opens a session; incremental ones carry only partitions with news', async () => {
    await cluster.stop()
    cluster = await startCluster({ brokers: 1, topics: [{ name: 't', partitions: 3 }] })
    const c = await client()
    const full = await fetch(c, 0, 0, [part(0), part(1), part(2)])
    expect(full.errorCode).toBe(0)
    expect(full.sessionId).toBeGreaterThan(0)
    expect(partitionsIn(full)).toEqual([0, 1, 2])
    // Nothing changed: an empty answer, though the session holds three partitions.
    const quiet = await fetch(c, full.sessionId, 1, [])
    expect([quiet.errorCode, quiet.sessionId, partitionsIn(quiet)]).toEqual([0, full.sessionId, []])
    await produce(c, batch(['news']), { partition: 1 })
    const news = await fetch(c, full.sessionId, 2, [])
    expect(partitionsIn(news)).toEqual([1])
    expect(news.responses[0].partitions[0].records!.length).toBeGreaterThan(0)
    // The client moves its offset on partition 1 and forgets partition 2.
    const moved = await fetch(c, full.sessionId, 3, [part(1, 1n)], [2])
    expect(partitionsIn(moved)).toEqual([])
    await produce(c, batch(['more']), { partition: 2 })
    expect(partitionsIn(await fetch(c, full.sessionId, 4, []))).toEqual([])
    await produce(c, batch(['more']), { partition: 0 })
    expect(partitionsIn(await fetch(c, full.sessionId, 5, []))).toEqual([0])
  })

  it('a wrong epoch, an unknown session and a closed one are refused', async () => {
    const c = await leaderClient('t', 0)
    const full = await fetch(c, 0, 0, [part(0)])
    expect((await fetch(c, full.sessionId, 7, [])).errorCode).toBe(ErrorCodes.INVALID_FETCH_SESSION_EPOCH)
    expect((await fetch(c, 999_999, 1, [])).errorCode).toBe(ErrorCodes.FETCH_SESSION_ID_NOT_FOUND)
    const closing = await fetch(c, full.sessionId, -1, [part(0)])
    expect([closing.errorCode, closing.sessionId]).toEqual([0, 0])
    expect((await fetch(c, full.sessionId, 1, [])).errorCode).toBe(ErrorCodes.FETCH_SESSION_ID_NOT_FOUND)
  })
})

describe('leader epochs', () => {
  it('OffsetForLeaderEpoch: each epoch ends where the next began; a moved leader answers for its new epoch', async () => {
    const c0 = await leaderClient('t', 0)
    await produce(c0, batch(['a', 'b']))
    const md = await c0.request(Metadata, 12, { topics: [{ name: 't' }] })
    const leader = md.topics[0].partitions[0].leaderId
    cluster.moveLeader('t', 0, 1 - leader)
    const c1 = await client(1 - leader)
    const ask = async (c: RawClient, leaderEpoch: number, currentLeaderEpoch = -1) =>
      (
        await c.request(OffsetForLeaderEpoch, 4, {
          replicaId: -1,
          topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }],
        })
      ).topics[0].partitions[0]
    expect(await ask(c1, 1)).toMatchObject({ errorCode: 0, leaderEpoch: 1, endOffset: 2n })
    await produce(c1, batch(['c']))
    expect(await ask(c1, 0)).toMatchObject({ errorCode: 0, leaderEpoch: 0, endOffset: 2n })
    expect(await ask(c1, 1)).toMatchObject({ errorCode: 0, leaderEpoch: 1, endOffset: 3n })
    expect((await ask(c1, 0, 0)).errorCode).toBe(ErrorCodes.FENCED_LEADER_EPOCH)
    expect((await ask(c0, 0)).errorCode).toBe(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
  })
})

describe('OffsetDelete', () => {
  it("deletes an empty group's offsets; a topic its members subscribe to is GROUP_SUBSCRIBED_TO_TOPIC", async () => {
    const boot = await client()
    const { FindCoordinator } = await import('../../src/protocol/messages/index.js')
    const coord = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['od'] })).coordinators[0]
    const c = await client(coord.nodeId)
    const commit = await c.request(OffsetCommit, 9, {
      groupId: 'od',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 5n },
            { partitionIndex: 1, committedOffset: 6n },
          ],
        },
      ],
    })
    expect(commit.topics[0].partitions.map((p) => p.errorCode)).toEqual([0, 0])
    const del = await c.request(OffsetDelete, 0, { groupId: 'od', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] })
    expect([del.errorCode, del.topics[0].partitions[0].errorCode]).toEqual([0, 0])
    const left = await c.request(OffsetFetch, 7, { groupId: 'od', topics: [{ name: 't', partitionIndexes: [0, 1] }] })
    expect(left.topics[0].partitions.map((p) => p.committedOffset)).toEqual([-1n, 6n])
    // A member subscribed to t: its offsets stay.
    const metadata = encodeData(ConsumerProtocolSubscription, 1, { topics: ['t'] })
    const join = {
      groupId: 'od',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata }],
    }
    const first = await c.request(JoinGroup, 9, { ...join, memberId: '' })
    const joined = await c.request(JoinGroup, 9, { ...join, memberId: first.memberId })
    await c.request(SyncGroup, 5, {
      groupId: 'od',
      generationId: joined.generationId,
      memberId: joined.memberId,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    })
    const refused = await c.request(OffsetDelete, 0, { groupId: 'od', topics: [{ name: 't', partitions: [{ partitionIndex: 1 }] }] })
    expect(refused.topics[0].partitions[0].errorCode).toBe(ErrorCodes.GROUP_SUBSCRIBED_TO_TOPIC)
    const nope = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['nope'] })).coordinators[0]
    expect((await (await client(nope.nodeId)).request(OffsetDelete, 0, { groupId: 'nope', topics: [] })).errorCode).toBe(
      ErrorCodes.GROUP_ID_NOT_FOUND,
    )
    expect((await (await client(1 - nope.nodeId)).request(OffsetDelete, 0, { groupId: 'nope', topics: [] })).errorCode).toBe(
      ErrorCodes.NOT_COORDINATOR,
    )
  })
})

describe('topic deletion', () => {
  it("takes the topic's committed offsets with it: a topic created again under the name starts with none", async () => {
    const boot = await client()
    const { FindCoordinator } = await import('../../src/protocol/messages/index.js')
    const coord = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['gone'] })).coordinators[0]
    const c = await client(coord.nodeId)
    await c.request(OffsetCommit, 9, {
      groupId: 'gone',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n }] }],
    })
    const fetchOffset = async () =>
      (await c.request(OffsetFetch, 7, { groupId: 'gone', topics: [{ name: 't', partitionIndexes: [0] }] })).topics[0].partitions[0]
        .committedOffset
    expect(await fetchOffset()).toBe(5n)
    expect((await c.request(DeleteTopics, 6, { topics: [{ name: 't' }], timeoutMs: 1000 })).responses[0].errorCode).toBe(0)
    expect(
      (await c.request(CreateTopics, 7, { topics: [{ name: 't', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 1000 })).topics[0]
        .errorCode,
    ).toBe(0)
    expect(await fetchOffset()).toBe(-1n)
  })
})
