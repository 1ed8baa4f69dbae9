// A task's stores read back from their changelogs before it processes (Java's
// StoreChangelogReader): each from its start (the earliest offset, or the one
// after a persistent store's checkpoint: state-manager.ts) to the end offset
// found when the restore began, with a consumer outside the group. A restore that
// stops making progress for restoreTimeoutMs fails the task. Under
// exactly_once_v2 it reads committed records only, up to the last stable
// offset: an aborted transaction's writes never reach a store.
import type { Admin } from '../admin/admin.js'
import type { RecordBatch } from '../codec/record.js'
import type { Kafka } from '../kafka.js'
import type { Logger } from '../logger.js'
import { StreamsError } from './streams-error.js'

const LATEST = -1n
const EARLIEST = -2n

/**
 * A store written back from its changelog's records as they were logged.
 * `id`, when given, is the key's bytes as a latin1 string, made once for the
 * store and its file (the stores key their maps by it).
 */
export interface RestorableStore {
  restore(key: Buffer, value: Buffer | null, timestamp: number, headers?: Array<[string, Buffer | null]>, id?: string): void
}

export interface ChangelogPartition {
  topic: string
  partition: number
  store: RestorableStore
}

/** A changelog partition's earliest offset and its end (the last stable offset when `readCommitted`). */
export async function changelogBounds(
  admin: Admin,
  p: { topic: string; partition: number },
  readCommitted: boolean,
): Promise<{ start: bigint; end: bigint }> {
  const [end, start] = await Promise.all([
    admin.listOffsets(p.topic, [p.partition], LATEST, readCommitted ? 1 : 0),
    admin.listOffsets(p.topic, [p.partition], EARLIEST),
  ])
  return { start: start.get(p.partition)!, end: end.get(p.partition)! }
}

/** A changelog partition to read from `from` up to `end`; `restored` counts the records applied. */
export interface RestoreRange extends ChangelogPartition {
  from: bigint
  end: bigint
  restored?: number
}

/** Restores every store of `ranges` (each from its `from`); resolves with the number of records applied. */
export async function restoreStores(
  kafka: Kafka,
  ranges: RestoreRange[],
  log: Logger,
  restoreTimeoutMs: number,
  readCommitted = false,
): Promise<number> {
  for (const r of ranges) r.restored = 0
  const todo = ranges.filter((r) => r.end > r.from)
  if (todo.length === 0) return 0
  const key = (topic: string, partition: number) => `${topic}\0${partition}`
  const pending = new Map(todo.map((t) => [key(t.topic, t.partition), t]))
  const consumer = kafka.consumer({ autoOffsetReset: 'earliest', isolationLevel: readCommitted ? 'read_committed' : 'read_uncommitted' })
  let applied = 0
  let done!: () => void
  const finished = new Promise<void>((resolve) => (done = resolve))
  let timer: ReturnType<typeof setTimeout> | undefined
  let progress = () => {}
  const stalled = new Promise<never>((_, reject) => {
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(
        () =>
          reject(
            new StreamsError(
              `restoring ${[...pending.keys()].map((k) => k.replace('\0', '-')).join(', ')} made no progress for ${restoreTimeoutMs} ms`,
            ),
          ),
        restoreTimeoutMs,
      )
    }
    arm()
    progress = arm
  })
  let positions: ReturnType<typeof setInterval> | undefined
  const reached = (topic: string, partition: number) => {
    if (!pending.delete(key(topic, partition))) return
    if (pending.size === 0) done()
  }
  await consumer.connect()
  try {
    consumer.assign(
      [...new Set(todo.map((t) => t.topic))].map((topic) => ({
        topic,
        partitions: todo.filter((t) => t.topic === topic).map((t) => t.partition),
      })),
    )
    for (const t of todo) consumer.seek({ topic: t.topic, partition: t.partition, offset: t.from })
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const part = pending.get(key(batch.topic, batch.partition))
        if (!part) return
        const store = part.store
        let restored = 0
        // Offsets as deltas within each record batch (numbers): no bigint per record.
        let records: RecordBatch | undefined
        let from = 0
        let end = 0
        for (const m of batch.messages) {
          if (m.batch !== records) {
            records = m.batch
            from = Number(part.from - records.baseOffset)
            end = Number(part.end - records.baseOffset)
          }
          const delta = m.offsetDelta
          if (delta >= end) break
          if (delta < from) continue
          store.restore(m.key!, m.value, m.timestampMs, m.headerList)
          restored++
        }
        part.restored! += restored
        applied += restored
        progress()
        if (BigInt(batch.lastOffset()) + 1n >= part.end) reached(batch.topic, batch.partition)
      },
    })
    // A changelog ending in transaction markers (or aborted records) is read past them without a batch: its position says.
    positions = setInterval(() => {
      for (const s of consumer.statistics().partitions)
        if (s.position !== null && BigInt(s.position) >= (pending.get(key(s.topic, s.partition))?.end ?? -1n)) reached(s.topic, s.partition)
    }, 50)
    await Promise.race([finished, stalled])
  } finally {
    clearTimeout(timer)
    clearInterval(positions)
    await consumer.disconnect()
  }
  log.info('restored state stores from their changelogs', { changelogs: todo.map((t) => `${t.topic}-${t.partition}`), records: applied })
  return applied
}
