import type { Buffer } from 'node:buffer'
import { crc32c } from './crc.js'
import {
  B_ATTRIBUTES,
  B_BASE_OFFSET,
  B_BASE_SEQUENCE,
  B_BASE_TIMESTAMP,
  B_COUNT,
  B_CRC,
  B_LAST_OFFSET_DELTA,
  B_LEADER_EPOCH,
  B_LENGTH,
  B_MAGIC,
  B_MAX_TIMESTAMP,
  B_PRODUCER_EPOCH,
  B_PRODUCER_ID,
  B_RECORDS,
} from './layout.js'

/**
 * The one reading of a record batch's header, for every walk of stored or
 * fetched bytes that needs a field without decoding the batch: each function
 * reads one field of the batch starting at byte `at` of `b`, in place, so a
 * walk over many batches makes no object per batch. The offsets are
 * layout.ts's; the field names are Kafka's (DefaultRecordBatch).
 *
 * baseOffset, batchLength and magic sit at the same place in a legacy
 * (v0/v1) message's entry; every other field is v2 only.
 */

/** Attribute bits of a v2 batch. */
export const ATTR_COMPRESSION = 0x07
export const ATTR_LOG_APPEND_TIME = 0x08
export const ATTR_TRANSACTIONAL = 0x10
export const ATTR_CONTROL = 0x20
/** KIP-534: the base timestamp is the batch's delete horizon. */
export const ATTR_DELETE_HORIZON = 0x40

/** The bytes batchLength does not count: baseOffset and batchLength itself (Kafka's LOG_OVERHEAD). */
export const LOG_OVERHEAD = B_LEADER_EPOCH
/** The shortest entry worth reading (through its magic byte): shorter ones end a walk. */
const MIN_ENTRY = B_MAGIC + 1

export function batchBaseOffset(b: Buffer, at = 0): bigint {
  return b.readBigInt64BE(at + B_BASE_OFFSET)
}
/**
 * The base offset as a number, as the broker keeps offsets: from its two
 * halves, no BigInt made (walks read it per batch); the same value as
 * Number(batchBaseOffset), rounded once past 2^53 as that is.
 */
export function batchBaseOffsetNumber(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_BASE_OFFSET) * 0x1_0000_0000 + b.readUInt32BE(at + B_BASE_OFFSET + 4)
}
/** The batchLength field: the bytes after it. */
export function batchLength(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_LENGTH)
}
/** The whole batch's size in bytes, its first 12 included. */
export function batchSize(b: Buffer, at = 0): number {
  return LOG_OVERHEAD + b.readInt32BE(at + B_LENGTH)
}
export function batchLeaderEpoch(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_LEADER_EPOCH)
}
export function batchMagic(b: Buffer, at = 0): number {
  return b.readInt8(at + B_MAGIC)
}
export function batchCrc(b: Buffer, at = 0): number {
  return b.readUInt32BE(at + B_CRC)
}
export function batchAttributes(b: Buffer, at = 0): number {
  return b.readInt16BE(at + B_ATTRIBUTES)
}
/** The codec id (CODEC_* in layout.ts). */
export function batchCompression(b: Buffer, at = 0): number {
  return batchAttributes(b, at) & ATTR_COMPRESSION
}
export function batchTimestampType(b: Buffer, at = 0): 'CreateTime' | 'LogAppendTime' {
  return batchAttributes(b, at) & ATTR_LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime'
}
export function isTransactionalBatch(b: Buffer, at = 0): boolean {
  return (batchAttributes(b, at) & ATTR_TRANSACTIONAL) !== 0
}
export function isControlBatch(b: Buffer, at = 0): boolean {
  return (batchAttributes(b, at) & ATTR_CONTROL) !== 0
}
export function batchHasDeleteHorizon(b: Buffer, at = 0): boolean {
  return (batchAttributes(b, at) & ATTR_DELETE_HORIZON) !== 0
}
export function batchLastOffsetDelta(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_LAST_OFFSET_DELTA)
}
export function batchBaseTimestamp(b: Buffer, at = 0): number {
  return Number(b.readBigInt64BE(at + B_BASE_TIMESTAMP))
}
export function batchMaxTimestamp(b: Buffer, at = 0): number {
  return Number(b.readBigInt64BE(at + B_MAX_TIMESTAMP))
}
export function batchProducerId(b: Buffer, at = 0): bigint {
  return b.readBigInt64BE(at + B_PRODUCER_ID)
}
export function batchProducerEpoch(b: Buffer, at = 0): number {
  return b.readInt16BE(at + B_PRODUCER_EPOCH)
}
export function batchBaseSequence(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_BASE_SEQUENCE)
}
export function batchRecordCount(b: Buffer, at = 0): number {
  return b.readInt32BE(at + B_COUNT)
}
/** baseOffset + lastOffsetDelta: the next batch starts after it. */
export function batchLastOffset(b: Buffer, at = 0): bigint {
  return b.readBigInt64BE(at + B_BASE_OFFSET) + BigInt(b.readInt32BE(at + B_LAST_OFFSET_DELTA))
}
/** The last offset as a number, as the broker keeps offsets. */
export function batchLastOffsetNumber(b: Buffer, at = 0): number {
  return batchBaseOffsetNumber(b, at) + b.readInt32BE(at + B_LAST_OFFSET_DELTA)
}

