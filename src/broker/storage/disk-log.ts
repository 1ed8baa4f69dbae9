import { Buffer } from 'node:buffer'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { dirname, join } from 'node:path'
import { decodeRecordSet } from '../../codec/batch-decoder.js'
import { batchBaseOffsetNumber, batchLastOffsetNumber } from '../../codec/batch-header.js'
import { fsyncPath, fsyncPathAsync, throwAsStorageError, writeFileDurably, writeWholeFile } from './disk-io.js'
import { Segment, segmentName, type BatchVisitor } from './segment.js'
import { deleteSnapshots } from './producer-snapshot.js'
import { openingLogStart, readLogStart, removeLogStart, writeLogStart } from './log-start-file.js'
import type { AbortedTxn } from './txn-index.js'
import { INT32_MAX } from '../../int32.js'

/** The topic configs a partition's files follow, read at each use (they can be altered). */
export interface SegmentConfig {
  /** segment.bytes: a batch that would take the active segment past it starts a new one. */
  segmentBytes: number
  /** segment.ms: a batch this much newer than the active segment's first starts a new one. */
  segmentMs: number
  /** index.interval.bytes: bytes between offset index entries. */
  indexIntervalBytes: number
  /** flush.messages: an fsync once this many messages were appended since the last. Default: never (Kafka's Long.MAX). */
  flushMessages?: number
  /** flush.ms: the flusher's checks (log.flush.scheduler.interval.ms) fsync a log unflushed for this long. Default: never. */
  flushMs?: number
}

/**
 * How a partition's log was left, for what its opening reads: whether the
 * broker directory was stopped cleanly, and the partition's recovery point
 * (recovery-point-offset-checkpoint: below it every segment was flushed
 * whole; 0 when the checkpoint has no entry for it).
 */
export interface RecoveryState {
  clean: boolean
  recoveryPoint: number
}

/**
 * What an opening read (the start-up figures): segments loaded from their
 * indexes only, segments walked, batch headers read by the walks and the
 * replay, and first batches checked (one per sealed segment below the
 * recovery point, before it is trusted).
 */
export interface LoadStats {
  segmentsTrusted: number
  segmentsRecovered: number
  batchesRead: number
  firstBatchesChecked: number
}

const METADATA_FILE = 'partition.metadata'

/**
 * A partition's log on disk, in Kafka's layout: its directory holds
 * segments named by base offset, the newest one active (appended to). It
 * rolls segments, reads runs of batches, truncates, deletes whole segments
 * from the front (retention, DeleteRecords) and recovers at open.
 */
export class DiskLog {
  readonly segments: Segment[] = []
  logStartOffset = 0
  /** Messages appended since the last flush (Kafka's unflushedMessages: log end - recovery point). */
  unflushedMessages = 0
  /** When the log was last flushed (or opened): flush.ms counts from it. */
  lastFlushMs = Date.now()
  /** A segment file was created since the last flush: the directory's entries need an fsync too. */
  private dirDirty = true
  /** The directory itself is new: its parent's entries need an fsync too. */
  private parentDirty = false
  /** Segments rolled whose flush runs in the background (Kafka's flush-log task): a flush in line covers them until it is done. */
  private readonly rolledUnflushed = new Set<Segment>()
  /** The background flushes, one after another. */
  private background: Promise<void> = Promise.resolve()
  private closed = false
  /** Where a background flush's failure is told. */
  onProblem: (message: string) => void = () => {}
  /**
   * Below this offset every segment is flushed whole (Kafka's recovery
   * point): a flush in line moves it to the log end, a roll's background
   * flush to the end of the segment it ended.
   */
  recoveryPoint = 0
  /** Told when the recovery point moved (after a roll's flush) or fell (a truncation): the directory's checkpoint is rewritten. */
  onRecoveryPoint: () => void = () => {}
  /** Told of each roll with the new active segment's base, before anything is appended to it: a producer-state snapshot is taken there. */
  onRoll: (baseOffset: number) => void = () => {}
  /** The opening lost records it had: a segment cut, or the directory moved aside (said): this replica must not lead. */
  lostAtOpen = false
  /** What the opening read. */
  readonly loadStats: LoadStats = { segmentsTrusted: 0, segmentsRecovered: 0, batchesRead: 0, firstBatchesChecked: 0 }

