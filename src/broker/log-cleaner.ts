import { Buffer } from 'node:buffer'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { encodeRecordBatch } from '../codec/batch-encoder.js'
import {
  ATTR_COMPRESSION,
  ATTR_DELETE_HORIZON,
  LOG_OVERHEAD,
  batchBaseTimestamp,
  batchHasDeleteHorizon,
  sealBatchCrc,
} from '../codec/batch-header.js'
import { B_ATTRIBUTES, B_BASE_TIMESTAMP, B_COUNT, B_LENGTH, B_MAX_TIMESTAMP, B_RECORDS } from '../codec/layout.js'
import type { CompressionType } from '../codec/compression.js'
import type { RecordBatch } from '../codec/record.js'
import type { RecordInput } from '../codec/types.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { EmbeddedCluster } from './cluster.js'
import type { TopicImage } from './controller.js'
import type { AbortedTransaction, PartitionLog, StoredBatch } from './partition-log.js'
import { topicConfig } from './topic-configs.js'
import { BrokerError } from './broker-error.js'
import { CorruptBatchError } from './storage/segment.js'

/** What one cleaning of one log did. */
export interface CleanStats {
  /** The cleaned range's end: every batch below it was cleaned. */
  cleanedTo: number
  /** Records (data and markers) read in the cleaned range. */
  recordsRead: number
  /** Records dropped: superseded values, expired tombstones, aborted data, markers no longer needed. */
  recordsRemoved: number
  /** Bytes of the cleaned range before and after. */
  bytesBefore: number
  bytesAfter: number
}

/** One cleaning's inputs: the cleaner checkpoint, the topic's delete.retention.ms and min.compaction.lag.ms, and the time. */
export interface CleanOptions {
  firstDirty: number
  deleteRetentionMs: number
  minCompactionLagMs?: number
  now: number
}

/**
 * Per log: the cleaner checkpoint (the first dirty offset) and the earliest
 * delete horizon still ahead; `uncleanable`, the log start it had when a
 * cleaning met a corrupt batch (tried again once the start moves: retention
 * may have deleted the segment).
 */
interface LogState {
  firstDirty: number
  nextHorizon: number
  uncleanable?: number
}

/** Whether a topic is compacted: cleanup.policy names compact (alone, or with delete). */
export function isCompacted(t: TopicImage): boolean {
  return topicConfig(t, 'cleanup.policy')
    .split(',')
    .some((p) => p.trim() === 'compact')
}

/**
 * Kafka's LogValidator for a compacted topic: every record needs a key (a
 * keyless one could never be superseded nor deleted). Throws INVALID_RECORD.
 */
export function requireKeys(records: Buffer, topic: string, partition: number): void {
  let batches: RecordBatch[]
  try {
    batches = decodeRecordSet(records).batches
  } catch (err) {
    throw new BrokerError(ErrorCodes.CORRUPT_MESSAGE, `the record batch cannot be read: ${(err as Error).message}`)
  }
  const message = `Compacted topic cannot accept message without key in topic partition ${topic}-${partition}.`
  const keyless = batches.flatMap((b) =>
    b.records.flatMap((r, batchIndex) => (r.key === null ? [{ batchIndex, batchIndexErrorMessage: message }] : [])),
  )
  if (keyless.length) throw new BrokerError(ErrorCodes.INVALID_RECORD, message, { recordErrors: keyless })
}

/**
 * The offset below which a log may be cleaned. Kafka never cleans the
 * active segment, the one appends go to: its bytes are still being
 * written, consumers tailing the log read it as produced, and the newest
 * batch of every producer stays as it was sent. This in-memory log has no
 * segments, so its active segment is its newest batch (the one the next
 * append follows). Nor does Kafka clean past the last stable offset (it is
 * at most the high watermark): an undecided transaction may still abort,
 * and what the ISR does not all hold yet may still be truncated. With
 * min.compaction.lag.ms, a dirty batch holding a record younger than it is
 * not cleaned either, nor anything after it: consumers get that long to
 * read every update.
 */
