import { Buffer } from 'node:buffer'
import { closeSync, ftruncateSync, fstatSync, openSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  BatchWalker,
  batchBaseOffsetNumber,
  batchCrcMatches,
  batchLastOffsetDelta,
  batchLastOffsetNumber,
  batchMagic,
  batchMaxTimestamp,
  batchSize,
  isControlBatch,
} from '../../codec/batch-header.js'
import { B_RECORDS } from '../../codec/layout.js'
import { diskIo, fsyncFd, fsyncPathAsync, StorageError, throwAsStorageError, writeFully, writeWholeFile } from './disk-io.js'
import { OffsetIndex, TimeIndex } from './indexes.js'
import { TxnIndex } from './txn-index.js'
import { INT32_MAX } from '../../int32.js'

// Walks are synchronous: one walker serves every segment.
const walker = new BatchWalker()

/** A segment's file name stem: its base offset, 20 digits, as Kafka names them. */
export function segmentName(baseOffset: number): string {
  return String(baseOffset).padStart(20, '0')
}

/**
 * A read met batches out of offset order: a base offset (not under the
 * CRC-32C) is wrong, so what it would serve could carry wrong offsets
 * (records skipped or read twice by a consumer). Nothing of them is served
 * (KAFKA_STORAGE_ERROR). `repeated`: this segment refused the same batch
 * before (said once at ERROR).
 */
export class CorruptBatchError extends StorageError {
  constructor(
    path: string,
    readonly position: number,
    message: string,
    readonly repeated: boolean,
  ) {
    super(path, message)
    this.name = 'CorruptBatchError'
  }
}

const batchAt = (position: number, base: number, last: number) => `the batch at byte ${position} (offsets ${base}-${last})`

/** Offset index entries as they were read from the file (relative offsets and positions, ascending). */
interface IndexEntries {
  offsets: Int32Array
  positions: Int32Array
}

/** Called for every whole batch a recovery scan keeps: its bytes (the header at least; all of it for control batches) and base offset. */
export type BatchVisitor = (bytes: Buffer, baseOffset: number) => void

/**
 * One log segment on disk: `<base>.log` with the record batches back to
 * back exactly as stored in memory (offsets assigned, CRC as received),
 * and its two sparse indexes. Appends are one positional write of the
 * batch's bytes; reads are one read of a run of whole batches, found from
 * the offset index and a short header scan (never decoded).
 */
export class Segment {
  size = 0
  /** The offset after this segment's last batch (its base offset while empty). */
  nextOffset: number
  maxTimestamp = -1
  /** The last offset of the batch holding the largest timestamp (-1 while empty). */
  offsetOfMaxTimestamp = -1
  /** The first batch's max timestamp (-1 while empty): segment.ms is measured from it, as Kafka's rollingBasedTimestamp. */
  firstBatchTimestamp = -1
  readonly created = Date.now()
  private bytesSinceIndex = 0
  readonly index: OffsetIndex
  readonly timeIndex: TimeIndex
  /** The aborted transactions whose markers are here (`.txnindex`). */
  readonly txnIndex: TxnIndex
  private readonly fd: number
  private readonly header = Buffer.allocUnsafe(B_RECORDS)
  /** Batch headers read by walks of this segment (recovery, replay): what a start-up read of it, for its load stats. */
  scanned = 0
  /** Why recoverTail read the segment whole instead (its batches disagree with its index): for the log's report; null when it did not. */
  distrusted: string | null = null
  /** Closed (or deleted): its descriptor is gone. */
  closed = false
  /** The batches reads were refused at (CorruptBatchError's position): each said at ERROR once. */
  private readonly refused = new Set<number>()
  /** What the last append changed, as it was before (unappend puts it back): fields, not an object per append. */
  private undoSize = 0
  private undoNextOffset = 0
  private undoMaxTimestamp = -1
  private undoOffsetOfMaxTimestamp = -1
  private undoFirstBatchTimestamp = -1
  private undoBytesSinceIndex = 0
  private undoIndexLength = 0
  private undoTimeIndexLength = 0

  constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly indexIntervalBytes: () => number,
  ) {
    const stem = join(dir, segmentName(baseOffset))
    this.fd = openSync(`${stem}.log`, 'a+')
    this.size = fstatSync(this.fd).size
    this.index = new OffsetIndex(`${stem}.index`)
    this.timeIndex = new TimeIndex(`${stem}.timeindex`)
    this.txnIndex = new TxnIndex(`${stem}.txnindex`)
    this.nextOffset = baseOffset
  }

  get path(): string {
    return join(this.dir, `${segmentName(this.baseOffset)}.log`)
  }

  /**
   * Appends a batch: its bytes in one write, checked (all of them, or
   * StorageError). The write is issued before the produce is acknowledged,
   * so the bytes are in the OS page cache: a kill -9 of this process loses
   * nothing written; power loss keeps what was flushed (the flush policy).
   * A failed write (a full disk), of the batch or of its index entries, is
   * undone before it throws: no half batch is left for a later read or
   * append to find.
   */
  append(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    const position = this.size
    this.undoSize = position
    this.undoNextOffset = this.nextOffset
    this.undoMaxTimestamp = this.maxTimestamp
    this.undoOffsetOfMaxTimestamp = this.offsetOfMaxTimestamp
    this.undoFirstBatchTimestamp = this.firstBatchTimestamp
    this.undoBytesSinceIndex = this.bytesSinceIndex
    this.undoIndexLength = this.index.length
    this.undoTimeIndexLength = this.timeIndex.length
    try {
      writeFully(this.fd, batch, position, this.path)
      this.size += batch.length
      this.track(batch.length, position, lastOffset, maxTimestamp, true)
    } catch (err) {
      this.unappend()
      throw err
    }
  }

  /** Undoes the last append (its write failed, or its flush did): the files and the state are as before it. */
  unappend(): void {
    try {
      ftruncateSync(this.fd, this.undoSize)
      this.index.truncateEntries(this.undoIndexLength)
      this.timeIndex.truncateEntries(this.undoTimeIndexLength)
    } catch (err) {
      throwAsStorageError(err, this.path)
    } finally {
      this.size = this.undoSize
      this.nextOffset = this.undoNextOffset
      this.maxTimestamp = this.undoMaxTimestamp
      this.offsetOfMaxTimestamp = this.undoOffsetOfMaxTimestamp
      this.firstBatchTimestamp = this.undoFirstBatchTimestamp
      this.bytesSinceIndex = this.undoBytesSinceIndex
    }
  }

  /** fsync of the segment's files. */
  flush(): void {
    fsyncFd(this.fd, this.path)
    this.index.flush()
    this.timeIndex.flush()
    this.txnIndex.flush()
  }

  /** The same on the thread pool (a sealed segment's, after a roll); nothing once the segment is closed. */
  async flushInBackground(): Promise<void> {
    try {
      if (!this.closed) await diskIo.fsyncAsync(this.fd)
      for (const path of [this.index.path, this.timeIndex.path]) if (!this.closed) await fsyncPathAsync(path)
      if (!this.closed) this.txnIndex.flush()
    } catch (err) {
      // Deleted meanwhile (retention, truncation): nothing left to flush.
      if (!this.closed) throw err
    }
  }

  /** Index entries and timestamps for a batch at `position` (appended, or found by a recovery scan). */
  private track(length: number, position: number, lastOffset: number, maxTimestamp: number, write: boolean): void {
    if (this.nextOffset === this.baseOffset && this.firstBatchTimestamp < 0) this.firstBatchTimestamp = maxTimestamp
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp
      this.offsetOfMaxTimestamp = lastOffset
    }
    // As Kafka's LogSegment.append: an entry once more than index.interval.bytes were written since the last.
    if (this.bytesSinceIndex > this.indexIntervalBytes()) {
      const rel = lastOffset - this.baseOffset
      this.index.add(rel, position, write)
      this.timeIndex.maybeAdd(this.maxTimestamp, this.offsetOfMaxTimestamp - this.baseOffset, write)
      this.bytesSinceIndex = 0
    }
    this.bytesSinceIndex += length
    this.nextOffset = lastOffset + 1
  }

  /**
   * How long this segment has been taking records, for segment.ms (Kafka's
   * timeWaitedForRoll): from its first batch's timestamp to the incoming
   * batch's, so old records replayed in order do not roll at every batch;
   * by the clock for a segment with no timestamp yet.
   */
  timeWaitedForRoll(now: number, incomingMaxTimestamp: number): number {
    return this.firstBatchTimestamp >= 0 ? incomingMaxTimestamp - this.firstBatchTimestamp : now - this.created
  }

  /** The segment stops taking appends (a roll): its time index ends on its largest timestamp, as Kafka's does. */
  seal(): void {
    if (this.offsetOfMaxTimestamp >= 0) this.timeIndex.maybeAdd(this.maxTimestamp, this.offsetOfMaxTimestamp - this.baseOffset)
    // Only the .log stays open (for reads): an old segment holds one descriptor.
    this.index.close()
    this.timeIndex.close()
  }

  /** Reads the batch header at `position` into a shared buffer; null past the end or on a short read. */
  private readHeader(position: number): Buffer | null {
    if (position + B_RECORDS > this.size) return null
    return diskIo.read(this.fd, this.header, 0, B_RECORDS, position) === B_RECORDS ? this.header : null
  }

  /** The position of the first batch whose last offset is >= offset (the size when none is). */
  locate(offset: number): number {
    let position = this.index.lookup(offset - this.baseOffset)
    for (;;) {
      const h = this.readHeader(position)
      if (!h) return this.size
      if (batchLastOffsetNumber(h) >= offset) return position
      position += batchSize(h)
    }
  }

  /**
   * Whole batches from the one holding `offset`, about maxBytes of them,
   * none starting at or past `upTo`, as one run of the file's bytes; the
   * first batch always, even when larger (KIP-74).
   *
   * Each batch of the run, and each one walked to it, must lie past the
   * one before it, and the batch after the run past the run's last (or
   * the run end below the segment's next offset): a base offset is not
   * under the CRC-32C, and a start after a clean stop reads only the
   * batches its index entries point at and those after the last (Kafka
   * reads none between entries either), so one flipped between entries is
   * met here first. Flipped up, it overlaps the batch after it; down, the one
   * before. Both batches of such a pair are withheld: the run ends before
   * them, and a read starting at them (or walking past them) throws
   * CorruptBatchError. Compacted logs have gaps, never overlaps: they
   * pass. Costs no read but, at times, the header after the run.
   */
  read(offset: number, maxBytes: number, upTo: number): Buffer | null {
    const position = this.locateForRead(offset)
    if (position >= this.size) return null
    let block = Buffer.allocUnsafe(Math.min(this.size - position, Math.max(maxBytes, B_RECORDS)))
    diskIo.read(this.fd, block, 0, block.length, position)
    let end = 0
    // The run's last batch so far (its start in the block, its offsets), and whether the batch after it is yet to be checked.
    let lastAt = -1
    let lastBase = 0
    let lastLast = 0
    let checkNext = true
    const walk = walker.start(block)
    while (walk.next()) {
      const base = batchBaseOffsetNumber(block, walk.at)
      if (base >= upTo) break
      const last = base + batchLastOffsetDelta(block, walk.at)
      if (lastAt >= 0 && base <= lastLast) {
        if (lastAt === 0)
          throw this.refuse(
            position + walk.at,
            `a read of offset ${offset}`,
            `${batchAt(position, lastBase, lastLast)} and ${batchAt(position + walk.at, base, last)} are out of offset order`,
          )
        // The batch before the pair was checked against the first of it: the run ends there.
        end = lastAt
        checkNext = false
        break
      }
      lastAt = walk.at
      lastBase = base
      lastLast = last
      end = walk.end
    }
    if (end === 0 && walk.end === 0 && walk.claimed > 0 && batchBaseOffsetNumber(block) < upTo) {
      // The first batch is larger than maxBytes: it comes whole.
      end = walk.claimed
      lastAt = 0
      lastBase = batchBaseOffsetNumber(block)
      lastLast = lastBase + batchLastOffsetDelta(block)
      // With the next batch's header, for the check below: the same read.
      block = Buffer.allocUnsafe(Math.min(end + B_RECORDS, this.size - position))
      diskIo.read(this.fd, block, 0, block.length, position)
    }
    if (end === 0) return null
    if (checkNext) {
      // A base offset flipped up shows only against the batch after it (in the block already, mostly).
      const inBlock = end + B_RECORDS <= block.length
      const next = inBlock ? block : this.readHeader(position + end)
      const at = inBlock ? end : 0
      const nextBase = next ? batchBaseOffsetNumber(next, at) : this.nextOffset
      if (nextBase <= lastLast) {
        const after = next
          ? batchAt(position + end, nextBase, batchLastOffsetNumber(next, at))
          : `the segment's end (its next offset ${this.nextOffset})`
        if (lastAt === 0)
          throw this.refuse(
            position + end,
            `a read of offset ${offset}`,
            `${batchAt(position, lastBase, lastLast)} and ${after} are out of offset order`,
          )
        end = lastAt
      }
    }
    return block.subarray(0, end)
  }

  /**
   * locate for a read: the walk from the offset index entry checks each
   * batch it meets against the one before it (the first against the entry
   * before its own), and that the first one reaching its entry's offset
   * ends there (the batch the entry points at; or a later one, in an index
   * of older Kafka's, one entry for a whole append of batches).
   */
  private locateForRead(offset: number): number {
    return this.walkChecked(offset, `a read of offset ${offset}`, (_h, last) => last >= offset, false)
  }

  /**
   * The checked walk of locateForRead from the offset index entry at or
   * below `offset`, to the first batch `stop` takes (its position; the
   * segment's size for none). With `checkNext` the batch after the one
   * stopped at is checked too (its base past the stopped one's last, or
   * the segment's next offset past it; it ends on a pending entry when it
   * reaches it): a look-up that answers from one batch alone (ListOffsets
   * by time) needs it, a read checks its run's end itself.
   */
  private walkChecked(offset: number, reading: string, stop: (h: Buffer, last: number) => boolean, checkNext: boolean): number {
    const { offsets, positions } = this.index
    const i = this.index.entryAtOrBelow(offset - this.baseOffset)
    let position = i < 0 ? 0 : positions[i]
    let entry = i < 0 ? -1 : this.baseOffset + offsets[i]
    let prevAt = -1
    let prevBase = 0
    let prevLast = i > 0 ? this.baseOffset + offsets[i - 1] : this.baseOffset - 1
    let stopped = -1
    for (;;) {
      const h = this.readHeader(position)
      if (!h) {
        if (stopped < 0 || prevLast < this.nextOffset) return stopped < 0 ? this.size : stopped
        throw this.refuse(
          stopped,
          reading,
          `${batchAt(prevAt, prevBase, prevLast)} goes past the segment's end (its next offset ${this.nextOffset})`,
        )
      }
      const base = batchBaseOffsetNumber(h)
      const last = base + batchLastOffsetDelta(h)
      if (base <= prevLast) {
        const before =
          prevAt >= 0
            ? batchAt(prevAt, prevBase, prevLast)
            : i > 0
              ? `the offset index entry before it (${prevLast})`
              : `the segment's base offset ${this.baseOffset}`
        throw this.refuse(
          stopped < 0 ? position : stopped,
          reading,
          `${before} and ${batchAt(position, base, last)} are out of offset order`,
        )
      }
      if (entry >= 0 && last >= entry) {
        if (last !== entry)
          throw this.refuse(
            stopped < 0 ? position : stopped,
            reading,
            `no batch from byte ${positions[i]} ends at its offset index entry ${entry} (${batchAt(position, base, last)} goes past it)`,
          )
        entry = -1
      }
      if (stopped >= 0) return stopped
      const size = batchSize(h)
      if (stop(h, last)) {
        if (!checkNext) return position
        stopped = position
      }
      prevAt = position
      prevBase = base
      prevLast = last
      position += size
    }
  }

  /** The error for a read refused at the batch at `position` (`what`: what is wrong there); remembered, to be said at ERROR once. */
  private refuse(position: number, reading: string, what: string): CorruptBatchError {
    const repeated = this.refused.has(position)
    this.refused.add(position)
    return new CorruptBatchError(
      this.path,
      position,
      `${this.path} is corrupt: ${what} (a base offset is not under the CRC-32C): ${reading} is refused, none of them served`,
      repeated,
    )
  }

  /** The whole batch at `position`. */
  readBatch(position: number): Buffer {
    const h = this.readHeader(position)!
    const b = Buffer.allocUnsafe(batchSize(h))
    diskIo.read(this.fd, b, 0, b.length, position)
    return b
  }

  /**
   * The first non-control batch at or after the time index's entry for `ts`
   * whose max timestamp is >= ts (the bytes, whole), or null. The walk is
   * checked as a read's, and the batch after the one found too (a base
   * offset flipped up shows only there): the answer is its records'
   * offsets, so one out of order throws CorruptBatchError.
   */
  firstBatchAtOrAfter(ts: number): Buffer | null {
    if (this.maxTimestamp < ts) return null
    const rel = this.timeIndex.lookup(ts)
    const from = rel < 0 ? this.baseOffset - 1 : this.baseOffset + rel
    const position = this.walkChecked(from, `a look-up of timestamp ${ts}`, (h) => batchMaxTimestamp(h) >= ts && !isControlBatch(h), true)
    return position < this.size ? this.readBatch(position) : null
  }

  /** The batch whose last offset is `lastOffset` (the one the max timestamp is in), checked as firstBatchAtOrAfter's. */
  batchEndingAt(lastOffset: number): Buffer | null {
    const position = this.walkChecked(lastOffset, `a look-up of offset ${lastOffset}`, (_h, last) => last >= lastOffset, true)
    return position < this.size ? this.readBatch(position) : null
  }

  /**
   * Recovery: walks the batches from the start, rebuilding the indexes and
   * timestamps; checks each one's CRC-32C when `validate`. The first torn,
   * invalid or out-of-order batch and everything after it is cut off.
   * Returns how many bytes were cut. Index files that do not match what
   * the walk rebuilt (missing, corrupt) are rewritten.
   */
  recover(validate: boolean, visit: BatchVisitor = () => {}, expected?: IndexEntries): number {
    this.index.length = 0
    this.timeIndex.length = 0
    this.bytesSinceIndex = 0
    this.nextOffset = this.baseOffset
    this.maxTimestamp = -1
    this.offsetOfMaxTimestamp = -1
    this.firstBatchTimestamp = -1
    return this.scan(0, validate, visit, expected)
  }

  /**
   * A sealed segment below the recovery point, loaded without reading a
   * batch (Kafka's trusted segments): its indexes from their files (after
   * their sanity check), its end the next segment's base, its largest
   * timestamp the time index's last entry (written when it was sealed).
   * False when an index file fails the check: the caller recovers it.
   */
  load(nextOffset: number): boolean {
    const maxRelative = nextOffset - 1 - this.baseOffset
    if (!this.index.load(this.size, maxRelative) || !this.timeIndex.load(this.size, maxRelative)) return false
    // A sealed segment's time index ends on its largest timestamp: an empty one (lost to power loss) is rebuilt, or retention would never see it.
    if (this.size > 0 && this.timeIndex.length === 0) return false
    this.nextOffset = nextOffset
    this.takeMaxTimestampFromIndex()
    return true
  }

  /**
   * A sealed segment's check before it is trusted (two reads: its first
   * batch's header, then that batch with the next one's header): the batch
   * is whole, and its offsets lie between its name's base offset and the
   * next batch's base (or `nextOffset`, the next segment's base). A base
   * offset is not under the CRC, and reads find batches by offset: a
   * corrupt one would hide the segment from readers.
   *
   * - `ok`: trusted; `served` says a first batch that fails its CRC-32C
   *   but whose offsets hold (served as it is, as every batch of a trusted
   *   segment: a consumer's CRC check refuses it).
   * - `repaired`: the base offset was wrong but pinned (the batch's CRC
   *   holds, so its record count does, and it fits exactly between the
   *   segment's base and the next batch): written back, the 8 bytes it
   *   held kept beside the segment as `<name>.log.base-0`.
   * - `recover`: the segment is to be read whole (and cut at the bad batch).
   */
  checkFirstBatch(nextOffset: number): { kind: 'ok'; served: string | null } | { kind: 'repaired' | 'recover'; problem: string } {
    if (this.size === 0) return { kind: 'ok', served: null }
    const h = this.readHeader(0)
    if (!h) return { kind: 'recover', problem: `its first batch header is not whole (${this.size} bytes)` }
    const size = batchSize(h)
    if (batchMagic(h) !== 2 || size < B_RECORDS || size > this.size)
      return { kind: 'recover', problem: `its first batch is not a whole v2 batch (${size} bytes)` }
    // The batch and the next one's header, in one read.
    const run = Buffer.allocUnsafe(Math.min(this.size, size + B_RECORDS))
    if (diskIo.read(this.fd, run, 0, run.length, 0) !== run.length) return { kind: 'recover', problem: 'its first batch is not readable' }
    const crcHolds = batchCrcMatches(run)
    const base = batchBaseOffsetNumber(run)
    const last = batchLastOffsetNumber(run)
    const hasNext = run.length === size + B_RECORDS && batchMagic(run, size) === 2
    const end = hasNext ? batchBaseOffsetNumber(run, size) : nextOffset
    if (base >= this.baseOffset && last >= base && last < end)
      return { kind: 'ok', served: crcHolds ? null : 'its first batch fails its CRC-32C (its offsets hold): served as it is' }
    const problem = `its first batch's offsets ${base}-${last} are outside the segment's ${this.baseOffset}-${end - 1}`
    // The offsets the batch spans (its last offset delta, under the CRC) fit only from the segment's base: that is its base offset.
    const count = batchLastOffsetDelta(run) + 1
    if (!crcHolds || count < 1 || this.baseOffset + count !== end || end > nextOffset) return { kind: 'recover', problem }
    try {
      // The bytes it held first (flushed): nothing is overwritten that is not kept.
      writeWholeFile(`${this.path}.base-0`, run.subarray(0, 8), true)
      const fixed = Buffer.allocUnsafe(8)
      fixed.writeBigInt64BE(BigInt(this.baseOffset))
      // Not through this.fd: opened for appending, it would write at the end.
      const fd = openSync(this.path, 'r+')
      try {
        writeFully(fd, fixed, 0, this.path)
        fsyncFd(fd, this.path)
      } finally {
        closeSync(fd)
      }
    } catch (err) {
      return { kind: 'recover', problem: `${problem} (writing its pinned base offset back failed: ${(err as Error).message})` }
    }
    return {
      kind: 'repaired',
      problem:
        `${problem}; its CRC-32C holds (the base offset is not under it) and its ${count} offsets fit only from ${this.baseOffset}: ` +
        `base offset written back as ${this.baseOffset}, the 8 bytes it held kept as ${this.path}.base-0`,
    }
  }

  /**
   * The active segment after a clean stop (below the recovery point, up to
   * its end): its indexes from their files, and only the batches from its
   * last offset index entry on read (at most index.interval.bytes and a
   * batch, as Kafka's readNextOffset), checked when `validate`; and the
   * header each index entry points at (see indexDisagreement: Kafka does
   * not look, and would serve a flipped base offset). Falls back to a whole
   * recovery when the index files fail their check, or a batch its index
   * (`distrusted` says why). Returns how many bytes were cut.
   */
  recoverTail(validate: boolean, visit: BatchVisitor = () => {}): number {
    if (this.size === 0 || !this.index.load(this.size, INT32_MAX) || !this.timeIndex.load(this.size, INT32_MAX))
      return this.recover(validate, visit)
    const n = this.index.length
    const position = n ? this.index.positions[n - 1] : 0
    const first = this.readHeader(0)
    const firstTimestamp = first ? batchMaxTimestamp(first) : -1
    // The first batch's offsets (not under the CRC) checked as a trusted segment's: out of range, the segment is read whole.
    if (first && (batchBaseOffsetNumber(first) < this.baseOffset || batchLastOffsetNumber(first) - this.baseOffset > INT32_MAX)) {
      this.distrusted = `its first batch's offsets ${batchBaseOffsetNumber(first)}-${batchLastOffsetNumber(first)} are outside the segment`
      return this.recover(validate, visit)
    }
    this.distrusted = this.indexDisagreement()
    if (this.distrusted !== null) {
      // Kept before the walk rebuilds the index over them: the walk tells a bad batch from a bad entry by them.
      const expected = { offsets: this.index.offsets.slice(0, n), positions: this.index.positions.slice(0, n) }
      return this.recover(validate, visit, expected)
    }
    const h = this.readHeader(position)
    if (!h) return this.recover(validate, visit)
    this.nextOffset = batchBaseOffsetNumber(h)
    this.takeMaxTimestampFromIndex()
    this.firstBatchTimestamp = firstTimestamp
    this.bytesSinceIndex = 0
    return this.scan(position, validate, visit)
  }

  /**
   * Whether every offset index entry (read from its file) points at a batch
   * that agrees with it: the batch's last offset is the entry's, and its
   * base offset lies above the previous entry's. One header read an entry
   * (index.interval.bytes apart: a small part of the segment). A base
   * offset is not under the CRC, and an indexed batch is read without the
   * walk that would see it out of order: a flipped one would be served
   * with wrong offsets, records hidden or read twice. Null when all agree,
   * else what disagrees.
   */
  private indexDisagreement(): string | null {
    const { offsets, positions, length } = this.index
    for (let i = 0; i < length; i++) {
      const h = this.readHeader(positions[i])
      const entry = this.baseOffset + offsets[i]
      const above = i ? this.baseOffset + offsets[i - 1] : this.baseOffset - 1
      if (!h) return `its offset index entry ${entry} at byte ${positions[i]} points past its last whole batch`
      const base = batchBaseOffsetNumber(h)
      const last = batchLastOffsetNumber(h)
      if (last !== entry || base > last || base <= above)
        return `the batch at byte ${positions[i]} (offsets ${base}-${last}) disagrees with its offset index entry ${entry} (the previous entry: ${above})`
    }
    return null
  }

  private takeMaxTimestampFromIndex(): void {
    const n = this.timeIndex.length
    this.maxTimestamp = n ? this.timeIndex.timestamps[n - 1] : -1
    this.offsetOfMaxTimestamp = n ? this.baseOffset + this.timeIndex.offsets[n - 1] : -1
    this.firstBatchTimestamp = -1
  }

  /** The recovery walk from `position` (a batch's start) to the end of the file; see recover. */
  private scan(position: number, validate: boolean, visit: BatchVisitor, expected?: IndexEntries): number {
    const fileSize = this.size
    let e = 0
    while (position < fileSize) {
      const h = this.readHeader(position)
      if (!h) break
      const size = batchSize(h)
      const base = batchBaseOffsetNumber(h)
      const last = batchLastOffsetNumber(h)
      if (size < B_RECORDS || position + size > fileSize || batchMagic(h) !== 2) break
      // A base offset is not under the CRC: one out of order, or beyond what a segment's relative offsets reach, is corrupt.
      if (base < this.nextOffset || last < base || last - this.baseOffset > INT32_MAX) break
      if (expected) {
        while (e < expected.positions.length && expected.positions[e] < position) e++
        // Disagreeing with its old index entry and not following the batch before it: the batch is the corrupt one, not the entry.
        if (expected.positions[e] === position && last !== this.baseOffset + expected.offsets[e] && base !== this.nextOffset) break
      }
      const control = isControlBatch(h)
      let bytes: Buffer = h
      if (validate || control) {
        bytes = this.readBatch(position)
        if (validate && !batchCrcMatches(bytes)) break
      }
      this.track(size, position, last, batchMaxTimestamp(h), false)
      this.scanned++
      visit(bytes, base)
      position += size
    }
    const cut = fileSize - position
    if (cut > 0) {
      // What is cut is kept beside the segment (never deleted): a corrupt batch may have valid ones after it.
      const aside = Buffer.allocUnsafe(cut)
      diskIo.read(this.fd, aside, 0, cut, position)
      // Flushed before the segment is cut: what is cut is never lost.
      writeWholeFile(`${this.path}.cut-${position}`, aside, true)
      ftruncateSync(this.fd, position)
      this.size = position
    }
    if (!this.index.matchesFile()) this.index.rewrite()
    if (!this.timeIndex.matchesFile()) this.timeIndex.rewrite()
    return cut
  }

  /** Cuts the segment before the batch holding `offset` (a whole batch goes). */
  truncateTo(offset: number, visit: BatchVisitor = () => {}): void {
    const position = this.locate(offset)
    if (position >= this.size) return
    ftruncateSync(this.fd, position)
    this.size = position
    // The timestamps and index entries follow what is left.
    this.recover(false, visit)
  }

  /**
   * Calls `visit` with every batch's header (the whole batch for control
   * batches, or for all when `whole`), oldest first; from the batch holding
   * offset `from` on when given.
   */
  forEachBatch(visit: BatchVisitor, whole = false, from = this.baseOffset): void {
    let position = from > this.baseOffset ? this.locate(from) : 0
    for (;;) {
      const h = this.readHeader(position)
      if (!h) return
      const size = batchSize(h)
      this.scanned++
      visit(whole || isControlBatch(h) ? this.readBatch(position) : h, batchBaseOffsetNumber(h))
      position += size
    }
  }

  /**
   * Every batch, whole, oldest first, each checked to start past the one
   * before it (the first at or past the base offset) and the last to end
   * below the next offset: what the log cleaner reads, as a rewrite would
   * make a batch at a wrong offset look sound. Throws CorruptBatchError.
   */
  forEachBatchInOrder(visit: (bytes: Buffer) => void, reading: string): void {
    let position = 0
    let prevAt = -1
    let prevBase = 0
    let prevLast = this.baseOffset - 1
    for (;;) {
      const h = this.readHeader(position)
      if (!h) break
      const base = batchBaseOffsetNumber(h)
      const last = base + batchLastOffsetDelta(h)
      if (base <= prevLast) {
        const before = prevAt >= 0 ? batchAt(prevAt, prevBase, prevLast) : `the segment's base offset ${this.baseOffset}`
        throw this.refuse(position, reading, `${before} and ${batchAt(position, base, last)} are out of offset order`)
      }
      const size = batchSize(h)
      this.scanned++
      visit(this.readBatch(position))
      prevAt = position
      prevBase = base
      prevLast = last
      position += size
    }
    if (prevLast >= this.nextOffset)
      throw this.refuse(
        prevAt,
        reading,
        `${batchAt(prevAt, prevBase, prevLast)} goes past the segment's end (its next offset ${this.nextOffset})`,
      )
  }

  close(): void {
    this.closed = true
    closeSync(this.fd)
    this.index.close()
    this.timeIndex.close()
  }

  /** Closes and removes the segment's files. */
  delete(): void {
    this.close()
    for (const p of [this.path, this.index.path, this.timeIndex.path, this.txnIndex.path]) rmSync(p, { force: true })
  }

  /** Takes the segment out of the log without deleting its data: the log file renamed `<name>.log.cut`, its indexes (derived) gone. Returns the new name. */
  moveAside(): string {
    this.close()
    const aside = `${this.path}.cut`
    renameSync(this.path, aside)
    for (const p of [this.index.path, this.timeIndex.path, this.txnIndex.path]) rmSync(p, { force: true })
    return aside
  }
}
