import { Buffer } from 'node:buffer'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { encodeRecordBatch } from '../codec/batch-encoder.js'
import { batchBaseOffsetNumber, batchLeaderEpoch } from '../codec/batch-header.js'
import { assignOffsets, isCommitMarker, readBatchHeader, type BatchHeader } from './record-batch.js'
import type { DiskLog } from './storage/disk-log.js'

/**
 * With a disk log, how many bytes of the newest batches a partition also
 * keeps in memory, so tailing fetchers are served without a read; older
 * ones are read from the segment files.
 */
export const MEMORY_WINDOW_BYTES = 4 * 1024 * 1024

/** A transaction this partition saw aborted: its first offset and its marker's offset. */
export interface AbortedTransaction {
  producerId: bigint
  firstOffset: number
  lastOffset: number
}

/** Where a leader epoch's batches begin (an entry of the epoch cache). */
export interface EpochStart {
  epoch: number
  startOffset: number
}

/**
 * Told of every change to a log a fetch could see (fetch-session-watch.ts):
 * `wakeFollower` when a waiting follower fetch has something new to read
 * (an append, or the leadership changed), `wakeConsumer` when a waiting
 * consumer fetch does (the high watermark moved, or the leadership changed);
 * neither for changes that only alter an answer (truncation, log start, compaction).
 */
export interface LogWatcher {
  logChanged(wakeFollower: boolean, wakeConsumer: boolean): void
  /** The log is gone (its replica deleted): a watcher holding it lets it go. */
  logGone(): void
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
 * A partition's log: record batches back to back, as the producer sent
 * them (only the base offset and leader epoch written in), served to
 * fetchers as those same bytes. In memory only, or with a DiskLog (dataDir)
 * written through: every batch goes to the active segment as it is stored,
 * and memory keeps only the newest MEMORY_WINDOW_BYTES of batches (reads
 * below them go to the segments). Offsets are JS numbers (exact to 2^53).
 * The high watermark is real state: the ISR's smallest log end on a leader
 * (hwBound), the leader's on a follower; consumers see nothing past it.
 */
export class PartitionLog {
  /** The batches in memory: all of them, or with a disk log the newest ones. */
  private readonly batches: StoredBatch[] = []
  logStartOffset = 0
  logEndOffset = 0
  highWatermark = 0
  /** Bytes of the batches in memory. */
  private bytes = 0
  /** Batch index of the largest timestamp so far (ListOffsets MAX_TIMESTAMP). */
  private maxTimestampBatch = -1
  /** Waiting follower fetches (they read up to the log end). */
  private readonly appendWaiters = new Set<() => void>()
  /** Waiting consumer fetches and acks=all produces (they care about the high watermark only). */
  private readonly hwWaiters = new Set<() => void>()
  /** Fetch sessions' partitions on this log, told of each change (they re-read only what changed). */
  private readonly watchers = new Set<LogWatcher>()
  /** Open transactions: producer id -> the offset of its first batch here. */
  private readonly ongoing = new Map<bigint, number>()
  private readonly aborted: AbortedTransaction[] = []
  /** The leader epoch cache: where each epoch's batches begin, oldest first. */
  private readonly epochStarts: EpochStart[] = []

  /** The segment files this log writes through to, when it has a dataDir. */
  disk: DiskLog | null = null

  /**
   * Rebuilds the derived state from one recovered batch (its header, or
   * whole for control batches), in offset order: the epoch cache and the
   * transactions. Called by the disk log's recovery scan before any append.
   */
  recovered(bytes: Buffer, baseOffset: number): void {
    const header = readBatchHeader(bytes)
    this.markEpoch(batchLeaderEpoch(bytes), baseOffset)
    this.trackTransaction(header, bytes, baseOffset)
    this.logEndOffset = baseOffset + header.lastOffsetDelta + 1
  }

  /**
   * What a restart takes from its producer snapshot and checkpoints instead
   * of replaying the batches below `offset`: the epochs begun below it
   * (leader-epoch-checkpoint), the transactions open there (the snapshot's
   * first offsets) and those aborted below it (the .txnindex files).
   * Called before the replay of the batches from `offset` on.
   */
  restore(
    offset: number,
    epochs: readonly EpochStart[],
    ongoing: ReadonlyMap<bigint, number>,
    aborted: readonly AbortedTransaction[],
  ): void {
    for (const e of epochs) if (e.startOffset < offset) this.markEpoch(e.epoch, e.startOffset)
    for (const [pid, first] of ongoing) if (first < offset) this.ongoing.set(pid, first)
    for (const a of aborted) this.aborted.push(a)
    this.logEndOffset = offset
  }

