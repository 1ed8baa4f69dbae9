import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import {
  BatchWalker,
  LOG_OVERHEAD,
  batchAttributes,
  batchBaseOffset,
  batchBaseOffsetNumber,
  batchBaseSequence,
  batchBaseTimestamp,
  batchCompression,
  batchCrc,
  batchCrcMatches,
  batchHasDeleteHorizon,
  batchLastOffset,
  batchLastOffsetDelta,
  batchLastOffsetNumber,
  batchLeaderEpoch,
  batchLength,
  batchMagic,
  batchMaxTimestamp,
  batchProducerEpoch,
  batchProducerId,
  batchRecordCount,
  batchSize,
  batchTimestampType,
  isControlBatch,
  isTransactionalBatch,
  sealBatchCrc,
} from '../src/codec/batch-header.js'
import { B_LENGTH, B_MAGIC, B_RECORDS } from '../src/codec/layout.js'
import { Compression, crc32c, decodeRecordSet, encodeRecordBatch, restampBatch, type RecordBatch } from '../src/public/codec.js'

/**
 * A record set written by Apache Kafka's own record classes (kafka-clients
 * 4.4.0, test/support/KafkaRecordSet.java): offsets 1000-1002 a transactional
 * uncompressed batch (producer 4242, epoch 7, sequence 100, leader epoch 5);
 * 1003-1004 gzip with LogAppendTime; 1005 a COMMIT marker.
 */
const KAFKA = Buffer.from(
  '00000000000003e8000000570000000502fcc201f40010000000020000018bcfe568000000018bcfe5680500000000000010920007000000640000000314000000046b30047630' +
    '0022000a02046b311276616c7565206f6e650010000604010476320000000000000003eb0000005c000000060297361cc20009000000010000018bcfe56be80000018bcfe58f' +
    '0fffffffffffffffffffffffffffff000000021f8b08000000000000ff93626060604ae449afca2c50486490626062624a82f0921800fa9174371c00000000000000000003ed00' +
    '00004200000006029ed8e8000030000000000000018bcfe58f100000018bcfe58f1000000000000010920007ffffffff000000012000000008000000010c00000000000300',
  'hex',
)

/** Every field the header view reads, at `at`. */
function header(b: Buffer, at = 0) {
  return {
    baseOffset: batchBaseOffset(b, at),
    batchLength: batchLength(b, at),
    size: batchSize(b, at),
    partitionLeaderEpoch: batchLeaderEpoch(b, at),
    magic: batchMagic(b, at),
    crc: batchCrc(b, at),
    attributes: batchAttributes(b, at),
    compression: batchCompression(b, at),
    timestampType: batchTimestampType(b, at),
    isTransactional: isTransactionalBatch(b, at),
    isControl: isControlBatch(b, at),
    hasDeleteHorizon: batchHasDeleteHorizon(b, at),
    lastOffsetDelta: batchLastOffsetDelta(b, at),
    baseTimestamp: batchBaseTimestamp(b, at),
    maxTimestamp: batchMaxTimestamp(b, at),
    producerId: batchProducerId(b, at),
    producerEpoch: batchProducerEpoch(b, at),
    baseSequence: batchBaseSequence(b, at),
    recordCount: batchRecordCount(b, at),
    lastOffset: batchLastOffset(b, at),
  }
}

/** The same fields as the wasm decoder reports them (an independent reading). */
function decoded(b: RecordBatch, size: number, crc: number) {
  return {
    baseOffset: b.baseOffset,
    batchLength: size - LOG_OVERHEAD,
    size,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    magic: b.magic,
    crc,
    attributes: b.attributes,
    compression: Compression[b.compression],
    timestampType: b.timestampType,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    hasDeleteHorizon: (b.attributes & 0x40) !== 0,
    lastOffsetDelta: b.lastOffsetDelta,
    baseTimestamp: b.baseTimestamp,
    maxTimestamp: b.maxTimestamp,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    recordCount: b.count,
    lastOffset: b.lastOffset,
  }
}

/** The batches of a record set as the walker finds them: [at, size]. */
function walk(bytes: Buffer, walker = new BatchWalker()) {
  const found: [number, number][] = []
  walker.start(bytes)
  while (walker.next()) found.push([walker.at, walker.size])
  return { found, end: walker.end, stopped: walker.stopped, claimed: walker.claimed }
}

