import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { CorruptRecordError, loadCodecs } from '../src/index.js'
import { crc32c, decodeRecordSet, encodeRecordBatch } from '../src/public/codec.js'
import { Prng } from '../bench/support/prng.js'
import { seedFromEnv } from './prng.js'

const require = createRequire(import.meta.url)
const Message = require('kafkajs/src/protocol/message')
const Encoder = require('kafkajs/src/protocol/encoder')

const ITERATIONS = Number(process.env.WAFKA_FUZZ_ITERATIONS ?? 100_000)
const seed = seedFromEnv('WAFKA_FUZZ_SEED')

/** Re-signs a mutated v2 batch so the CRC check passes and the parser sees the damage. */
function resign(batch: Buffer): void {
  if (batch.length >= 61 && batch[16] === 2) batch.writeUInt32BE(crc32c(batch.subarray(21)), 17)
}

function legacyEntry(offset: number, message: Buffer): Buffer {
  return Buffer.concat([new Encoder().writeInt64(String(offset)).writeInt32(message.length).buffer, message])
}

/** Decoding must return records that can all be read, or throw CorruptRecordError: nothing else. */
function decodeOrTypedError(data: Buffer, verifyCrc: boolean): 'ok' | 'error' {
  try {
    const { batches } = decodeRecordSet(data, { verifyCrc, maxDecompressedBytes: 1 << 20 })
    for (const b of batches) {
      for (const r of b.records) {
        r.key
        r.value
        r.headerList
        r.offset
        r.timestamp
      }
    }
    return 'ok'
  } catch (err) {
    if (err instanceof CorruptRecordError) return 'error'
    throw new Error(`seed ${seed}: not a CorruptRecordError: ${(err as Error)?.stack ?? err}`)
  }
}

describe(`fuzz (seed ${seed}, replay with WAFKA_FUZZ_SEED=${seed})`, () => {
  const corpus: Buffer[] = []

  beforeAll(async () => {
    console.log(`fuzz seed: ${seed}`)
    await loadCodecs()
    const rnd = new Prng(seed)
    for (const compression of (process.env.WAFKA_FUZZ_CODECS?.split(',') ?? ['none', 'gzip', 'snappy', 'lz4', 'zstd']) as any[]) {
      for (let n = 0; n < 4; n++) {
        const records = Array.from({ length: 1 + rnd.int(20) }, (_, i) => ({
          key: rnd.chance(0.2) ? null : `key-${i}`,
          value: rnd.chance(0.1) ? null : rnd.chance(0.5) ? 'x'.repeat(rnd.int(300)) : rnd.bytes(rnd.int(200)),
          headers: rnd.chance(0.5) ? [['h', rnd.chance(0.2) ? null : `v${i}`] as const, ['h2', 'w']] : undefined,
          timestamp: 1_700_000_000_000 + rnd.int(100000) - 50000,
        }))
        corpus.push(encodeRecordBatch(records, { compression }))
      }
    }
    corpus.push(Buffer.concat([corpus[0], corpus[5], corpus[10]]))
    const m1 = Message({ version: 1 })({ key: 'k', value: 'legacy value', timestamp: 5 }).buffer
    const m0 = Message({ version: 0 })({ key: null, value: 'v0' }).buffer
    const inner = Buffer.concat([legacyEntry(0, m1), legacyEntry(1, m1)])
    const wrapper = Message({ version: 1 })({ key: null, value: gzipSync(inner), timestamp: 9, compression: 1 }).buffer
    corpus.push(legacyEntry(3, m1), legacyEntry(4, m0), legacyEntry(10, wrapper))
  })

  it(`${ITERATIONS} mutated or truncated record sets each decode or give CorruptRecordError`, () => {
    const rnd = new Prng(seed ^ 0x5eed)
    const counts = { ok: 0, error: 0 }
    for (let i = 0; i < ITERATIONS; i++) {
      const data = Buffer.from(rnd.pick(corpus))
      switch (rnd.int(6)) {
        case 0: // flip bytes anywhere
          for (let k = 1 + rnd.int(4); k > 0; k--) data[rnd.int(data.length)] ^= 1 << rnd.int(8)
          break
        case 1: // random bytes in the records section, re-signed
          for (let k = 1 + rnd.int(6); k > 0; k--) data[61 + rnd.int(Math.max(1, data.length - 61))] = rnd.int(256)
          resign(data)
          break
        case 2: {
          // extreme values in a header field (lengths, counts, deltas), re-signed
          const at = rnd.pick([8, 12, 23, 53, 57, 61, 62, 63])
          if (at + 4 <= data.length) data.writeInt32BE(rnd.pick([0, -1, 1, 13, 14, 48, 0x7fffffff, -0x80000000, data.length]), at)
          resign(data)
          break
        }
        case 3: {
          // varint runs of continuation bytes
          const at = Math.min(data.length, 17 + rnd.int(Math.max(1, data.length - 17)))
          data.fill(0xff, at, Math.min(data.length, at + 1 + rnd.int(12)))
          resign(data)
          break
        }
        case 4: // truncation: what a Fetch cut short looks like, and worse
          counts[decodeOrTypedError(data.subarray(0, rnd.int(data.length)), rnd.chance(0.5))]++
          continue
        default: // pure noise after a plausible prefix
          rnd.bytes(data.length - 17).copy(data, 17)
          resign(data)
      }
      counts[decodeOrTypedError(data, rnd.chance(0.3))]++
    }
    console.log(`fuzz: ${counts.ok} decoded, ${counts.error} typed errors`)
    expect(counts.ok + counts.error).toBe(ITERATIONS)
    expect(counts.error).toBeGreaterThan(ITERATIONS / 10)
  }, 300_000)
})

