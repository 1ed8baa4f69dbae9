// CRC-32C lab: checks every variant in lab.wasm against the bitwise
// reference, then times them beside @node-rs/crc32 (native SSE4.2) and
// wafka's public crc32c (dist/codec.js: copy into wasm + slicing by 16), in
// one process, rounds interleaved; ratios to native are taken per round and
// the median reported. Plain JS so Node, Bun and Deno run the same file:
//   npx asc bench/crc-lab/lab.ts --config bench/crc-lab/asconfig.json --target release
//   node bench/crc-lab/lab.mjs [--rounds 7] [--ms 150] [--check-only]
//   node_modules/.bin/bun bench/crc-lab/lab.mjs
//   node_modules/.bin/deno run -A bench/crc-lab/lab.mjs
import { readFileSync } from 'node:fs'
import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = new URL('.', import.meta.url)
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? dflt : Number(args[i + 1])
}
const ROUNDS = opt('rounds', 7)
const MS = opt('ms', 150)

const { instance } = await WebAssembly.instantiate(readFileSync(new URL('lab.wasm', here)))
const w = instance.exports
const base = w.arena()
const mem = () => new Uint8Array(w.memory.buffer)

const VARIANTS = ['slice16', 'slice16w', 'streams2', 'streams3', 'streams4', 'sparse64', 'sparse', 'sparseX4', 'sparseB', 'sparseBX4']

// ---------------------------------------------------------------- checks
function checkAll() {
  // the sparse paths from their smallest length (320) up, not just from the default threshold
  w.setSparseMin(0)
  const m = mem()
  // RFC 3720 B.4 vectors
  const vectors = [
    [new Uint8Array(32), 0x8a9136aa],
    [new Uint8Array(32).fill(0xff), 0x62a8ab43],
    [Uint8Array.from({ length: 32 }, (_, i) => i), 0x46dd794e],
    [Uint8Array.from({ length: 32 }, (_, i) => 31 - i), 0x113fdb5c],
    [new TextEncoder().encode('123456789'), 0xe3069283],
  ]
  for (const name of ['bitwise', ...VARIANTS]) {
    for (const [data, want] of vectors) {
      m.set(data, base)
      const got = w[name](0, base, data.length) >>> 0
      if (got !== want) throw new Error(`${name}: RFC 3720 vector of ${data.length} B: ${got.toString(16)} != ${want.toString(16)}`)
    }
  }
  // every length 0..4096 at every start offset mod 16, random bytes, plus a
  // running crc carried in; long lengths at a few sizes around chunk edges
  let seed = 12345
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24
  for (let i = 0; i < 4096 + 64 + 16; i++) m[base + i] = rnd()
  let cases = 0
  const lengths = []
  for (let n = 0; n <= 4096; n++) lengths.push(n)
  for (const n of [4096 * 2 + 200, 65536 + 7, 300000 + 13, 1 << 20]) lengths.push(n)
  for (let i = 4096 + 80; i < (1 << 20) + 64; i++) m[base + i] = rnd()
  for (const n of lengths) {
    const starts = n <= 4096 ? [(n * 7) % 16, 1 + (n % 13)] : [0, 3, 9]
    for (const s of starts) {
      const init = n % 3 === 0 ? 0 : (n * 2654435761) >>> 0
      const want = n <= 4096 ? w.bitwise(init, base + s, n) >>> 0 : w.slice16(init, base + s, n) >>> 0
      for (const name of VARIANTS) {
        const got = w[name](init, base + s, n) >>> 0
        if (got !== want)
          throw new Error(`${name}: length ${n} start +${s} init ${init.toString(16)}: ${got.toString(16)} != ${want.toString(16)}`)
        cases++
      }
    }
  }
  // CRC-32 (IEEE): the check value of '123456789', then the same lengths
  m.set(new TextEncoder().encode('123456789'), base + 8192 * 200)
  for (const name of ['bitwiseIeee', 'slice16Ieee', 'sparseIeee']) {
    const got = w[name](0, base + 8192 * 200, 9) >>> 0
    if (got !== 0xcbf43926) throw new Error(`${name}: check value ${got.toString(16)}`)
  }
  for (const n of lengths) {
    for (const s of n <= 4096 ? [(n * 5) % 16] : [0, 5]) {
      const init = n % 3 === 0 ? 0 : (n * 40503) >>> 0
      const want = n <= 4096 ? w.bitwiseIeee(init, base + s, n) >>> 0 : w.slice16Ieee(init, base + s, n) >>> 0
      for (const name of ['slice16Ieee', 'sparseIeee']) {
        const got = w[name](init, base + s, n) >>> 0
        if (got !== want) throw new Error(`${name}: length ${n} start +${s}: ${got.toString(16)} != ${want.toString(16)}`)
        cases++
      }
    }
  }
  // slice16 on the long lengths was itself checked against bitwise up to 4096
  // above; tie it to the reference once at 1 MiB too
  if (w.bitwise(0, base, 1 << 20) >>> 0 !== w.slice16(0, base, 1 << 20) >>> 0) throw new Error('slice16 at 1 MiB')
  w.setSparseMin(512)
  return cases
}