describe('the batch header view', () => {
  it('reads every field of a batch our encoder wrote as the decoder does', () => {
    const records = [
      { key: 'a', value: 'one', timestamp: 1_700_000_000_000 },
      { key: null, value: 'two', timestamp: 1_700_000_000_009 },
      { key: 'c', value: null, timestamp: 1_700_000_000_004 },
    ]
    const batch = encodeRecordBatch(records, {
      compression: Compression.gzip,
      baseOffset: 77n,
      partitionLeaderEpoch: 12,
      producerId: 123_456_789_012n,
      producerEpoch: 9,
      baseSequence: 31,
      transactional: true,
    })
    const h = header(batch)
    expect(h).toEqual(decoded(decodeRecordSet(batch).batches[0], batch.length, crc32c(batch.subarray(21))))
    expect(h).toMatchObject({
      baseOffset: 77n,
      size: batch.length,
      partitionLeaderEpoch: 12,
      magic: 2,
      compression: Compression.gzip,
      timestampType: 'CreateTime',
      isTransactional: true,
      isControl: false,
      hasDeleteHorizon: false,
      lastOffsetDelta: 2,
      baseTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_009,
      producerId: 123_456_789_012n,
      producerEpoch: 9,
      baseSequence: 31,
      recordCount: 3,
      lastOffset: 79n,
    })
    expect(batchBaseOffsetNumber(batch)).toBe(77)
    expect(batchLastOffsetNumber(batch)).toBe(79)
    expect(batchCrcMatches(batch)).toBe(true)
  })

  it('reads a control batch, LogAppendTime and a delete horizon from our encoder', () => {
    const batch = encodeRecordBatch([{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 3]) }], {
      baseOffset: 5n,
      producerId: 1n,
      producerEpoch: 0,
      transactional: true,
      control: true,
      logAppendTime: 1_700_000_000_777,
      deleteHorizonMs: 1_700_000_100_000,
    })
    const h = header(batch)
    expect(h).toEqual(decoded(decodeRecordSet(batch).batches[0], batch.length, crc32c(batch.subarray(21))))
    expect(h).toMatchObject({ isControl: true, isTransactional: true, timestampType: 'LogAppendTime', hasDeleteHorizon: true })
    expect(h.baseTimestamp).toBe(1_700_000_100_000)
  })

  it('reads a base offset as a number from its halves as Number(BigInt) does: low halves past 2^31, negatives, past 2^53 (rounded the same)', () => {
    const b = encodeRecordBatch([{ value: 'v' }, { value: 'w' }], {})
    for (const offset of [
      0n,
      5n,
      0x7fff_ffffn,
      0x8000_0000n,
      0xffff_ffffn,
      0x1_0000_0000n,
      0x1234_5678_9abcn,
      2n ** 53n - 1n,
      2n ** 53n + 1n,
      2n ** 63n - 1n,
      -1n,
      -(2n ** 32n) - 7n,
      -(2n ** 63n),
    ]) {
      b.writeBigInt64BE(offset, 0)
      expect(batchBaseOffsetNumber(b)).toBe(Number(offset))
      expect(batchLastOffsetNumber(b)).toBe(Number(offset) + 1)
    }
  })

  it("reads every field of the batches Apache Kafka wrote, at each batch's position", () => {
    const { found, end, stopped } = walk(KAFKA)
    expect(found).toEqual([
      [0, 99],
      [99, 104],
      [203, 78],
    ])
    expect([end, stopped]).toEqual([KAFKA.length, 'end'])
    const { batches } = decodeRecordSet(KAFKA)
    const headers = found.map(([at, size], i) => {
      const h = header(KAFKA, at)
      expect(h, `batch ${i}`).toEqual(decoded(batches[i], size, crc32c(KAFKA.subarray(at + 21, at + size))))
      expect(batchCrcMatches(KAFKA, at)).toBe(true)
      return h
    })
    expect(headers[0]).toMatchObject({
      baseOffset: 1000n,
      partitionLeaderEpoch: 5,
      magic: 2,
      compression: Compression.none,
      timestampType: 'CreateTime',
      isTransactional: true,
      isControl: false,
      hasDeleteHorizon: false,
      lastOffsetDelta: 2,
      baseTimestamp: 1_700_000_000_000,
      maxTimestamp: 1_700_000_000_005,
      producerId: 4242n,
      producerEpoch: 7,
      baseSequence: 100,
      recordCount: 3,
      lastOffset: 1002n,
    })
    expect(headers[1]).toMatchObject({
      baseOffset: 1003n,
      partitionLeaderEpoch: 6,
      compression: Compression.gzip,
      timestampType: 'LogAppendTime',
      isTransactional: false,
      isControl: false,
      baseTimestamp: 1_700_000_001_000,
      maxTimestamp: 1_700_000_009_999,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordCount: 2,
      lastOffset: 1004n,
    })
    expect(headers[2]).toMatchObject({
      baseOffset: 1005n,
      partitionLeaderEpoch: 6,
      compression: Compression.none,
      isTransactional: true,
      isControl: true,
      baseTimestamp: 1_700_000_010_000,
      maxTimestamp: 1_700_000_010_000,
      producerId: 4242n,
      producerEpoch: 7,
      recordCount: 1,
      lastOffset: 1005n,
    })
    expect(batches[2].controlType).toBe('COMMIT')
  })

  it('seals the CRC Kafka wrote, and restamping keeps it valid', () => {
    const copy = Buffer.from(KAFKA)
    for (const at of [0, 99, 203]) copy.writeUInt32BE(0, at + 17)
    for (const at of [0, 99, 203]) sealBatchCrc(copy, at)
    expect(copy.equals(KAFKA)).toBe(true)
    const first = Buffer.from(KAFKA.subarray(0, 99))
    restampBatch(first, 99n, 2, 7)
    expect([batchProducerId(first), batchProducerEpoch(first), batchBaseSequence(first), batchCrcMatches(first)]).toEqual([99n, 2, 7, true])
  })
})

