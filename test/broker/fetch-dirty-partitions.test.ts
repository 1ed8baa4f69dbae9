// A fetch reads again only the partitions whose logs changed (issue 22's load
// item): a long poll woken by an append to one partition of many reads that
// one, not all of them, and an incremental session's next request reads only
// what moved since its last answer, while the answers stay what a full pass
// would give (every partition of a full fetch; an incremental one's news,
// errors after the metadata moved). Counted as PartitionLog.read calls: each
// partition a pass reads once (before this, every partition at every wake).
import { Buffer } from 'node:buffer'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Kafka } from '../../src/index.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { PartitionLog } from '../../src/broker/partition-log.js'
import { ReplicaFetcher } from '../../src/broker/replica-fetcher.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DeleteTopics, Fetch, Produce } from '../../src/protocol/messages/index.js'
import { ZERO_UUID } from '../../src/protocol/api.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

const PARTITIONS = 30
let cluster: RunningCluster | undefined
const open: RawClient[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
})

async function client(broker = 0): Promise<RawClient> {
  const b = cluster!.brokers[broker]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

/** Counts PartitionLog.read calls from now on. */
function countReads(): { reads: number } {
  const counted = { reads: 0 }
  const read = PartitionLog.prototype.read
  vi.spyOn(PartitionLog.prototype, 'read').mockImplementation(function (this: PartitionLog, ...args: Parameters<PartitionLog['read']>) {
    counted.reads++
    return read.apply(this, args)
  })
  return counted
}

const produce = (c: RawClient, partition: number, value: string) =>
  c.request(Produce, 11, {
    acks: 1,
    timeoutMs: 5000,
    topicData: [{ name: 'wide', partitionData: [{ index: partition, records: encodeRecordBatch([{ key: 'k', value }]) }] }],
  })

const all = Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }))
const fetch = (
  c: RawClient,
  sessionId: number,
  sessionEpoch: number,
  topics: { partition: number; fetchOffset: bigint }[],
  maxWaitMs = 0,
) =>
  c.request(Fetch, 12, {
    replicaId: -1,
    maxWaitMs,
    minBytes: 1,
    maxBytes: 1 << 20,
    sessionId,
    sessionEpoch,
    topics: topics.length ? [{ topic: 'wide', partitions: topics.map((p) => ({ ...p, partitionMaxBytes: 1 << 20 })) }] : [],
    forgottenTopicsData: [],
  })
const answered = (r: Awaited<ReturnType<typeof fetch>>) =>
  r.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode, (p.records as Buffer | null)?.length ?? 0]))

describe('fetches read only the partitions that changed', () => {
  it('a woken long poll reads the partition appended to, and still answers every partition of a full fetch', async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'wide', partitions: PARTITIONS }] })
    const consumer = await client()
    const producer = await client()
    const counted = countReads()
    // Sessionless (epoch -1): the first pass reads all 30, the wake only partition 7.
    const polling = fetch(consumer, 0, -1, all, 5000)
    await new Promise((r) => setTimeout(r, 200))
    expect(counted.reads).toBe(PARTITIONS)
    await produce(producer, 7, 'news')
    const res = await polling
    expect(counted.reads).toBe(PARTITIONS + 1)
    const parts = answered(res)
    expect(parts.length).toBe(PARTITIONS)
    expect(parts.filter(([, , bytes]) => bytes > 0).map(([p]) => p)).toEqual([7])
    expect(parts.every(([, error]) => error === 0)).toBe(true)
  })

  it("an incremental session's requests read only what moved since its last answer", async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'wide', partitions: PARTITIONS }] })
    const consumer = await client()
    const producer = await client()
    const counted = countReads()
    const full = await fetch(consumer, 0, 0, all)
    expect(answered(full).length).toBe(PARTITIONS)
    expect(counted.reads).toBe(PARTITIONS)
    // Nothing has changed: the long poll reads nothing until the append to 12 wakes it, then reads 12 alone.
    const polling = fetch(consumer, full.sessionId, 1, [], 5000)
    await new Promise((r) => setTimeout(r, 200))
    expect(counted.reads).toBe(PARTITIONS)
    await produce(producer, 12, 'news')
    const news = await polling
    expect(answered(news).map(([p, error]) => [p, error])).toEqual([[12, 0]])
    expect(counted.reads).toBe(PARTITIONS + 1)
    // The consumer moves on past it: partition 12 is read again (named), nothing else.
    const moved = await fetch(consumer, full.sessionId, 2, [{ partition: 12, fetchOffset: 1n }])
    expect(answered(moved)).toEqual([])
    expect(counted.reads).toBe(PARTITIONS + 2)
    // The metadata moved (the topic deleted): every partition is read again, and each answers its error.
    const admin = await client()
    const deleted = await admin.request(DeleteTopics, 6, {
      topics: [{ name: 'wide', topicId: ZERO_UUID }],
      topicNames: [],
      timeoutMs: 5000,
    })
    expect(deleted.responses[0].errorCode).toBe(0)
    const gone = await fetch(consumer, full.sessionId, 3, [])
    expect(answered(gone).length).toBe(PARTITIONS)
    expect(answered(gone).every(([, error]) => error === ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)).toBe(true)
  })

  it('a follower fetching 30 partitions: about one read per append to one of them, and only its position compared', async () => {
    cluster = await startCluster({ brokers: 2 })
    const kafka = new Kafka({ clientId: 'fetch-dirty-test', brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    const producer = kafka.producer({ acks: -1 })
    try {
      await admin.connect()
      await producer.connect()
      // Every partition led by broker 0 and followed by broker 1: one follower session of 30.
      const assignments = Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, replicas: [0, 1] }))
      await admin.createTopics({ topics: [{ topic: 'wide', replicaAssignment: assignments }] })
      await producer.send({ topic: 'wide', messages: [{ value: 'warm', partition: 0 }] })
      const counted = countReads()
      // The follower's side: its partitions found again (a walk of the cluster's) and their positions compared.
      const followedFrom = vi.spyOn(ReplicaFetcher.prototype, 'followedFrom')
      const latestEpoch = vi.spyOn(PartitionLog.prototype, 'latestEpoch', 'get')
      const sends = 20
      for (let i = 0; i < sends; i++) await producer.send({ topic: 'wide', messages: [{ value: `v${i}`, partition: 0 }] })
      // Reading every partition at each pass: 30 or more per append (two passes each: the request's and its wake's).
      await until(
        async () => (await admin.fetchTopicOffsets('wide')).find((o) => o.partition === 0)?.high === String(sends + 1),
        10_000,
        () => 'the last send replicated',
      )
      expect(counted.reads).toBeLessThanOrEqual(sends * 4)
      // Found again only when the metadata moves; compared only when its log changed (before: all 30 before each fetch).
      expect(followedFrom.mock.calls.length).toBeLessThanOrEqual(1)
      expect(latestEpoch.mock.calls.length).toBeLessThanOrEqual(sends * 4)
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
  })
})