  /** The leader epoch cache (what a leader-epoch-checkpoint holds). */
  get epochs(): readonly EpochStart[] {
    return this.epochStarts
  }

  /** The first offset of `producerId`'s open transaction here, or -1 (what its snapshot entry says). */
  transactionFirstOffset(producerId: bigint): number {
    return this.ongoing.get(producerId) ?? -1
  }

  /** The transactions open here: producer id -> first offset. */
  get openTransactionOffsets(): ReadonlyMap<bigint, number> {
    return this.ongoing
  }

  /** Every aborted transaction this log knows (oldest marker first). */
  get abortedTransactions(): readonly AbortedTransaction[] {
    return this.aborted
  }

  /** Writes through to `disk` from now on, taking its offsets (it is open and recovered). */
  opened(disk: DiskLog): void {
    this.disk = disk
    this.logStartOffset = this.disk.logStartOffset
    this.logEndOffset = this.disk.logEndOffset
    while (this.epochStarts.length && this.epochStarts.at(-1)!.startOffset >= this.logEndOffset) this.epochStarts.pop()
  }

  /** The last stable offset: below it every transaction is decided (read_committed reads up to it). */
  get lastStableOffset(): number {
    let lso = this.highWatermark
    for (const first of this.ongoing.values()) lso = Math.min(lso, first)
    return lso
  }

  /** The producers with a transaction open in this log (a batch written, no marker yet). */
  openTransactions(): bigint[] {
    return [...this.ongoing.keys()]
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
    if (!this.ongoing.has(producerId)) return null
    const key = Buffer.alloc(4)
    key.writeInt16BE(0, 0)
    key.writeInt16BE(commit ? 1 : 0, 2)
    const value = Buffer.alloc(6)
    value.writeInt16BE(0, 0)
    value.writeInt32BE(coordinatorEpoch, 2)
    const bytes = encodeRecordBatch([{ key, value }], { control: true, transactional: true, producerId, producerEpoch, baseSequence: -1 })
    return this.append(bytes, readBatchHeader(bytes), leaderEpoch)
  }

  get sizeInBytes(): number {
    return this.disk ? this.disk.size : this.bytes
  }

  /** Appends a validated batch as the leader (the caller's own copy, which the log keeps); returns its base offset. */
  append(batch: Buffer, header: BatchHeader, leaderEpoch: number): number {
    const baseOffset = this.logEndOffset
    assignOffsets(batch, baseOffset, leaderEpoch)
    this.store(batch, header, baseOffset, leaderEpoch)
    this.advanceHighWatermark()
    return baseOffset
  }

  /**
   * Appends a batch fetched from the leader as a follower: its offsets and
   * leader epoch are the leader's, already in the bytes. A batch the log
   * already holds is skipped; returns whether it was appended.
   */
  appendReplicated(batch: Buffer): boolean {
    const baseOffset = batchBaseOffsetNumber(batch)
    const header = readBatchHeader(batch)
    if (baseOffset + header.lastOffsetDelta < this.logEndOffset) return false
    // Past the log end is a gap a compacted leader's log has (the cleaner dropped the batches there).
    if (baseOffset < this.logEndOffset)
      throw new RangeError(`replicated batch at offset ${baseOffset} does not follow the log end ${this.logEndOffset}`)
    this.store(batch, header, baseOffset, batchLeaderEpoch(batch))
    return true
  }

  private store(batch: Buffer, header: BatchHeader, baseOffset: number, leaderEpoch: number): void {
    // First, as it may fail (StorageError: a full disk), leaving nothing of the batch anywhere.
    this.disk?.append(batch, baseOffset, baseOffset + header.lastOffsetDelta, header.maxTimestamp)
    this.markEpoch(leaderEpoch, baseOffset)
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
    const aborted = this.trackTransaction(header, batch, baseOffset)
    // Its marker is in the active segment: so is its .txnindex entry (a restart reads it instead of the batches).
    if (aborted && this.disk) {
      try {
        this.disk.appendAborted(aborted)
      } catch (err) {
        // The marker is stored: the next start finds the transaction from the batches only if it replays them (said).
        this.disk.onProblem(
          `recording aborted transaction ${aborted.firstOffset}-${aborted.lastOffset} in its .txnindex: ${(err as Error).message}`,
        )
      }
    }
    this.bytes += batch.length
    if (this.disk && this.bytes > MEMORY_WINDOW_BYTES) this.evict()
    this.logEndOffset = stored.lastOffset + 1
    wakeAll(this.appendWaiters)
    this.changed(true, false)
  }

