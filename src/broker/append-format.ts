import { Buffer } from 'node:buffer'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { encodeRecordBatch } from '../codec/batch-encoder.js'
import { ATTR_LOG_APPEND_TIME, sealBatchCrc } from '../codec/batch-header.js'
import { Compression, codecName } from '../codec/compression.js'
import { B_ATTRIBUTES, B_MAX_TIMESTAMP } from '../codec/layout.js'
import type { RecordInput } from '../codec/types.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { TopicImage } from './controller.js'
import { readBatchHeader, type BatchHeader } from './record-batch.js'
import { topicConfig } from './topic-configs.js'
import { BrokerError } from './broker-error.js'
import { storedCopy } from './stored-copy.js'

/** A produced batch as the log stores it: bytes of its own, their header, and the LogAppendTime stamped (-1 under CreateTime). */
export interface AppendForm {
  bytes: Buffer
  header: BatchHeader
  logAppendTime: number
}

/** compression.type's codec id, or -1 for `producer` (the batch keeps its own). */
function topicCodec(t: TopicImage): number {
  const type = topicConfig(t, 'compression.type')
  if (type === 'producer') return -1
  return type === 'uncompressed' ? Compression.none : Compression[type as keyof typeof Compression]
}

/** The topic's level for `codec` (KIP-390's compression.gzip.level, compression.zstd.level), or the codec's default. */
function topicLevel(t: TopicImage, codec: number): number | undefined {
  const level =
    codec === Compression.gzip
      ? Number(topicConfig(t, 'compression.gzip.level'))
      : codec === Compression.zstd
        ? Number(topicConfig(t, 'compression.zstd.level'))
        : undefined
  // gzip's -1 is zlib's default level.
  return level === -1 && codec === Compression.gzip ? undefined : level
}

/**
 * What a topic's compression.type and message.timestamp.type make of a
 * validated produced batch, as Kafka's LogValidator on the leader: a batch
 * in another codec than the topic's is re-encoded in it (records, their
 * timestamps, producer id, epoch, sequence and transactional flag kept;
 * offsets consecutive; at the topic's gzip or zstd level), and must still
 * fit max.message.bytes; under
 * LogAppendTime the batch's timestamp type bit is set and its max timestamp
 * is `now` (in place, with the CRC sealed again, when the codec stays).
 * Returns a copy either way: the request's buffer belongs to the socket.
 */
export function appendForm(records: Buffer, header: BatchHeader, t: TopicImage, maxMessageBytes: number, now = Date.now()): AppendForm {
  const logAppendTime = topicConfig(t, 'message.timestamp.type') === 'LogAppendTime' ? now : -1
  const codec = topicCodec(t)
  if (codec < 0 || codec === header.compression) {
    const bytes = storedCopy(records)
    if (logAppendTime < 0) return { bytes, header, logAppendTime }
    bytes.writeInt16BE(bytes.readInt16BE(B_ATTRIBUTES) | ATTR_LOG_APPEND_TIME, B_ATTRIBUTES)
    bytes.writeBigInt64BE(BigInt(logAppendTime), B_MAX_TIMESTAMP)
    sealBatchCrc(bytes)
    return { bytes, header: { ...header, maxTimestamp: logAppendTime }, logAppendTime }
  }
  // The CRC was checked when the batch was validated.
  const batch = decodeRecordSet(records, { verifyCrc: false }).batches[0]
  const inputs: RecordInput[] = batch.records.map((r) => ({ key: r.key, value: r.value, headers: r.headerList, timestamp: r.timestamp }))
  const bytes = encodeRecordBatch(inputs, {
    compression: codecName(codec),
    compressionLevel: topicLevel(t, codec),
    producerId: header.producerId,
    producerEpoch: header.producerEpoch,
    baseSequence: header.baseSequence,
    transactional: header.transactional,
    logAppendTime: logAppendTime < 0 ? undefined : logAppendTime,
  })
  if (bytes.length > maxMessageBytes) {
    throw new BrokerError(
      ErrorCodes.MESSAGE_TOO_LARGE,
      `the record batch is ${bytes.length} bytes in ${codecName(codec)}, larger than max.message.bytes (${maxMessageBytes})`,
    )
  }
  return { bytes, header: readBatchHeader(bytes), logAppendTime }
}
