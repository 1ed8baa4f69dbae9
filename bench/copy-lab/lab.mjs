// Copy lab (issue 30): how fast each way of getting bytes into wasm memory is,
// per runtime and record size. Plain .mjs: `node bench/copy-lab/lab.mjs`,
// `npx bun bench/copy-lab/lab.mjs`, `npx deno run -A bench/copy-lab/lab.mjs`.
// Every method runs in the same process, interleaved round by round; compare
// ratios only (figures in ns per record, 1,000 records of a 16 B key + value).
import { Buffer } from 'node:buffer'

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const ROUNDS = Number(args.get('rounds') ?? 5)
const TIME = Number(args.get('time') ?? 60) // ms per method per round
const SIZES = (args.get('sizes') ?? '10,100,1024').split(',').map(Number)
const COUNT = 1000
const KEY = 16

const memory = new WebAssembly.Memory({ initial: 256 })
const u8 = new Uint8Array(memory.buffer)
const mb = Buffer.from(memory.buffer)
const te = new TextEncoder()
const BASE = 4096 + 7 // an unaligned destination, as records' are

const runtime =
  typeof globalThis.Bun !== 'undefined'
    ? `Bun ${globalThis.Bun.version}`
    : typeof globalThis.Deno !== 'undefined'
      ? `Deno ${globalThis.Deno.version.deno} (V8 ${globalThis.Deno.version.v8})`
      : `Node ${process.version} (V8 ${process.versions.v8})`

function ascii(n, seed) {
  let s = ''
  for (let i = 0; i < n; i++) s += String.fromCharCode(32 + ((i * 7 + seed * 13) % 90))
  return s
}

// --- byte methods: copy v into memory at p ---
const loop = (v, p) => {
  const n = v.length
  for (let i = 0; i < n; i++) u8[p + i] = v[i]
  return n
}
const byteMethods = {
  'u8.set': (v, p) => (u8.set(v, p), v.length),
  'Buffer#copy': (v, p) => v.copy(mb, p),
  'memBuffer.set': (v, p) => (mb.set(v, p), v.length),
  loop: loop,
  'loop<=32 else set': (v, p) => (v.length <= 32 ? loop(v, p) : (u8.set(v, p), v.length)),
  'loop<=64 else set': (v, p) => (v.length <= 64 ? loop(v, p) : (u8.set(v, p), v.length)),
  'loop<=32 else copy': (v, p) => (v.length <= 32 ? loop(v, p) : v.copy(mb, p)),
  'Buffer loop<=32 else set': (v, p) => {
    const n = v.length
    if (n > 32) return (mb.set(v, p), n)
    for (let i = 0; i < n; i++) mb[p + i] = v[i]
    return n
  },
}
// Per batch: every record into a JS staging buffer (u8.set), then one copy in.
const stage = Buffer.allocUnsafe(COUNT * (KEY + 1100))
function stagedBatch(keys, values) {
  let q = 0
  for (let i = 0; i < keys.length; i++) {
    stage.set(keys[i], q)
    q += keys[i].length
    stage.set(values[i], q)
    q += values[i].length
  }
  u8.set(stage.subarray(0, q), BASE)
  return q
}

// --- string methods: write s as UTF-8 at p (room assumed) ---
const hasUtf8Write = typeof mb.utf8Write === 'function'
const scratch = new Uint8Array(4 * 1100)
const strLoop = (s, p) => {
  const n = s.length
  let i = 0
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) break
    u8[p + i] = c
  }
  return i === n ? n : mb.write(s, p, 'utf8')
}
const stringMethods = {
  'Buffer#write': (s, p) => mb.write(s, p, 'utf8'),
  'Buffer#write(s,p)': (s, p) => mb.write(s, p),
  ...(hasUtf8Write ? { 'Buffer#utf8Write': (s, p) => mb.utf8Write(s, p) } : {}),
  'encodeInto(subarray)': (s, p) => te.encodeInto(s, u8.subarray(p)).written,
  'encodeInto(scratch)+set': (s, p) => {
    const w = te.encodeInto(s, scratch).written
    u8.set(scratch.subarray(0, w), p)
    return w
  },
  'charCode loop': strLoop,
  'loop<=24 else write': (s, p) => (s.length <= 24 ? strLoop(s, p) : mb.write(s, p, 'utf8')),
  'loop<=24 else encodeInto': (s, p) => {
    if (s.length <= 24) {
      const n = s.length
      let i = 0
      for (; i < n; i++) {
        const c = s.charCodeAt(i)
        if (c >= 0x80) break
        u8[p + i] = c
      }
      if (i === n) return n
    }
    return te.encodeInto(s, u8.subarray(p)).written
  },
}

