import { Buffer } from 'node:buffer'
import { closeSync, openSync, readFileSync, truncateSync } from 'node:fs'
import { fsyncFd, fsyncPath, writeFully, writeWholeFile } from './disk-io.js'

/**
 * What both index files share: the file (created with the segment, as
 * Kafka's are), entries appended as they are added, and the whole file
 * rewritten from memory after a rebuild or a truncation.
 */
abstract class IndexFile {
  length = 0
  /** Opened at the first append: a segment that only serves reads holds no descriptor for its index. */
  private fd: number | null = null

  constructor(readonly path: string) {
    closeSync(openSync(path, 'a'))
  }

  /** The file's bytes for the entries in memory (what a rebuilt index writes). */
  abstract encode(): Buffer

  /** The bytes of one entry in the file. */
  protected abstract readonly entrySize: number

  protected appendEntry(entry: Buffer): void {
    writeFully((this.fd ??= openSync(this.path, 'a')), entry, null, this.path)
  }

  /** Drops the entries past the first `length` (an append undone): from memory, and from the file, whatever of them was written. */
  truncateEntries(length: number): void {
    this.length = Math.min(this.length, length)
    truncateSync(this.path, this.length * this.entrySize)
  }

  /** fsync of the file (opened for it when closed: a sealed segment's). */
  flush(): void {
    if (this.fd !== null) fsyncFd(this.fd, this.path)
    else fsyncPath(this.path)
  }

  /** Writes the entries in memory as the whole file (after a rebuild or a truncation). */
  rewrite(): void {
    this.close()
    // Checked (StorageError); flushed with its segment, as every index write.
    writeWholeFile(this.path, this.encode(), false)
  }

  /**
   * Takes the file's entries as the index (a segment below the recovery
   * point: trusted, not rebuilt from its batches), after Kafka's sanity
   * check: whole entries, both columns ascending, relative offsets below
   * `maxRelative` and positions below `segmentSize`. False (the index
   * emptied) when the file fails it: the caller rebuilds from the batches.
   */
  load(segmentSize: number, maxRelative: number): boolean {
    let b: Buffer
    try {
      b = readFileSync(this.path)
    } catch {
      b = Buffer.alloc(1)
    }
    this.length = 0
    if (b.length % this.entrySize !== 0 || !this.decode(b, segmentSize, maxRelative)) {
      this.length = 0
      return false
    }
    return true
  }

  /** Fills the entries from whole-entry file bytes; false when they fail the sanity check. */
  protected abstract decode(b: Buffer, segmentSize: number, maxRelative: number): boolean

  /** Whether the file holds exactly the entries in memory (a missing or corrupt one does not). */
  matchesFile(): boolean {
    try {
      return readFileSync(this.path).equals(this.encode())
    } catch {
      return false
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }
}

/**
 * A segment's sparse offset index (`.index`), Kafka's format: 8-byte
 * entries, the relative offset (int32, from the segment's base offset) of
 * a batch's last record and the byte position (int32) where that batch
 * starts in the `.log` file, one every index.interval.bytes. Kept in memory
 * as typed arrays (looked up by binary search) and appended to the file as
 * entries are added.
 */
export class OffsetIndex extends IndexFile {
  static readonly ENTRY = 8
  protected readonly entrySize = OffsetIndex.ENTRY
  offsets = new Int32Array(16)
  positions = new Int32Array(16)

  add(relativeOffset: number, position: number, write = true): void {
    if (this.length === this.offsets.length) {
      this.offsets = grow(this.offsets)
      this.positions = grow(this.positions)
    }
    this.offsets[this.length] = relativeOffset
    this.positions[this.length++] = position
    if (!write) return
    const e = Buffer.allocUnsafe(OffsetIndex.ENTRY)
    e.writeInt32BE(relativeOffset, 0)
    e.writeInt32BE(position, 4)
    this.appendEntry(e)
  }

  protected decode(b: Buffer, segmentSize: number, maxRelative: number): boolean {
    for (let at = 0; at < b.length; at += OffsetIndex.ENTRY) {
      const rel = b.readInt32BE(at)
      const position = b.readInt32BE(at + 4)
      const n = this.length
      if (rel < 0 || rel > maxRelative || position < 0 || position >= segmentSize) return false
      if (n && (rel <= this.offsets[n - 1] || position <= this.positions[n - 1])) return false
      this.add(rel, position, false)
    }
    return true
  }

  /** The position of the last entry whose offset is <= relativeOffset (0: scan from the segment's start). */
  lookup(relativeOffset: number): number {
    const i = lastAtOrBelow(this.offsets, this.length, relativeOffset)
    return i < 0 ? 0 : this.positions[i]
  }