export function firstUncleanableOffset(log: PartitionLog, lag: { firstDirty: number; minCompactionLagMs: number; now: number }): number {
  const { batches, activeBase } = cleanerView(log)
  let end = Math.min(activeBase, log.lastStableOffset)
  if (lag.minCompactionLagMs > 0) {
    const young = batches.find((b) => b.baseOffset >= lag.firstDirty && b.maxTimestamp > lag.now - lag.minCompactionLagMs)
    if (young) end = Math.min(end, young.baseOffset)
  }
  return Math.max(log.logStartOffset, end)
}

/** A batch as the cleaner reads it: its bytes and the header fields it acts on (a StoredBatch is one). */
export type CleanerBatch = Pick<
  StoredBatch,
  'bytes' | 'baseOffset' | 'lastOffset' | 'maxTimestamp' | 'producerId' | 'transactional' | 'control'
>

/**
 * The one place the cleaner reads a log: its batches, oldest first, and
 * where its active segment begins. In memory every batch is in
 * storedBatches() and the active segment is the newest batch; a log with
 * segment files reads its batches from them and takes its active segment's
 * base offset, and its swap (PartitionLog.replaceCleaned) rewrites them.
 */
function cleanerView(log: PartitionLog): { batches: readonly CleanerBatch[]; activeBase: number } {
  return { batches: log.allBatches(true), activeBase: log.activeSegmentBase }
}

/**
 * The log cleaner for cleanup.policy=compact, as Kafka's LogCleaner: a map
 * of each key's newest offset over the dirty range (from the cleaner
 * checkpoint to the first uncleanable offset), then every batch below that
 * offset rewritten keeping only the newest record of each key. Offsets
 * never move (gaps appear); a rewritten batch keeps its codec, base offset,
 * last offset, producer id, epoch, base sequence and transactional flag.
 * Tombstones (null values) are stamped with a delete horizon (KIP-534: now
 * + delete.retention.ms) the first time they are cleaned and dropped by the
 * first cleaning after it. Aborted transactions' records go; their markers
 * (and commit markers of transactions whose records are all gone) stay
 * until their own horizon passes. An emptied batch is kept, empty, when it
 * is its producer's last (its sequence and epoch must survive a rebuild of
 * the producer state) or ends the cleaned range.
 *
 * Every broker cleans its own replicas, on a timer (log.cleaner.backoff.ms)
 * for logs whose dirty ratio reaches min.cleanable.dirty.ratio, whose
 * tombstones have passed their horizon or whose oldest dirty batch is past
 * max.compaction.lag.ms, and on demand (compact()).
 */
