// Byte-level helpers for the classic streams assignor's user data
// (SubscriptionInfo, AssignmentInfo): big-endian ints as Java's
// DataOutputStream and Kafka's generated messages write them, and Java's
// modified UTF-8 (DataOutputStream.writeUTF: a 2-byte length, U+0000 in two
// bytes, each UTF-16 code unit on its own, so a supplementary character takes
// six bytes).
import { Buffer } from 'node:buffer'
import { StreamsError } from './streams-error.js'

/** A task as the classic assignor's user data names it (Java's TaskId; named topologies are not used). */
export interface AssignorTaskId {
  subtopology: number
  partition: number
}

export const assignorTaskName = (t: AssignorTaskId): string => `${t.subtopology}_${t.partition}`

/** Java's TaskId order: sub-topology, then partition. */
export const compareTaskIds = (a: AssignorTaskId, b: AssignorTaskId): number => a.subtopology - b.subtopology || a.partition - b.partition

export class WireWriter {
  private readonly chunks: Buffer[] = []

  int8(v: number): this {
    const b = Buffer.alloc(1)
    b.writeInt8(v)
    return this.bytes(b)
  }

  int16(v: number): this {
    const b = Buffer.alloc(2)
    b.writeInt16BE(v)
    return this.bytes(b)
  }

  int32(v: number): this {
    const b = Buffer.alloc(4)
    b.writeInt32BE(v)
    return this.bytes(b)
  }

  int64(v: bigint): this {
    const b = Buffer.alloc(8)
    b.writeBigInt64BE(v)
    return this.bytes(b)
  }

  bytes(b: Buffer): this {
    this.chunks.push(b)
    return this
  }

  /** DataOutputStream.writeUTF. */
  utf(s: string): this {
    const out: number[] = []
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x01 && c <= 0x7f) out.push(c)
      else if (c <= 0x7ff) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f))
      else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f))
    }
    if (out.length > 0xffff) throw new StreamsError(`a string of ${out.length} encoded bytes does not fit writeUTF's 65535`)
    return this.int16(out.length).bytes(Buffer.from(out))
  }

  /** DataOutputStream.writeChars: UTF-16 code units, big-endian. */
  chars(s: string): this {
    const b = Buffer.alloc(s.length * 2)
    for (let i = 0; i < s.length; i++) b.writeUInt16BE(s.charCodeAt(i), i * 2)
    return this.bytes(b)
  }

  build(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

export class WireReader {
  private offset = 0

  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private take(n: number): number {
    if (n < 0 || this.offset + n > this.buf.length)
      throw new StreamsError(`${this.what} ends early: ${n} byte(s) wanted at offset ${this.offset} of ${this.buf.length}`)
    const at = this.offset
    this.offset += n
    return at
  }

  int8(): number {
    return this.buf.readInt8(this.take(1))
  }

  int16(): number {
    return this.buf.readInt16BE(this.take(2))
  }

  int32(): number {
    return this.buf.readInt32BE(this.take(4))
  }

  int64(): bigint {
    return this.buf.readBigInt64BE(this.take(8))
  }

  bytes(n: number): Buffer {
    const at = this.take(n)
    return this.buf.subarray(at, at + n)
  }

  /** A count prefix, checked against what is left so a corrupt one fails cleanly. */
  count(minSize: number): number {
    const n = this.int32()
    if (n < 0 || n * minSize > this.buf.length - this.offset)
      throw new StreamsError(`${this.what}: a count of ${n} at offset ${this.offset - 4} does not fit the data`)
    return n
  }

  /** DataInputStream.readUTF. */
  utf(): string {
    const b = this.bytes(this.int16() & 0xffff)
    let s = ''
    for (let i = 0; i < b.length;) {
      const c = b[i]
      if (c < 0x80) {
        s += String.fromCharCode(c)
        i += 1
      } else if ((c & 0xe0) === 0xc0 && i + 1 < b.length) {
        s += String.fromCharCode(((c & 0x1f) << 6) | (b[i + 1] & 0x3f))
        i += 2
      } else if ((c & 0xf0) === 0xe0 && i + 2 < b.length) {
        s += String.fromCharCode(((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f))
        i += 3
      } else throw new StreamsError(`${this.what}: malformed modified UTF-8 at byte ${i} of a string`)
    }
    return s
  }

  /** DataInputStream.readChar, `n` times. */
  chars(n: number): string {
    const b = this.bytes(n * 2)
    let s = ''
    for (let i = 0; i < n; i++) s += String.fromCharCode(b.readUInt16BE(i * 2))
    return s
  }

  get remaining(): number {
    return this.buf.length - this.offset
  }
}