describe('the batch walker', () => {
  const ends = [0, 99, 203, 281]

  it('stops at every truncated tail at the last whole batch, and says where and what the cut batch claims', () => {
    const walker = new BatchWalker()
    for (let cut = 0; cut <= KAFKA.length; cut++) {
      const r = walk(KAFKA.subarray(0, cut), walker)
      const whole = ends.filter((e) => e > 0 && e <= cut)
      const end = whole.at(-1) ?? 0
      expect(
        r.found.map(([at, size]) => at + size),
        `cut at ${cut}`,
      ).toEqual(whole)
      expect(r.end, `cut at ${cut}`).toBe(end)
      expect(r.stopped, `cut at ${cut}`).toBe(end === cut ? 'end' : 'truncated')
      const next = ends[ends.indexOf(end) + 1]
      expect(r.claimed, `cut at ${cut}`).toBe(end !== cut && cut - end >= LOG_OVERHEAD ? next - end : 0)
    }
  })

  it('starts where it is told', () => {
    expect(walk(KAFKA).found.length).toBe(3)
    const walker = new BatchWalker().start(KAFKA, 99)
    expect([walker.next(), walker.at, walker.size, walker.end]).toEqual([true, 99, 104, 203])
  })

  it('stops at an entry too short to trust, and at a v2 batch shorter than its header', () => {
    const tooShort = Buffer.from(KAFKA)
    tooShort.writeInt32BE(4, 99 + B_LENGTH)
    expect(walk(tooShort)).toMatchObject({ found: [[0, 99]], end: 99, stopped: 'malformed' })
    const negative = Buffer.from(KAFKA)
    negative.writeInt32BE(-12, 99 + B_LENGTH)
    expect(walk(negative)).toMatchObject({ found: [[0, 99]], end: 99, stopped: 'malformed' })
    const shortV2 = Buffer.from(KAFKA)
    shortV2.writeInt32BE(B_RECORDS - LOG_OVERHEAD - 1, 99 + B_LENGTH)
    expect(walk(shortV2)).toMatchObject({ found: [[0, 99]], end: 99, stopped: 'malformed' })
    // The same size is a legacy entry's to have.
    shortV2[99 + B_MAGIC] = 1
    expect(walk(shortV2).found).toEqual([
      [0, 99],
      [99, B_RECORDS - 1],
    ])
  })
})
