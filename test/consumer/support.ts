import type { Consumer, Kafka, KafkaMessage } from '../../src/index.js'
import { untilTrue as until } from '../support/until.js'

/** The shared bounded wait, in its boolean form: `until(done, timeoutMs, what)`. */
export { until }

export interface Seen {
  topic: string
  partition: number
  offset: bigint
  key: string | null
  value: string | null
}

export function record(topic: string, partition: number, m: KafkaMessage): Seen {
  return { topic, partition, offset: m.offsetBigInt, key: m.key?.toString() ?? null, value: m.value?.toString() ?? null }
}

/** Runs `consumer` with eachBatch, collecting every message into `into`. */
export async function collect(consumer: Consumer, into: Seen[], options: { concurrency?: number } = {}): Promise<void> {
  await consumer.run({
    partitionsConsumedConcurrently: options.concurrency ?? 1,
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) into.push(record(batch.topic, batch.partition, m))
    },
  })
}

/** Per partition, the offsets seen, checking they only go up. */
export function byPartition(seen: Seen[]): Map<string, bigint[]> {
  const out = new Map<string, bigint[]>()
  for (const s of seen) {
    const k = `${s.topic}-${s.partition}`
    const list = out.get(k) ?? []
    list.push(s.offset)
    out.set(k, list)
  }
  return out
}

/**
 * Readies a mock for group tests. (The rig's mock-cluster program already
 * makes 2.15's mock advertise only the group API versions it parses.)
 */
export async function prepareForGroups(
  mock: { setApiVersion(key: number, min: number, max: number): Promise<void>; setRebalanceDelay(ms: number): Promise<void> },
  build: 'legacy' | 'modern',
): Promise<void> {
  if (build === 'legacy') {
    // 2.0.2's mock answers a ListOffsets v3+ for several partitions with garbage after the first; v0-v2 are right.
    await mock.setApiVersion(2, 0, 2)
    return
  }
  // The 3 s initial rebalance delay (group.initial.rebalance.delay.ms) only slows tests down.
  await mock.setRebalanceDelay(0)
}

export interface TimelineEntry {
  read?: Seen & { by: string }
  commit?: { partition: number; offset: bigint }
  assigned?: number[]
}

/**
 * Checks a single-topic group's reads against its commits, in the order
 * they happened: each time a partition is assigned, its owner starts
 * exactly at the last offset committed for it (so whatever is read twice
 * lies past the last commit), and between assignments it reads every
 * offset once, in order.
 */
export function expectResumesAtCommits(timeline: TimelineEntry[]): void {
  const owner = new Map<number, string>()
  const next = new Map<number, bigint>()
  const committed = new Map<number, bigint>()
  for (const e of timeline) {
    if (e.commit) committed.set(e.commit.partition, e.commit.offset)
    for (const p of e.assigned ?? []) owner.delete(p)
    if (!e.read) continue
    const { partition, offset, by } = e.read
    if (owner.get(partition) !== by) {
      if (offset !== (committed.get(partition) ?? 0n))
        throw new Error(`partition ${partition}: ${by} started at ${offset}, the last commit was ${committed.get(partition) ?? 'none'}`)
      owner.set(partition, by)
    } else if (offset !== next.get(partition))
      throw new Error(`partition ${partition}: ${by} read ${offset} after ${next.get(partition)! - 1n}`)
    next.set(partition, offset + 1n)
  }
}

/** Starts a group member that logs its reads, commits and assignments into `timeline` (`delayMs` per batch). */
export async function timelineMember(
  consumer: Consumer,
  topic: string,
  name: string,
  timeline: TimelineEntry[],
  delayMs = 0,
): Promise<Consumer> {
  consumer.on(consumer.events.PARTITIONS_ASSIGNED, (e) =>
    timeline.push({ assigned: e.payload.partitions.flatMap((t: { partitions: number[] }) => t.partitions) }),
  )
  consumer.on(consumer.events.COMMIT_OFFSETS, (e) => {
    for (const t of e.payload.topics ?? [])
      for (const p of t.partitions) timeline.push({ commit: { partition: p.partition, offset: BigInt(p.offset) } })
  })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) timeline.push({ read: { ...record(batch.topic, batch.partition, m), by: name } })
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
    },
  })
  return consumer
}

/** Distinct values read so far. */
export function distinctReads(timeline: TimelineEntry[]): number {
  return new Set(timeline.flatMap((e) => (e.read ? [e.read.value] : []))).size
}

/** Creates `topic` with one partition and produces `values` to it, in order. */
export async function topicWith(kafka: Kafka, topic: string, values: readonly string[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
  await admin.disconnect()
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: values.map((value) => ({ value })) })
  await producer.disconnect()
}
