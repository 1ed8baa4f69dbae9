import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../../src/errors.js'
import { FrameSplitter } from '../../src/net/frames.js'

function frame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4)
  size.writeInt32BE(payload.length)
  return Buffer.concat([size, payload])
}

describe('FrameSplitter', () => {
  it('yields whole frames however the stream is cut', () => {
    const payloads = [Buffer.from('abcd1'), Buffer.alloc(70_000, 7), Buffer.from('efgh'), Buffer.from('ijklmnop')]
    const stream = Buffer.concat(payloads.map(frame))
    for (const cut of [1, 2, 3, 5, 7, 4096, stream.length]) {
      const got: Buffer[] = []
      const splitter = new FrameSplitter(1 << 20, (f) => got.push(Buffer.from(f)))
      for (let i = 0; i < stream.length; i += cut) splitter.push(stream.subarray(i, i + cut))
      expect(got).toEqual(payloads)
    }
  })

  it('hands out a view, not a copy, for a frame inside one chunk', () => {
    const chunk = frame(Buffer.from('zero-copy'))
    let seen: Buffer | undefined
    new FrameSplitter(1024, (f) => (seen = f)).push(chunk)
    expect(seen!.buffer).toBe(chunk.buffer)
  })

  it('copies a frame spanning chunks as each chunk arrives, keeping none of them', () => {
    const payload = Buffer.alloc(300_000, 5)
    const stream = frame(payload)
    let seen: Buffer | undefined
    const splitter = new FrameSplitter(1 << 20, (f) => (seen = f))
    const chunks = [0, 65_536, 131_072, 200_000].map((at, i, all) => Buffer.from(stream.subarray(at, all[i + 1] ?? stream.length)))
    for (const c of chunks) {
      splitter.push(c)
      c.fill(0) // the socket's buffer, reused or freed: the splitter must already have what it needs
    }
    expect(seen).toEqual(payload)
    for (const c of chunks) expect(seen!.buffer).not.toBe(c.buffer)
  })

  it('refuses a frame past the limit before allocating it, and a frame too small for a header', () => {
    const huge = Buffer.alloc(4)
    huge.writeInt32BE(0x7fff_fff0)
    expect(() => new FrameSplitter(100 << 20, () => {}).push(huge)).toThrow(ProtocolError)
    expect(() => new FrameSplitter(100 << 20, () => {}).push(huge)).toThrow(/past the 104857600-byte limit/)
    const tiny = Buffer.from([0, 0, 0, 2, 1, 2])
    expect(() => new FrameSplitter(1024, () => {}).push(tiny)).toThrow(/too small/)
  })
})