function timeIt(fn) {
  // Runs fn() (one batch of COUNT records) until TIME ms passed; ns per record.
  let ops = 0
  const t0 = performance.now()
  let t
  do {
    fn()
    fn()
    ops += 2
    t = performance.now()
  } while (t - t0 < TIME)
  return ((t - t0) * 1e6) / (ops * COUNT)
}

function perRecord(method, keys, values) {
  return () => {
    let p = BASE
    for (let i = 0; i < keys.length; i++) {
      p += method(keys[i], p)
      p += method(values[i], p)
    }
    return p
  }
}

function run(title, methods, makeInputs, extra = {}) {
  const out = []
  for (const size of SIZES) {
    const { keys, values } = makeInputs(size)
    const fns = {}
    for (const [name, m] of Object.entries(methods)) fns[name] = perRecord(m, keys, values)
    for (const [name, f] of Object.entries(extra)) fns[name] = () => f(keys, values)
    // Check every method writes the same bytes as the first.
    const ref = Buffer.from(u8.subarray(BASE, fns[Object.keys(fns)[0]]()))
    for (const [name, f] of Object.entries(fns)) {
      u8.fill(0, BASE, BASE + ref.length + 16)
      const end = f()
      const got = name.startsWith('per batch') ? u8.subarray(BASE, BASE + end) : u8.subarray(BASE, end)
      if (Buffer.compare(Buffer.from(got), ref) !== 0) throw new Error(`${title}: ${name} wrote other bytes at ${size} B`)
    }
    const best = {}
    for (const name of Object.keys(fns)) best[name] = Infinity
    for (let r = 0; r < ROUNDS; r++) for (const [name, f] of Object.entries(fns)) best[name] = Math.min(best[name], timeIt(f))
    out.push({ size, best })
  }
  return out
}

function table(title, results) {
  const names = Object.keys(results[0].best)
  const lines = [`### ${title}`, '', `| method | ${results.map((r) => `${r.size} B: ns/record (× first)`).join(' | ')} |`]
  lines.push(`|---|${results.map(() => '---:').join('|')}|`)
  for (const n of names)
    lines.push(`| ${n} | ${results.map((r) => `${r.best[n].toFixed(1)} (${(r.best[names[0]] / r.best[n]).toFixed(2)}×)`).join(' | ')} |`)
  return lines.join('\n')
}

const bufInputs = (size) => ({
  keys: Array.from({ length: COUNT }, (_, i) => Buffer.from(ascii(KEY, i))),
  values: Array.from({ length: COUNT }, (_, i) => Buffer.from(ascii(size, i + 1))),
})
const strInputs = (size) => ({
  keys: Array.from({ length: COUNT }, (_, i) => ascii(KEY, i)),
  values: Array.from({ length: COUNT }, (_, i) => ascii(size, i + 1)),
})

const bytes = run('Buffers in (16 B key + value, per record unless "per batch")', byteMethods, bufInputs, {
  'per batch: stage (set) + one u8.set': stagedBatch,
})
// --- copying a finished batch out of wasm memory (what encode returns) ---
const reuse = Buffer.allocUnsafeSlow(2e6)
const outMethods = {
  'Buffer.allocUnsafeSlow + set': (a, n) => Buffer.allocUnsafeSlow(n).set(u8.subarray(a, a + n)),
  'Buffer.allocUnsafe + set': (a, n) => Buffer.allocUnsafe(n).set(u8.subarray(a, a + n)),
  'u8.slice': (a, n) => u8.slice(a, a + n),
  'set into a reused buffer (the floor)': (a, n) => reuse.set(u8.subarray(a, a + n)),
}
function runOut() {
  const results = []
  for (const size of SIZES) {
    const n = COUNT * (size + KEY + 10)
    const best = {}
    for (const name of Object.keys(outMethods)) best[name] = Infinity
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, f] of Object.entries(outMethods))
        best[name] = Math.min(
          best[name],
          timeIt(() => f(BASE, n)),
        )
    results.push({ size, best })
  }
  return results
}
const out = runOut()
const strings = run('strings in (ASCII; 16 char key + value)', stringMethods, strInputs)
console.log(
  [
    `## ${runtime}`,
    '',
    `${COUNT} records a batch, best of ${ROUNDS} interleaved rounds of ${TIME} ms per method; ratio: how many times faster than the first row (>1 is faster).`,
    '',
    table('Buffers in', bytes),
    '',
    table('strings in', strings),
    '',
    table('copy out: one batch of 1,000 records (key + value + 10 B framing each) to a new Buffer, ns per record', out),
    '',
  ].join('\n'),
)