/** Whether the CRC-32C of the whole batch at `at` (attributes to its end) is the one its header holds. */
export function batchCrcMatches(b: Buffer, at = 0): boolean {
  return crc32c(b.subarray(at + B_ATTRIBUTES, at + batchSize(b, at))) === b.readUInt32BE(at + B_CRC)
}

/** Writes the CRC-32C of the whole batch at `at` (attributes to its end) into its header, after a field under it changed. */
export function sealBatchCrc(b: Buffer, at = 0): void {
  b.writeUInt32BE(crc32c(b.subarray(at + B_ATTRIBUTES, at + batchSize(b, at))), at + B_CRC)
}

/** Why a BatchWalker stopped. */
export type WalkStop =
  /** Every byte was walked. */
  | 'end'
  /** The entry at `end` is cut short: it claims more bytes than are left (or its size is not all there). */
  | 'truncated'
  /** The entry at `end` is too short to be one (a size under its header's): nothing after it is trusted. */
  | 'malformed'

/**
 * Walks the entries of a record set (v2 batches, or legacy messages: both
 * begin with an offset and a size) from their headers alone: no decode, no
 * CRC. One walker is reused walk after walk, so a walk makes no object:
 *
 *   walker.start(records)
 *   while (walker.next()) use(records, walker.at, walker.size)
 *
 * It stops at the first entry that is not whole, and says where (`end`)
 * and why (`stopped`); the decoder reports a bad entry when it is read.
 */
export class BatchWalker {
  private bytes: Buffer | undefined
  /** The current entry's first byte. */
  at = 0
  /** The current entry's size, its first 12 bytes included. */
  size = 0
  /** After the current entry; once next() is false, where the walk stopped (the whole entries end there). */
  end = 0
  /** Once next() is false: why. */
  stopped: WalkStop = 'end'
  /** Once next() is false on a truncated entry: the size it claims (0 when its size is not all there). */
  claimed = 0

  /** Starts a walk over `bytes` at `from`. */
  start(bytes: Buffer, from = 0): this {
    this.bytes = bytes
    this.at = from
    this.size = 0
    this.end = from
    this.stopped = 'end'
    this.claimed = 0
    return this
  }

  /** Moves to the next whole entry; false when there is none (see `end` and `stopped`). */
  next(): boolean {
    const b = this.bytes
    if (b === undefined) return false
    const at = this.end
    if (at >= b.length) return this.stop('end')
    if (at + LOG_OVERHEAD > b.length) return this.stop('truncated')
    const size = LOG_OVERHEAD + b.readInt32BE(at + B_LENGTH)
    if (size < MIN_ENTRY) return this.stop('malformed')
    if (at + size > b.length) {
      this.claimed = size
      return this.stop('truncated')
    }
    if (size < B_RECORDS && b[at + B_MAGIC] === 2) return this.stop('malformed')
    this.at = at
    this.size = size
    this.end = at + size
    return true
  }

  private stop(why: WalkStop): false {
    this.stopped = why
    // A shared walker would otherwise keep the last record set alive.
    this.bytes = undefined
    return false
  }
}