  /** The index of the last entry whose offset is <= relativeOffset (-1: none, scan from the segment's start). */
  entryAtOrBelow(relativeOffset: number): number {
    return lastAtOrBelow(this.offsets, this.length, relativeOffset)
  }

  encode(): Buffer {
    const b = Buffer.allocUnsafe(this.length * OffsetIndex.ENTRY)
    for (let i = 0; i < this.length; i++) {
      b.writeInt32BE(this.offsets[i], i * 8)
      b.writeInt32BE(this.positions[i], i * 8 + 4)
    }
    return b
  }

  /** Drops the entries for batches starting at or past `position` (a truncated segment). */
  truncateToPosition(position: number): void {
    while (this.length > 0 && this.positions[this.length - 1] >= position) this.length--
    this.rewrite()
  }
}

/**
 * A segment's time index (`.timeindex`), Kafka's format: 12-byte entries,
 * the largest timestamp so far (int64) and the relative offset (int32) of
 * the batch holding it; an entry only when the timestamp grows, so both
 * columns ascend and a binary search finds where a timestamp begins.
 */
export class TimeIndex extends IndexFile {
  static readonly ENTRY = 12
  protected readonly entrySize = TimeIndex.ENTRY
  timestamps = new Float64Array(16)
  offsets = new Int32Array(16)

  get lastTimestamp(): number {
    return this.length ? this.timestamps[this.length - 1] : -1
  }

  /** Adds an entry when `timestamp` is larger than the last one (Kafka's maybeAppend). */
  maybeAdd(timestamp: number, relativeOffset: number, write = true): void {
    if (timestamp <= this.lastTimestamp) return
    if (this.length === this.offsets.length) {
      this.timestamps = grow(this.timestamps)
      this.offsets = grow(this.offsets)
    }
    this.timestamps[this.length] = timestamp
    this.offsets[this.length++] = relativeOffset
    if (!write) return
    const e = Buffer.allocUnsafe(TimeIndex.ENTRY)
    e.writeBigInt64BE(BigInt(timestamp), 0)
    e.writeInt32BE(relativeOffset, 8)
    this.appendEntry(e)
  }

  protected decode(b: Buffer, _segmentSize: number, maxRelative: number): boolean {
    for (let at = 0; at < b.length; at += TimeIndex.ENTRY) {
      const ts = Number(b.readBigInt64BE(at))
      const rel = b.readInt32BE(at + 8)
      const n = this.length
      if (rel < 0 || rel > maxRelative || ts <= this.lastTimestamp || (n && rel < this.offsets[n - 1])) return false
      this.maybeAdd(ts, rel, false)
    }
    return true
  }

  /** The relative offset of the last entry whose timestamp is <= ts, or -1 when none is. */
  lookup(ts: number): number {
    const i = lastAtOrBelow(this.timestamps, this.length, ts)
    return i < 0 ? -1 : this.offsets[i]
  }

  encode(): Buffer {
    const b = Buffer.allocUnsafe(this.length * TimeIndex.ENTRY)
    for (let i = 0; i < this.length; i++) {
      b.writeBigInt64BE(BigInt(this.timestamps[i]), i * 12)
      b.writeInt32BE(this.offsets[i], i * 12 + 8)
    }
    return b
  }

  /** Drops the entries at or past `relativeOffset`. */
  truncateToOffset(relativeOffset: number): void {
    while (this.length > 0 && this.offsets[this.length - 1] >= relativeOffset) this.length--
    this.rewrite()
  }
}

/** Binary search over the first `length` ascending values: the index of the last one <= key, or -1. */
export function lastAtOrBelow(values: ArrayLike<number>, length: number, key: number): number {
  let lo = 0
  let hi = length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid] <= key) lo = mid + 1
    else hi = mid
  }
  return lo - 1
}

/** Reads an index file's entries (for tests and tools): [relativeOffset, position] or [timestamp, relativeOffset]. */
export function readIndexFile(path: string, kind: 'offset' | 'time'): [number, number][] {
  const b = readFileSync(path)
  const out: [number, number][] = []
  if (kind === 'offset') for (let i = 0; i + 8 <= b.length; i += 8) out.push([b.readInt32BE(i), b.readInt32BE(i + 4)])
  else for (let i = 0; i + 12 <= b.length; i += 12) out.push([Number(b.readBigInt64BE(i)), b.readInt32BE(i + 8)])
  return out
}

function grow<T extends Int32Array | Float64Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2)
  b.set(a)
  return b
}