export class LogCleaner {
  private readonly states = new WeakMap<PartitionLog, LogState>()
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly cluster: EmbeddedCluster,
    private readonly backoffMs: number,
  ) {}

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => this.cleanFilthiest(), this.backoffMs)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Cleans one partition now, on every running broker holding a replica of it; the leader's stats (or the first replica's). */
  compact(topic: string, partition: number, now = Date.now()): CleanStats {
    const t = this.cluster.controller.topics.get(topic)
    const p = t?.partitions[partition]
    if (!t || !p) throw new RangeError(`compact: no partition ${topic}-${partition}`)
    if (!isCompacted(t)) throw new RangeError(`compact: ${topic} has cleanup.policy=${topicConfig(t, 'cleanup.policy')}, not compact`)
    let stats: CleanStats | null = null
    for (const id of p.replicas) {
      const broker = this.cluster.brokers.get(id)
      // A stopped broker cleans nothing, as its log cleaner is stopped with it.
      const log = broker?.running ? broker.replicas.get(`${t.id}/${partition}`)?.log : undefined
      if (!log) continue
      const s = this.cleanOrSkip(id, log, t, partition, now)
      if (id === p.leader || !stats) stats = s
    }
    if (!stats) throw new RangeError(`compact: no broker holds ${topic}-${partition}`)
    return stats
  }

  /** The timer's pass: every compacted replica that is dirty enough, or has tombstones past their horizon. */
  private cleanFilthiest(): void {
    const now = Date.now()
    for (const t of this.cluster.controller.topics.values()) {
      if (!isCompacted(t)) continue
      const ratio = Number(topicConfig(t, 'min.cleanable.dirty.ratio'))
      for (const p of t.partitions) {
        if (!p) continue
        for (const id of p.replicas) {
          const broker = this.cluster.brokers.get(id)
          const log = broker?.running ? broker.replicas.get(`${t.id}/${p.partition}`)?.log : undefined
          if (!log) continue
          const state = this.stateOf(log)
          if (state.uncleanable === log.logStartOffset) continue
          try {
            const at = { firstDirty: state.firstDirty, minCompactionLagMs: Number(topicConfig(t, 'min.compaction.lag.ms')), now }
            const overdue = compactionOverdue(log, at, Number(topicConfig(t, 'max.compaction.lag.ms')))
            if (!overdue && dirtyRatio(log, at) < ratio && now < state.nextHorizon) continue
            this.cleanOrSkip(id, log, t, p.partition, now)
          } catch (err) {
            if (err instanceof CorruptBatchError) {
              this.skip(id, log, `${t.name}-${p.partition}`, err)
              continue
            }
            // One log that cannot be cleaned (bytes that will not decode) leaves the others, and the broker, serving.
            this.cluster.problem(id, `cleaning ${t.name}-${p.partition} failed: ${(err as Error).message}`, 'error')
          }
        }
      }
    }
  }

  private stateOf(log: PartitionLog): LogState {
    let s = this.states.get(log)
    if (!s) this.states.set(log, (s = { firstDirty: log.logStartOffset, nextHorizon: Infinity }))
    // A truncated log (a follower's) may have new, uncleaned data below the checkpoint.
    if (s.firstDirty > log.logEndOffset) s.firstDirty = log.logEndOffset
    return s
  }

  /**
   * clean(), unless the log is uncleanable: a corrupt batch (a base offset
   * out of order, CorruptBatchError) skips it with an ERROR naming the file,
   * as Kafka's cleaner marks a partition uncleanable; nothing is rewritten,
   * and retention goes on. Its stats then say nothing was cleaned.
   */
  private cleanOrSkip(id: number, log: PartitionLog, t: TopicImage, partition: number, now: number): CleanStats {
    const state = this.stateOf(log)
    const none = { cleanedTo: state.firstDirty, recordsRead: 0, recordsRemoved: 0, bytesBefore: 0, bytesAfter: 0 }
    if (state.uncleanable === log.logStartOffset) return none
    try {
      return this.clean(log, t, now)
    } catch (err) {
      if (!(err instanceof CorruptBatchError)) throw err
      this.skip(id, log, `${t.name}-${partition}`, err)
      return none
    }
  }

  /** Marks the log uncleanable, said at ERROR (once per mark: a read's ERROR for the same bytes does not say the log is not compacted). */
  private skip(id: number, log: PartitionLog, name: string, err: CorruptBatchError): void {
    this.stateOf(log).uncleanable = log.logStartOffset
    this.cluster.problem(id, `${name} is uncleanable (skipped until its log start moves): ${err.message}`, 'error')
  }

  /** Cleans one log and moves its checkpoint to the end of what was cleaned. */
  clean(log: PartitionLog, t: TopicImage, now: number): CleanStats {
    const state = this.stateOf(log)
    const { stats, nextHorizon } = cleanLog(log, {
      firstDirty: state.firstDirty,
      deleteRetentionMs: Number(topicConfig(t, 'delete.retention.ms')),
      minCompactionLagMs: Number(topicConfig(t, 'min.compaction.lag.ms')),
      now,
    })
    state.firstDirty = Math.max(state.firstDirty, stats.cleanedTo)
    state.nextHorizon = nextHorizon
    return stats
  }
}

/**
 * max.compaction.lag.ms, as Kafka's LogCleanerManager: a log must be
 * cleaned, whatever its dirty ratio, once a dirty batch below the active
 * segment was written longer ago than that (timestamps 0 or below do not
 * count) and there are cleanable bytes past the checkpoint.
 */
export function compactionOverdue(
  log: PartitionLog,
  at: { firstDirty: number; minCompactionLagMs: number; now: number },
  maxCompactionLagMs: number,
): boolean {
  const { batches, activeBase } = cleanerView(log)
  const cleanUntil = at.now - Math.max(0, maxCompactionLagMs)
  if (!batches.some((b) => b.baseOffset >= at.firstDirty && b.lastOffset < activeBase && b.maxTimestamp > 0 && b.maxTimestamp < cleanUntil))
    return false
  const end = firstUncleanableOffset(log, at)
  return batches.some((b) => b.baseOffset >= at.firstDirty && b.lastOffset < end)
}