  /** Drops the oldest batches from memory (they are in the segment files) down to half the window. */
  private evict(): void {
    let drop = 0
    while (drop < this.batches.length - 1 && this.bytes > MEMORY_WINDOW_BYTES / 2) this.bytes -= this.batches[drop++].bytes.length
    this.batches.splice(0, drop)
    this.reindexMaxTimestamp()
  }

  /** Follows a batch's transaction; returns the transaction it aborts, if any. */
  private trackTransaction(header: BatchHeader, batch: Buffer, baseOffset: number): AbortedTransaction | null {
    if (!header.transactional) return null
    const first = this.ongoing.get(header.producerId)
    if (!header.control) {
      if (first === undefined) this.ongoing.set(header.producerId, baseOffset)
    } else if (first !== undefined) {
      this.ongoing.delete(header.producerId)
      if (!isCommitMarker(batch)) {
        const aborted = { producerId: header.producerId, firstOffset: first, lastOffset: baseOffset }
        this.aborted.push(aborted)
        return aborted
      }
    }
    return null
  }

  /** Records that `epoch` begins at `offset` (a new leader marks its epoch at its log end before writing, as Kafka does). */
  markEpoch(epoch: number, offset = this.logEndOffset): void {
    if (epoch < 0 || (this.epochStarts.at(-1)?.epoch ?? -1) >= epoch) return
    this.epochStarts.push({ epoch, startOffset: offset })
  }

  /** The newest leader epoch in this log (-1 when none). */
  get latestEpoch(): number {
    return this.epochStarts.at(-1)?.epoch ?? -1
  }

  /** The offset where `epoch` begins here, or the log end when it is not in the cache. */
  epochStart(epoch: number): number {
    return this.epochStarts.find((e) => e.epoch === epoch)?.startOffset ?? this.logEndOffset
  }

  /**
   * The high watermark is at most this bound (the leader sets it to the
   * ISR's smallest log end; a follower to -1, as it learns its high
   * watermark from the leader). Default: no bound, the single-replica log.
   */
  hwBound: () => number = () => Infinity

  /** Moves the high watermark up to min(log end, hwBound()); wakes waiters when it moves. */
  advanceHighWatermark(): void {
    const hw = Math.min(this.logEndOffset, this.hwBound())
    if (hw > this.highWatermark) {
      this.highWatermark = hw
      wakeAll(this.hwWaiters)
      this.changed(false, true)
    }
  }

  /** A follower's high watermark: the leader's, as far as this log reaches. */
  followHighWatermark(leaderHw: number): void {
    const hw = Math.min(leaderHw, this.logEndOffset)
    if (hw > this.highWatermark) {
      this.highWatermark = hw
      wakeAll(this.hwWaiters)
      this.changed(false, true)
    }
  }

  /**
   * Removes every batch from the one holding `offset` on (a follower
   * truncating to where its log diverged from the leader's); the epoch
   * cache, transactions and high watermark follow. Returns the new log end.
   */
  truncateTo(offset: number): number {
    if (offset >= this.logEndOffset) return this.logEndOffset
    const keep = this.indexOf(offset)
    for (const b of this.batches.splice(keep)) this.bytes -= b.bytes.length
    if (this.disk) {
      this.disk.truncateTo(offset)
      this.logEndOffset = this.disk.logEndOffset
    } else
      this.logEndOffset = Math.max(this.logStartOffset, this.batches.at(-1) ? this.batches.at(-1)!.lastOffset + 1 : this.logStartOffset)
    this.highWatermark = Math.min(this.highWatermark, this.logEndOffset)
    while (this.epochStarts.length && this.epochStarts.at(-1)!.startOffset >= this.logEndOffset) this.epochStarts.pop()
    for (const [pid, first] of this.ongoing) if (first >= this.logEndOffset) this.ongoing.delete(pid)
    while (this.aborted.length && this.aborted.at(-1)!.lastOffset >= this.logEndOffset) this.aborted.pop()
    this.disk?.syncAborted(this.aborted, this.logEndOffset)
    this.reindexMaxTimestamp()
    this.changed(false, false)
    return this.logEndOffset
  }

