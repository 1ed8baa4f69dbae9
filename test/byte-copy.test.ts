import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import {
  copyBySet,
  copyBytes,
  copySmallByLoop,
  writeByBufferWrite,
  writeByEncodeInto,
  writeByUtf8Write,
  writeUtf8,
} from '../src/codec/byte-copy.js'

// Every runtime's choice is tested here under Node; test/runtimes/smoke.mjs runs the chosen ones under Bun and Deno.
const copies = { copyBySet, copySmallByLoop, copyBytes }
const writes = { writeByBufferWrite, writeByUtf8Write, writeByEncodeInto, writeUtf8 }
const te = new TextEncoder()

/** Bytes whose value depends on position, so a shifted or dropped byte shows. */
function pattern(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + 1) & 0xff
  return b
}

describe.each(Object.entries(copies))('%s', (_, copy) => {
  it('copies every size 0..2 KiB to unaligned offsets from unaligned sources, touching nothing else', () => {
    const dst = Buffer.alloc(2048 + 64)
    // An unaligned source: a view starting 3 bytes into a larger buffer.
    const backing = pattern(2048 + 8, 5)
    for (let n = 0; n <= 2048; n++) {
      for (const at of [0, 1, 3, 7, 13]) {
        dst.fill(0xee)
        const src = backing.subarray(3, 3 + n)
        copy(dst, at, src)
        expect(dst.subarray(at, at + n).equals(src)).toBe(true)
        for (let i = 0; i < at; i++) if (dst[i] !== 0xee) throw new Error(`byte ${i} before ${at} written (size ${n})`)
        for (let i = at + n; i < dst.length; i++) if (dst[i] !== 0xee) throw new Error(`byte ${i} past ${at}+${n} written`)
      }
    }
  })

  it('copies into a plain Uint8Array over part of an ArrayBuffer (as wasm memory is)', () => {
    const dst = new Uint8Array(new ArrayBuffer(4096), 64, 4000)
    for (const n of [0, 1, 16, 31, 32, 33, 100, 1024]) {
      const src = new Uint8Array(pattern(n, n))
      copy(dst, 5, src)
      expect(Buffer.from(dst.subarray(5, 5 + n)).equals(Buffer.from(src))).toBe(true)
    }
  })
})

/** Strings whose UTF-8 takes 1, 2, 3 and 4 bytes a character, and lone surrogates (U+FFFD, as TextEncoder writes them). */
const alphabet = ['a', '~', '\u007f', 'é', 'ü', '\u07ff', '€', '\u0800', '\uffff', '𝄞', '😀', '\ud800', '\udfff', '\udc00x', 'x\ud83d']
function text(n: number, seed: number, mixed: boolean): string {
  let s = ''
  for (let i = 0; s.length < n; i++) s += mixed ? alphabet[(i * 7 + seed) % alphabet.length] : String.fromCharCode(32 + ((i + seed) % 95))
  return s.slice(0, n) // may cut a pair in half: a lone surrogate at the end, as users' strings can have
}

describe.each(Object.entries(writes))('%s', (_, write) => {
  it('writes ASCII strings of every length 0..2 K at unaligned offsets as TextEncoder does', () => {
    const dst = Buffer.alloc(3 * 2048 + 64)
    for (let n = 0; n <= 2048; n++) {
      const s = text(n, n, false)
      const at = n % 11
      dst.fill(0xee)
      const len = write(dst, at, s)
      expect(len).toBe(n)
      expect(dst.subarray(at, at + len).equals(te.encode(s))).toBe(true)
      if (dst[at + len] !== 0xee || (at > 0 && dst[at - 1] !== 0xee)) throw new Error(`wrote outside [${at}, ${at + len})`)
    }
  })

  it('writes multi-byte UTF-8 and lone surrogates as TextEncoder does, at every length 0..2 K', () => {
    const dst = Buffer.alloc(3 * 2048 + 64)
    for (let n = 0; n <= 2048; n++) {
      const s = text(n, n, true)
      const at = (n * 3) % 13
      dst.fill(0xee)
      const len = write(dst, at, s)
      const want = te.encode(s)
      if (len !== want.length || !dst.subarray(at, at + len).equals(want))
        throw new Error(
          `length ${n}: wrote ${dst.subarray(at, at + len).toString('hex')}, TextEncoder ${Buffer.from(want).toString('hex')}`,
        )
      if (dst[at + len] !== 0xee || (at > 0 && dst[at - 1] !== 0xee)) throw new Error(`wrote outside [${at}, ${at + len})`)
    }
  })

  it('writes into the exact room of 3 bytes a UTF-16 unit', () => {
    for (const s of ['\uffff'.repeat(30), '\ud800'.repeat(25), 'é'.repeat(40), '€'.repeat(24)]) {
      const dst = Buffer.alloc(3 + s.length * 3)
      const len = write(dst, 3, s)
      expect(dst.subarray(3, 3 + len).equals(te.encode(s))).toBe(true)
    }
  })
})
