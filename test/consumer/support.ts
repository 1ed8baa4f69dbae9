import type { Consumer, KafkaMessage } from '../../src/index.js'

export interface Seen {
  topic: string
  partition: number
  offset: bigint
  key: string | null
  value: string | null
}

/** Polls until `done()` holds, failing with `what` after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
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
 * Makes the mocks advertise only what they parse right. librdkafka 2.15's mock advertises JoinGroup v0-6, SyncGroup v0-4 and
 * LeaveGroup v0-4 but parses their arrays the pre-flexible way (JoinGroup
 * v6 and SyncGroup v4 read the array count as an int32) and reads no
 * LeaveGroup member list (v3+): it drops the connection on what it
 * misreads. Its own client stays at JoinGroup v5, SyncGroup v3, LeaveGroup
 * v1, so the mock is made to advertise only what it parses.
 */
export async function prepareForGroups(mock: { setApiVersion(key: number, min: number, max: number): Promise<void>; setRebalanceDelay(ms: number): Promise<void> }, build: 'legacy' | 'modern'): Promise<void> {
  if (build === 'legacy') {
    // 2.0.2's mock answers a ListOffsets v3+ for several partitions with garbage after the first; v0-v2 are right.
    await mock.setApiVersion(2, 0, 2)
    return
  }
  // The 3 s initial rebalance delay (group.initial.rebalance.delay.ms) only slows tests down.
  await mock.setRebalanceDelay(0)
  await mock.setApiVersion(11, 0, 5) // JoinGroup
  await mock.setApiVersion(14, 0, 3) // SyncGroup
  await mock.setApiVersion(13, 0, 2) // LeaveGroup
}
