import { Buffer } from 'node:buffer'

/**
 * KafkaJS's AssignerProtocol: the v0 consumer protocol's subscription
 * (MemberMetadata) and assignment (MemberAssignment), which custom
 * assigners encode and decode. Newer versions append fields, so decoding
 * reads the v0 prefix of anything Java or wafka writes.
 */
class Writer {
  private readonly parts: Buffer[] = []
  int16(v: number) {
    const b = Buffer.alloc(2)
    b.writeInt16BE(v)
    return this.push(b)
  }
  int32(v: number) {
    const b = Buffer.alloc(4)
    b.writeInt32BE(v)
    return this.push(b)
  }
  string(s: string) {
    const bytes = Buffer.from(s, 'utf8')
    return this.int16(bytes.length).push(bytes)
  }
  bytes(b: Buffer | null | undefined) {
    return b == null ? this.int32(-1) : this.int32(b.length).push(b)
  }
  push(b: Buffer) {
    this.parts.push(b)
    return this
  }
  get buffer() {
    return Buffer.concat(this.parts)
  }
}

class Reader {
  private at = 0
  constructor(private readonly b: Buffer) {}
  canRead(n: number) {
    return this.at + n <= this.b.length
  }
  int16() {
    const v = this.b.readInt16BE(this.at)
    this.at += 2
    return v
  }
  int32() {
    const v = this.b.readInt32BE(this.at)
    this.at += 4
    return v
  }
  string() {
    const n = this.int16()
    const s = this.b.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }
  bytes(): Buffer {
    if (!this.canRead(4)) return Buffer.alloc(0)
    const n = this.int32()
    if (n < 0) return Buffer.alloc(0)
    const v = this.b.subarray(this.at, this.at + n)
    this.at += n
    return Buffer.from(v)
  }
  array<T>(item: (r: Reader) => T): T[] {
    const n = this.int32()
    return Array.from({ length: Math.max(0, n) }, () => item(this))
  }
}

export interface MemberMetadata {
  version: number
  topics: string[]
  userData: Buffer
}

export interface MemberAssignment {
  version: number
  assignment: Record<string, number[]>
  userData: Buffer
}

export const AssignerProtocol = {
  MemberMetadata: {
    encode({ version, topics, userData = Buffer.alloc(0) }: { version: number; topics: string[]; userData?: Buffer }): Buffer {
      const w = new Writer().int16(version).int32(topics.length)
      for (const t of topics) w.string(t)
      return w.bytes(userData).buffer
    },
    decode(buffer: Buffer): MemberMetadata {
      const r = new Reader(buffer)
      return { version: r.int16(), topics: r.array((x) => x.string()), userData: r.bytes() }
    },
  },
  MemberAssignment: {
    encode({
      version,
      assignment,
      userData = Buffer.alloc(0),
    }: {
      version: number
      assignment: Record<string, number[]>
      userData?: Buffer
    }): Buffer {
      const topics = Object.keys(assignment)
      const w = new Writer().int16(version).int32(topics.length)
      for (const t of topics) {
        w.string(t).int32(assignment[t].length)
        for (const p of assignment[t]) w.int32(p)
      }
      return w.bytes(userData).buffer
    },
    decode(buffer: Buffer): MemberAssignment | null {
      const r = new Reader(buffer)
      if (!r.canRead(2)) return null
      const version = r.int16()
      const assignment: Record<string, number[]> = Object.create(null)
      for (const { topic, partitions } of r.array((x) => ({ topic: x.string(), partitions: x.array((y) => y.int32()) })))
        assignment[topic] = partitions
      return { version, assignment, userData: r.bytes() }
    },
  },
}
