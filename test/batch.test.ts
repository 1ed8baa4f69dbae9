import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch, crc32c } from '../src/index.js'

describe('record batch v2', () => {
  it('round trips keys, values, nulls and headers', () => {
    const records = [
      { key: 'k1', value: 'hello', timestamp: 1_700_000_000_000, headers: { a: 'x', b: ['1', '2'] } },
      { key: null, value: Buffer.from([1, 2, 3]), timestamp: 1_700_000_000_005 },
      { key: Buffer.alloc(0), value: null, timestamp: 1_699_999_999_999, headers: [['ü', null]] as const },
      { key: 'ünïcödé ✓ 𝄞', value: 'x'.repeat(5000), timestamp: 1_700_000_000_001 },
    ]
    const batch = encodeRecordBatch(records, { baseOffset: 100n, producerId: 7n, producerEpoch: 3, baseSequence: 42 })
    expect(batch[16]).toBe(2)
    expect(batch.readUInt32BE(17)).toBe(crc32c(batch.subarray(21)))
    const { batches, bytesRead } = decodeRecordSet(batch)
    expect(bytesRead).toBe(batch.length)
    expect(batches).toHaveLength(1)
    const b = batches[0]
    expect(b.baseOffset).toBe(100n)
    expect(b.producerId).toBe(7n)
    expect(b.producerEpoch).toBe(3)
    expect(b.baseSequence).toBe(42)
    expect(b.lastOffsetDelta).toBe(3)
    expect(b.baseTimestamp).toBe(1_700_000_000_000)
    expect(b.maxTimestamp).toBe(1_700_000_000_005)
    const r = b.records
    expect(r.map((x) => x.offset)).toEqual([100n, 101n, 102n, 103n])
    expect(r.map((x) => x.timestamp)).toEqual(records.map((x) => x.timestamp))
    expect(r[0].key!.toString()).toBe('k1')
    expect(r[0].value!.toString()).toBe('hello')
    expect(r[0].headerList.map(([k, v]) => [k, v?.toString()])).toEqual([['a', 'x'], ['b', '1'], ['b', '2']])
    expect(r[0].headers.b).toEqual([Buffer.from('1'), Buffer.from('2')])
    expect(r[1].key).toBeNull()
    expect(r[1].value).toEqual(Buffer.from([1, 2, 3]))
    expect(r[2].key).toEqual(Buffer.alloc(0))
    expect(r[2].value).toBeNull()
    expect(r[2].headerList).toEqual([['ü', null]])
    expect(r[3].key!.toString()).toBe('ünïcödé ✓ 𝄞')
    expect(r[3].value!.toString()).toBe('x'.repeat(5000))
  })
})