  private constructor(
    readonly dir: string,
    private readonly config: () => SegmentConfig,
  ) {}

  /**
   * Opens (creating when new) the partition directory `dir` of topic
   * `topicId`, and recovers it as Kafka's LogLoader does. The sealed
   * segments wholly below the recovery point are trusted: loaded from their
   * index files, only their first batch read (its offsets against the
   * segment's name and the next batch; a wrong base offset the segment pins
   * is written back, else the segment is read whole). The others are walked batch by batch, their
   * CRCs checked after an unclean stop (and always the active one's), a torn
   * tail cut to the last whole valid batch (later segments go too); their
   * indexes are rebuilt where they do not match. After a clean stop the
   * active segment below the recovery point is read only after its last
   * index entry. What derives from the batches (epochs, transactions,
   * producer state) is replayed by the caller from its snapshot with
   * forEachBatchFrom.
   */
  static open(
    dir: string,
    topicId: string,
    config: () => SegmentConfig,
    recovery: RecoveryState,
    report: (message: string) => void = () => {},
  ): DiskLog {
    const log = new DiskLog(dir, config)
    log.onProblem = report
    // A new directory's name is in its parent's entries: flushed with its first flush.
    log.parentDirty = !existsSync(dir)
    mkdirSync(dir, { recursive: true })
    const metadata = join(dir, METADATA_FILE)
    const expected = partitionMetadata(topicId)
    if (moveAsideIfOtherTopic(dir, topicId, report)) {
      mkdirSync(dir, { recursive: true })
      log.parentDirty = true
      log.lostAtOpen = true
    }
    // Written when missing or naming another id (flushed, renamed into place: StorageError when it cannot be).
    if (partitionTopicId(dir) !== topicId) writeFileDurably(metadata, expected)
    const files = readdirSync(dir)
    const bases = files
      .filter((f) => /^\d{20}\.log$/.test(f))
      .map((f) => Number(f.slice(0, 20)))
      .sort((a, b) => a - b)
    // Index files of no segment (a crash between deleting a segment's files), a cleaner's swap file not renamed
    // yet, and a snapshot or checkpoint a crash left half-written beside the whole one (written whole, then renamed).
    for (const f of files) {
      if (f.endsWith('.cleaned') || f.endsWith('.tmp')) rmSync(join(dir, f), { force: true })
      const m = /^(\d{20})\.(index|timeindex|txnindex)$/.exec(f)
      if (m && !bases.includes(Number(m[1]))) rmSync(join(dir, f), { force: true })
    }
    let cut = false
    /** What recovery took out of the log: the cut tail's bytes, and the later segments (their bases and sizes), for the summary. */
    const out = { at: -1, tailBytes: 0, segments: [] as { base: number; bytes: number }[] }
    for (const [i, base] of bases.entries()) {
      const seg = new Segment(dir, base, () => config().indexIntervalBytes)
      const previous = log.segments.at(-1)
      if (cut || (previous && base < previous.nextOffset)) {
        // After a cut (or overlapping a kept segment) nothing can follow: out of the log, kept on disk, said.
        out.segments.push({ base, bytes: seg.size })
        const aside = seg.moveAside()
        report(`${dir}: segment ${base} follows a cut (or overlaps the log before it): moved aside as ${aside}, not served`)
        continue
      }
      const last = i === bases.length - 1
      const next = last ? Infinity : bases[i + 1]
      let bytes = 0
      // A segment below the recovery point is trusted once its first batch checks out (one batch read, not the segment).
      const below = !last && next <= recovery.recoveryPoint
      if (below && seg.size > 0) log.loadStats.firstBatchesChecked++
      const check = below ? seg.checkFirstBatch(next) : null
      if (check?.kind === 'ok' && check.served) report(`${seg.path} is corrupt: ${check.served}`)
      if (check?.kind === 'repaired') report(`${seg.path} is corrupt: ${check.problem}`)
      if (check?.kind === 'recover')
        report(
          `${seg.path} is corrupt: ${check.problem}: not trusted; read whole, every batch's CRC-32C checked, and cut at the first bad one`,
        )
      if (below && check?.kind !== 'recover' && seg.load(next)) log.loadStats.segmentsTrusted++
      else {
        log.loadStats.segmentsRecovered++
        const validate = !recovery.clean || last || check?.kind === 'recover'
        bytes = last && recovery.clean && seg.baseOffset < recovery.recoveryPoint ? seg.recoverTail(validate) : seg.recover(validate)
        if (seg.distrusted !== null)
          report(`${seg.path} is corrupt: ${seg.distrusted}: read whole, every batch's CRC-32C checked, and cut at the first bad one`)
        // Its time index ends on its largest timestamp, as a roll leaves it: a later start loads it from there.
        if (!last) seg.seal()
      }
      log.loadStats.batchesRead += seg.scanned
      if (bytes > 0) {
        cut = true
        out.at = seg.nextOffset
        out.tailBytes = bytes
        log.lostAtOpen = true
        report(
          `${dir}: segment ${base} cut at offset ${seg.nextOffset} (${bytes} bytes from byte ${seg.size}: a torn or corrupt batch); ` +
            `the bytes cut are kept as ${seg.path}.cut-${seg.size}; a follower refetches them from its leader`,
        )
      }
      log.segments.push(seg)
    }
    if (cut && out.segments.length) report(cutSummary(dir, out))
    if (!log.segments.length) {
      const held = readLogStart(dir)
      const base = held.kind === 'valid' || held.kind === 'unchecked' ? held.offset : 0
      log.segments.push(new Segment(dir, base, () => config().indexIntervalBytes))
    } else log.dirDirty = log.parentDirty
    const start = openingLogStart(dir, log.segments[0].baseOffset, log.logEndOffset)
    if (start.problem) report(start.problem)
    log.logStartOffset = start.offset
    // What is on disk now was read or trusted: flushed up to where a clean stop said, or to what recovery kept.
    log.recoveryPoint = recovery.clean
      ? Math.min(recovery.recoveryPoint, log.logEndOffset)
      : Math.min(recovery.recoveryPoint, log.segments.at(-1)!.baseOffset)
    return log
  }

