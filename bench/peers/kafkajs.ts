import type { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import type { CompressionName } from '../../src/index.js'
import { optional } from '../support/runtime.js'
import { groupHeaders, headerEntries, timestampMillis, toBufferOrString, ungroupHeaders } from './bytes.js'
import type { DecodedBatch, PeerCodec, PeerEncodeOptions, PeerRecordInput } from './types.js'

/**
 * KafkaJS 2.2.4's own record-batch codec (src/protocol/recordBatch), driven
 * the way its Produce v3+ request and Fetch v4+ response drive it. KafkaJS
 * ships gzip; lz4 and snappy come from the codec packages its docs point to
 * (kafkajs-lz4 on the native `lz4` module, kafkajs-snappy on snappyjs),
 * registered the documented way. Its zstd codec (@kafkajs/zstd) needs a
 * native zstd build and is not installed, so zstd is not compared.
 */

// KafkaJS has no ESM entry points for its internals; load them as CommonJS.
const require = createRequire(import.meta.url)
const Long = require('kafkajs/src/utils/long')
const Decoder = require('kafkajs/src/protocol/decoder')
const Record = require('kafkajs/src/protocol/recordBatch/record/v0')
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0')
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder')
const kafkajsCrc32c: (data: Uint8Array) => number = require('kafkajs/src/protocol/recordBatch/crc32C')
const { CompressionTypes, CompressionCodecs } = require('kafkajs')
const SnappyCodec = require('kafkajs-snappy')

CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec
// kafkajs-lz4 sits on the `lz4` package, a pre-Node-API native addon that Bun
// and Deno cannot load: there KafkaJS has no LZ4 (the run's notes say why).
const lz4Codec = optional('KafkaJS LZ4 (kafkajs-lz4 on the native `lz4` addon)', () => {
  const LZ4Codec = require('kafkajs-lz4')
  return new LZ4Codec().codec
})
if (lz4Codec) CompressionCodecs[CompressionTypes.LZ4] = lz4Codec

const codecTypes: Record<CompressionName, number> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
}

interface KafkaJSRecord {
  offset: string
  timestamp: string
  key: Buffer | null
  value: Buffer | null
  headers: Record<string, Buffer | null | Array<Buffer | null>>
}

interface KafkaJSBatch {
  firstOffset: string
  producerId: string
  producerEpoch: number
  firstSequence: number
  inTransaction: boolean
  records: KafkaJSRecord[]
}

/** KafkaJS takes headers as an object; pairs (wafka's ordered form) are grouped into one. */
function kafkajsHeaders(headers: PeerRecordInput['headers']): object | undefined {
  if (headers === undefined || !Array.isArray(headers)) return headers
  return groupHeaders(headerEntries(headers))
}

async function encode(records: readonly PeerRecordInput[], options: PeerEncodeOptions): Promise<Buffer> {
  // As KafkaJS's Produce request does: the earliest timestamp is the batch's
  // first, every record's delta is taken from it.
  const now = Date.now()
  const timestamps = new Array<number>(records.length)
  let firstTimestamp = records.length === 0 ? now : Infinity
  let maxTimestamp = records.length === 0 ? now : -Infinity
  for (let i = 0; i < records.length; i++) {
    const ts = timestampMillis(records[i].timestamp, now)
    timestamps[i] = ts
    if (ts < firstTimestamp) firstTimestamp = ts
    if (ts > maxTimestamp) maxTimestamp = ts
  }
  const encoded = new Array(records.length)
  for (let i = 0; i < records.length; i++) {
    const r = records[i]
    encoded[i] = Record({
      key: toBufferOrString(r.key),
      value: toBufferOrString(r.value),
      headers: kafkajsHeaders(r.headers),
      offsetDelta: i,
      timestampDelta: timestamps[i] - firstTimestamp,
    })
  }
  const batch = await RecordBatch({
    compression: codecTypes[options.compression],
    firstOffset: Long.fromValue(options.baseOffset ?? 0n),
    firstTimestamp,
    maxTimestamp,
    producerId: Long.fromValue(options.producerId ?? -1n),
    producerEpoch: options.producerEpoch ?? 0,
    firstSequence: options.baseSequence ?? 0,
    transactional: options.transactional ?? false,
    lastOffsetDelta: records.length - 1,
    records: encoded,
  })
  return batch.buffer
}

function decodeNative(batch: Buffer): Promise<KafkaJSBatch> {
  return decodeRecordBatch(new Decoder(batch))
}

async function decode(batch: Buffer): Promise<DecodedBatch> {
  const b = await decodeNative(batch)
  return {
    baseOffset: BigInt(b.firstOffset),
    producerId: BigInt(b.producerId),
    producerEpoch: b.producerEpoch,
    baseSequence: b.firstSequence,
    transactional: b.inTransaction,
    // KafkaJS's decoder does not report the codec.
    compression: undefined,
    records: b.records.map((r) => ({
      offset: BigInt(r.offset),
      timestamp: Number(r.timestamp),
      key: r.key,
      value: r.value,
      headers: ungroupHeaders(r.headers),
    })),
  }
}

async function decodeAndTouch(batch: Buffer): Promise<number> {
  const { records } = await decodeNative(batch)
  let bytes = 0
  for (let i = 0; i < records.length; i++) {
    const r = records[i]
    bytes += (r.key?.length ?? 0) + (r.value?.length ?? 0)
  }
  return bytes
}

export const crc32c = kafkajsCrc32c
export { encode, decode, decodeAndTouch }

export const kafkajs: PeerCodec = {
  name: 'KafkaJS',
  codecs: lz4Codec ? ['none', 'gzip', 'snappy', 'lz4'] : ['none', 'gzip', 'snappy'],
  encodes: {
    emptyBatch: true,
    // Record sizing calls Buffer.byteLength(value) before checking for null,
    // so a null header value throws.
    nullHeaderValues: false,
    baseOffset: true,
  },
  headerOrder: 'grouped',
  load: async () => {},
  encode,
  decode,
  decodeAndTouch,
  crc32c,
}
