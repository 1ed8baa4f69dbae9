import type { Buffer } from 'node:buffer'
import type { CompressionType } from './compression.js'

/** Key, value and header value input: strings are written as UTF-8. */
export type Bytes = string | Uint8Array | null | undefined

/** KafkaJS-style headers; a repeated key takes an array. Or ordered [key, value] pairs. */
export type HeadersInput = Record<string, Bytes | Bytes[]> | ReadonlyArray<readonly [string, Bytes]>

export interface RecordInput {
  key?: Bytes
  value: Bytes
  headers?: HeadersInput
  /** Milliseconds since the epoch (number, numeric string, bigint or Date); default: now. */
  timestamp?: number | string | bigint | Date
}

export interface EncodeOptions {
  compression?: CompressionType
  /** Codec level (gzip 1-9, zstd 1-22); the codec's default otherwise. */
  compressionLevel?: number
  baseOffset?: bigint | number
  partitionLeaderEpoch?: number
  producerId?: bigint | number
  producerEpoch?: number
  baseSequence?: number
  transactional?: boolean
  /** A control batch (transaction marker); producers never set this. */
  control?: boolean
  /** The timestamp of records that have none (default: now). */
  defaultTimestamp?: number
  /** LogAppendTime: the broker's time stamps every record (maxTimestamp). */
  logAppendTime?: number
  /**
   * Each record's offset delta, increasing (default 0..n-1): a compacted
   * batch keeps its surviving records' offsets, with gaps between them.
   */
  offsetDeltas?: readonly number[]
  /** The batch's last offset delta (default the last record's): compaction keeps the original extent. */
  lastOffsetDelta?: number
  /** KIP-534: the time after which the cleaner may drop this batch's tombstones and markers (stored as the base timestamp). */
  deleteHorizonMs?: number
}

export interface DecodeOptions {
  /** Check each batch's CRC (default true). */
  verifyCrc?: boolean
  /** Refuse a batch that decompresses to more than this (default 64 MiB). */
  maxDecompressedBytes?: number
}

export type HeaderValue = Buffer | null
/** Decoded headers, KafkaJS-shaped: a key seen more than once maps to an array. */
export type Headers = Record<string, HeaderValue | HeaderValue[]>