  get active(): Segment {
    return this.segments.at(-1)!
  }

  get logEndOffset(): number {
    return this.active.nextOffset
  }

  get size(): number {
    let n = 0
    for (const s of this.segments) n += s.size
    return n
  }

  /**
   * Appends a batch whose offsets are assigned, rolling first when the
   * active segment is full or old, and flushing after it once flush.messages
   * messages are unflushed (as Kafka's append, in line). A failure (a full
   * disk, a failed fsync) throws StorageError with nothing of the batch
   * left in the files.
   */
  append(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    const active = this.active
    const { segmentBytes, segmentMs, flushMessages = Infinity } = this.config()
    try {
      if (
        active.size > 0 &&
        (active.size + batch.length > segmentBytes ||
          active.timeWaitedForRoll(Date.now(), maxTimestamp) > segmentMs ||
          lastOffset - active.baseOffset > INT32_MAX)
      )
        this.roll(baseOffset)
      this.active.append(batch, baseOffset, lastOffset, maxTimestamp)
    } catch (err) {
      throwAsStorageError(err, this.dir)
    }
    this.unflushedMessages += lastOffset - baseOffset + 1
    if (this.unflushedMessages < flushMessages) return
    try {
      this.flush()
    } catch (err) {
      // Not durable as asked: not acknowledged either, and not left for a later read to find.
      this.active.unappend()
      this.unflushedMessages -= lastOffset - baseOffset + 1
      throwAsStorageError(err, this.dir)
    }
  }

