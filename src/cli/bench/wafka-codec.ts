import type { Buffer } from 'node:buffer'
import { ATTR_COMPRESSION, ATTR_TRANSACTIONAL } from '../../codec/batch-header.js'
import { loadCodecs } from '../../index.js'
import { crc32c, decodeRecordSet, encodeRecordBatch, type DecodeOptions } from '../../public/codec.js'
import type { DecodedBatch, PeerCodec, PeerEncodeOptions, PeerRecordInput } from './peer-codec.js'

/** wafka itself, behind the same interface as its peers. */

function encode(records: readonly PeerRecordInput[], options: PeerEncodeOptions): Buffer {
  return encodeRecordBatch(records, options)
}

function decode(batch: Buffer): DecodedBatch {
  const { batches } = decodeRecordSet(batch)
  if (batches.length !== 1) throw new Error(`expected one batch, decoded ${batches.length}`)
  const b = batches[0]
  return {
    baseOffset: b.baseOffset,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    transactional: (b.attributes & ATTR_TRANSACTIONAL) !== 0,
    compression: b.attributes & ATTR_COMPRESSION,
    records: b.records.map((r) => ({
      offset: r.offset,
      timestamp: r.timestamp,
      key: r.key,
      value: r.value,
      headers: r.headerList,
    })),
  }
}

/** `options`: e.g. { verifyCrc: false }, to see what checking the CRC costs (the peers never check it). */
export function decodeAndTouch(batch: Buffer, options?: DecodeOptions): number {
  const { batches } = decodeRecordSet(batch, options)
  let bytes = 0
  for (const b of batches) {
    const records = b.records
    for (let i = 0; i < records.length; i++) {
      const r = records[i]
      bytes += (r.key?.length ?? 0) + (r.value?.length ?? 0)
    }
  }
  return bytes
}

export const wafka: PeerCodec = {
  name: 'wafka',
  codecs: ['none', 'gzip', 'snappy', 'lz4', 'zstd'],
  encodes: { emptyBatch: true, nullHeaderValues: true, baseOffset: true },
  headerOrder: 'wire',
  // zstd on runtimes whose node:zlib lacks it is a wasm build loaded on demand.
  load: loadCodecs,
  encode,
  decode,
  decodeAndTouch,
  crc32c: (data) => crc32c(data),
}
