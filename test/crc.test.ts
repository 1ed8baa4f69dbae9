import { describe, expect, it } from 'vitest'
import { crc32, crc32c } from '../src/codec/crc.js'

const ascii = (s: string) => new TextEncoder().encode(s)

// Bit-at-a-time reference: slow, obviously right, independent of the tables.
function reference(poly: number, data: Uint8Array): number {
  let c = 0xffffffff
  for (const b of data) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

describe('crc32c', () => {
  it('matches the published check values', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283)
    expect(crc32c(new Uint8Array(0))).toBe(0)
    // RFC 3720 (iSCSI) B.4 vectors
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa)
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43)
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e)
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c)
  })

  it('agrees with a bitwise reference at every length and alignment', () => {
    const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 7919 + 13) & 0xff)
    for (let start = 0; start < 17; start++) {
      for (let len = 0; start + len <= data.length; len += 1 + (len >> 3)) {
        const slice = data.subarray(start, start + len)
        expect(crc32c(slice)).toBe(reference(0x82f63b78, slice))
      }
    }
  })

  it('continues a running value across chunks', () => {
    const data = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff)
    const whole = crc32c(data)
    expect(crc32c(data.subarray(37), crc32c(data.subarray(0, 37)))).toBe(whole)
  })
})

describe('crc32', () => {
  it('matches the published check value and zlib', async () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926)
    const zlib = await import('node:zlib')
    const data = Uint8Array.from({ length: 5000 }, (_, i) => (i * 131) & 0xff)
    if ('crc32' in zlib) expect(crc32(data)).toBe((zlib as any).crc32(data) >>> 0)
    expect(crc32(data)).toBe(reference(0xedb88320, data))
  })
})

// The sparse-multiple path starts at 640 bytes and works in 4 KiB chunks: every
// length up to 4096 at unaligned starts, and lengths around the chunk edges.
describe('both CRCs past the table path', () => {
  const data = Uint8Array.from({ length: 3 * 4096 + 400 }, (_, i) => (i * 2654435761) >>> 24)
  const lengths = [...Array(4097).keys(), 8192 - 1, 8192 + 290, 8192 + 305, 12288 + 16, 12288 + 321]
  for (const [name, fn, poly] of [
    ['crc32c', crc32c, 0x82f63b78],
    ['crc32', crc32, 0xedb88320],
  ] as const) {
    it(`${name} agrees with the bitwise reference at every length 0..4096 and around the chunk edges`, () => {
      for (const len of lengths) {
        const start = len % 17
        const slice = data.subarray(start, start + len)
        expect(fn(slice)).toBe(reference(poly, slice))
      }
    })
    it(`${name} continues a running value into the sparse path`, () => {
      for (const cut of [1, 4, 5, 639, 640, 641, 5000]) {
        expect(fn(data.subarray(cut, 9000), fn(data.subarray(0, cut)))).toBe(fn(data.subarray(0, 9000)))
      }
    })
  }
})