  /** Empties the log and starts it at `offset` (a follower whose log end is below the leader's log start). */
  resetTo(offset: number): void {
    this.truncateTo(this.logStartOffset)
    this.disk?.resetTo(offset)
    this.logStartOffset = this.logEndOffset = offset
    this.highWatermark = Math.min(this.highWatermark, offset)
    this.changed(false, false)
  }

  /**
   * The log cleaner's swap (log-cleaner.ts): the batches wholly below `end`
   * give way to `cleaned`, their compacted replacements (same offsets, fewer
   * records, some batches gone). What depends on them follows: the size,
   * the max-timestamp index, and the aborted transactions whose markers are
   * gone (a read_committed consumer told of one would wait for a marker that
   * is no longer there). Offsets, log start and end, the epoch cache and
   * open transactions stay.
   */
  replaceCleaned(end: number, cleaned: readonly Buffer[]): void {
    // Markers kept anywhere below `end`, in memory or only on disk.
    const markers = new Set(cleaned.filter((b) => readBatchHeader(b).control).map((b) => batchBaseOffsetNumber(b)))
    if (this.disk) {
      // The segments are rewritten; memory keeps the replacements of the batches it held.
      this.disk.replaceBelow(end, cleaned)
      const windowStart = this.batches[0]?.baseOffset ?? this.logEndOffset
      cleaned = cleaned.filter((b) => batchBaseOffsetNumber(b) >= windowStart)
    }
    let n = 0
    while (n < this.batches.length && this.batches[n].lastOffset < end) n++
    let after = -1
    const replacements = cleaned.map((bytes): StoredBatch => {
      const header = readBatchHeader(bytes)
      const baseOffset = batchBaseOffsetNumber(bytes)
      const lastOffset = baseOffset + header.lastOffsetDelta
      if (baseOffset <= after || lastOffset >= end)
        throw new RangeError(`cleaned batch ${baseOffset}-${lastOffset} is out of order or not below ${end}`)
      after = lastOffset
      const { maxTimestamp, producerId, transactional, control } = header
      return { baseOffset, lastOffset, maxTimestamp, bytes, producerId, transactional, control }
    })
    const rest = this.batches.splice(n)
    for (const b of this.batches) this.bytes -= b.bytes.length
    this.batches.length = 0
    for (const b of replacements) this.bytes += b.bytes.length
    for (const b of [...replacements, ...rest]) this.batches.push(b)
    const stillAborted = this.aborted.filter((a) => a.lastOffset >= end || markers.has(a.lastOffset))
    this.aborted.length = 0
    for (const a of stillAborted) this.aborted.push(a)
    this.disk?.syncAborted(this.aborted, 0)
    this.reindexMaxTimestamp()
    this.changed(false, false)
  }

  /**
   * Every batch of the log, oldest first, as StoredBatches: the ones in
   * memory, or with a disk log all of them read from the segment files
   * (what the log cleaner reads). `checked`: a batch out of offset order on
   * disk throws CorruptBatchError (the cleaner's read).
   */
  allBatches(checked = false): readonly StoredBatch[] {
    if (!this.disk) return this.batches
    return this.disk.batchesBelow(Infinity, checked).map((bytes): StoredBatch => {
      const header = readBatchHeader(bytes)
      const baseOffset = batchBaseOffsetNumber(bytes)
      const { maxTimestamp, producerId, transactional, control } = header
      return { baseOffset, lastOffset: baseOffset + header.lastOffsetDelta, maxTimestamp, bytes, producerId, transactional, control }
    })
  }

  /** Where the active segment begins: the cleaner never cleans it (in memory, the newest batch is the active segment). */
  get activeSegmentBase(): number {
    return this.disk ? this.disk.active.baseOffset : (this.batches.at(-1)?.baseOffset ?? this.logEndOffset)
  }

  /** The stored batches in memory, oldest first: every one, unless a disk log holds the older ones. */
  storedBatches(): readonly StoredBatch[] {
    return this.batches
  }

  /**
   * Calls `visit` with every batch of the log, oldest first, from the
   * segment files when on disk (then with the header only, control batches
   * whole): rebuilding producer state after a truncation.
   */
  forEachBatch(visit: (bytes: Buffer, baseOffset: number) => void): void {
    if (this.disk) this.disk.forEachBatch(visit)
    else for (const b of this.batches) visit(b.bytes, b.baseOffset)
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
    // First, as it may fail (StorageError: its checkpoint not written), leaving the start where it was.
    this.disk?.deleteBefore(offset)
    this.logStartOffset = offset
    let drop = 0
    while (drop < this.batches.length && this.batches[drop].lastOffset < offset) this.bytes -= this.batches[drop++].bytes.length
    if (drop) {
      this.batches.splice(0, drop)
      this.reindexMaxTimestamp()
    }
    this.changed(false, false)
    return this.logStartOffset
  }