  /**
   * Starts a new active segment at `baseOffset`. The segment it ends is
   * flushed, and the directory (the new file's name), as Kafka flushes on
   * roll: in the background (on the thread pool, a segment of
   * segment.bytes can take a while), and by any flush in line until then.
   */
  roll(baseOffset = this.logEndOffset): void {
    const ended = this.active
    ended.seal()
    if (ended.size === 0) this.segments.pop()!.delete()
    this.segments.push(new Segment(this.dir, baseOffset, () => this.config().indexIntervalBytes))
    this.dirDirty = true
    if (ended.size > 0) this.rolledUnflushed.add(ended)
    this.unflushedMessages = 0
    this.lastFlushMs = Date.now()
    this.onRoll(baseOffset)
    const end = ended.nextOffset
    this.background = this.background.then(() => this.flushRolled(end))
  }

  private async flushRolled(end: number): Promise<void> {
    try {
      for (const s of [...this.rolledUnflushed]) {
        await s.flushInBackground()
        this.rolledUnflushed.delete(s)
      }
      // The directory stays marked: a segment may have been made since (the next flush in line fsyncs it again).
      if (!this.closed) await fsyncPathAsync(this.dir)
      if (!this.closed && end > this.recoveryPoint && end <= this.logEndOffset) {
        this.recoveryPoint = end
        this.onRecoveryPoint()
      }
    } catch (err) {
      // A segment deleted (retention) or the log closed meanwhile: nothing to flush. Else a flush in line retries.
      if (!this.closed) this.onProblem(`flushing ${this.dir} after a roll: ${(err as Error).message}`)
    }
  }

  /** Resolves when the background flushes asked for so far are done (or failed, which was told). */
  flushedInBackground(): Promise<void> {
    return this.background
  }

  /**
   * fsync of what was appended since the last flush: the active segment's
   * files, the rolled segments whose background flush is not done, and
   * the directory when a segment was created.
   */
  flush(): void {
    for (const s of this.rolledUnflushed) if (!s.closed) s.flush()
    this.rolledUnflushed.clear()
    if (this.unflushedMessages > 0) this.active.flush()
    this.flushDir()
    this.unflushedMessages = 0
    this.lastFlushMs = Date.now()
    this.recoveryPoint = this.logEndOffset
  }

  /** The flusher's check (log.flush.scheduler.interval.ms): a flush when messages have been unflushed for flush.ms. */
  flushIfDue(now: number): void {
    const { flushMs = Infinity } = this.config()
    if (this.unflushedMessages > 0 && now - this.lastFlushMs >= flushMs) this.flush()
  }

  private flushDir(): void {
    if (this.dirDirty) fsyncPath(this.dir)
    this.dirDirty = false
    if (this.parentDirty) fsyncPath(dirname(this.dir))
    this.parentDirty = false
  }

