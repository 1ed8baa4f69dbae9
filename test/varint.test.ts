import { describe, expect, it } from 'vitest'
import { CorruptRecordError } from '../src/index.js'
import { decodeUvarint, decodeVarint, decodeVarlong, encodeUvarint, encodeVarint, encodeVarlong } from '../src/public/codec.js'

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('zigzag varint', () => {
  it('encodes the protobuf sint32 vectors', () => {
    expect(hex(encodeVarint(0))).toBe('00')
    expect(hex(encodeVarint(-1))).toBe('01')
    expect(hex(encodeVarint(1))).toBe('02')
    expect(hex(encodeVarint(-64))).toBe('7f')
    expect(hex(encodeVarint(64))).toBe('8001')
    expect(hex(encodeVarint(300))).toBe('d804')
    expect(hex(encodeVarint(2 ** 31 - 1))).toBe('feffffff0f')
    expect(hex(encodeVarint(-(2 ** 31)))).toBe('ffffffff0f')
  })

  it('round trips edge values and reports the length read', () => {
    for (const v of [0, 1, -1, 63, -64, 64, -65, 8191, -8192, 2 ** 20, -(2 ** 20), 2 ** 31 - 1, -(2 ** 31)]) {
      const bytes = encodeVarint(v)
      expect(decodeVarint(bytes)).toEqual({ value: v, length: bytes.length })
    }
  })

  it('rejects a varint of more than 5 bytes and a truncated one', () => {
    expect(() => decodeVarint(Buffer.from('ffffffffff01', 'hex'))).toThrow(CorruptRecordError)
    expect(() => decodeVarint(Buffer.from('ff', 'hex'))).toThrow(expect.objectContaining({ reason: 'truncated' }))
  })
})

describe('zigzag varlong', () => {
  it('round trips int64 edge values', () => {
    for (const v of [0n, 1n, -1n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      const bytes = encodeVarlong(v)
      expect(decodeVarlong(bytes)).toEqual({ value: v, length: bytes.length })
    }
    expect(hex(encodeVarlong(2n ** 63n - 1n))).toBe('feffffffffffffffff01')
    expect(hex(encodeVarlong(-(2n ** 63n)))).toBe('ffffffffffffffffff01')
  })

  it('rejects more than 10 bytes', () => {
    expect(() => decodeVarlong(Buffer.from('ffffffffffffffffffff01', 'hex'))).toThrow(expect.objectContaining({ reason: 'varint' }))
  })
})

describe('unsigned varint', () => {
  it('round trips and matches LEB128', () => {
    expect(hex(encodeUvarint(0))).toBe('00')
    expect(hex(encodeUvarint(127))).toBe('7f')
    expect(hex(encodeUvarint(128))).toBe('8001')
    expect(hex(encodeUvarint(2 ** 32 - 1))).toBe('ffffffff0f')
    for (const v of [0, 1, 127, 128, 16383, 16384, 2 ** 31, 2 ** 32 - 1]) expect(decodeUvarint(encodeUvarint(v)).value).toBe(v)
  })
})
