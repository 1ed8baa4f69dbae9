// A persistent store's file: our own log-structured file (no native addon:
// Node 20 has no node:sqlite and RocksDB would need one). The store's changes
// (changelog key and value bytes, the record's timestamp; no value: deleted)
// are appended as checksummed entries and replayed into the in-memory store on
// open, so the file is a compacted local copy of what the store's changelog
// holds. An entry: int32 body length, uint32 CRC-32C of the body, then the body:
// int64 timestamp, int32 key length, key, int32 value length (-1: deleted),
// value (big-endian). A tail cut short by a crash is cut off and reported; a
// damaged entry with entries after it is refused, naming the file and offset.
// When the bytes of overwritten and deleted entries exceed the live ones the
// file is rewritten with the live entries only. What is live the file's store
// says when it can (its entries and their key and value bytes: no second map
// of a million keys beside the store's); otherwise the file keeps an index.
import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { crc32c } from '../codec/crc.js'
import type { Logger } from '../logger.js'
import { StreamsError } from './streams-error.js'

/** A store's file is damaged before its end (not a write cut short): the store cannot be trusted. */
export class StoreCorruptedError extends StreamsError {
  override name = 'StoreCorruptedError'
  constructor(
    readonly file: string,
    readonly offset: number,
    why: string,
  ) {
    super(`store file ${file} is corrupt at offset ${offset}: ${why}; delete the task's directory to restore it from its changelog`)
  }
}

/** What a store holds: its entries, and their key and value bytes summed (as its file would hold them, less the entries' framing). */
export interface HeldBytes {
  entries: number
  bytes: number
}

export interface StoreFileRecord {
  key: Buffer
  value: Buffer | null
  timestamp: number
}

/** What open() found: the entries replayed, and the torn tail cut off, if any. */
export interface StoreFileOpened {
  records: number
  torn: { offset: number; bytes: number } | null
}

const MAGIC = Buffer.from('WFKSTOR1', 'latin1')
const FRAME = 8
const MIN_BODY = 16
/** Below this much garbage the file is not rewritten, however little is live. */
const MIN_COMPACT_BYTES = 64 * 1024
/** Appends are written out once this many bytes wait. */
const WRITE_BEHIND_BYTES = 256 * 1024

/** An entry's bytes: its frame and body. */
function entryBytes(key: Buffer, value: Buffer | null): number {
  return FRAME + MIN_BODY + key.length + (value === null ? 0 : value.length)
}

/** Writes the entry at `at` of `out` (which has room for it). */
function encodeInto(out: Buffer, at: number, key: Buffer, value: Buffer | null, timestamp: number, length: number): void {
  // The int64 timestamp as two int32s: no BigInt per entry (Math.floor keeps a negative one's high word).
  out.writeInt32BE(Math.floor(timestamp / 2 ** 32), at + FRAME)
  out.writeUInt32BE(timestamp >>> 0, at + FRAME + 4)
  out.writeInt32BE(key.length, at + FRAME + 8)
  key.copy(out, at + FRAME + 12)
  const valueAt = at + FRAME + 12 + key.length
  out.writeInt32BE(value === null ? -1 : value.length, valueAt)
  value?.copy(out, valueAt + 4)
  out.writeInt32BE(length - FRAME, at)
  out.writeUInt32BE(crc32c(out.subarray(at + FRAME, at + length)), at + 4)
}

/** The body's record, or why it is not one. */
function decode(body: Buffer): StoreFileRecord | string {
  const keyLength = body.readInt32BE(8)
  if (keyLength < 0 || 12 + keyLength + 4 > body.length) return `a key length of ${keyLength}`
  const key = Buffer.from(body.subarray(12, 12 + keyLength))
  const valueLength = body.readInt32BE(12 + keyLength)
  const valueAt = 16 + keyLength
  if (valueLength < -1 || valueAt + Math.max(valueLength, 0) !== body.length) return `a value length of ${valueLength}`
  const value = valueLength < 0 ? null : Buffer.from(body.subarray(valueAt))
  return { key, value, timestamp: body.readInt32BE(0) * 2 ** 32 + body.readUInt32BE(4) }
}

