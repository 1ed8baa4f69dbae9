import { createRequire } from 'node:module'
import { crc32, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch } from '../src/public/codec.js'
import { lz4CompressFrame } from '../src/codec/lz4.js'
import { snappyCompress } from '../src/codec/snappy.js'

// KafkaJS still encodes legacy messages (v0, v1): an independent writer of the old format.
const require = createRequire(import.meta.url)
const Message = require('kafkajs/src/protocol/message')
const MessageSet = require('kafkajs/src/protocol/messageSet')
const Encoder = require('kafkajs/src/protocol/encoder')

function entry(offset: bigint, message: Buffer): Buffer {
  const e = new Encoder().writeInt64(offset.toString()).writeInt32(message.length)
  return Buffer.concat([e.buffer, message])
}

function message(
  version: 0 | 1,
  fields: { key?: string | null; value: string | Buffer | null; timestamp?: number; compression?: number },
): Buffer {
  return Message({ version })(fields).buffer
}

describe('legacy MessageSet v0/v1', () => {
  it('reads uncompressed v0 and v1 messages, mixed with a v2 batch', () => {
    const set = Buffer.concat([
      entry(5n, message(0, { key: 'a', value: 'one' })),
      entry(6n, message(1, { key: null, value: 'two', timestamp: 1_600_000_000_000 })),
      encodeRecordBatch([{ key: 'c', value: 'three', timestamp: 1_700_000_000_000 }], { baseOffset: 7n }),
    ])
    const { batches, bytesRead } = decodeRecordSet(set)
    expect(bytesRead).toBe(set.length)
    expect(batches.map((b) => b.magic)).toEqual([0, 1, 2])
    const records = batches.flatMap((b) => b.records)
    expect(records.map((r) => r.offset)).toEqual([5n, 6n, 7n])
    expect(records.map((r) => r.key?.toString() ?? null)).toEqual(['a', null, 'c'])
    expect(records.map((r) => r.value!.toString())).toEqual(['one', 'two', 'three'])
    expect(records.map((r) => r.timestamp)).toEqual([-1, 1_600_000_000_000, 1_700_000_000_000])
  })

  it('reads a gzip v1 wrapper with relative inner offsets', () => {
    const inner = MessageSet({
      messageVersion: 1,
      compression: 1,
      entries: [0, 1, 2].map((i) => ({ key: `k${i}`, value: `v${i}`, timestamp: 1_600_000_000_000 + i })),
    }).buffer as Buffer
    // The wrapper's offset is the absolute offset of the last inner message.
    const wrapper = message(1, { key: null, value: gzipSync(inner), timestamp: 1_600_000_000_002, compression: 1 })
    const { batches } = decodeRecordSet(entry(102n, wrapper))
    expect(batches).toHaveLength(1)
    expect(batches[0].compression).toBe('gzip')
    const r = batches[0].records
    expect(r.map((x) => x.offset)).toEqual([100n, 101n, 102n])
    expect(r.map((x) => x.key!.toString())).toEqual(['k0', 'k1', 'k2'])
    expect(r.map((x) => x.timestamp)).toEqual([1_600_000_000_000, 1_600_000_000_001, 1_600_000_000_002])
  })

  it('reads a gzip v0 wrapper with absolute inner offsets', () => {
    const inner = Buffer.concat([40n, 41n].map((o, i) => entry(o, message(0, { key: null, value: `m${i}` }))))
    const wrapper = message(0, { key: null, value: gzipSync(inner), compression: 1 })
    const r = decodeRecordSet(entry(41n, wrapper)).batches[0].records
    expect(r.map((x) => x.offset)).toEqual([40n, 41n])
    expect(r.map((x) => x.value!.toString())).toEqual(['m0', 'm1'])
  })

  it('accepts the broken LZ4 header checksum of magic 0 only', () => {
    const inner = Buffer.concat([7n, 8n].map((o, i) => entry(o, message(0, { key: null, value: `lz${i}` }))))
    const frame = Buffer.from(lz4CompressFrame(inner))
    expect(frame.subarray(0, 7).toString('hex')).toBe('04224d18604082')
    frame[6] = 0x1a // the checksum old clients computed over the magic bytes too
    const v0 = message(0, { key: null, value: frame, compression: 3 })
    expect(decodeRecordSet(entry(8n, v0)).batches[0].records.map((r) => r.value!.toString())).toEqual(['lz0', 'lz1'])
    const v1 = message(1, { key: null, value: frame, timestamp: 1, compression: 3 })
    expect(() => decodeRecordSet(entry(8n, v1))).toThrow(expect.objectContaining({ reason: 'checksum' }))
  })

  it('reads a snappy (xerial) v1 wrapper with LogAppendTime', () => {
    const inner = MessageSet({
      messageVersion: 1,
      compression: 2,
      entries: [0, 1].map((i) => ({ key: null, value: `s${i}`, timestamp: 5 + i })),
    }).buffer as Buffer
    const wrapper = Buffer.from(message(1, { key: null, value: Buffer.from(snappyCompress(inner)), timestamp: 99, compression: 2 }))
    wrapper[5] |= 8 // attributes (after crc and magic): LogAppendTime, so every record takes the wrapper's time
    wrapper.writeUInt32BE(crc32(wrapper.subarray(4)), 0)
    const r = decodeRecordSet(entry(51n, wrapper)).batches[0].records
    expect(r.map((x) => [x.offset, x.value!.toString(), x.timestamp])).toEqual([
      [50n, 's0', 99],
      [51n, 's1', 99],
    ])
  })

  it('rejects a bad CRC-32, and a nested compressed message', () => {
    const good = entry(1n, message(1, { key: 'k', value: 'v', timestamp: 1 }))
    const bad = Buffer.from(good)
    bad[bad.length - 1] ^= 1
    expect(() => decodeRecordSet(bad)).toThrow(expect.objectContaining({ name: 'CorruptRecordError', reason: 'checksum' }))
    const nested = message(1, { key: null, value: gzipSync(good), compression: 1 })
    const outer = message(1, { key: null, value: gzipSync(entry(0n, nested)), compression: 1 })
    expect(() => decodeRecordSet(entry(0n, outer))).toThrow(expect.objectContaining({ reason: 'record' }))
  })
})
