import { Buffer } from 'node:buffer'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { encodeRecordBatch } from '../codec/batch-encoder.js'
import { assignOffsets, readBatchHeader, type BatchHeader } from './record-batch.js'

/** A transaction this partition saw aborted: its first offset and its marker's offset. */
export interface AbortedTransaction {
  producerId: bigint
  firstOffset: number
  lastOffset: number
}

/** One batch as stored: the bytes received, with offsets and leader epoch assigned. */
export interface StoredBatch {
  baseOffset: number
  lastOffset: number
  maxTimestamp: number
  bytes: Buffer
  producerId: bigint
  transactional: boolean
  control: boolean
}

/**
 * A partition's log, in memory: record batches back to back, as the
 * producer sent them (only the base offset and leader epoch written in),
 * served to fetchers as those same bytes. Offsets are JS numbers (exact to
 * 2^53). The high watermark is real state, equal to the log end while the
 * leader is the only replica; readers see nothing past it.
 */
export class PartitionLog {
  private readonly batches: StoredBatch[] = []
  logStartOffset = 0
  logEndOffset = 0
  highWatermark = 0
  private bytes = 0
  /** Batch index of the largest timestamp so far (ListOffsets MAX_TIMESTAMP). */
  private maxTimestampBatch = -1
  private readonly waiters = new Set<() => void>()
  /** Open transactions: producer id -> the offset of its first batch here. */
  private readonly ongoing = new Map<bigint, number>()
  private readonly aborted: AbortedTransaction[] = []
  /** The leader epoch cache: where each epoch's batches begin, oldest first. */
  private readonly epochStarts: { epoch: number; startOffset: number }[] = []

  /** The last stable offset: below it every transaction is decided (read_committed reads up to it). */
  get lastStableOffset(): number {
    let lso = this.highWatermark
    for (const first of this.ongoing.values()) lso = Math.min(lso, first)
    return lso
  }

  /** Aborted transactions a read_committed fetch of [from, to) must be told of. */
  abortedBetween(from: number, to: number): AbortedTransaction[] {
    return this.aborted.filter((a) => a.lastOffset >= from && a.firstOffset < to)
  }

  /**
   * Writes a transaction marker (a control batch: COMMIT or ABORT) for a
   * producer's open transaction here, as the coordinator's
   * WriteTxnMarkers would; returns its offset, or null when the producer has
   * no transaction open here.
   */
  writeMarker(producerId: bigint, producerEpoch: number, commit: boolean, leaderEpoch: number, coordinatorEpoch = 0): number | null {
    const first = this.ongoing.get(producerId)
    if (first === undefined) return null
    const key = Buffer.alloc(4)
    key.writeInt16BE(0, 0)
    key.writeInt16BE(commit ? 1 : 0, 2)
    const value = Buffer.alloc(6)
    value.writeInt16BE(0, 0)
    value.writeInt32BE(coordinatorEpoch, 2)
    const bytes = encodeRecordBatch([{ key, value }], { control: true, transactional: true, producerId, producerEpoch, baseSequence: -1 })
    const offset = this.append(bytes, readBatchHeader(bytes), leaderEpoch)
    this.ongoing.delete(producerId)
    if (!commit) this.aborted.push({ producerId, firstOffset: first, lastOffset: offset })
    return offset
  }

  get sizeInBytes(): number {
    return this.bytes
  }

  /** Appends a validated batch (the caller's own copy, which the log keeps); returns its base offset. */
  append(batch: Buffer, header: BatchHeader, leaderEpoch: number): number {
    const baseOffset = this.logEndOffset
    if ((this.epochStarts.at(-1)?.epoch ?? -1) < leaderEpoch) this.epochStarts.push({ epoch: leaderEpoch, startOffset: baseOffset })
    assignOffsets(batch, baseOffset, leaderEpoch)
    const stored: StoredBatch = {
      baseOffset,
      lastOffset: baseOffset + header.lastOffsetDelta,
      maxTimestamp: header.maxTimestamp,
      bytes: batch,
      producerId: header.producerId,
      transactional: header.transactional,
      control: header.control,
    }
    const best = this.batches[this.maxTimestampBatch]
    if (!best || stored.maxTimestamp > best.maxTimestamp) this.maxTimestampBatch = this.batches.length
    this.batches.push(stored)
    if (header.transactional && !header.control && !this.ongoing.has(header.producerId)) this.ongoing.set(header.producerId, baseOffset)
    this.bytes += batch.length
    this.logEndOffset = stored.lastOffset + 1
    this.highWatermark = this.logEndOffset
    this.wake()
    return baseOffset
  }