export class StoreFile {
  private fd: number
  private size: number
  /** Appended entries not written yet, encoded in place (one buffer, made on the first append and reused: no allocation per entry). */
  private pending = Buffer.alloc(0)
  private pendingBytes = 0
  /** Without `held`: the size of each key's last entry, for keys whose last entry is a value; keyed by the key's latin1 string, as the stores are (one string shared). */
  private readonly live = new Map<string, number>()
  private indexedBytes = 0

  private constructor(
    readonly path: string,
    fd: number,
    size: number,
    private readonly minCompactBytes: number,
    private readonly held: (() => HeldBytes) | undefined,
  ) {
    this.fd = fd
    this.size = size
  }

  /**
   * Opens (or creates) the file at `path`, handing each entry to `apply` in
   * the order written. A torn tail is cut off and logged; a damaged entry
   * before the end throws StoreCorruptedError.
   */
  static open(
    path: string,
    apply: (r: StoreFileRecord, id: string) => void,
    log?: Logger,
    options: { minCompactBytes?: number; held?: () => HeldBytes } = {},
  ): { file: StoreFile; opened: StoreFileOpened } {
    let bytes: Buffer
    try {
      bytes = readFileSync(path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      bytes = Buffer.alloc(0)
    }
    const fd = openSync(path, bytes.length === 0 ? 'w+' : 'r+')
    const file = new StoreFile(path, fd, MAGIC.length, options.minCompactBytes ?? MIN_COMPACT_BYTES, options.held)
    try {
      const opened = file.load(bytes, apply)
      if (opened.torn) {
        ftruncateSync(fd, opened.torn.offset)
        log?.warn('cut a torn tail off a store file (a write cut short by a crash)', {
          file: path,
          offset: opened.torn.offset,
          bytes: opened.torn.bytes,
        })
      }
      return { file, opened }
    } catch (err) {
      closeSync(fd)
      throw err
    }
  }

  private load(bytes: Buffer, apply: (r: StoreFileRecord, id: string) => void): StoreFileOpened {
    if (bytes.length < MAGIC.length) {
      // Nothing, or a header cut short: a new file.
      if (!MAGIC.subarray(0, bytes.length).equals(bytes)) throw new StoreCorruptedError(this.path, 0, 'it is not a wafka store file')
      writeSync(this.fd, MAGIC, 0, MAGIC.length, 0)
      ftruncateSync(this.fd, MAGIC.length)
      return { records: 0, torn: null }
    }
    if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new StoreCorruptedError(this.path, 0, 'it is not a wafka store file')
    let at = MAGIC.length
    let records = 0
    while (at < bytes.length) {
      const rest = bytes.length - at
      const torn = { offset: at, bytes: rest }
      this.size = at
      // Zeros to the end: space the file system gave a write that never landed.
      if (rest < FRAME || bytes.subarray(at).every((b) => b === 0)) return { records, torn }
      const length = bytes.readInt32BE(at)
      const end = at + FRAME + length
      if (end > bytes.length) return { records, torn }
      if (length < MIN_BODY) throw new StoreCorruptedError(this.path, at, `an entry length of ${length}`)
      const body = bytes.subarray(at + FRAME, end)
      if (crc32c(body) !== bytes.readUInt32BE(at + 4)) {
        if (end === bytes.length) return { records, torn }
        throw new StoreCorruptedError(this.path, at, 'the checksum does not match, with entries after it')
      }
      const record = decode(body)
      if (typeof record === 'string') throw new StoreCorruptedError(this.path, at, record)
      const id = record.key.toString('latin1')
      this.track(id, record.value === null ? null : end - at)
      apply(record, id)
      records++
      at = end
    }
    this.size = at
    return { records, torn: null }
  }

  private track(id: string, entryBytes: number | null): void {
    if (this.held) return
    this.indexedBytes -= this.live.get(id) ?? 0
    if (entryBytes === null) this.live.delete(id)
    else {
      this.live.set(id, entryBytes)
      this.indexedBytes += entryBytes
    }
  }

  /** The bytes of the live entries (each key's last, when a value). */
  private get liveBytes(): number {
    if (!this.held) return this.indexedBytes
    const { entries, bytes } = this.held()
    return entries * (FRAME + MIN_BODY) + bytes
  }

  /** Appends a change (written out by flush(), or once enough waits); `id` is the key's latin1 string, if the caller has it. */
  append(key: Buffer, value: Buffer | null, timestamp: number, id = key.toString('latin1')): void {
    const length = entryBytes(key, value)
    this.track(id, value === null ? null : length)
    if (this.pendingBytes + length > this.pending.length) {
      this.flush()
      // An entry larger than the buffer: a buffer of its own, for this entry only.
      if (length > WRITE_BEHIND_BYTES) {
        const entry = Buffer.allocUnsafe(length)
        encodeInto(entry, 0, key, value, timestamp, length)
        this.write(entry, length)
        return
      }
      if (this.pending.length === 0) this.pending = Buffer.allocUnsafe(WRITE_BEHIND_BYTES)
    }
    encodeInto(this.pending, this.pendingBytes, key, value, timestamp, length)
    this.pendingBytes += length
    if (this.pendingBytes >= WRITE_BEHIND_BYTES) this.flush()
  }

  /** Writes out what was appended. */
  flush(): void {
    if (this.pendingBytes === 0) return
    const bytes = this.pendingBytes
    this.pendingBytes = 0
    this.write(this.pending, bytes)
  }

  private write(bytes: Buffer, length: number): void {
    writeSync(this.fd, bytes, 0, length, this.size)
    this.size += length
  }

  /** Writes out what was appended and has the disk hold it (before a checkpoint names it). */
  sync(): void {
    this.flush()
    fsyncSync(this.fd)
  }

  /** The bytes of entries no longer live (overwritten or deleted). */
  get garbageBytes(): number {
    return this.size + this.pendingBytes - MAGIC.length - this.liveBytes
  }

  /** Rewrites the file when its garbage exceeds its live data; `holds` drops keys the store no longer has (expired windows). */
  maybeCompact(holds?: (key: Buffer) => boolean): boolean {
    const live = this.liveBytes
    const garbage = this.size + this.pendingBytes - MAGIC.length - live
    if (garbage < this.minCompactBytes || garbage <= live) return false
    this.compact(holds)
    return true
  }

  /** Rewrites the file with each key's last value only (to a temporary file, synced, renamed over it). */
  compact(holds?: (key: Buffer) => boolean): void {
    this.flush()
    const bytes = readFileSync(this.path)
    const last = new Map<string, Buffer>()
    for (let at = MAGIC.length; at < this.size;) {
      const end = at + FRAME + bytes.readInt32BE(at)
      const entry = bytes.subarray(at, end)
      const record = decode(entry.subarray(FRAME)) as StoreFileRecord
      const id = record.key.toString('latin1')
      last.delete(id) // keeps the order of last writes
      if (record.value !== null && (!holds || holds(record.key))) last.set(id, entry)
      at = end
    }
    const temp = `${this.path}.compact`
    const fd = openSync(temp, 'w')
    let size = 0
    try {
      for (const chunk of [MAGIC, ...last.values()]) size += writeSync(fd, chunk)
      fsyncSync(fd)
    } catch (err) {
      closeSync(fd)
      rmSync(temp, { force: true })
      throw err
    }
    renameSync(temp, this.path)
    closeSync(this.fd)
    this.fd = fd
    this.size = size
    this.live.clear()
    this.indexedBytes = 0
    if (!this.held)
      for (const [id, entry] of last) {
        this.live.set(id, entry.length)
        this.indexedBytes += entry.length
      }
  }

  /** Empties the file (the store is restored from its changelog instead). */
  wipe(): void {
    this.pendingBytes = 0
    ftruncateSync(this.fd, MAGIC.length)
    this.size = MAGIC.length
    this.live.clear()
    this.indexedBytes = 0
  }

  /** Writes out what waits and closes the file. */
  close(): void {
    try {
      this.flush()
    } finally {
      closeSync(this.fd)
    }
  }

  /** Closes without writing what waits (a crash as the file sees it; tests). @internal */
  abandon(): void {
    this.pendingBytes = 0
    closeSync(this.fd)
  }
}
