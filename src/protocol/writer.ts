import { Buffer } from 'node:buffer'
import { ProtocolError } from '../errors.js'

/** Bytes a caller may hand to a bytes or records field: one block, or blocks written back to back. */
export type BytesInput = Uint8Array | readonly Uint8Array[]

/** A tagged field the codec does not know, kept as its raw value bytes so it can be written back. */
export type UnknownTag = [tag: number, bytes: Uint8Array]

const INT16_MAX = 0x7fff
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
/** The all-zero UUID in Java's Uuid.toString() form: the default of every uuid field, and "no topic id". */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA'
/** Strings up to this many UTF-16 units are tried as ASCII first: a byte loop beats Buffer#write for short ones. */
const SHORT_STRING = 64
/** A gathering Writer references raw blocks this large instead of copying them. */
const GATHER_MIN = 1024

/** URL-safe base64 digit values by char code, -1 for anything else. */
const BASE64URL = new Int8Array(128).fill(-1)
for (let i = 0; i < 64; i++) BASE64URL['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charCodeAt(i)] = i

/**
 * A growable big-endian writer for Kafka's wire types. It starts small and
 * doubles on demand; `reset()` keeps the memory, so one Writer can serve
 * request after request.
 */
export class Writer {
  private buf: Buffer
  private view: DataView
  private pos = 0
  /**
   * Gathering (see `gather`): the blocks so far, in order: spans of buf that
   * end where a large raw block was referenced, and those blocks.
   */
  private parts: Buffer[] | null = null
  /** The span from 0, once handed out: setInt32At writes there too. */
  private firstSpan: Buffer | null = null
  /** Where in buf the span after the last referenced block starts. */
  private spanStart = 0
  /** Bytes of referenced blocks. */
  private referenced = 0
  /** Known tagged fields being written: their sizes are measured in buf, so raw blocks inside them are copied. */
  private openTags = 0

  constructor(initialCapacity = 1024) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialCapacity))
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length)
  }

  /**
   * Raw blocks of GATHER_MIN bytes or more are referenced, not copied, and
   * the bytes come out as blocks (`finishParts`) for one gathering write:
   * a Produce request's record batches go to the socket as they are.
   */
  gather(): this {
    if (this.pos !== 0) throw new RangeError('gather() starts an empty Writer')
    this.parts = []
    this.spanStart = this.pos
    return this
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos + this.referenced
  }

  /** Forgets what was written, keeping the memory. */
  reset(): this {
    this.pos = 0
    if (this.parts) this.parts = []
    this.firstSpan = null
    this.spanStart = 0
    this.referenced = 0
    return this
  }

  /**
   * The bytes written so far, as a view of the Writer's memory (no copy).
   * Once the Writer is reset and reused, the view shows the new bytes: copy
   * it (Buffer.from) first if it must outlive that, or use a Writer per frame.
   * A gathering Writer's blocks are joined (copied) into one Buffer.
   */
  finish(): Buffer {
    if (this.parts === null || this.parts.length === 0) return this.buf.subarray(0, this.pos)
    return Buffer.concat(this.finishParts(), this.length)
  }

  /** The bytes written so far as blocks, in order (one block unless gathering referenced some). */
  finishParts(): Buffer[] {
    if (this.parts === null || this.parts.length === 0) return [this.buf.subarray(0, this.pos)]
    const parts = this.parts.slice()
    if (this.pos > this.spanStart) parts.push(this.buf.subarray(this.spanStart, this.pos))
    return parts
  }

  /** Makes room for `n` more bytes. */
  private ensure(n: number): void {
    const need = this.pos + n
    if (need <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < need) size *= 2
    const grown = Buffer.allocUnsafe(size)
    this.buf.copy(grown, 0, 0, this.pos)
    this.buf = grown
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.length)
  }

  /** Skips `n` bytes to fill in later (e.g. a frame size) and returns where they start. */
  reserve(n: number): number {
    this.ensure(n)
    const at = this.pos
    this.buf.fill(0, at, at + n)
    this.pos += n
    return at
  }

  /** Overwrites an int32 written before (in this Writer's memory: before any referenced block when gathering). */
  setInt32At(pos: number, v: number): void {
    if (pos < 0 || pos + 4 > this.pos) throw new RangeError(`setInt32At(${pos}) is outside the ${this.pos} bytes written`)
    // Gathering: the first span (from 0) may be a view of memory the Writer has since outgrown.
    const first = this.firstSpan
    if (first !== null && pos + 4 <= first.length) first.writeInt32BE(v, pos)
    this.buf.writeInt32BE(v, pos)
  }

  // Integers go through a DataView (Buffer#writeInt32BE and friends cost
  // several times more); the range checks keep Buffer's refusal of bad input.

  int8(v: number): void {
    if ((v << 24) >> 24 !== v) throw outOfRange(v, 'int8')
    this.ensure(1)
    this.buf[this.pos++] = v
  }

  int16(v: number): void {
    if ((v << 16) >> 16 !== v) throw outOfRange(v, 'int16')
    this.ensure(2)
    this.view.setInt16(this.pos, v)
    this.pos += 2
  }

  int32(v: number): void {
    if ((v | 0) !== v) throw outOfRange(v, 'int32')
    this.ensure(4)
    this.view.setInt32(this.pos, v)
    this.pos += 4
  }

  int64(v: bigint): void {
    if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) throw outOfRange(v, 'int64 (a bigint)')
    this.ensure(8)
    this.view.setBigInt64(this.pos, v)
    this.pos += 8
  }

  uint16(v: number): void {
    if ((v & 0xffff) !== v) throw outOfRange(v, 'uint16')
    this.ensure(2)
    this.view.setUint16(this.pos, v)
    this.pos += 2
  }

  uint32(v: number): void {
    if (v >>> 0 !== v) throw outOfRange(v, 'uint32')
    this.ensure(4)
    this.view.setUint32(this.pos, v)
    this.pos += 4
  }

  float64(v: number): void {
    if (typeof v !== 'number') throw outOfRange(v, 'float64')
    this.ensure(8)
    this.view.setFloat64(this.pos, v)
    this.pos += 8
  }

  bool(v: boolean): void {
    this.ensure(1)
    this.buf[this.pos++] = v ? 1 : 0
  }

  /** A UUID in Java's Uuid.toString() form: 22 characters of URL-safe base64, no padding. */
  uuid(v: string): void {
    this.ensure(16)
    const b = this.buf
    const p = this.pos
    if (v === ZERO_UUID) {
      this.view.setBigUint64(p, 0n)
      this.view.setBigUint64(p + 8, 0n)
      this.pos = p + 16
      return
    }
    if (typeof v !== 'string' || v.length !== 22) throw notUuid(v)
    // 5 groups of 4 digits make 15 bytes; the last 2 digits carry the 16th byte and 4 zero bits.
    let q = p
    for (let i = 0; i < 20; i += 4) {
      const n = (digit(v, i) << 18) | (digit(v, i + 1) << 12) | (digit(v, i + 2) << 6) | digit(v, i + 3)
      if (n < 0) throw notUuid(v)
      b[q++] = n >>> 16
      b[q++] = n >>> 8
      b[q++] = n
    }
    const hi = digit(v, 20)
    const lo = digit(v, 21)
    if (hi < 0 || lo < 0 || (lo & 0x0f) !== 0) throw notUuid(v)
    b[q] = (hi << 2) | (lo >>> 4)
    this.pos = p + 16
  }

  /** Unsigned LEB128, for values up to 2^32 - 1. */
  uvarint(v: number): void {
    if (!(v >= 0 && v <= 0xffffffff) || v !== Math.floor(v)) throw new ProtocolError(`${v} cannot be written as an unsigned varint`)
    this.ensure(5)
    const b = this.buf
    let p = this.pos
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    b[p++] = v
    this.pos = p
  }

  /** Unsigned LEB128 for 64-bit values. */
  uvarlong(v: bigint): void {
    if (v < 0n || v > 0xffffffffffffffffn) throw new ProtocolError(`${v} cannot be written as an unsigned varlong`)
    this.ensure(10)
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80
      v >>= 7n
    }
    this.buf[this.pos++] = Number(v)
  }

  /** Raw bytes, no length. */
  raw(bytes: BytesInput): void {
    if (bytes instanceof Uint8Array) {
      if (this.parts !== null && bytes.length >= GATHER_MIN && this.openTags === 0) {
        // The buffer is not reallocated past this point for the span before: views of it stay valid.
        if (this.pos > this.spanStart) {
          const span = this.buf.subarray(this.spanStart, this.pos)
          if (this.spanStart === 0) this.firstSpan = span
          this.parts.push(span)
        }
        this.parts.push(bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length))
        this.referenced += bytes.length
        this.spanStart = this.pos
        return
      }
      this.ensure(bytes.length)
      this.buf.set(bytes, this.pos)
      this.pos += bytes.length
    } else {
      for (const b of bytes) this.raw(b)
    }
  }

  // Strings: UTF-8, counted in bytes.

  /**
   * Writes a short ASCII string at pos + prefix (prefix bytes left for its
   * length) and returns true, or returns false having written nothing
   * useful when the string is long or not ASCII.
   */
  private ascii(v: string, prefix: number): boolean {
    const n = v.length
    if (n > SHORT_STRING) return false
    this.ensure(prefix + n)
    const b = this.buf
    let p = this.pos + prefix
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i)
      if (c >= 0x80) return false
      b[p++] = c
    }
    return true
  }

  /** int16 length, then the bytes. */
  string(v: string): void {
    if (typeof v !== 'string') throw notString(v)
    if (this.ascii(v, 2)) {
      this.view.setInt16(this.pos, v.length)
      this.pos += 2 + v.length
      return
    }
    const n = Buffer.byteLength(v)
    if (n > INT16_MAX) throw tooLong(n)
    this.ensure(2 + n)
    this.view.setInt16(this.pos, n)
    this.pos += 2 + this.buf.write(v, this.pos + 2, n, 'utf8')
  }

  /** int16 length (-1 for null), then the bytes. */
  nullableString(v: string | null): void {
    if (v === null) this.int16(-1)
    else this.string(v)
  }

  /** uvarint length + 1, then the bytes. */
  compactString(v: string): void {
    if (typeof v !== 'string') throw notString(v)
    // Up to 126 bytes the length takes one byte.
    if (this.ascii(v, 1)) {
      this.buf[this.pos] = v.length + 1
      this.pos += 1 + v.length
      return
    }
    const n = Buffer.byteLength(v)
    if (n > INT16_MAX) throw tooLong(n)
    this.uvarint(n + 1)
    this.ensure(n)
    this.pos += this.buf.write(v, this.pos, n, 'utf8')
  }

  /** uvarint length + 1 (0 for null), then the bytes. */
  compactNullableString(v: string | null): void {
    if (v === null) this.uvarint(0)
    else this.compactString(v)
  }

  // Bytes and record sets: a Buffer, or Buffers written back to back.

  /** int32 length, then the bytes. */
  bytes(v: BytesInput): void {
    if (v === null || v === undefined) throw new ProtocolError('a bytes field that is not nullable in this version is null')
    this.int32(bytesLength(v))
    this.raw(v)
  }

  /** int32 length (-1 for null), then the bytes. */
  nullableBytes(v: BytesInput | null): void {
    if (v === null) this.int32(-1)
    else this.bytes(v)
  }

  /** uvarint length + 1, then the bytes. */
  compactBytes(v: BytesInput): void {
    if (v === null || v === undefined) throw new ProtocolError('a bytes field that is not nullable in this version is null')
    this.uvarint(bytesLength(v) + 1)
    this.raw(v)
  }

  /** uvarint length + 1 (0 for null), then the bytes. */
  compactNullableBytes(v: BytesInput | null): void {
    if (v === null) this.uvarint(0)
    else this.compactBytes(v)
  }

  // Arrays

  /** int32 count (-1 for null). */
  arrayLength(n: number | null): void {
    this.int32(n === null ? -1 : n)
  }

  /** uvarint count + 1 (0 for null). */
  compactArrayLength(n: number | null): void {
    this.uvarint(n === null ? 0 : n + 1)
  }

  /** A count in the encoding `compact` says, then each item through `write`. */
  array<T>(compact: boolean, version: number, items: readonly T[] | null, write: ElementWriter<T>): void {
    if (items === null) {
      if (compact) this.uvarint(0)
      else this.int32(-1)
      return
    }
    const n = items.length
    if (compact) this.uvarint(n + 1)
    else this.int32(n)
    for (let i = 0; i < n; i++) write(this, version, items[i], compact)
  }

  /** A struct that may be null: an int8 marker (-1 null, 1 present), then the struct. */
  nullableStruct<T>(version: number, value: T | null, write: ElementWriter<T>, compact: boolean): void {
    if (value === null) {
      this.int8(-1)
    } else {
      this.int8(1)
      write(this, version, value, compact)
    }
  }

  // Tagged fields: a uvarint count, then per field its tag, its size and its value, by ascending tag.

  /** A tagged-field section holding only fields the codec did not know. */
  tags(unknown: readonly UnknownTag[] | undefined): void {
    if (unknown === undefined || unknown.length === 0) {
      this.ensure(1)
      this.buf[this.pos++] = 0
      return
    }
    this.uvarint(unknown.length)
    this.unknownTags(unknown, 0, Infinity)
  }

  /**
   * Writes unknown[from..] while their tags are below `below`, so unknown
   * fields interleave with known ones in tag order. Returns where it stopped.
   */
  unknownTags(unknown: readonly UnknownTag[] | undefined, from: number, below: number): number {
    if (unknown === undefined) return from
    let i = from
    for (; i < unknown.length && unknown[i][0] < below; i++) {
      const [tag, bytes] = unknown[i]
      this.uvarint(tag)
      this.uvarint(bytes.length)
      this.raw(bytes)
    }
    return i
  }

  /** Starts a known tagged field; the value follows, then endTag with what this returned. */
  startTag(tag: number): number {
    this.openTags++
    this.uvarint(tag)
    // One byte for the size, which is enough below 128 bytes; endTag moves the value if not.
    this.ensure(1)
    return this.pos++
  }

  endTag(sizeAt: number): void {
    this.openTags--
    const size = this.pos - sizeAt - 1
    if (size < 0x80) {
      this.buf[sizeAt] = size
      return
    }
    const extra = uvarintSize(size) - 1
    this.ensure(extra)
    this.buf.copy(this.buf, sizeAt + 1 + extra, sizeAt + 1, this.pos)
    const end = this.pos + extra
    this.pos = sizeAt
    this.uvarint(size)
    this.pos = end
  }
}

