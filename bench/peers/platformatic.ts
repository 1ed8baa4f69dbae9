import { Buffer } from 'node:buffer'
import * as v1 from '@platformatic/kafka'
import type { MessageRecord } from '@platformatic/kafka'
import * as v2 from 'platformatic-kafka-2'
import { crc32c as wasmCrc32c } from '@platformatic/wasm-utils'
import { headerEntries, timestampMillis, toBuffer } from './bytes.js'
import type { DecodedBatch, PeerCodec, PeerEncodeOptions, PeerRecordInput } from './types.js'

/**
 * @platformatic/kafka's own record-batch codec (createRecordsBatch and
 * readRecordsBatch from its protocol/records module), fed the way its
 * Producer feeds it: 1.35 (`platformatic`) and 2.12 (`platformatic2`,
 * installed as the npm alias platformatic-kafka-2), whose record codecs have
 * the same API. Its lz4, snappy and CRC-32C are Rust compiled to wasm
 * (@platformatic/wasm-utils); gzip and zstd come from node:zlib, so zstd
 * exists only where node:zlib has it (Node >= 22.15, Bun, Deno).
 */

/** What the benchmark uses of either version. */
type Library = Pick<typeof v1, 'compressionsAlgorithms' | 'createRecordsBatch' | 'NumericMap' | 'readRecordsBatch' | 'Reader'>

const TRANSACTIONAL = 0x10
const CODEC_BITS = 0x07
/** Its producer tags each message with its topic and partition; the batch encoder reads them for sequences. */
const TOPIC = 'bench'
const PARTITION = 0

interface PlatformaticRecord {
  offsetDelta: number
  timestampDelta: bigint
  key: Buffer | null
  value: Buffer | null
  headers: Array<[Buffer | null, Buffer | null]>
}

interface PlatformaticBatch {
  firstOffset: bigint
  attributes: number
  firstTimestamp: bigint
  producerId: bigint
  producerEpoch: number
  firstSequence: number
  records: PlatformaticRecord[]
}

/**
 * Its own CRC-32C (Rust, wasm). Note: when the optional @node-rs/crc32 is
 * installed, as it is here, the library picks that native one instead; that
 * is `crc32cAsInstalled`.
 */
export const crc32c: (data: Uint8Array) => number = wasmCrc32c
export const crc32cAsInstalled = v1.crc32c

function peer(name: string, lib: Library): PeerCodec {
  const codecs = (['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const).filter(
    (name) => (lib.compressionsAlgorithms as Record<string, { available: boolean }>)[name]?.available,
  )

  function encode(records: readonly PeerRecordInput[], options: PeerEncodeOptions): Buffer {
    // What its Producer does before encoding: serialize keys, values and
    // headers to Buffers (its string serializer is Buffer.from), headers into a
    // Map. Distinct Buffer objects are distinct Map keys, so a repeated header
    // key is kept.
    const now = Date.now()
    const messages = new Array<MessageRecord>(records.length)
    for (let i = 0; i < records.length; i++) {
      const r = records[i]
      const headers = new Map<Buffer, Buffer>()
      if (r.headers !== undefined) {
        // A null header value is written as null (length -1), which its Map type does not show.
        for (const [k, v] of headerEntries(r.headers)) headers.set(Buffer.from(k, 'utf8'), toBuffer(v) as Buffer)
      }
      messages[i] = {
        key: toBuffer(r.key) ?? undefined,
        value: toBuffer(r.value) as Buffer,
        headers,
        topic: TOPIC,
        partition: PARTITION,
        timestamp: BigInt(timestampMillis(r.timestamp, now)),
      }
    }
    const writer = lib.createRecordsBatch(messages, {
      compression: options.compression,
      producerId: options.producerId ?? -1n,
      producerEpoch: options.producerEpoch ?? 0,
      // Its producer keeps each partition's next sequence in this map.
      sequences: options.baseSequence === undefined ? undefined : new lib.NumericMap([[`${TOPIC}:${PARTITION}`, options.baseSequence]]),
      // Only the flag matters to the batch encoder.
      transactionalId: options.transactional ? 'wafka-bench' : undefined,
    })
    return writer.buffer
  }

  function decodeNative(batch: Buffer): PlatformaticBatch {
    return lib.readRecordsBatch(lib.Reader.from(batch)) as unknown as PlatformaticBatch
  }

  function decode(batch: Buffer): DecodedBatch {
    const b = decodeNative(batch)
    return {
      baseOffset: b.firstOffset,
      producerId: b.producerId,
      producerEpoch: b.producerEpoch,
      baseSequence: b.firstSequence,
      transactional: (b.attributes & TRANSACTIONAL) !== 0,
      compression: b.attributes & CODEC_BITS,
      records: b.records.map((r) => ({
        offset: b.firstOffset + BigInt(r.offsetDelta),
        timestamp: Number(b.firstTimestamp + r.timestampDelta),
        key: r.key,
        value: r.value,
        headers: r.headers.map(([k, v]) => [k === null ? '' : k.toString('utf8'), v] as [string, Buffer | null]),
      })),
    }
  }

  function decodeAndTouch(batch: Buffer): number {
    const { records } = decodeNative(batch)
    let bytes = 0
    for (let i = 0; i < records.length; i++) {
      const r = records[i]
      bytes += (r.key?.length ?? 0) + (r.value?.length ?? 0)
    }
    return bytes
  }

  return {
    name,
    codecs,
    encodes: {
      // createRecordsBatch reads messages[0].timestamp unconditionally.
      emptyBatch: false,
      nullHeaderValues: true,
      // It always writes base offset 0, as a producer does.
      baseOffset: false,
    },
    headerOrder: 'wire',
    load: async () => {},
    encode,
    decode,
    decodeAndTouch,
    crc32c,
  }
}

export const platformatic = peer('@platformatic/kafka', v1)
export const platformatic2 = peer('@platformatic/kafka 2', v2 as unknown as Library)
