import { beforeAll, describe, expect, it } from 'vitest'
import { loadCodecs } from '../src/index.js'
import { crc32c, decodeRecordSet, encodeRecordBatch } from '../src/public/codec.js'

// A zstd frame that does not declare its content size, as streaming writers
// (zstd-jni's ZstdOutputStream in the Java client) produce: raw and RLE blocks by hand.
function zstdFrameWithoutSize(blocks: Array<Buffer | { byte: number; count: number }>): Buffer {
  const out = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50])] // magic, FHD (no size, no checksum), 1 MiB window
  blocks.forEach((b, i) => {
    const last = i === blocks.length - 1 ? 1 : 0
    const [type, size, body] = Buffer.isBuffer(b) ? [0, b.length, b] : [1, b.count, Buffer.from([b.byte])]
    const header = last | (type << 1) | (size << 3)
    out.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), body)
  })
  return Buffer.concat(out)
}

/** A batch of the given records section, compressed by hand as zstd. */
function zstdBatch(template: Buffer, frame: Buffer): Buffer {
  const batch = Buffer.concat([template.subarray(0, 61), frame])
  batch.writeInt32BE(batch.length - 12, 8)
  batch.writeInt16BE(4, 21)
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17)
  return batch
}

describe('zstd', () => {
  beforeAll(loadCodecs)

  it('reads frames without a declared size, larger than the first output guess', () => {
    const value = Buffer.alloc(300_000)
    const plain = encodeRecordBatch([{ key: null, value, timestamp: 1 }])
    const section = plain.subarray(61)
    // Split the section: the record prefix raw, the zero value as RLE blocks, the headers count raw.
    const prefix = section.subarray(0, section.length - value.length - 1)
    const blocks: Array<Buffer | { byte: number; count: number }> = [prefix]
    for (let left = value.length; left > 0; left -= 100_000) blocks.push({ byte: 0, count: Math.min(100_000, left) })
    blocks.push(section.subarray(section.length - 1))
    const frame = zstdFrameWithoutSize(blocks)
    expect(frame.length).toBeLessThan(100)
    const record = decodeRecordSet(zstdBatch(plain, frame)).batches[0].records[0]
    expect(record.value!.equals(value)).toBe(true)
  })

  it('refuses a bomb that does not declare its size', () => {
    const plain = encodeRecordBatch([{ value: 'x', timestamp: 1 }])
    const bomb = zstdFrameWithoutSize(Array.from({ length: 80 }, () => ({ byte: 0, count: 100_000 })))
    expect(() => decodeRecordSet(zstdBatch(plain, bomb), { maxDecompressedBytes: 1 << 20 })).toThrow(
      expect.objectContaining({ name: 'CorruptRecordError', reason: 'too-large' }),
    )
  })

  it('names malformed data', () => {
    const good = encodeRecordBatch([{ value: 'some value to compress', timestamp: 1 }], { compression: 'zstd' })
    const bad = zstdBatch(good, Buffer.concat([good.subarray(61, 67), Buffer.alloc(20, 0xee)]))
    expect(() => decodeRecordSet(bad)).toThrow(expect.objectContaining({ name: 'CorruptRecordError', reason: 'compressed' }))
  })
})
