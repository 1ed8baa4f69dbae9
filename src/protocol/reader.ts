import { Buffer } from 'node:buffer'
import { bufferView } from '../codec/buffer-view.js'
import { ProtocolError } from '../errors.js'
import type { UnknownTag } from './writer.js'

/**
 * Reads Kafka's wire types from buffer[offset, end). Every read is checked
 * against `end`: input cut short or malformed throws ProtocolError naming
 * what was being read (the optional `what` argument, e.g. the field), never
 * a RangeError, and a length larger than what is left is an error, not an
 * allocation. Bytes and record sets come back as views of the input (no copy).
 */
/** Arrays up to this many elements are allocated at their size. */
const PREALLOCATE_UP_TO = 64

export class Reader {
  readonly buffer: Buffer
  offset: number
  end: number
  // Integers through a DataView: cheaper than Buffer#readInt32BE and friends,
  // which would check bounds a second time.
  private readonly view: DataView

  constructor(buffer: Buffer, offset = 0, end = buffer.length) {
    if (offset < 0 || end > buffer.length || offset > end) {
      throw new RangeError(`Reader over [${offset}, ${end}) does not fit a buffer of ${buffer.length} bytes`)
    }
    this.buffer = buffer
    this.offset = offset
    this.end = end
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length)
  }

  get remaining(): number {
    return this.end - this.offset
  }

  /** Advances past `n` bytes, returning where they start. */
  private take(n: number, type: string, what: string | undefined): number {
    const at = this.offset
    if (n > this.end - at) throw this.truncated(n, type, what)
    this.offset = at + n
    return at
  }

  private truncated(n: number, type: string, what: string | undefined): ProtocolError {
    const left = this.end - this.offset
    return new ProtocolError(`truncated ${describe(type, what)}: needs ${n} bytes at byte ${this.offset}, ${left} left`)
  }

  private malformed(problem: string, type: string, what: string | undefined): ProtocolError {
    return new ProtocolError(`malformed ${describe(type, what)} at byte ${this.offset}: ${problem}`)
  }

  skip(n: number, what?: string): void {
    this.take(n, 'bytes', what)
  }

  int8(what?: string): number {
    return this.view.getInt8(this.take(1, 'int8', what))
  }

  int16(what?: string): number {
    return this.view.getInt16(this.take(2, 'int16', what))
  }

  int32(what?: string): number {
    return this.view.getInt32(this.take(4, 'int32', what))
  }

  int64(what?: string): bigint {
    return this.view.getBigInt64(this.take(8, 'int64', what))
  }

  uint16(what?: string): number {
    return this.view.getUint16(this.take(2, 'uint16', what))
  }

  uint32(what?: string): number {
    return this.view.getUint32(this.take(4, 'uint32', what))
  }

  float64(what?: string): number {
    return this.view.getFloat64(this.take(8, 'float64', what))
  }

  /** Any non-zero byte is true, as in Java. */
  bool(what?: string): boolean {
    return this.buffer[this.take(1, 'bool', what)] !== 0
  }

  /** 16 bytes, returned in Java's Uuid.toString() form (URL-safe base64, no padding). */
  uuid(what?: string): string {
    const at = this.take(16, 'uuid', what)
    return this.buffer.toString('base64url', at, at + 16)
  }

  /** Unsigned LEB128 of at most 32 bits (5 bytes). */
  uvarint(what?: string): number {
    const b = this.buffer
    let p = this.offset
    let value = 0
    for (let shift = 0; ; shift += 7) {
      if (p >= this.end) throw this.truncated(p - this.offset + 1, 'unsigned varint', what)
      const byte = b[p++]
      if (shift === 28 && byte > 0x0f) throw this.malformed('longer than 32 bits', 'unsigned varint', what)
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) break
    }
    this.offset = p
    return value
  }

  /** Unsigned LEB128 of at most 64 bits (10 bytes). */
  uvarlong(what?: string): bigint {
    let value = 0n
    for (let shift = 0n; ; shift += 7n) {
      const byte = this.buffer[this.take(1, 'unsigned varlong', what)]
      if (shift === 63n && byte > 1) throw this.malformed('longer than 64 bits', 'unsigned varlong', what)
      value |= BigInt(byte & 0x7f) << shift
      if (byte < 0x80) return value
    }
  }

  // Strings: UTF-8.

  private utf8(n: number, type: string, what: string | undefined): string {
    const at = this.take(n, type, what)
    return this.buffer.toString('utf8', at, at + n)
  }

  /** int16 length, then the bytes; -1 (null) is an error. */
  string(what?: string): string {
    const n = this.int16(what)
    if (n < 0) throw this.malformed(n === -1 ? 'null, which this field does not allow' : `length ${n}`, 'string', what)
    return this.utf8(n, 'string', what)
  }

  /** int16 length (-1 for null), then the bytes. */
  nullableString(what?: string): string | null {
    const n = this.int16(what)
    if (n === -1) return null
    if (n < 0) throw this.malformed(`length ${n}`, 'string', what)
    return this.utf8(n, 'string', what)
  }

  /** uvarint length + 1, then the bytes; 0 (null) is an error. */
  compactString(what?: string): string {
    const n = this.uvarint(what) - 1
    if (n < 0) throw this.malformed('null, which this field does not allow', 'compact string', what)
    return this.utf8(n, 'compact string', what)
  }

  /** uvarint length + 1 (0 for null), then the bytes. */
  compactNullableString(what?: string): string | null {
    const n = this.uvarint(what) - 1
    return n < 0 ? null : this.utf8(n, 'compact string', what)
  }

  // Bytes and record sets: views of the input.

  /** `n` bytes as a view of the input. */
  raw(n: number, what?: string): Buffer {
    const at = this.take(n, 'bytes', what)
    const b = this.buffer
    return bufferView(b.buffer, b.byteOffset + at, n)
  }

  /** int32 length, then the bytes; -1 (null) is an error. */
  bytes(what?: string): Buffer {
    const n = this.int32(what)
    if (n < 0) throw this.malformed(n === -1 ? 'null, which this field does not allow' : `length ${n}`, 'bytes', what)
    return this.raw(n, what)
  }

  /** int32 length (-1 for null), then the bytes. */
  nullableBytes(what?: string): Buffer | null {
    const n = this.int32(what)
    if (n === -1) return null
    if (n < 0) throw this.malformed(`length ${n}`, 'bytes', what)
    return this.raw(n, what)
  }

  /** uvarint length + 1, then the bytes; 0 (null) is an error. */
  compactBytes(what?: string): Buffer {
    const n = this.uvarint(what) - 1
    if (n < 0) throw this.malformed('null, which this field does not allow', 'compact bytes', what)
    return this.raw(n, what)
  }

  /** uvarint length + 1 (0 for null), then the bytes. */
  compactNullableBytes(what?: string): Buffer | null {
    const n = this.uvarint(what) - 1
    return n < 0 ? null : this.raw(n, what)
  }

  // Arrays

  /** int32 count, -1 for null. A count above the bytes left is an error (every element takes a byte or more). */
  arrayLength(what?: string): number {
    const n = this.int32(what)
    if (n < -1) throw this.malformed(`count ${n}`, 'array', what)
    if (n > this.end - this.offset) throw this.malformed(`${n} elements but ${this.end - this.offset} bytes left`, 'array', what)
    return n
  }

  /** uvarint count + 1, -1 for null (0 on the wire). */
  compactArrayLength(what?: string): number {
    const n = this.uvarint(what) - 1
    if (n > this.end - this.offset) throw this.malformed(`${n} elements but ${this.end - this.offset} bytes left`, 'compact array', what)
    return n
  }

  /** An array in the encoding `compact` says, each element through `read`; null is an error. */
  array<T>(compact: boolean, version: number, read: ElementReader<T>, what?: string): T[] {
    const n = compact ? this.compactArrayLength(what) : this.arrayLength(what)
    if (n < 0) throw this.malformed('null, which this field does not allow', 'array', what)
    return this.items(n, compact, version, read)
  }

  nullableArray<T>(compact: boolean, version: number, read: ElementReader<T>, what?: string): T[] | null {
    const n = compact ? this.compactArrayLength(what) : this.arrayLength(what)
    if (n < 0) return null
    return this.items(n, compact, version, read)
  }

  /**
   * n elements. A short array gets exactly its size up front: grown by push,
   * each would hold room for 17 (a Metadata answer's replica lists cost
   * 10x its bytes that way). A long one grows as it is read, so a claimed
   * count allocates nothing the bytes do not back.
   */
  private items<T>(n: number, compact: boolean, version: number, read: ElementReader<T>): T[] {
    if (n <= PREALLOCATE_UP_TO) {
      const items = new Array<T>(n)
      for (let i = 0; i < n; i++) items[i] = read(this, version, compact)
      return items
    }
    const items: T[] = []
    for (let i = 0; i < n; i++) items.push(read(this, version, compact))
    return items
  }

  /** A struct that may be null: an int8 marker (negative for null), then the struct. */
  nullableStruct<T>(compact: boolean, version: number, read: ElementReader<T>, what?: string): T | null {
    return this.int8(what) < 0 ? null : read(this, version, compact)
  }

  // Tagged fields

  /** A tagged-field section where no tag is known: every field is kept in `target._unknownTags`. */
  tags(target: { _unknownTags?: UnknownTag[] }): void {
    for (let n = this.uvarint('tagged field count'); n > 0; n--) {
      const tag = this.uvarint('tag')
      const outer = this.enterTag()
      this.unknownTag(target, tag)
      this.leaveTag(outer, tag)
    }
  }

  /**
   * Reads a tagged field's size and confines reading to its value; returns
   * the outer end for leaveTag.
   */
  enterTag(): number {
    const size = this.uvarint('tagged field size')
    if (size > this.end - this.offset) throw this.truncated(size, 'tagged field', undefined)
    const outer = this.end
    this.end = this.offset + size
    return outer
  }

  /** Ends a tagged field's value: it must have been read to its last byte. */
  leaveTag(outer: number, tag: number): void {
    if (this.offset !== this.end) {
      throw new ProtocolError(`malformed tagged field ${tag}: ${this.end - this.offset} of its bytes were left unread`)
    }
    this.end = outer
  }

  /** Keeps the rest of the current tagged field's value as an unknown tag. */
  unknownTag(target: { _unknownTags?: UnknownTag[] }, tag: number): void {
    const value = this.raw(this.end - this.offset)
    if (target._unknownTags === undefined) target._unknownTags = [[tag, value]]
    else target._unknownTags.push([tag, value])
  }
}

/** Reads one element of an array; `compact` is whether the message version is flexible. */
export type ElementReader<T> = (r: Reader, version: number, compact: boolean) => T

function describe(type: string, what: string | undefined): string {
  return what === undefined ? type : `${what} (${type})`
}

// Element readers for arrays of primitives.
export const readInt8: ElementReader<number> = (r) => r.int8()
export const readInt16: ElementReader<number> = (r) => r.int16()
export const readInt32: ElementReader<number> = (r) => r.int32()
export const readInt64: ElementReader<bigint> = (r) => r.int64()
export const readUint16: ElementReader<number> = (r) => r.uint16()
export const readUint32: ElementReader<number> = (r) => r.uint32()
export const readFloat64: ElementReader<number> = (r) => r.float64()
export const readBool: ElementReader<boolean> = (r) => r.bool()
export const readUuid: ElementReader<string> = (r) => r.uuid()
export const readString: ElementReader<string> = (r, _, compact) => (compact ? r.compactString() : r.string())
export const readBytes: ElementReader<Buffer> = (r, _, compact) => (compact ? r.compactBytes() : r.bytes())
