// The built package's crc32c / crc32 (dist/codec.js) against a bitwise JS
// reference: every length 0..4096 at unaligned starts, chunk-edge lengths,
// continuations. Runs under node, bun and deno (deno run -A).
import { crc32, crc32c } from '../../dist/codec.js'

function reference(poly, data, crc = 0) {
  let c = ~crc
  for (const b of data) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1
  }
  return ~c >>> 0
}
const data = Uint8Array.from({ length: 70000 }, (_, i) => Math.imul(i, 2654435761) >>> 24)
const lengths = [...Array(4097).keys(), 8191, 8192 + 290, 8192 + 305, 12288 + 16, 65536 + 7]
let n = 0
for (const [name, fn, poly] of [
  ['crc32c', crc32c, 0x82f63b78],
  ['crc32', crc32, 0xedb88320],
]) {
  for (const len of lengths) {
    const start = len % 17
    const s = data.subarray(start, start + len)
    const init = len % 3 ? Math.imul(len, 40503) >>> 0 : 0
    const got = fn(s, init)
    const want = reference(poly, s, init)
    if (got !== want) throw new Error(`${name} length ${len}: ${got.toString(16)} != ${want.toString(16)}`)
    n++
  }
}
const runtime = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node'
console.log(`${runtime}: dist crc32c and crc32 agree with the bitwise reference on ${n} lengths`)
