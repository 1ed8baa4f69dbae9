import { Buffer } from 'node:buffer'
import { copyBytes, writeUtf8 } from './byte-copy.js'
import { headerEntries, timestampOf } from './record-input.js'
import type { Bytes, RecordInput } from './types.js'

/**
 * Records copied into one buffer as they are appended, for the encoder to
 * move into wasm memory in a single copy. Copying at append time reads each
 * send's messages in the order they were made, while they are in cache; at
 * encode time a partition's batch holds every n-th of them, and reading
 * those from cold memory was a fifth of a producer's CPU.
 *
 * A stage is reused batch after batch (reset), so it allocates nothing once
 * it has grown to the batch size.
 */
export class RecordStage {
  data: Buffer
  used = 0
  count = 0
  /** Per record (6 ints): key offset, key length (-1: null), value offset, value length, first header, header count. */
  records: Int32Array
  /** Per record: its timestamp (ms), NaN when it has none (the batch's default applies). */
  timestamps: Float64Array
  /** Per header (4 ints): key offset, key length, value offset, value length (-1: null). */
  headers: Int32Array
  headerCount = 0

  constructor(bytes: number, records = 128) {
    this.data = Buffer.allocUnsafe(Math.max(bytes, 64))
    this.records = new Int32Array(records * 6)
    this.timestamps = new Float64Array(records)
    this.headers = new Int32Array(0)
  }

  reset(): void {
    this.used = 0
    this.count = 0
    this.headerCount = 0
  }

  /**
   * Stages a record. False, with nothing of it staged, when it is not one
   * the stage takes (a bad timestamp, header key or byte type): the caller
   * encodes from the records instead, which reports it as before.
   */
  add(r: RecordInput): boolean {
    let ts = NaN
    if (r.timestamp !== undefined && r.timestamp !== null) {
      ts = timestampOf(r.timestamp)
      if (!Number.isSafeInteger(ts)) return false
    }
    const n = this.count
    if (n === this.timestamps.length) this.growRecords()
    const used = this.used
    const headerCount = this.headerCount
    const d = n * 6
    const rec = this.records
    rec[d] = this.used
    const kl = this.put(r.key)
    rec[d + 1] = kl
    rec[d + 2] = this.used
    const vl = this.put(r.value)
    rec[d + 3] = vl
    rec[d + 4] = headerCount
    rec[d + 5] = 0
    if (kl === -2 || vl === -2) return this.undo(used, headerCount)
    if (r.headers !== undefined && r.headers !== null) {
      const hs = headerEntries(r.headers)!
      for (let i = 0; i < hs.length; i++) {
        const [k, v] = hs[i]
        if (typeof k !== 'string') return this.undo(used, headerCount)
        if (this.headerCount * 4 === this.headers.length) this.growHeaders()
        const e = this.headerCount * 4
        const h = this.headers
        h[e] = this.used
        h[e + 1] = this.put(k)
        h[e + 2] = this.used
        const hvl = this.put(v)
        if (hvl === -2) return this.undo(used, headerCount)
        h[e + 3] = hvl
        this.headerCount++
      }
      rec[d + 5] = this.headerCount - headerCount
    }
    this.timestamps[n] = ts
    this.count = n + 1
    return true
  }

  private undo(used: number, headerCount: number): false {
    this.used = used
    this.headerCount = headerCount
    return false
  }

  /** Copies bytes at the end; their length, -1 for null, -2 for what is not bytes. */
  private put(v: Bytes): number {
    if (v === null || v === undefined) return -1
    if (typeof v === 'string') {
      this.ensure(v.length * 3)
      const len = writeUtf8(this.data, this.used, v)
      this.used += len
      return len
    }
    if (!(v instanceof Uint8Array)) return -2
    const n = v.length
    this.ensure(n)
    copyBytes(this.data, this.used, v)
    this.used += n
    return n
  }

  private ensure(n: number): void {
    const need = this.used + n
    if (need <= this.data.length) return
    const grown = Buffer.allocUnsafe(Math.max(need, this.data.length * 2))
    grown.set(this.data.subarray(0, this.used))
    this.data = grown
  }

  private growRecords(): void {
    const records = new Int32Array(this.records.length * 2)
    records.set(this.records)
    this.records = records
    const timestamps = new Float64Array(this.timestamps.length * 2)
    timestamps.set(this.timestamps)
    this.timestamps = timestamps
  }

  private growHeaders(): void {
    const headers = new Int32Array(Math.max(64, this.headers.length * 2))
    headers.set(this.headers)
    this.headers = headers
  }
}