  /**
   * Retention by retention.ms and retention.bytes, below the high watermark
   * only: on disk whole segments go (Kafka's deleteOldSegments); in memory,
   * where there are no segments, whole batches. The log start moves to the
   * first record kept; returns it, or null when nothing was deleted.
   */
  applyRetention(now: number, retentionMs: number, retentionBytes: number): number | null {
    let start: number | null = null
    if (this.disk) start = this.disk.retentionStart(now, retentionMs, retentionBytes, this.highWatermark)
    else {
      let size = this.bytes
      for (const b of this.batches) {
        if (b.lastOffset >= this.highWatermark) break
        // A batch without timestamps (-1) never expires by time here (Kafka falls back to a segment file's mtime).
        const expired = retentionMs >= 0 && b.maxTimestamp >= 0 && now - b.maxTimestamp > retentionMs
        if (!expired && !(retentionBytes >= 0 && size - b.bytes.length >= retentionBytes)) break
        size -= b.bytes.length
        start = b.lastOffset + 1
      }
    }
    if (start === null || start <= this.logStartOffset) return null
    return this.deleteBefore(start)
  }

  /** Closes the segment files (the cluster stops). */
  close(): void {
    this.disk?.close()
  }

  /** Closes and removes the segment files (the topic was deleted). */
  destroy(): void {
    this.disk?.destroy()
    const gone = [...this.watchers]
    this.watchers.clear()
    for (const w of gone) w.logGone()
  }

  private reindexMaxTimestamp(): void {
    this.maxTimestampBatch = -1
    this.batches.forEach((b, i) => {
      if (this.maxTimestampBatch < 0 || b.maxTimestamp > this.batches[this.maxTimestampBatch].maxTimestamp) this.maxTimestampBatch = i
    })
  }

  /** Calls `wake` once at the next append (a waiting follower fetch); returns a cancel. */
  onAppend(wake: () => void): () => void {
    this.appendWaiters.add(wake)
    return () => this.appendWaiters.delete(wake)
  }

  /**
   * Calls `wake` once when the high watermark next moves (a waiting
   * consumer fetch or acks=all produce: an append alone shows them nothing);
   * returns a cancel.
   */
  onHighWatermark(wake: () => void): () => void {
    this.hwWaiters.add(wake)
    return () => this.hwWaiters.delete(wake)
  }

  /** Wakes every waiter without an append (the partition's leadership changed). */
  notify(): void {
    wakeAll(this.appendWaiters)
    wakeAll(this.hwWaiters)
    this.changed(true, true)
  }

  /** Tells `w` of every change from now on, until unwatch. */
  watch(w: LogWatcher): void {
    this.watchers.add(w)
  }

  unwatch(w: LogWatcher): void {
    this.watchers.delete(w)
  }

  /** Watchers only note the change (and may resolve a promise): none of them unwatches while this iterates. */
  private changed(wakeFollower: boolean, wakeConsumer: boolean): void {
    if (this.watchers.size === 0) return
    for (const w of this.watchers) w.logChanged(wakeFollower, wakeConsumer)
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
    if (this.disk && offset < (this.batches[0]?.baseOffset ?? this.logEndOffset)) {
      // Below the memory window: one run of a segment's bytes, as the file holds them.
      const run = this.disk.read(offset, maxBytes, upTo)
      if (run) chunks.push(run)
      return { chunks, bytes: run?.length ?? 0 }
    }
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
    if (this.disk) return this.disk.offsetForTimestamp(ts, this.logStartOffset)
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
    if (this.disk) return this.disk.maxTimestamp()
    const batch = this.batches[this.maxTimestampBatch]
    if (!batch) return null
    for (const r of decodeRecordSet(batch.bytes).batches[0].records) {
      if (r.timestamp === batch.maxTimestamp) return { offset: Number(r.offset), timestamp: r.timestamp }
    }
    return { offset: batch.lastOffset, timestamp: batch.maxTimestamp }
  }
}

function wakeAll(waiters: Set<() => void>): void {
  if (waiters.size === 0) return
  const all = [...waiters]
  waiters.clear()
  for (const w of all) w()
}