  private segmentFor(offset: number): number {
    let lo = 0
    let hi = this.segments.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (this.segments[mid].baseOffset <= offset) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** Whole batches from the one holding `offset`, up to about maxBytes, none starting at `upTo` or later: one run of one segment's bytes. */
  read(offset: number, maxBytes: number, upTo: number): Buffer | null {
    for (let i = this.segmentFor(offset); i < this.segments.length; i++) {
      const run = this.segments[i].read(offset, maxBytes, upTo)
      if (run) return run
    }
    return null
  }

  /**
   * Removes every batch from the one holding `offset` on; later segments go
   * whole, and the producer snapshots past the new end (as Kafka's
   * truncateAndReload). A recovery point past it falls to it, said.
   */
  truncateTo(offset: number): void {
    while (this.segments.length > 1 && this.active.baseOffset >= offset) this.segments.pop()!.delete()
    if (this.active.baseOffset >= offset) {
      this.segments.pop()!.delete()
      this.segments.push(new Segment(this.dir, Math.max(offset, this.logStartOffset), () => this.config().indexIntervalBytes))
      this.dirDirty = true
    } else this.active.truncateTo(offset)
    deleteSnapshots(this.dir, (o) => o > this.logEndOffset)
    if (this.recoveryPoint > this.logEndOffset) {
      this.recoveryPoint = this.logEndOffset
      this.onRecoveryPoint()
    }
  }

  /**
   * Moves the log start to `offset`: the segments wholly below it are
   * deleted (whole segments only, as Kafka); a start inside a segment is
   * remembered in a checkpoint file.
   */
  deleteBefore(offset: number): void {
    if (offset <= this.logStartOffset) return
    // The checkpoint first (StorageError when it cannot be written): the start moves only once it is on disk.
    writeLogStart(this.dir, offset)
    this.logStartOffset = offset
    if (offset >= this.logEndOffset && this.active.size > 0) this.roll(this.logEndOffset)
    while (this.segments.length > 1 && this.segments[1].baseOffset <= offset) this.segments.shift()!.delete()
    // Snapshots below the log start are of nothing kept (Kafka's deleteSnapshotsBefore).
    deleteSnapshots(this.dir, (o) => o < this.segments[0].baseOffset)
    if (this.segments[0].baseOffset >= offset) removeLogStart(this.dir)
  }

  /** Empties the log and starts it at `offset`. */
  resetTo(offset: number): void {
    for (const s of this.segments.splice(0)) s.delete()
    this.segments.push(new Segment(this.dir, offset, () => this.config().indexIntervalBytes))
    this.dirDirty = true
    this.logStartOffset = offset
    this.recoveryPoint = offset
    deleteSnapshots(this.dir, () => true)
    removeLogStart(this.dir)
    this.onRecoveryPoint()
  }

  /**
   * Retention (Kafka's deleteOldSegments): the oldest segments whose
   * newest record is older than retention.ms, then the oldest while the log
   * is larger than retention.bytes by at least a segment; only segments
   * wholly below the high watermark. Returns the new log start offset
   * (the first kept segment's base), or null when nothing is deleted. The
   * caller applies it with deleteBefore, so memory and disk move together.
   */
  retentionStart(now: number, retentionMs: number, retentionBytes: number, highWatermark: number): number | null {
    let size = this.size
    let keepFrom = 0
    for (const s of this.segments) {
      if (s.size === 0 || s.nextOffset > highWatermark) break
      const expired = retentionMs >= 0 && s.maxTimestamp >= 0 && now - s.maxTimestamp > retentionMs
      const tooBig = retentionBytes >= 0 && size - s.size >= retentionBytes
      if (!expired && !tooBig) break
      size -= s.size
      keepFrom++
    }
    if (keepFrom === 0) return null
    // As Kafka: the log starts where the first kept segment does (past a deleted active one: the log end).
    return this.segments[keepFrom]?.baseOffset ?? this.logEndOffset
  }

  /**
   * Every batch wholly below `end`, whole, oldest first: what a log cleaner
   * reads of a log on disk. With `checked`, in offset order (a batch at a
   * wrong offset, cleaned, would be rewritten as sound): CorruptBatchError.
   * (A coordinator's load replays in file order: unchecked.)
   */
  batchesBelow(end: number, checked = false): Buffer[] {
    const out: Buffer[] = []
    const take = (b: Buffer) => {
      if (batchLastOffsetNumber(b) < end) out.push(b)
    }
    for (const s of this.segments) {
      if (s.baseOffset >= end) break
      if (checked) s.forEachBatchInOrder(take, 'a cleaning of the log')
      else s.forEachBatch(take, true)
    }
    return out
  }

  /**
   * The log cleaner's swap on disk: the batches wholly below `end` give way
   * to `cleaned` (their replacements, same offsets, oldest first). Each
   * segment holding such batches is rewritten as a new file renamed over
   * the old one (a crash leaves one or the other whole), keeping its base
   * offset and the batches it has at or past `end`; its indexes are rebuilt.
   */
  replaceBelow(end: number, cleaned: readonly Buffer[]): void {
    let next = 0
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i]
      if (seg.baseOffset >= end) break
      const limit = this.segments[i + 1]?.baseOffset ?? Infinity
      const parts: Buffer[] = []
      while (next < cleaned.length && batchBaseOffsetNumber(cleaned[next]) < limit) parts.push(cleaned[next++])
      seg.forEachBatchInOrder((b) => {
        if (batchLastOffsetNumber(b) >= end) parts.push(b)
      }, 'a cleaning of the log')
      const path = seg.path
      // Flushed before it replaces the old file (as Kafka's cleaner): power loss leaves one or the other whole, never an empty file.
      writeWholeFile(`${path}.cleaned`, Buffer.concat(parts), true)
      seg.close()
      renameSync(`${path}.cleaned`, path)
      this.dirDirty = true
      const fresh = new Segment(this.dir, seg.baseOffset, () => this.config().indexIntervalBytes)
      fresh.recover(false)
      // An emptied segment still covers its offsets: the next one starts where it did.
      if (fresh.size === 0 || fresh.nextOffset < seg.nextOffset) fresh.nextOffset = seg.nextOffset
      // Not the active one: its time index ends on its largest timestamp (a later start loads it from there).
      if (i < this.segments.length - 1) fresh.seal()
      this.segments[i] = fresh
    }
    this.flushDir()
  }

  /** Calls `visit` for every batch, oldest first (headers; control batches whole). */
  forEachBatch(visit: BatchVisitor): void {
    for (const s of this.segments) s.forEachBatch(visit)
  }

  /** The same from the batch holding `offset` on (a replay after a producer snapshot); counted in the load stats. */
  forEachBatchFrom(offset: number, visit: BatchVisitor): void {
    for (let i = this.segmentFor(offset); i < this.segments.length; i++) {
      const s = this.segments[i]
      const before = s.scanned
      s.forEachBatch(visit, false, offset)
      this.loadStats.batchesRead += s.scanned - before
    }
  }

  /**
   * The aborted transactions below `below` as the segments' .txnindex files
   * hold them (a restart's, for the part of the log its producer snapshot
   * covers). Throws CorruptTxnIndex when one is not readable.
   */
  abortedBelow(below: number): AbortedTxn[] {
    const out: AbortedTxn[] = []
    for (const s of this.segments) {
      if (s.baseOffset >= below) break
      for (const t of s.txnIndex.read()) if (t.lastOffset < below) out.push(t)
    }
    return out
  }

  /** Records an aborted transaction whose ABORT marker was just appended: in the active segment's .txnindex. */
  appendAborted(txn: AbortedTxn): void {
    this.active.txnIndex.append(txn)
  }

  /**
   * Makes the .txnindex files of the segments from the one holding `from`
   * on hold exactly `aborted`'s entries whose markers they hold (after a
   * replay, a truncation, a cleaning): rewritten only where they differ.
   */
  syncAborted(aborted: readonly AbortedTxn[], from: number): void {
    for (let i = this.segmentFor(from); i < this.segments.length; i++) {
      const s = this.segments[i]
      const end = this.segments[i + 1]?.baseOffset ?? Infinity
      s.txnIndex.sync(aborted.filter((t) => t.lastOffset >= s.baseOffset && t.lastOffset < end))
    }
  }

  /** The earliest record at or after `ts` from `logStart` on, through each segment's time and offset indexes. */
  offsetForTimestamp(ts: number, logStart: number): { offset: number; timestamp: number } | null {
    for (const s of this.segments) {
      const batch = s.firstBatchAtOrAfter(ts)
      if (!batch) continue
      for (const r of decodeRecordSet(batch).batches[0].records) {
        if (r.timestamp >= ts && Number(r.offset) >= logStart) return { offset: Number(r.offset), timestamp: r.timestamp }
      }
    }
    return null
  }

  /** The record with the largest timestamp (the first such). */
  maxTimestamp(): { offset: number; timestamp: number } | null {
    let best: Segment | null = null
    for (const s of this.segments) if (s.offsetOfMaxTimestamp >= 0 && (!best || s.maxTimestamp > best.maxTimestamp)) best = s
    if (!best) return null
    const batch = best.batchEndingAt(best.offsetOfMaxTimestamp)
    if (batch)
      for (const r of decodeRecordSet(batch).batches[0].records)
        if (r.timestamp === best.maxTimestamp) return { offset: Number(r.offset), timestamp: r.timestamp }
    return { offset: best.offsetOfMaxTimestamp, timestamp: best.maxTimestamp }
  }

  /** Flushes what is unflushed (a clean shutdown), then closes the files (even when the flush fails, which throws). */
  close(): void {
    try {
      this.flush()
    } finally {
      this.closeFiles()
    }
  }

  private closeFiles(): void {
    this.closed = true
    for (const s of this.segments) s.close()
  }

  /** Closes the files and removes the directory (the topic was deleted). */
  destroy(): void {
    this.closeFiles()
    this.segments.length = 0
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * One line for what a recovery cut took out of a log when later segments
 * went with it: the offsets from the cut on, each file it is kept in, the
 * bytes. (Kafka's loader deletes the segments after a cut; they are kept.)
 */
function cutSummary(dir: string, out: { at: number; tailBytes: number; segments: { base: number; bytes: number }[] }): string {
  const { at, tailBytes, segments } = out
  const named = segments.map((s, i) => {
    const next = segments[i + 1]?.base
    const offsets = next === undefined ? `offsets ${s.base} on` : `offsets ${s.base}-${next - 1}`
    return `${segmentName(s.base)}.log.cut (${offsets}, ${s.bytes} bytes)`
  })
  const total = tailBytes + segments.reduce((n, s) => n + s.bytes, 0)
  return (
    `${dir}: recovery took offsets ${at} and on out of the log (${total} bytes): the cut segment's last ${tailBytes} bytes ` +
    `and ${segments.length} later segment(s), ${named.join(', ')}; all kept beside the log, none deleted, none served`
  )
}

/** The topic id a partition directory's partition.metadata names, or null (none, or unreadable: not the whole file as written). */
export function partitionTopicId(dir: string): string | null {
  try {
    return /^version: 0\ntopic_id: ([\w-]+)\n$/.exec(readFileSync(join(dir, METADATA_FILE), 'utf8'))?.[1] ?? null
  } catch {
    return null
  }
}

/**
 * Moves partition directory `dir` aside when its partition.metadata names
 * a topic id other than `topicId` (an older topic of its name, or one the
 * metadata lost): never deleted, renamed as Kafka's stray logs, and
 * reported. An unreadable one is said and written again. Returns whether it moved.
 */
function moveAsideIfOtherTopic(dir: string, topicId: string, report: (message: string) => void): boolean {
  if (!existsSync(join(dir, METADATA_FILE))) return false
  const held = partitionTopicId(dir)
  if (held === topicId) return false
  if (held === null) {
    // Corrupt, not another topic's: it says nothing of whose records these are, and the directory's name says they are this topic's.
    report(`${join(dir, METADATA_FILE)} is unreadable (corrupt): written again with topic id ${topicId}, the records kept`)
    return false
  }
  const stray = strayName(dir)
  renameSync(dir, stray)
  report(
    `${dir} holds topic id ${held ?? '(unreadable)'}, not ${topicId}: moved aside to ${stray}, kept ` +
      "(its records are not this topic's; delete it once you know it is not needed)",
  )
  return true
}

function partitionMetadata(topicId: string): string {
  return `version: 0\ntopic_id: ${topicId}\n`
}

/** Kafka's name for a log set aside (UnifiedLog.logStrayDirName): `<topic>-<partition>.<uuid>-stray`. */
function strayName(dir: string): string {
  return `${dir}.${randomUUID().replaceAll('-', '')}-stray`
}

/**
 * The partition directories under a broker's directory whose topic id
 * `known` does not know (the metadata lost it, or the topic's deletion was
 * not finished): listed to be reported, and left as they are.
 */
export function unknownPartitionDirs(brokerDir: string, known: (topicId: string) => boolean): { dir: string; topicId: string }[] {
  let entries: string[]
  try {
    entries = readdirSync(brokerDir)
  } catch {
    return []
  }
  const out: { dir: string; topicId: string }[] = []
  for (const name of entries) {
    if (name.endsWith('-stray') || name.endsWith('-delete')) continue
    const dir = join(brokerDir, name)
    const topicId = partitionTopicId(dir)
    if (topicId !== null && !known(topicId)) out.push({ dir, topicId })
  }
  return out
}