  /**
   * OffsetForLeaderEpoch: the largest epoch at or below `epoch` this log
   * has, and where it ends (the next epoch's start, or the log end), so a
   * follower or consumer can find where its copy diverges. An epoch at or
   * past the current leader epoch ends at the log end.
   */
  endOffsetFor(epoch: number, currentLeaderEpoch: number): { leaderEpoch: number; endOffset: number } {
    if (epoch >= currentLeaderEpoch) return { leaderEpoch: currentLeaderEpoch, endOffset: this.logEndOffset }
    let i = this.epochStarts.length - 1
    while (i >= 0 && this.epochStarts[i].epoch > epoch) i--
    if (i < 0) return { leaderEpoch: -1, endOffset: -1 }
    return { leaderEpoch: this.epochStarts[i].epoch, endOffset: this.epochStarts[i + 1]?.startOffset ?? this.logEndOffset }
  }

  /**
   * DeleteRecords: moves the log start to `offset` (at most the high
   * watermark) and drops the batches wholly below it; returns the new start.
   */
  deleteBefore(offset: number): number {
    if (offset <= this.logStartOffset) return this.logStartOffset
    this.logStartOffset = offset
    let drop = 0
    while (drop < this.batches.length && this.batches[drop].lastOffset < offset) this.bytes -= this.batches[drop++].bytes.length
    if (drop) {
      this.batches.splice(0, drop)
      this.maxTimestampBatch = -1
      this.batches.forEach((b, i) => {
        if (this.maxTimestampBatch < 0 || b.maxTimestamp > this.batches[this.maxTimestampBatch].maxTimestamp) this.maxTimestampBatch = i
      })
    }
    return this.logStartOffset
  }

  /** Calls `wake` once at the next append (a waiting fetch); returns a cancel. */
  onAppend(wake: () => void): () => void {
    this.waiters.add(wake)
    return () => this.waiters.delete(wake)
  }

  private wake(): void {
    const waiters = [...this.waiters]
    this.waiters.clear()
    for (const w of waiters) w()
  }

  /**
   * The stored batches from the one holding `offset`, up to `upTo`
   * (exclusive, default the high watermark) and about maxBytes: whole
   * batches only, but always the first one even when it alone is larger
   * (KIP-74), so a consumer can make progress.
   */
  read(offset: number, maxBytes: number, upTo = this.highWatermark): { chunks: Buffer[]; bytes: number } {
    const chunks: Buffer[] = []
    let bytes = 0
    for (let i = this.indexOf(offset); i < this.batches.length; i++) {
      const b = this.batches[i]
      if (b.baseOffset >= upTo) break
      if (chunks.length > 0 && bytes + b.bytes.length > maxBytes) break
      chunks.push(b.bytes)
      bytes += b.bytes.length
    }
    return { chunks, bytes }
  }

  /** The index of the first batch whose last offset is >= offset (batches.length if none). */
  private indexOf(offset: number): number {
    let lo = 0
    let hi = this.batches.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.batches[mid].lastOffset < offset) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** The earliest offset whose record's timestamp is >= ts, or null when none is (ListOffsets by time). */
  offsetForTimestamp(ts: number): { offset: number; timestamp: number } | null {
    for (const batch of this.batches) {
      if (batch.maxTimestamp < ts || batch.control) continue
      for (const r of decodeRecordSet(batch.bytes).batches[0].records) {
        if (r.timestamp >= ts && Number(r.offset) >= this.logStartOffset) return { offset: Number(r.offset), timestamp: r.timestamp }
      }
    }
    return null
  }

  /** The offset and timestamp of the record with the largest timestamp (the first such), or null when empty. */
  maxTimestamp(): { offset: number; timestamp: number } | null {
    const batch = this.batches[this.maxTimestampBatch]
    if (!batch) return null
    for (const r of decodeRecordSet(batch.bytes).batches[0].records) {
      if (r.timestamp === batch.maxTimestamp) return { offset: Number(r.offset), timestamp: r.timestamp }
    }
    return { offset: batch.lastOffset, timestamp: batch.maxTimestamp }
  }
}
