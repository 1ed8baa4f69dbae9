import { Buffer } from 'node:buffer'
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { decodeRecordSet } from '../../codec/batch-decoder.js'
import { encodeRecordBatch } from '../../codec/batch-encoder.js'
import { batchCrcMatches, batchLastOffsetNumber, batchMagic, batchSize } from '../../codec/batch-header.js'
import { B_RECORDS } from '../../codec/layout.js'
import { fsyncFd, fsyncPath, throwAsStorageError, writeFully, writeWholeFile } from './disk-io.js'
import { readJsonLines } from './json-lines.js'

/**
 * The embedded broker's own logs (the cluster metadata log, the group log)
 * could not be read or written: the file, the byte offset, and what to do.
 * Thrown at start for a corrupt batch with valid ones after it (cutting it
 * would drop acknowledged changes silently), and by an append after a failed
 * write. The failed write itself throws disk-io's StorageError (the change
 * is not acknowledged).
 */
export class RecordFileError extends Error {
  constructor(
    readonly path: string,
    readonly offset: number,
    message: string,
  ) {
    super(message)
    this.name = 'RecordFileError'
  }
}

/** Records a batch when a file is rewritten whole. */
const REWRITE_BATCH = 100

export interface RecordFileOptions {
  /** Where what was cut or migrated at open is said (the cluster's onProblem). */
  report?: (message: string) => void
  /** fsync after each append (the metadata log: a change is on disk before it is acknowledged, as KRaft's). */
  sync?: boolean
  /**
   * Else a partition's flush policy, read at each use (the group log, as
   * Kafka's __consumer_offsets, a partition under the broker's
   * log.flush.interval.*): an fsync before an append returns once
   * `messages` records are unflushed, and at flushIfDue once the oldest
   * unflushed is `ms` old; at close (a clean stop) always.
   */
  flushPolicy?: () => FlushPolicy
  /** A JSON-lines file of an earlier version, read once into this one and renamed `<legacy>.migrated`. */
  legacy?: string
  /**
   * The caller takes back a change whose append failed (the controller's
   * image): a failed write cut back off leaves the file as acknowledged, so
   * it takes appends again. Without it a failed write takes the file
   * offline until a restart (the caller's memory may hold the change).
   */
  undoneOnFailure?: boolean
}

/** flush.messages and flush.ms, as a partition log follows them. */
export interface FlushPolicy {
  messages: number
  ms: number
}

/**
 * An append-only file of JSON records kept as Kafka keeps a log segment:
 * RecordBatch v2 batches written by our codec (each record's value is the
 * JSON; one batch is one atomic change), so every batch carries its length
 * and a CRC-32C, and Kafka's `kafka-dump-log.sh --files` reads the file.
 *
 * At open, a torn or corrupt last batch (nothing valid after it) is cut
 * and reported, as a partition log's tail; a corrupt batch with a valid one
 * after it refuses the start (RecordFileError): a change in the middle is
 * never dropped silently.
 */
export class RecordFile<T> {
  private fd: number
  /** The offset the next batch takes. */
  private nextOffset: number
  private size: number
  /** The first failed write: the file takes no more (as Kafka takes a failed log directory offline until a restart). */
  private failed: Error | null = null
  /** Records appended since the last fsync, and when that was (flush.messages, flush.ms). */
  private unflushed = 0
  private lastFlushMs = Date.now()

  private constructor(
    readonly path: string,
    private readonly sync: boolean,
    private readonly undoneOnFailure: boolean,
    nextOffset: number,
    private readonly flushPolicy: (() => FlushPolicy) | null,
  ) {
    this.fd = openSync(path, 'a')
    this.size = fstatSync(this.fd).size
    this.nextOffset = nextOffset
  }

  /** Opens `path` (created when missing; migrated from `legacy` when that is there) and returns its records, oldest first. */
  static open<T>(path: string, options: RecordFileOptions = {}): { file: RecordFile<T>; records: T[] } {
    mkdirSync(dirname(path), { recursive: true })
    if (options.legacy && !existsSync(path) && existsSync(options.legacy)) migrate(options.legacy, path, options)
    const { records, nextOffset } = existsSync(path) ? readBatches<T>(path, options.report) : { records: [], nextOffset: 0 }
    const file = new RecordFile<T>(path, options.sync ?? false, options.undoneOnFailure ?? false, nextOffset, options.flushPolicy ?? null)
    return { file, records }
  }

