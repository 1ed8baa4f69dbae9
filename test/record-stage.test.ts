import { describe, expect, it } from 'vitest'
import { encodeRecordBatch, encodeStagedRecords } from '../src/codec/batch-encoder.js'
import { RecordStage } from '../src/codec/record-stage.js'
import { loadCodecs } from '../src/codec/compression.js'
import type { RecordInput } from '../src/codec/types.js'

const records: RecordInput[] = [
  { key: 'k1', value: 'hello', timestamp: 1_700_000_000_000, headers: { a: 'x', b: ['1', '2'] } },
  { key: null, value: Buffer.from([1, 2, 3]) },
  { key: Buffer.alloc(0), value: null, timestamp: 1_699_999_999_999, headers: [['ü', null]] as const },
  { key: 'ünïcödé ✓ 𝄞', value: 'x'.repeat(5000), timestamp: new Date(1_700_000_000_001) },
  { value: 'no key, a string timestamp', timestamp: '1700000000007' },
  { key: new Uint8Array(300).fill(7), value: 'ascii but longer than the short-string loop takes', timestamp: 1_700_000_000_003n },
  { key: 'h', value: 'v', headers: { empty: Buffer.alloc(0), none: undefined, many: ['a', null, Buffer.from('c')] } },
]

describe('records staged as they are appended', () => {
  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)('encode to the same bytes as encodeRecordBatch (%s)', async (compression) => {
    await loadCodecs()
    const options = { compression, producerId: 7n, producerEpoch: 3, baseSequence: 42, defaultTimestamp: 1_700_000_000_100 }
    // A small stage, so its buffers grow while records are added.
    const stage = new RecordStage(16, 2)
    for (let n = 1; n <= records.length; n++) {
      stage.reset()
      for (const r of records.slice(0, n)) expect(stage.add(r)).toBe(true)
      const staged = encodeStagedRecords(stage, options)
      expect(staged.equals(encodeRecordBatch(records.slice(0, n), options))).toBe(true)
    }
  })

  it('refuse a record they cannot take, keeping what was staged before it', () => {
    const stage = new RecordStage(64)
    expect(stage.add(records[0])).toBe(true)
    const used = stage.used
    expect(stage.add({ key: 'k', value: 'v', timestamp: 1.5 })).toBe(false)
    expect(stage.add({ key: 'k', value: 42 as any })).toBe(false)
    expect(stage.add({ key: 'k', value: 'v', headers: [[7 as any, 'x']] })).toBe(false)
    expect(stage.add({ key: 'k', value: 'v', headers: { h: 42 as any } })).toBe(false)
    expect([stage.count, stage.used, stage.headerCount]).toEqual([1, used, 3])
    expect(encodeStagedRecords(stage, { defaultTimestamp: 5 }).equals(encodeRecordBatch([records[0]], { defaultTimestamp: 5 }))).toBe(true)
  })
})