function digit(s: string, i: number): number {
  const c = s.charCodeAt(i)
  return c < 128 ? BASE64URL[c] : -1
}

function outOfRange(v: unknown, type: string): ProtocolError {
  return new ProtocolError(`${typeof v === 'bigint' ? `${v}n` : String(v)} is not a valid ${type}`)
}

function notUuid(v: unknown): ProtocolError {
  return new ProtocolError(`${JSON.stringify(v)} is not a UUID (22 characters of URL-safe base64)`)
}

function notString(v: unknown): ProtocolError {
  return new ProtocolError(
    v === null || v === undefined ? 'a string field that is not nullable in this version is null' : `${typeof v} where a string belongs`,
  )
}

function tooLong(n: number): ProtocolError {
  return new ProtocolError(`a string of ${n} bytes is longer than the ${INT16_MAX} a string field holds`)
}

/** Writes one element of an array; `compact` is whether the message version is flexible. */
export type ElementWriter<T> = (w: Writer, version: number, item: T, compact: boolean) => void

export function bytesLength(v: BytesInput): number {
  if (v instanceof Uint8Array) return v.length
  let n = 0
  for (const b of v) n += b.length
  return n
}

export function uvarintSize(v: number): number {
  let n = 1
  while (v >= 0x80) {
    v = Math.floor(v / 128)
    n++
  }
  return n
}

// Element writers for arrays of primitives.
export const writeInt8: ElementWriter<number> = (w, _, v) => w.int8(v)
export const writeInt16: ElementWriter<number> = (w, _, v) => w.int16(v)
export const writeInt32: ElementWriter<number> = (w, _, v) => w.int32(v)
export const writeInt64: ElementWriter<bigint> = (w, _, v) => w.int64(v)
export const writeUint16: ElementWriter<number> = (w, _, v) => w.uint16(v)
export const writeUint32: ElementWriter<number> = (w, _, v) => w.uint32(v)
export const writeFloat64: ElementWriter<number> = (w, _, v) => w.float64(v)
export const writeBool: ElementWriter<boolean> = (w, _, v) => w.bool(v)
export const writeUuid: ElementWriter<string> = (w, _, v) => w.uuid(v)
export const writeString: ElementWriter<string> = (w, _, v, compact) => (compact ? w.compactString(v) : w.string(v))
export const writeBytes: ElementWriter<BytesInput> = (w, _, v, compact) => (compact ? w.compactBytes(v) : w.bytes(v))