describe('hostile batches', () => {
  const batch = () =>
    encodeRecordBatch([
      { key: 'k', value: 'v', timestamp: 1 },
      { key: 'k2', value: 'v2', timestamp: 2 },
    ])
  const reason = (data: Buffer, verifyCrc = true) => {
    try {
      decodeRecordSet(data, { verifyCrc })
      return 'decoded'
    } catch (err) {
      expect(err).toBeInstanceOf(CorruptRecordError)
      return (err as CorruptRecordError).reason
    }
  }

  it('names the fault', () => {
    const crc = batch()
    crc[70] ^= 1
    expect(reason(crc)).toBe('checksum')
    const count = batch()
    count.writeInt32BE(0x7fffffff, 57)
    resign(count)
    expect(reason(count)).toBe('record')
    const negative = batch()
    negative.writeInt32BE(-5, 57)
    resign(negative)
    expect(reason(negative)).toBe('length')
    const magic = batch()
    magic[16] = 7
    expect(reason(magic)).toBe('magic')
    const tiny = batch()
    tiny.writeInt32BE(13, 8)
    expect(reason(tiny)).toBe('length')
    const varint = batch()
    varint.fill(0xff, 61, 67)
    resign(varint)
    expect(reason(varint)).toBe('varint')
    const leftover = Buffer.concat([batch(), Buffer.alloc(0)])
    leftover.writeInt32BE(1, 57) // two records present, one announced
    resign(leftover)
    expect(reason(leftover)).toBe('record')
  })

  it('returns whole batches and stops at a truncated last one', () => {
    const a = batch()
    const b = encodeRecordBatch([{ value: 'x' }], { baseOffset: 2n })
    const set = Buffer.concat([a, b])
    for (let cut = a.length; cut < set.length; cut++) {
      const { batches, bytesRead } = decodeRecordSet(set.subarray(0, cut))
      expect(batches).toHaveLength(1)
      expect(bytesRead).toBe(a.length)
    }
    expect(decodeRecordSet(set.subarray(0, 11)).batches).toHaveLength(0)
  })

  it('refuses a gzip bomb past maxDecompressedBytes', () => {
    const zeros = { key: null, value: Buffer.alloc(4 << 20), timestamp: 1 }
    const bomb = encodeRecordBatch([zeros], { compression: 'gzip' })
    expect(bomb.length).toBeLessThan(20_000)
    expect(() => decodeRecordSet(bomb, { maxDecompressedBytes: 1 << 20 })).toThrow(expect.objectContaining({ reason: 'too-large' }))
    expect(decodeRecordSet(bomb).batches[0].records[0].value!.length).toBe(4 << 20)
  })
})
