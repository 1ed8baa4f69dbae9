import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch, crc32c } from '../src/public/codec.js'

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
    expect(r[0].headerList.map(([k, v]) => [k, v?.toString()])).toEqual([
      ['a', 'x'],
      ['b', '1'],
      ['b', '2'],
    ])
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

describe('batch attributes', () => {
  it('flags control batches and names the marker', () => {
    const marker = encodeRecordBatch([{ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 5]), timestamp: 10 }], {
      control: true,
      transactional: true,
      producerId: 9n,
      producerEpoch: 1,
    })
    const b = decodeRecordSet(marker).batches[0]
    expect(b.isControl).toBe(true)
    expect(b.isTransactional).toBe(true)
    expect(b.controlType).toBe('COMMIT')
    const data = decodeRecordSet(encodeRecordBatch([{ value: 'x' }], { transactional: true })).batches[0]
    expect(data.isControl).toBe(false)
    expect(data.controlType).toBeUndefined()
  })

  it('gives every record the batch time under LogAppendTime', () => {
    const b = decodeRecordSet(
      encodeRecordBatch(
        [
          { value: 'a', timestamp: 1 },
          { value: 'b', timestamp: 2 },
        ],
        { logAppendTime: 777 },
      ),
    ).batches[0]
    expect(b.timestampType).toBe('LogAppendTime')
    expect(b.records.map((r) => r.timestamp)).toEqual([777, 777])
  })

  it('writes what Java writes for an empty producer state and a fresh batch', () => {
    const batch = encodeRecordBatch([{ value: 'v', timestamp: 5 }])
    expect(batch.readBigInt64BE(0)).toBe(0n) // base offset: the broker assigns
    expect(batch.readInt32BE(12)).toBe(-1) // partition leader epoch
    expect(batch.readBigInt64BE(43)).toBe(-1n) // producer id
    expect(batch.readInt16BE(51)).toBe(-1)
    expect(batch.readInt32BE(53)).toBe(-1)
    expect(batch.readInt32BE(8)).toBe(batch.length - 12)
  })

  it('round trips every codec, several batches back to back, and large values', async () => {
    const { loadCodecs } = await import('../src/index.js')
    await loadCodecs()
    const big = Buffer.alloc(1 << 20, 'abcdefgh')
    const parts = (['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const).map((compression, i) =>
      encodeRecordBatch(
        [
          { key: compression, value: big, timestamp: i },
          { key: null, value: `small ${i}`, timestamp: i },
        ],
        {
          compression,
          baseOffset: BigInt(i * 2),
        },
      ),
    )
    const { batches } = decodeRecordSet(Buffer.concat(parts))
    expect(batches.map((b) => b.compression)).toEqual(['none', 'gzip', 'snappy', 'lz4', 'zstd'])
    for (const [i, b] of batches.entries()) {
      expect(b.records[0].value!.equals(big)).toBe(true)
      expect(b.records[0].offset).toBe(BigInt(i * 2))
      expect(b.records[1].value!.toString()).toBe(`small ${i}`)
    }
    expect(parts[3].length).toBeLessThan(big.length / 20)
  })

  it('keeps decoded values valid after later calls reuse wasm memory', () => {
    const first = decodeRecordSet(encodeRecordBatch([{ value: 'first' }], { compression: 'lz4' })).batches[0].records[0]
    for (let i = 0; i < 20; i++) decodeRecordSet(encodeRecordBatch([{ value: 'other'.repeat(1000) }], { compression: 'lz4' }))
    expect(first.value!.toString()).toBe('first')
  })
})

describe('batches with offset gaps (a compacted log)', () => {
  it('keeps each record at its offset delta, the last offset delta given, and a delete horizon as the base timestamp, for every codec', async () => {
    const { loadCodecs } = await import('../src/index.js')
    await loadCodecs()
    for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const batch = encodeRecordBatch(
        [
          { key: 'a', value: 'x', timestamp: 5000 },
          { key: 'b', value: null, timestamp: 7000 },
          { key: 'c', value: 'y'.repeat(300), timestamp: 6000 },
        ],
        { compression, baseOffset: 40n, offsetDeltas: [2, 200, 70_000], lastOffsetDelta: 70_005, deleteHorizonMs: 9_000_000 },
      )
      expect(batch.readUInt32BE(17)).toBe(crc32c(batch.subarray(21)))
      const [b] = decodeRecordSet(batch).batches
      expect(b.records.map((r) => [r.offset, r.key!.toString(), r.value?.toString().length ?? null, r.timestamp])).toEqual([
        [42n, 'a', 1, 5000],
        [240n, 'b', null, 7000],
        [70_040n, 'c', 300, 6000],
      ])
      expect([b.lastOffset, b.baseTimestamp, b.maxTimestamp, b.attributes & 0x40, b.compression]).toEqual([
        70_045n,
        9_000_000,
        7000,
        0x40,
        compression,
      ])
    }
    expect(() => encodeRecordBatch([{ value: 'v' }], { offsetDeltas: [0, 1] })).toThrow(/offsetDeltas has 2 entries for 1 records/)
  })
})
