import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { ProtocolError } from '../../src/errors.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const written = (fn: (w: Writer) => void): Buffer => {
  const w = new Writer(16)
  fn(w)
  return Buffer.from(w.finish())
}

describe('Writer', () => {
  it('grows from a small start and keeps what it wrote', () => {
    const w = new Writer(16)
    for (let i = 0; i < 10_000; i++) w.int32(i)
    const out = w.finish()
    expect(out.length).toBe(40_000)
    for (let i = 0; i < 10_000; i++) expect(out.readInt32BE(i * 4)).toBe(i)
  })

  it('reserve + setInt32At prefix a frame size; reset reuses the memory; finish is a view', () => {
    const w = new Writer(16)
    const at = w.reserve(4)
    w.compactString('hello')
    w.setInt32At(at, w.length - 4)
    expect(w.finish()).toEqual(hex(`00000006 06 ${Buffer.from('hello').toString('hex')}`))
    const view = w.finish()
    w.reset().int8(9)
    expect(view[0]).toBe(9) // a view: the next write shows through
    expect(w.length).toBe(1)
    expect(() => w.setInt32At(0, 1)).toThrow(RangeError)
  })

  it('unsigned varints at the 7-bit boundaries', () => {
    const cases: Array<[number, string]> = [
      [0, '00'],
      [1, '01'],
      [127, '7f'],
      [128, '8001'],
      [300, 'ac02'],
      [16383, 'ff7f'],
      [16384, '808001'],
      [2 ** 31 - 1, 'ffffffff07'],
      [2 ** 32 - 1, 'ffffffff0f'],
    ]
    for (const [value, bytes] of cases) {
      expect(written((w) => w.uvarint(value)).toString('hex')).toBe(bytes)
      expect(new Reader(hex(bytes)).uvarint()).toBe(value)
    }
    expect(() => written((w) => w.uvarint(-1))).toThrow(ProtocolError)
    expect(() => written((w) => w.uvarint(2 ** 32))).toThrow(ProtocolError)
    expect(written((w) => w.uvarlong(2n ** 64n - 1n)).toString('hex')).toBe('ffffffffffffffffff01')
    expect(new Reader(hex('ffffffffffffffffff01')).uvarlong()).toBe(2n ** 64n - 1n)
  })

  it('strings are UTF-8 counted in bytes, and refuse more than 32767 bytes', () => {
    expect(written((w) => w.string('日本'))).toEqual(hex('0006 e697a5e69cac'))
    expect(written((w) => w.compactString('é'))).toEqual(hex('03 c3a9'))
    expect(written((w) => w.nullableString(null))).toEqual(hex('ffff'))
    expect(written((w) => w.compactNullableString(null))).toEqual(hex('00'))
    expect(written((w) => w.string('x'.repeat(32767))).length).toBe(32769)
    expect(() => written((w) => w.string('x'.repeat(32768)))).toThrow(/longer than the 32767/)
    expect(() => written((w) => w.string(null as unknown as string))).toThrow(ProtocolError)
  })

  it('bytes from one buffer or several, compact or not, null or not', () => {
    expect(written((w) => w.bytes([hex('01'), hex('0203')]))).toEqual(hex('00000003 010203'))
    expect(written((w) => w.compactBytes(new Uint8Array([7])))).toEqual(hex('02 07'))
    expect(written((w) => w.nullableBytes(null))).toEqual(hex('ffffffff'))
    expect(written((w) => w.compactNullableBytes(null))).toEqual(hex('00'))
  })

  it("UUIDs in Java's string form", () => {
    const uuid = hex('00112233445566778899aabbccddeeff').toString('base64url')
    expect(uuid).toBe('ABEiM0RVZneImaq7zN3u_w')
    expect(written((w) => w.uuid(uuid))).toEqual(hex('00112233445566778899aabbccddeeff'))
    expect(new Reader(hex('00112233445566778899aabbccddeeff')).uuid()).toBe(uuid)
    for (const bad of [
      '',
      'ABEiM0RVZneImaq7zN3u_',
      'ABEiM0RVZneImaq7zN3u_x',
      'ABEiM0RVZneImaq7zN3u+w',
      '00112233-4455-6677-8899-aabbccddeeff',
    ]) {
      expect(() => written((w) => w.uuid(bad)), bad).toThrow(/is not a UUID/)
    }
  })

  it('a tagged value of any size gets the size in front, moved if it needs more than a byte', () => {
    const prng = new Prng(3)
    for (const size of [0, 1, 127, 128, 129, 16383, 16384, 70000]) {
      const value = prng.bytes(size)
      const out = written((w) => {
        w.uvarint(1)
        const at = w.startTag(9)
        w.raw(value)
        w.endTag(at)
        w.int8(-1)
      })
      const r = new Reader(out)
      const target: { _unknownTags?: Array<[number, Uint8Array]> } = {}
      r.tags(target)
      expect(target._unknownTags).toEqual([[9, value]])
      expect(r.int8()).toBe(-1)
      expect(r.remaining).toBe(0)
    }
  })
})

describe('Reader', () => {
  it('refuses to read past its end even when the buffer goes on', () => {
    const buffer = hex('0000000100000002')
    const r = new Reader(buffer, 0, 6)
    expect(r.int32()).toBe(1)
    expect(() => r.int32('X.Y')).toThrow(/^truncated X.Y \(int32\): needs 4 bytes at byte 4, 2 left$/)
    expect(r.offset).toBe(4)
  })

  it('bools as Java reads them: any non-zero byte is true', () => {
    const r = new Reader(hex('00 01 02 ff'))
    expect([r.bool(), r.bool(), r.bool(), r.bool()]).toEqual([false, true, true, true])
  })

  it('refuses varints longer than their type', () => {
    expect(() => new Reader(hex('ffffffff1f')).uvarint()).toThrow(/longer than 32 bits/)
    expect(() => new Reader(hex('ffffffffffffffffff02')).uvarlong()).toThrow(/longer than 64 bits/)
    expect(() => new Reader(hex('8080')).uvarint()).toThrow(/truncated unsigned varint/)
  })

  it('refuses negative lengths other than -1', () => {
    expect(() => new Reader(hex('fffe')).nullableString()).toThrow(/length -2/)
    expect(() => new Reader(hex('fffffffe')).nullableBytes()).toThrow(/length -2/)
    expect(() => new Reader(hex('fffffffe')).arrayLength()).toThrow(/count -2/)
  })

  it('hands out bytes as views of the input', () => {
    const buffer = hex('00000002 abcd')
    const bytes = new Reader(buffer).bytes()
    expect(bytes).toEqual(hex('abcd'))
    expect(bytes.buffer).toBe(buffer.buffer)
  })
})
