import { Buffer } from 'node:buffer'
import { type Bytes } from '../../src/index.js'
import { Compression, type RecordInput } from '../../src/public/codec.js'
import { groupedOrder, headerEntries, timestampMillis, toBuffer } from '../../bench/peers/bytes.js'
import type { DecodedBatch, HeaderPair, PeerEncodeOptions } from '../../bench/peers/types.js'

/** What a batch must decode to, derived from the records and options it was encoded from. */
export interface ExpectedBatch {
  baseOffset: bigint
  producerId: bigint
  producerEpoch: number
  baseSequence: number
  transactional: boolean
  compression: number
  records: Array<{ offset: bigint; timestamp: number; key: Buffer | null; value: Buffer | null; headers: HeaderPair[] }>
}

/**
 * @param grouped the encoder or the decoder keeps headers in an object, so
 *   they come out grouped by key in property order (see PeerCodec.headerOrder).
 */
export function expectedBatch(records: readonly RecordInput[], options: PeerEncodeOptions, grouped: boolean): ExpectedBatch {
  const baseOffset = options.baseOffset ?? 0n
  return {
    baseOffset,
    producerId: options.producerId ?? -1n,
    producerEpoch: options.producerEpoch ?? -1,
    baseSequence: options.baseSequence ?? -1,
    transactional: options.transactional ?? false,
    compression: Compression[options.compression],
    records: records.map((r, i) => {
      const pairs = headerEntries(r.headers).map(([k, v]): HeaderPair => [k, toBuffer(v as Bytes)])
      return {
        offset: baseOffset + BigInt(i),
        timestamp: timestampMillis(r.timestamp, NaN),
        key: toBuffer(r.key),
        value: toBuffer(r.value),
        headers: grouped ? groupedOrder(pairs) : pairs,
      }
    }),
  }
}

function describeBytes(b: Buffer | null): string {
  if (b === null) return 'null'
  const head = b.subarray(0, 16).toString('hex')
  return `${b.length} bytes (${head}${b.length > 16 ? '…' : ''})`
}

function bytesDiffer(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a !== b
  return !a.equals(b)
}

/** The first difference between a decoded batch and what it should be, or null when they agree. */
export function batchDifference(actual: DecodedBatch, expected: ExpectedBatch): string | null {
  for (const field of ['baseOffset', 'producerId', 'producerEpoch', 'baseSequence', 'transactional'] as const) {
    if (actual[field] !== expected[field]) return `${field}: got ${actual[field]}, want ${expected[field]}`
  }
  if (actual.compression !== undefined && actual.compression !== expected.compression) {
    return `compression: got ${actual.compression}, want ${expected.compression}`
  }
  if (actual.records.length !== expected.records.length) {
    return `record count: got ${actual.records.length}, want ${expected.records.length}`
  }
  for (let i = 0; i < expected.records.length; i++) {
    const a = actual.records[i]
    const e = expected.records[i]
    const where = `record ${i}`
    if (a.offset !== e.offset) return `${where} offset: got ${a.offset}, want ${e.offset}`
    if (a.timestamp !== e.timestamp) return `${where} timestamp: got ${a.timestamp}, want ${e.timestamp}`
    if (bytesDiffer(a.key, e.key)) return `${where} key: got ${describeBytes(a.key)}, want ${describeBytes(e.key)}`
    if (bytesDiffer(a.value, e.value)) return `${where} value: got ${describeBytes(a.value)}, want ${describeBytes(e.value)}`
    if (a.headers.length !== e.headers.length) return `${where} header count: got ${a.headers.length}, want ${e.headers.length}`
    for (let h = 0; h < e.headers.length; h++) {
      const [ak, av] = a.headers[h]
      const [ek, ev] = e.headers[h]
      // Compared as bytes: equal strings from valid UTF-8 are equal bytes.
      if (ak !== ek) return `${where} header ${h} key: got ${JSON.stringify(ak)}, want ${JSON.stringify(ek)}`
      if (bytesDiffer(av, ev))
        return `${where} header ${h} (${JSON.stringify(ek)}) value: got ${describeBytes(av)}, want ${describeBytes(ev)}`
    }
  }
  return null
}
