import type { Buffer } from 'node:buffer'
import {
  batchBaseSequence,
  batchBaseTimestamp,
  batchCompression,
  batchCrcMatches,
  batchLastOffsetDelta,
  batchMagic,
  batchMaxTimestamp,
  batchProducerEpoch,
  batchProducerId,
  batchRecordCount,
  batchSize,
  isControlBatch,
  isTransactionalBatch,
} from '../codec/batch-header.js'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { B_BASE_OFFSET, B_LEADER_EPOCH, B_RECORDS, CODEC_ZSTD } from '../codec/layout.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { BrokerError } from './broker-error.js'

/** The header fields of a v2 record batch the broker acts on; the records stay as bytes. */
export interface BatchHeader {
  count: number
  lastOffsetDelta: number
  firstTimestamp: number
  maxTimestamp: number
  producerId: bigint
  producerEpoch: number
  baseSequence: number
  transactional: boolean
  control: boolean
  compression: number
}

/**
 * Validates the records of one produced partition as Kafka does for
 * Produce v3+: exactly one v2 batch, whole, with a CRC-32C that matches,
 * no control batch from a client, a record count its offsets agree with.
 * Returns its header; throws BrokerError with Kafka's code otherwise.
 */
export function validateProducedBatch(records: Buffer | null, maxMessageBytes: number): BatchHeader {
  if (records === null || records.length === 0) throw new BrokerError(ErrorCodes.INVALID_RECORD, 'the produce request has no record batch')
  if (records.length < B_RECORDS)
    throw new BrokerError(ErrorCodes.CORRUPT_MESSAGE, `a record batch of ${records.length} bytes is shorter than its header`)
  const size = batchSize(records)
  if (size > maxMessageBytes) {
    throw new BrokerError(
      ErrorCodes.MESSAGE_TOO_LARGE,
      `the record batch is ${size} bytes, larger than max.message.bytes (${maxMessageBytes})`,
    )
  }
  if (size < B_RECORDS || size > records.length) {
    throw new BrokerError(ErrorCodes.CORRUPT_MESSAGE, `the record batch says it is ${size} bytes, but ${records.length} were sent`)
  }
  if (size < records.length) {
    throw new BrokerError(
      ErrorCodes.INVALID_RECORD,
      'Produce requests with version 3+ are only allowed to contain exactly one record batch',
    )
  }
  const magic = batchMagic(records)
  if (magic !== 2) throw new BrokerError(ErrorCodes.INVALID_RECORD, `record batch magic ${magic}: Produce v3+ carries only magic 2 batches`)
  if (!batchCrcMatches(records)) {
    throw new BrokerError(ErrorCodes.CORRUPT_MESSAGE, 'the record batch CRC does not match its contents')
  }
  const header = readBatchHeader(records)
  if (header.control) throw new BrokerError(ErrorCodes.INVALID_RECORD, 'clients may not write control batches')
  if (header.count < 1 || header.lastOffsetDelta !== header.count - 1) {
    throw new BrokerError(ErrorCodes.INVALID_RECORD, `a batch of ${header.count} records with last offset delta ${header.lastOffsetDelta}`)
  }
  if (header.compression > CODEC_ZSTD)
    throw new BrokerError(ErrorCodes.UNSUPPORTED_COMPRESSION_TYPE, `compression type ${header.compression} is unknown`)
  return header
}

export function readBatchHeader(b: Buffer): BatchHeader {
  return {
    count: batchRecordCount(b),
    lastOffsetDelta: batchLastOffsetDelta(b),
    firstTimestamp: batchBaseTimestamp(b),
    maxTimestamp: batchMaxTimestamp(b),
    producerId: batchProducerId(b),
    producerEpoch: batchProducerEpoch(b),
    baseSequence: batchBaseSequence(b),
    transactional: isTransactionalBatch(b),
    control: isControlBatch(b),
    compression: batchCompression(b),
  }
}

/** Sets the fields the leader assigns; neither is under the CRC, so the bytes stay valid. */
export function assignOffsets(b: Buffer, baseOffset: number, leaderEpoch: number): void {
  b.writeBigInt64BE(BigInt(baseOffset), B_BASE_OFFSET)
  b.writeInt32BE(leaderEpoch, B_LEADER_EPOCH)
}

/** Whether a control batch is a COMMIT marker (its one record's key: version int16, type int16, 1 = commit). */
export function isCommitMarker(b: Buffer): boolean {
  const r = decodeRecordSet(b).batches[0]?.records[0]
  return r?.key != null && r.key.length >= 4 && r.key.readInt16BE(2) === 1
}