/**
 * Kafka's dirty ratio: the bytes from the cleaner checkpoint to the first
 * uncleanable offset over all the bytes below that offset (0 when there is
 * nothing to clean). The timer cleans a log once it reaches
 * min.cleanable.dirty.ratio.
 */
export function dirtyRatio(log: PartitionLog, at: { firstDirty: number; minCompactionLagMs: number; now: number }): number {
  const end = firstUncleanableOffset(log, at)
  let dirty = 0
  let total = 0
  for (const b of cleanerView(log).batches) {
    if (b.lastOffset >= end) break
    total += b.bytes.length
    if (b.baseOffset >= at.firstDirty) dirty += b.bytes.length
  }
  return total === 0 ? 0 : dirty / total
}

/**
 * One cleaning of one log: the offset map over the dirty range (from
 * `firstDirty`, the cleaner checkpoint, to the first uncleanable offset),
 * then every batch below that offset filtered through it and swapped in.
 * Returns what it did and the earliest delete horizon still ahead.
 */
export function cleanLog(log: PartitionLog, options: CleanOptions): { stats: CleanStats; nextHorizon: number } {
  const { firstDirty, deleteRetentionMs, now } = options
  const end = firstUncleanableOffset(log, { firstDirty, now, minCompactionLagMs: options.minCompactionLagMs ?? 0 })
  const all = cleanerView(log).batches
  let n = 0
  while (n < all.length && all[n].lastOffset < end) n++
  const batches = all.slice(0, n)
  const aborted = abortedIndex(log.abortedBetween(log.logStartOffset, end))
  const last = lastOfProducers(all)

  // The offset map: each key's newest offset in the dirty range (aborted records do not count).
  // Batches are decoded once for it and once to filter them, so only one is held decoded at a time.
  const newest = new Map<string, number>()
  for (const b of batches) {
    if (b.control || b.lastOffset < firstDirty || isAborted(aborted, b)) continue
    for (const r of decodeOne(b).records) if (r.key !== null) newest.set(r.key.toString('latin1'), Number(r.offset))
  }

  const stats: CleanStats = { cleanedTo: end, recordsRead: 0, recordsRemoved: 0, bytesBefore: 0, bytesAfter: 0 }
  const cleaned: Buffer[] = []
  // Per producer: whether its open transaction (in offset order) kept any record, so its marker must stay.
  const txnKept = new Map<bigint, boolean>()
  let nextHorizon = Infinity
  batches.forEach((b) => {
    stats.bytesBefore += b.bytes.length
    const keep = (bytes: Buffer | null): void => {
      if (bytes === null) return
      cleaned.push(bytes)
      stats.bytesAfter += bytes.length
    }
    const horizon = deleteHorizonOf(b.bytes)
    if (b.control) {
      stats.recordsRead++
      const needed = txnKept.get(b.producerId) === true
      txnKept.delete(b.producerId)
      // The producer's last entry keeps its epoch for fencing; a marker of kept records stays with them.
      if (needed || last.entry.get(b.producerId) === b.baseOffset) return keep(b.bytes)
      if (horizon === null) {
        const marker = decodeOne(b)
        nextHorizon = Math.min(nextHorizon, now + deleteRetentionMs)
        return keep(rewrite(b, marker, marker.records, now + deleteRetentionMs))
      }
      if (now < horizon) {
        nextHorizon = Math.min(nextHorizon, horizon)
        return keep(b.bytes)
      }
      stats.recordsRemoved++
      return
    }
    const d = decodeOne(b)
    stats.recordsRead += d.count
    const tombstonesExpired = horizon !== null && now >= horizon
    const kept = isAborted(aborted, b) ? [] : d.records.filter((r) => retained(r, newest, tombstonesExpired))
    stats.recordsRemoved += d.count - kept.length
    if (b.transactional && kept.length) txnKept.set(b.producerId, true)
    const tombstones = kept.some((r) => r.value === null)
    if (kept.length === 0) {
      // Kafka's RETAIN_EMPTY: the producer's last batch, and the cleaned range's last (its end is not lost).
      if ((b.producerId >= 0n && last.data.get(b.producerId) === b.baseOffset) || b.lastOffset + 1 === end) keep(emptied(b.bytes))
      return
    }
    if (!tombstones) return keep(kept.length === d.count && horizon === null ? b.bytes : rewrite(b, d, kept, undefined))
    const h = horizon ?? now + deleteRetentionMs
    nextHorizon = Math.min(nextHorizon, h)
    keep(kept.length === d.count && horizon !== null ? b.bytes : rewrite(b, d, kept, h))
  })
  log.replaceCleaned(end, cleaned)
  return { stats, nextHorizon }
}

