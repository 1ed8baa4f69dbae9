// Where a bare encode of 1,000 records of 1 KiB spends its time, per runtime: the copy in
// (Uint8Array#set), the core's encodeBatch (framing, memory.copy, CRC-32C), the copy out.
//   node bench/copy-lab/split.mjs; npx bun bench/copy-lab/split.mjs; npx deno run -A bench/copy-lab/split.mjs
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
const core = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('../../dist/wafka.wasm', import.meta.url))), {
  env: {
    abort: () => {
      throw new Error('abort')
    },
  },
}).exports
const heap = (core.heapBase() + 4095) & ~4095
core.memory.grow(1200)
const mem = core.memory.buffer,
  u8 = new Uint8Array(mem),
  i32 = new Int32Array(mem),
  f64 = new Float64Array(mem),
  view = new DataView(mem)
const size = 1024,
  n = 1000
const rs = Array.from({ length: n }, (_, i) => ({
  key: Buffer.from(`user-${String(i * 7919).padStart(11, '0')}`),
  value: Buffer.alloc(size, 97 + (i % 26)),
  timestamp: 1_700_000_000_000 + i,
}))
const params = heap,
  staged = params + 4096,
  data0 = ((staged + n * 32 + 4095) & ~4095) + 3264
let out = 0,
  p = 0
function copyIn() {
  p = data0
  const t0 = rs[0].timestamp
  for (let i = 0; i < n; i++) {
    const r = rs[i]
    const d = staged + i * 32
    f64[d >> 3] = r.timestamp - t0
    const q = d >> 2
    i32[q + 2] = p
    u8.set(r.key, p)
    i32[q + 3] = r.key.length
    p += r.key.length
    i32[q + 4] = p
    u8.set(r.value, p)
    i32[q + 5] = r.value.length
    p += r.value.length
    i32[q + 6] = 0
    i32[q + 7] = 0
  }
  out = ((p + 4095) & ~4095) + 256
}
function enc() {
  const t0 = rs[0].timestamp
  const cap = p - staged + n * 21 + 61
  view.setBigInt64(params + 0, 0n, true)
  view.setBigInt64(params + 8, BigInt(t0), true)
  view.setBigInt64(params + 16, BigInt(t0 + n - 1), true)
  view.setBigInt64(params + 24, -1n, true)
  for (const [f, x] of [
    [32, -1],
    [36, -1],
    [40, -1],
    [44, 0],
    [48, staged],
    [52, n],
    [56, n - 1],
    [80, 0],
    [60, out],
    [64, cap],
    [68, 0],
    [72, 0],
  ])
    view.setInt32(params + f, x, true)
  return core.encodeBatch(params)
}
let sz = 0
const copyOut = () => {
  const b = Buffer.allocUnsafe(sz)
  b.set(u8.subarray(out, out + sz))
  return b
}
copyIn()
sz = enc()
const C = { 'copy in': copyIn, 'wasm encodeBatch': enc, 'copy out': copyOut }
const best = {}
for (let r = 0; r < 8; r++)
  for (const [k, f] of Object.entries(C)) {
    let ops = 0
    const t0 = performance.now()
    let t
    do {
      f()
      ops++
      t = performance.now()
    } while (t - t0 < 40)
    best[k] = Math.min(best[k] ?? 1e9, ((t - t0) * 1e6) / ops / n)
  }
console.log(
  typeof Bun !== 'undefined' ? 'bun ' : typeof Deno !== 'undefined' ? 'deno' : 'node',
  Object.entries(best)
    .map(([k, v]) => `${k}: ${v.toFixed(0)} ns/rec`)
    .join(' | '),
)
