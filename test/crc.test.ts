import { describe, expect, it } from 'vitest'
import { crc32, crc32c } from '../src/public/codec.js'

// Through the public entry point, so the built-package projects run the same
// checks against dist/ (test/vitest.config.ts, builtSlice).

const ascii = (s: string) => new TextEncoder().encode(s)
const CASTAGNOLI = 0x82f63b78
const IEEE = 0xedb88320

// Bit-at-a-time reference: slow, obviously right, independent of the tables
// and of the sparse reduction. `crc` continues a running value, as the API does.
function reference(poly: number, data: Uint8Array, crc = 0): number {
  let c = ~crc
  for (const b of data) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1
  }
  return ~c >>> 0
}

const zeros = new Uint8Array(32)
const ones = new Uint8Array(32).fill(0xff)
const incrementing = Uint8Array.from({ length: 32 }, (_, i) => i)
const decrementing = Uint8Array.from({ length: 32 }, (_, i) => 31 - i)

describe('crc32c', () => {
  it('matches the published check value and the RFC 3720 (iSCSI) B.4 vectors', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283)
    expect(crc32c(new Uint8Array(0))).toBe(0)
    expect(crc32c(zeros)).toBe(0x8a9136aa)
    expect(crc32c(ones)).toBe(0x62a8ab43)
    expect(crc32c(incrementing)).toBe(0x46dd794e)
    expect(crc32c(decrementing)).toBe(0x113fdb5c)
    // B.4's last vector: an iSCSI read command PDU (48 bytes).
    const pdu = Uint8Array.from(
      ['01c0000000000000', '0000000000000000', '1400000000000400', '0000001400000018', '2800000000000000', '0200000000000000']
        .join('')
        .match(/../g)!
        .map((h) => parseInt(h, 16)),
    )
    expect(crc32c(pdu)).toBe(0xd9963a56)
  })
})

describe('crc32 (legacy messages)', () => {
  it('matches the published check value and zlib', async () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926)
    expect(crc32(new Uint8Array(0))).toBe(0)
    // The RFC 3720 inputs through the IEEE polynomial: zlib's values.
    expect(crc32(zeros)).toBe(0x190a55ad)
    expect(crc32(ones)).toBe(0xff6cab0b)
    expect(crc32(incrementing)).toBe(0x91267e8a)
    expect(crc32(decrementing)).toBe(0x9ab0ef72)
    const zlib: { crc32?: (d: Uint8Array) => number } = await import('node:zlib')
    const data = Uint8Array.from({ length: 5000 }, (_, i) => (i * 131) & 0xff)
    if (zlib.crc32) expect(crc32(data)).toBe(zlib.crc32(data) >>> 0)
  })
})

// Below 640 bytes the tables run; from 640 up the sparse-multiple reduction
// (assembly/crc.ts), in 4 KiB chunks, with its last 290..305 (CRC-32C) or
// 274..289 (CRC-32) bytes back through the tables. So: every length 0..4096
// at every start offset mod 16 (the wasm copy of a subarray keeps nothing
// aligned), lengths around the chunk edges, a carried-in crc, and
// continuations cut on both sides of the threshold.
describe.each([
  ['crc32c', crc32c, CASTAGNOLI],
  ['crc32', crc32, IEEE],
] as const)('%s against the bitwise reference', (_name, fn, poly) => {
  const data = Uint8Array.from({ length: 4 * 4096 + 400 }, (_, i) => Math.imul(i, 2654435761) >>> 24)

  it('every length 0..4096, unaligned starts, with and without a carried-in crc', () => {
    for (let len = 0; len <= 4096; len++) {
      const start = len % 17
      const slice = data.subarray(start, start + len)
      const carried = len % 3 === 0 ? 0 : Math.imul(len, 40503) >>> 0
      expect(fn(slice, carried)).toBe(reference(poly, slice, carried))
    }
  })

  it('every start offset at the lengths around the threshold and the tail sizes', () => {
    for (const len of [15, 16, 17, 290, 305, 306, 639, 640, 641, 655, 656, 1024, 4095, 4096, 4097]) {
      for (let start = 0; start < 16; start++) {
        const slice = data.subarray(start, start + len)
        expect(fn(slice)).toBe(reference(poly, slice))
      }
    }
  })

  it('lengths around the 4 KiB chunk edges', () => {
    for (const base of [4096, 8192, 12288, 16384]) {
      for (const d of [-1, 0, 1, 16, 274, 290, 305, 321]) {
        const slice = data.subarray(3, 3 + base + d)
        expect(fn(slice, 0x1234567)).toBe(reference(poly, slice, 0x1234567))
      }
    }
  })

  it('all-ones and all-zero inputs (no cancellation hides in the reduction)', () => {
    for (const len of [640, 1000, 4096, 9000]) {
      expect(fn(new Uint8Array(len))).toBe(reference(poly, new Uint8Array(len)))
      expect(fn(new Uint8Array(len).fill(0xff))).toBe(reference(poly, new Uint8Array(len).fill(0xff)))
    }
  })

  it('continues a running value across cuts on both sides of the threshold', () => {
    const whole = fn(data.subarray(0, 9000))
    for (const cut of [1, 4, 5, 639, 640, 641, 5000, 8999]) {
      expect(fn(data.subarray(cut, 9000), fn(data.subarray(0, cut)))).toBe(whole)
    }
    const big = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff)
    expect(fn(big.subarray(37), fn(big.subarray(0, 37)))).toBe(reference(poly, big))
  })
})
