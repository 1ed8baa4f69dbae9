import { Buffer } from 'node:buffer'
import { ATTR_COMPRESSION, ATTR_CONTROL, ATTR_LOG_APPEND_TIME, ATTR_TRANSACTIONAL } from './batch-header.js'
import { bufferView } from './buffer-view.js'
import { codecName, type CompressionName } from './compression.js'
import type { HeaderValue, Headers } from './types.js'

/**
 * A decoded batch. Its records share one index table (copied out of wasm
 * memory once) and one data Buffer; each record materializes its key, value
 * and headers only when read.
 */
export class RecordBatch {
  private _records: KafkaRecord[] | undefined
  /** The index as int32s (over the same memory as `index`). */
  readonly ints: Int32Array
  /** data's memory, read once here rather than per key and value. */
  readonly dataBuffer: ArrayBufferLike
  readonly dataOffset: number

  constructor(
    readonly baseOffset: bigint,
    /** lastOffset - baseOffset; after this batch, fetch from lastOffset + 1. */
    readonly lastOffsetDelta: number,
    readonly partitionLeaderEpoch: number,
    readonly magic: number,
    readonly attributes: number,
    readonly baseTimestamp: number,
    readonly maxTimestamp: number,
    readonly producerId: bigint,
    readonly producerEpoch: number,
    readonly baseSequence: number,
    /** Where keys, values and header bytes live: views into it stay valid. */
    readonly data: Buffer,
    /** Per record: f64 timestamp delta, then i32 offset delta, key off/len, value off/len, header count/first. */
    readonly index: Float64Array,
    readonly headerIndex: Int32Array,
    /** How many records the batch holds. */
    readonly count: number,
  ) {
    this.ints = new Int32Array(index.buffer, index.byteOffset, index.length * 2)
    this.dataBuffer = data.buffer
    this.dataOffset = data.byteOffset
  }

  /** The records, made on first read (a consumer makes its own views instead). */
  get records(): KafkaRecord[] {
    if (this._records === undefined) {
      const n = this.count
      const records = new Array<KafkaRecord>(n)
      for (let i = 0; i < n; i++) records[i] = new KafkaRecord(this, i)
      this._records = records
    }
    return this._records
  }

  get compression(): CompressionName {
    return codecName(this.attributes & ATTR_COMPRESSION)
  }
  get timestampType(): 'CreateTime' | 'LogAppendTime' {
    return this.attributes & ATTR_LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime'
  }
  get isTransactional(): boolean {
    return this.magic === 2 && (this.attributes & ATTR_TRANSACTIONAL) !== 0
  }
  get isControl(): boolean {
    return this.magic === 2 && (this.attributes & ATTR_CONTROL) !== 0
  }
  get lastOffset(): bigint {
    return this.baseOffset + BigInt(this.lastOffsetDelta)
  }
  /** For a control batch: 'ABORT', 'COMMIT', or the numeric type of another marker. */
  get controlType(): 'ABORT' | 'COMMIT' | number | undefined {
    if (!this.isControl || this.records.length === 0) return undefined
    const key = this.records[0].key
    if (!key || key.length < 4) return undefined
    const type = key.readInt16BE(2)
    return type === 0 ? 'ABORT' : type === 1 ? 'COMMIT' : type
  }
}

// Index entry (assembly/layout.ts X_*) in int32 units.
const I32_PER_RECORD = 10
const OFFSET_DELTA = 2

/** The offset of a batch's `i`th record, read from its index without a view (to choose before building one). */
export function recordOffset(batch: RecordBatch, i: number): bigint {
  return batch.baseOffset + BigInt(batch.ints[i * I32_PER_RECORD + OFFSET_DELTA])
}
const KEY = 3
const VALUE = 5
const HEADERS_COUNT = 7
const HEADERS_FIRST = 8

/**
 * One record of a RecordBatch, read in place; see RecordBatch for how its
 * fields are stored. KafkaRecord (offset as bigint) and the consumer's
 * KafkaJS-shaped message (offset as string) are both views of this kind.
 */
export abstract class RecordView {
  private _key: Buffer | null | undefined = undefined
  private _value: Buffer | null | undefined = undefined

  constructor(
    readonly batch: RecordBatch,
    protected readonly i: number,
  ) {}

  get offsetDelta(): number {
    return this.batch.ints[this.i * I32_PER_RECORD + OFFSET_DELTA]
  }

  /** The record's offset as a bigint, whatever the view's `offset` is. */
  get offsetBigInt(): bigint {
    return this.batch.baseOffset + BigInt(this.offsetDelta)
  }

  /** Milliseconds since the epoch (CreateTime, or LogAppendTime for the whole batch). */
  get timestampMs(): number {
    const b = this.batch
    if (b.magic === 2 && b.attributes & ATTR_LOG_APPEND_TIME) return b.maxTimestamp
    return b.baseTimestamp + b.index[this.i * 5]
  }

  get key(): Buffer | null {
    if (this._key === undefined) this._key = this.slice(KEY)
    return this._key
  }

  get value(): Buffer | null {
    if (this._value === undefined) this._value = this.slice(VALUE)
    return this._value
  }

  /** Headers in wire order, repeated keys kept. */
  get headerList(): Array<[string, HeaderValue]> {
    const ints = this.batch.ints
    const base = this.i * I32_PER_RECORD
    const count = ints[base + HEADERS_COUNT]
    const first = ints[base + HEADERS_FIRST]
    const hx = this.batch.headerIndex
    const data = this.batch.data
    const out: Array<[string, HeaderValue]> = new Array(count)
    for (let h = 0; h < count; h++) {
      const e = (first + h) * 4
      const key = data.toString('utf8', hx[e], hx[e] + hx[e + 1])
      const len = hx[e + 3]
      out[h] = [key, len < 0 ? null : bufferView(this.batch.dataBuffer, this.batch.dataOffset + hx[e + 2], len)]
    }
    return out
  }

  /** KafkaJS-shaped headers: a key seen more than once maps to an array. */
  get headers(): Headers {
    const out: Headers = {}
    for (const [k, v] of this.headerList) {
      const prev = out[k]
      if (prev === undefined) out[k] = v
      else if (Array.isArray(prev)) prev.push(v)
      else out[k] = [prev, v]
    }
    return out
  }

  private slice(field: number): Buffer | null {
    const ints = this.batch.ints
    const base = this.i * I32_PER_RECORD + field
    const len = ints[base + 1]
    if (len < 0) return null
    const batch = this.batch
    return bufferView(batch.dataBuffer, batch.dataOffset + batch.ints[base], len)
  }
}

export class KafkaRecord extends RecordView {
  get offset(): bigint {
    return this.offsetBigInt
  }

  get timestamp(): number {
    return this.timestampMs
  }

  toJSON(): object {
    return { offset: String(this.offset), timestamp: this.timestamp, key: this.key, value: this.value, headers: this.headers }
  }
}