  /** Appends `records` as one batch (all or none of them at replay), flushed first when the file syncs; returns its bytes. */
  append(records: readonly T[]): number {
    if (records.length === 0) return 0
    const batch = encode(records, this.nextOffset)
    const sync = this.sync || this.unflushed + records.length >= (this.flushPolicy?.().messages ?? Infinity)
    this.write(batch, sync)
    this.nextOffset += records.length
    if (sync) this.flushed()
    else this.unflushed += records.length
    return batch.length
  }

  /** The flusher's check (log.flush.scheduler.interval.ms): an fsync once records have been unflushed for flush.ms. */
  flushIfDue(now: number): void {
    if (this.unflushed > 0 && now - this.lastFlushMs >= (this.flushPolicy?.().ms ?? Infinity)) this.flush()
  }

  /** fsync of what was appended since the last (StorageError when it fails). */
  flush(): void {
    if (this.unflushed === 0) return
    fsyncFd(this.fd, this.path)
    this.flushed()
  }

  private flushed(): void {
    this.unflushed = 0
    this.lastFlushMs = Date.now()
  }

  /** Replaces the file's contents with `records` (a new file renamed over the old, so a crash leaves one or the other). */
  rewrite(records: readonly T[]): void {
    // After a failed write the caller's memory may hold what the file does not: it is not written as if acknowledged.
    if (this.failed)
      throw new RecordFileError(this.path, this.size, `${this.path}: an earlier write failed (${this.failed.message}); restart the broker`)
    const tmp = `${this.path}.tmp`
    const fd = openSync(tmp, 'w')
    try {
      // A rewrite holds no atomic changes: batches of a bounded count, each read whole at replay.
      for (let offset = 0; offset < records.length; offset += REWRITE_BATCH)
        writeFully(fd, encode(records.slice(offset, offset + REWRITE_BATCH), offset), null, tmp)
      fsyncFd(fd, tmp)
    } catch (err) {
      closeSync(fd)
      rmSync(tmp, { force: true })
      throw err
    }
    closeSync(fd)
    closeSync(this.fd)
    try {
      renameSync(tmp, this.path)
    } catch (err) {
      // The old file stays, and takes appends as before.
      this.fd = openSync(this.path, 'a')
      rmSync(tmp, { force: true })
      throwAsStorageError(err, this.path)
    }
    syncDir(this.path)
    this.fd = openSync(this.path, 'a')
    this.size = fstatSync(this.fd).size
    this.nextOffset = records.length
    this.flushed()
  }

  /** Flushes what is unflushed (a clean stop), then closes the file (even when the flush fails, which throws). */
  close(): void {
    try {
      if (!this.failed) this.flush()
    } finally {
      closeSync(this.fd)
    }
  }

  /**
   * Writes a whole batch or nothing: a short write is cut back off and
   * thrown, so the change is not acknowledged; later appends are refused
   * (the caller's memory may hold the change the file does not), unless the
   * caller undoes it and the cut succeeded.
   */
  private write(batch: Buffer, sync: boolean): void {
    if (this.failed)
      throw new RecordFileError(this.path, this.size, `${this.path}: an earlier write failed (${this.failed.message}); restart the broker`)
    try {
      writeFully(this.fd, batch, null, this.path)
      if (sync) fsyncFd(this.fd, this.path)
    } catch (err) {
      // What part of the batch reached the file would be a torn tail at the next start; cut it now.
      let cut = false
      try {
        ftruncateSync(this.fd, this.size)
        cut = true
      } catch {
        // The next start cuts it (a torn tail is reported there); a later batch after it would be a corrupt middle.
      }
      if (!(cut && this.undoneOnFailure)) this.failed = err as Error
      throw err
    }
    this.size += batch.length
  }
}

function encode(records: readonly unknown[], baseOffset: number): Buffer {
  return encodeRecordBatch(
    records.map((r) => ({ value: JSON.stringify(r) })),
    { baseOffset },
  )
}

/** The directory's entry of a renamed file reaches the disk too. */
function syncDir(path: string): void {
  try {
    fsyncPath(dirname(path))
  } catch {
    // Not every platform opens a directory (Windows): the rename is as durable as it makes it.
  }
}

/** The size of the whole, CRC-valid v2 batch at `at`, or 0 when there is none. */
function validBatchAt(b: Buffer, at: number): number {
  if (b.length - at < B_RECORDS || batchMagic(b, at) !== 2) return 0
  const size = batchSize(b, at)
  if (size < B_RECORDS || at + size > b.length) return 0
  return batchCrcMatches(b, at) ? size : 0
}