type DecodedRecord = RecordBatch['records'][number]

/** A record survives when it is its key's newest (or its key is not in the dirty range) and is not a tombstone past its horizon. */
function retained(r: DecodedRecord, newest: Map<string, number>, tombstonesExpired: boolean): boolean {
  // Kafka drops keyless records from a compacted log: nothing could ever supersede them.
  if (r.key === null) return false
  const at = newest.get(r.key.toString('latin1'))
  if (at !== undefined && Number(r.offset) < at) return false
  return r.value !== null || !tombstonesExpired
}

function decodeOne(b: CleanerBatch): RecordBatch {
  return decodeRecordSet(b.bytes, { verifyCrc: false }).batches[0]
}

/** The batch re-encoded with only `kept`, everything else as it came: codec, offsets, producer fields, leader epoch, timestamp type. */
function rewrite(b: CleanerBatch, d: RecordBatch, kept: DecodedRecord[], deleteHorizonMs: number | undefined): Buffer {
  const records: RecordInput[] = kept.map((r) => ({ key: r.key, value: r.value, headers: r.headerList, timestamp: r.timestamp }))
  return encodeRecordBatch(records, {
    compression: (d.attributes & ATTR_COMPRESSION) as CompressionType,
    baseOffset: b.baseOffset,
    offsetDeltas: kept.map((r) => Number(r.offset) - b.baseOffset),
    lastOffsetDelta: d.lastOffsetDelta,
    partitionLeaderEpoch: d.partitionLeaderEpoch,
    producerId: d.producerId,
    producerEpoch: d.producerEpoch,
    baseSequence: d.baseSequence,
    transactional: d.isTransactional,
    control: d.isControl,
    deleteHorizonMs,
    // A LogAppendTime batch stays one, stamped as it was (its records read that time whatever their own).
    logAppendTime: d.timestampType === 'LogAppendTime' ? d.maxTimestamp : undefined,
  })
}

/**
 * A batch with no records left, kept for its header (Kafka's empty batch):
 * base and last offset, producer id, epoch and base sequence as they were,
 * uncompressed, both timestamps its max timestamp.
 */
function emptied(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes.subarray(0, B_RECORDS))
  out.writeInt32BE(B_RECORDS - LOG_OVERHEAD, B_LENGTH)
  out.writeInt16BE(out.readInt16BE(B_ATTRIBUTES) & ~(ATTR_COMPRESSION | ATTR_DELETE_HORIZON), B_ATTRIBUTES)
  out.writeBigInt64BE(out.readBigInt64BE(B_MAX_TIMESTAMP), B_BASE_TIMESTAMP)
  out.writeInt32BE(0, B_COUNT)
  sealBatchCrc(out)
  return out
}

/** The batch's delete horizon (KIP-534), or null when it has none yet. */
function deleteHorizonOf(bytes: Buffer): number | null {
  return batchHasDeleteHorizon(bytes) ? batchBaseTimestamp(bytes) : null
}

function abortedIndex(list: AbortedTransaction[]): Map<bigint, AbortedTransaction[]> {
  const by = new Map<bigint, AbortedTransaction[]>()
  for (const a of list) by.set(a.producerId, [...(by.get(a.producerId) ?? []), a])
  return by
}

function isAborted(index: Map<bigint, AbortedTransaction[]>, b: CleanerBatch): boolean {
  return b.transactional && (index.get(b.producerId)?.some((a) => a.firstOffset <= b.baseOffset && b.baseOffset < a.lastOffset) ?? false)
}

/** The base offsets of each producer's last data batch and last entry of any kind in the whole log. */
function lastOfProducers(all: readonly CleanerBatch[]): { data: Map<bigint, number>; entry: Map<bigint, number> } {
  const data = new Map<bigint, number>()
  const entry = new Map<bigint, number>()
  for (const b of all) {
    if (b.producerId < 0n) continue
    entry.set(b.producerId, b.baseOffset)
    if (!b.control) data.set(b.producerId, b.baseOffset)
  }
  return { data, entry }
}
