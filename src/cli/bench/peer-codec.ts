import type { Buffer } from 'node:buffer'
import type { CompressionName } from '../../index.js'
import type { RecordInput } from '../../public/codec.js'

/**
 * The one shape every codec under comparison is driven through, so tests and
 * benchmarks hold wafka and its peers to the same inputs and outputs.
 */

/** Input records are wafka-shaped: { key, value, headers, timestamp }. */
export type PeerRecordInput = RecordInput

export interface PeerEncodeOptions {
  compression: CompressionName
  baseOffset?: bigint
  producerId?: bigint
  producerEpoch?: number
  baseSequence?: number
  transactional?: boolean
}

/** A header as it went over the wire: key as text, value as bytes or null. */
export type HeaderPair = [key: string, value: Buffer | null]

export interface DecodedRecord {
  offset: bigint
  timestamp: number
  key: Buffer | null
  value: Buffer | null
  /** In the order the decoder gives them; see PeerCodec.headerOrder. */
  headers: HeaderPair[]
}

export interface DecodedBatch {
  baseOffset: bigint
  producerId: bigint
  producerEpoch: number
  baseSequence: number
  transactional: boolean
  /** Kafka's codec id (attribute bits 0-2), when the decoder reports it. */
  compression?: number
  records: DecodedRecord[]
}

export interface PeerCodec {
  name: string
  /** Codecs it both encodes and decodes on this runtime. */
  codecs: readonly CompressionName[]
  /** What its encoder can express; inputs outside this are not given to it. */
  encodes: {
    emptyBatch: boolean
    nullHeaderValues: boolean
    /** Can it write a chosen base offset (a producer never needs to)? */
    baseOffset: boolean
  }
  /**
   * 'wire': headers come out in wire order. 'grouped': the library keeps
   * headers in a KafkaJS-style object, so repeats of a key sit together and
   * keys follow JavaScript's property order (integer-like keys first), both
   * when it encodes and when it decodes.
   */
  headerOrder: 'wire' | 'grouped'
  /** Loads codecs whose setup is asynchronous. */
  load(): Promise<void>
  /** One RecordBatch v2 from JS objects, as a finished Buffer. */
  encode(records: readonly PeerRecordInput[], options: PeerEncodeOptions): Buffer | Promise<Buffer>
  /** One RecordBatch v2 into the common shape (for comparisons, not for timing). */
  decode(batch: Buffer): DecodedBatch | Promise<DecodedBatch>
  /**
   * Decodes with the library's own decoder and reads `.key` and `.value` of
   * every record, the least a consumer does; returns the bytes seen so the
   * work cannot be optimized away. This is what the decode benchmark times.
   */
  decodeAndTouch(batch: Buffer): number | Promise<number>
  /** The CRC-32C implementation the library uses for record batches. */
  crc32c(data: Uint8Array): number
}