/** The first position after `from` where a valid batch starts, or -1. */
function nextValidBatch(b: Buffer, from: number): number {
  for (let at = from; at + B_RECORDS <= b.length; at++) if (validBatchAt(b, at)) return at
  return -1
}

function readBatches<T>(path: string, report?: (message: string) => void): { records: T[]; nextOffset: number } {
  const b = readFileSync(path)
  const records: T[] = []
  let nextOffset = 0
  let at = 0
  while (at < b.length) {
    const size = validBatchAt(b, at)
    if (size === 0) break
    const batch = b.subarray(at, at + size)
    for (const batchRecords of decodeRecordSet(batch).batches)
      for (const r of batchRecords.records) {
        try {
          records.push(JSON.parse(r.value?.toString('utf8') ?? 'null') as T)
        } catch {
          // The CRC held, so the bytes are what was written: not ours, or a bug — never guessed past.
          throw new RecordFileError(path, at, `${path}: the batch at byte ${at} is not a JSON record; it was not written by wafka`)
        }
      }
    nextOffset = batchLastOffsetNumber(b, at) + 1
    at += size
  }
  if (at < b.length) {
    const after = nextValidBatch(b, at + 1)
    if (after >= 0)
      throw new RecordFileError(
        path,
        at,
        `${path}: the batch at byte ${at} is corrupt (torn or failing its CRC) and a valid batch follows at byte ${after}: ` +
          'cutting it would drop the changes after it, so the broker does not start. Restore the file from a backup; ' +
          'or move it aside to start without what it held (for the metadata log: its topics are lost; their partition directories ' +
          'are kept, reported at start, and moved aside as -stray when a topic of the same name is created).',
      )
    const cut = b.length - at
    // A batch written whole (its length all there) that fails its CRC was corrupted after it was written, and may have
    // been acknowledged; one cut short never was. Either way its bytes are kept beside the file, flushed before the cut.
    const whole = b.length - at >= B_RECORDS && at + batchSize(b, at) <= b.length
    writeWholeFile(`${path}.cut-${at}`, b.subarray(at), true)
    const fd = openSync(path, 'r+')
    try {
      ftruncateSync(fd, at)
      fsyncFd(fd, path)
    } finally {
      closeSync(fd)
    }
    report?.(
      whole
        ? `${path}: cut ${cut} bytes at byte ${at}, a corrupt last batch (whole, failing its CRC: the change it held is lost, ` +
            `and may have been acknowledged); the bytes cut are kept as ${path}.cut-${at}`
        : `${path}: cut ${cut} bytes at byte ${at}, a torn last batch (the change it held was never acknowledged); ` +
            `the bytes cut are kept as ${path}.cut-${at}`,
    )
  }
  return { records, nextOffset }
}

/**
 * Reads a JSON-lines file of an earlier version into `path`'s batches, one
 * a line, then renames it `.migrated` (kept, never deleted). A torn last
 * line is left out and reported; a bad line with whole ones after it
 * refuses, as a corrupt batch does.
 */
function migrate(legacy: string, path: string, options: RecordFileOptions): void {
  const { lines, badAt, wholeAfter, size } = readJsonLines(legacy)
  if (badAt >= 0 && wholeAfter)
    throw new RecordFileError(
      legacy,
      badAt,
      `${legacy}: the line at byte ${badAt} is not whole JSON and whole lines follow it: ` +
        'migrating without it would drop the changes after it, so the broker does not start. Restore the file from a backup, or repair that line.',
    )
  const tmp = `${path}.tmp`
  const fd = openSync(tmp, 'w')
  try {
    let offset = 0
    for (const line of lines) {
      // A line of an atomic change was an array: it stays one batch.
      const records = Array.isArray(line) ? line : [line]
      if (records.length === 0) continue
      writeFully(fd, encode(records, offset), null, tmp)
      offset += records.length
    }
    fsyncFd(fd, tmp)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
  renameSync(legacy, `${legacy}.migrated`)
  syncDir(path)
  if (badAt >= 0) options.report?.(`${legacy}: left out ${size - badAt} bytes at byte ${badAt}, a torn last line`)
  options.report?.(
    `${legacy}: migrated ${lines.length} lines to ${path} (record batches with CRCs); the old file is kept as ${legacy}.migrated`,
  )
}