// The sparse multiples, checked apart from the search: M(x) mod P == 0 by
// long division over BigInt, exponents in bytes (y = x^8).
function mod(m, p) {
  const dp = p.toString(2).length - 1
  for (let d = m.toString(2).length - 1; d >= dp; d--) if ((m >> BigInt(d)) & 1n) m ^= p << BigInt(d - dp)
  return m
}
const poly = (bytes) => bytes.reduce((m, e) => m | (1n << BigInt(8 * e)), 0n)
for (const [name, p, terms] of [
  ['CRC-32C', 0x11edc6f41n, [209, 144, 54, 39, 14, 0]],
  ['CRC-32C', 0x11edc6f41n, [290, 136, 113, 107, 32, 0]],
  ['CRC-32', 0x104c11db7n, [274, 93, 75, 19, 11, 0]],
]) {
  if (mod(poly(terms), p) !== 0n) throw new Error(`${name}: y^${terms.join(' + y^')} is not a multiple`)
  // and a near miss is not (the check can fail)
  if (mod(poly([terms[0] + 1, ...terms.slice(1)]), p) === 0n) throw new Error(`${name}: check cannot fail`)
}
console.log(
  'sparse multiples: y^209+y^144+y^54+y^39+y^14+1 and y^290+y^136+y^113+y^107+y^32+1 = 0 mod 0x11EDC6F41, y^274+y^93+y^75+y^19+y^11+1 = 0 mod 0x104C11DB7 (y = x^8)',
)

const checked = checkAll()
console.log(
  `checked: ${checked} cases (RFC 3720 vectors, lengths 0..4096 at two start offsets each, long lengths), all variants agree with the bitwise reference`,
)
if (args.includes('--check-only')) process.exit(0)

// ----------------------------------------------------------------- timing
let native = null
try {
  native = require('@node-rs/crc32').crc32c
} catch (e) {
  console.log(`@node-rs/crc32 not loadable here: ${e.message}`)
}
let wafka = null
try {
  wafka = (await import(new URL('../../dist/codec.js', here).href)).crc32c
} catch (e) {
  console.log(`dist/codec.js not loadable here: ${e.message}`)
}

const SWEEP = args.includes('--sweep')
const SWEEP2 = args.includes('--sweep2')
const SIZES = SWEEP ? [320, 384, 448, 512, 640, 768, 1024] : SWEEP2 ? [1024, 1536, 2048, 3072, 4096, 8192] : [64, 1024, 16 * 1024, 1 << 20]
if (SWEEP) w.setSparseMin(0)
const now = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now()
let sink = 0

function time(fn, size) {
  // calls in batches until MS elapsed; returns GB/s
  const batch = Math.max(1, Math.round((256 * 1024) / size))
  let calls = 0
  const t0 = now()
  let t = t0
  while (t - t0 < MS) {
    for (let i = 0; i < batch; i++) sink ^= fn()
    calls += batch
    t = now()
  }
  return (calls * size) / ((t - t0) * 1e6)
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const runtime =
  typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : typeof Deno !== 'undefined' ? `Deno ${Deno.version.deno}` : `Node ${process.version}`
console.log(`${runtime}; ${ROUNDS} rounds of ${MS} ms per contender and size, interleaved; GB/s = 1e9 B/s`)

const rows = []
for (const size of SIZES) {
  const m = mem()
  for (let i = 0; i < size; i++) m[base + i] = (i * 131 + (i >>> 8) * 7) & 0xff
  const buf = Buffer.from(m.subarray(base, base + size))
  const copy = new Uint8Array(buf)
  const contenders = []
  if (native) contenders.push(['@node-rs/crc32 (native)', () => native(buf)])
  if (wafka) contenders.push(['wafka crc32c (dist/codec.js, public API)', () => wafka(copy)])
  for (const name of SWEEP
    ? ['slice16', 'sparse', 'sparseX4', 'sparseB', 'sparseBX4']
    : SWEEP2
      ? ['slice16', 'sparse', 'sparseB']
      : VARIANTS) {
    // a closure of its own source per kernel: one shared arrow calling many
    // targets is a polymorphic call site, which costs JSC (Bun) ~80 ns a call
    contenders.push([name, new Function('f', 'p', 'n', 'return () => f(0, p, n)')(w[name], base, size)])
  }
  if (!SWEEP && !SWEEP2) {
    const fi = w.sparseIeee
    const si = w.slice16Ieee
    contenders.push(['CRC-32 (IEEE) slice16', () => si(0, base, size)])
    contenders.push(['CRC-32 (IEEE) sparse', () => fi(0, base, size)])
  }
  // the best kernel as the public API would run it: copy in, then the kernel
  const f = w.sparseB
  const staging = base + (2 << 20) - size - 64
  contenders.push(['sparseB + copy in', () => (mem().set(copy, staging), f(0, staging, size))])
  // warm up
  for (const [, fn] of contenders) for (let i = 0; i < 2000 && i * size < 64 << 20; i++) sink ^= fn()
  const gbs = contenders.map(() => [])
  const ratio = contenders.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    const got = contenders.map(([, fn]) => time(fn, size))
    got.forEach((g, i) => {
      gbs[i].push(g)
      if (native) ratio[i].push(g / got[0])
    })
  }
  contenders.forEach(([name], i) => rows.push({ size, name, gbs: median(gbs[i]), ratio: native ? median(ratio[i]) : NaN }))
}

const label = (n) => (n >= 1 << 20 ? `${n >> 20} MiB` : n >= 1024 ? `${n / 1024} KiB` : `${n} B`)
const names = [...new Set(rows.map((r) => r.name))]
console.log(`\n| variant | ${SIZES.map(label).join(' | ')} |`)
console.log(`|---|${SIZES.map(() => '---:').join('|')}|`)
for (const name of names) {
  const cells = SIZES.map((s) => {
    const r = rows.find((x) => x.size === s && x.name === name)
    return `${r.gbs.toFixed(2)} (${r.ratio.toFixed(2)}×)`
  })
  console.log(`| ${name} | ${cells.join(' | ')} |`)
}
console.log(`\ncells: median GB/s (median per-round ratio to @node-rs/crc32). sink ${sink & 1}`)
