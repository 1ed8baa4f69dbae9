// Encode in one process (issue 30's encode targets): wafka's built codec (dist/, and optionally an
// older build given by --before=<dir>), a bare wasm design over the same core (every key and value
// copied in by Uint8Array#set, descriptors written, one call, the batch copied out: no API around it),
// KafkaJS 2.2.4's and @platformatic/kafka 2.x's encoders, 1,000 records of a 16 B key and 10 B / 100 B /
// 1 KiB values, Buffers and strings in, no compression. Interleaved rounds; ratios to wafka first.
//   node --expose-gc bench/copy-lab/encode.mjs [--before=dist-before] [--rounds=3] [--time=200]
//   npx bun bench/copy-lab/encode.mjs ...      npx deno run -A bench/copy-lab/encode.mjs ...
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const ROUNDS = Number(args.get('rounds') ?? 3)
const TIME = Number(args.get('time') ?? 200)
const SIZES = (args.get('sizes') ?? '10,100,1024').split(',').map(Number)
const COUNT = 1000
const root = new URL('../../', import.meta.url)
const runtime =
  typeof globalThis.Bun !== 'undefined'
    ? `Bun ${globalThis.Bun.version}`
    : typeof globalThis.Deno !== 'undefined'
      ? `Deno ${globalThis.Deno.version.deno}`
      : `Node ${process.version}`

const after = await import(new URL('dist/codec.js', root))
const before = args.has('before') ? await import(pathToFileURL(resolve(args.get('before'), 'codec.js'))) : null

// --- the bare design: the layout constants of src/codec/layout.ts ---
const E = { BASE_OFFSET: 0, BASE_TIMESTAMP: 8, MAX_TIMESTAMP: 16, PRODUCER_ID: 24, LEADER_EPOCH: 32, PRODUCER_EPOCH: 36 }
Object.assign(E, { BASE_SEQUENCE: 40, ATTRIBUTES: 44, RECORDS: 48, COUNT: 52, LAST_OFFSET_DELTA: 56, OUT: 60, OUT_CAP: 64 })
Object.assign(E, { SCRATCH: 68, SCRATCH_CAP: 72, OFFSET_DELTAS: 80, SIZE: 84 })
const R_SIZE = 32
const core = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('dist/wafka.wasm', root))), {
  env: {
    abort: () => {
      throw new Error('abort')
    },
  },
}).exports
const heap = (core.heapBase() + 4095) & ~4095
core.memory.grow(1200)
const mem = core.memory.buffer
const u8 = new Uint8Array(mem)
const i32 = new Int32Array(mem)
const f64 = new Float64Array(mem)
const view = new DataView(mem)
const te = new TextEncoder()
function bare(records) {
  const n = records.length
  const params = heap
  const staged = params + 4096
  let p = staged + n * R_SIZE + 64
  const t0 = records[0].timestamp
  let max = t0
  for (let i = 0; i < n; i++) {
    const r = records[i]
    const d = staged + i * R_SIZE
    f64[d >> 3] = r.timestamp - t0
    if (r.timestamp > max) max = r.timestamp
    const q = d >> 2
    const k = r.key
    const v = r.value
    i32[q + 2] = p
    const kl = typeof k === 'string' ? te.encodeInto(k, u8.subarray(p)).written : (u8.set(k, p), k.length)
    i32[q + 3] = kl
    p += kl
    i32[q + 4] = p
    const vl = typeof v === 'string' ? te.encodeInto(v, u8.subarray(p)).written : (u8.set(v, p), v.length)
    i32[q + 5] = vl
    p += vl
    i32[q + 6] = 0
    i32[q + 7] = 0
  }
  const out = (p + 4095 + 1088) & ~63
  const cap = p - staged + n * 21 + 61
  view.setBigInt64(params + E.BASE_OFFSET, 0n, true)
  view.setBigInt64(params + E.BASE_TIMESTAMP, BigInt(t0), true)
  view.setBigInt64(params + E.MAX_TIMESTAMP, BigInt(max), true)
  view.setBigInt64(params + E.PRODUCER_ID, -1n, true)
  for (const [f, x] of [
    ['LEADER_EPOCH', -1],
    ['PRODUCER_EPOCH', -1],
    ['BASE_SEQUENCE', -1],
    ['ATTRIBUTES', 0],
    ['RECORDS', staged],
    ['COUNT', n],
    ['LAST_OFFSET_DELTA', n - 1],
    ['OFFSET_DELTAS', 0],
    ['OUT', out],
    ['OUT_CAP', cap],
    ['SCRATCH', 0],
    ['SCRATCH_CAP', 0],
  ])
    view.setInt32(params + E[f], x, true)
  const size = core.encodeBatch(params)
  if (size < 0) throw new Error(`bare encode: ${size}`)
  const batch = Buffer.allocUnsafe(size)
  batch.set(u8.subarray(out, out + size))
  return batch
}

// --- the peers, fed as bench/peers feeds them (compression none, no headers) ---
const require = createRequire(new URL('package.json', root))
const Long = require('kafkajs/src/utils/long')
const Record = require('kafkajs/src/protocol/recordBatch/record/v0')
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0')
const pk2 = await import(pathToFileURL(require.resolve('platformatic-kafka-2')))
async function kafkajs(records) {
  const first = records[0].timestamp
  const encoded = records.map((r, i) =>
    Record({ key: r.key, value: r.value, headers: {}, offsetDelta: i, timestampDelta: r.timestamp - first }),
  )
  const batch = await RecordBatch({
    compression: 0,
    firstOffset: Long.fromValue(0),
    firstTimestamp: first,
    maxTimestamp: first + records.length - 1,
    producerId: Long.fromValue(-1),
    producerEpoch: 0,
    firstSequence: 0,
    lastOffsetDelta: records.length - 1,
    records: encoded,
  })
  return batch.buffer
}
function platformatic2(records) {
  const messages = records.map((r) => ({
    key: typeof r.key === 'string' ? Buffer.from(r.key) : r.key,
    value: typeof r.value === 'string' ? Buffer.from(r.value) : r.value,
    headers: new Map(),
    topic: 'bench',
    partition: 0,
    timestamp: BigInt(r.timestamp),
  }))
  return pk2.createRecordsBatch(messages, { compression: 'none', producerId: -1n, producerEpoch: 0 }).buffer
}

function records(size, strings) {
  let seed = size
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % 95
  const text = (n) => Array.from({ length: n }, () => String.fromCharCode(32 + rnd())).join('')
  return Array.from({ length: COUNT }, (_, i) => {
    const key = `user-${String(i * 7919).padStart(11, '0')}`
    const value = text(size)
    return strings
      ? { key, value, timestamp: 1_700_000_000_000 + i }
      : { key: Buffer.from(key), value: Buffer.from(value), timestamp: 1_700_000_000_000 + i }
  })
}

// Per CPU time of the process (user + system), not wall time: on a shared machine the wall clock
// counts the time other processes held the core. --clock=wall for wall time.
const cpu = args.get('clock') !== 'wall'
const now = () => (cpu ? (({ user, system }) => (user + system) / 1000)(process.cpuUsage()) : performance.now())
async function rate(fn, rs) {
  let ops = 0
  const t0 = now()
  let t
  do {
    await fn(rs)
    ops++
    t = now()
  } while (t - t0 < TIME)
  return (ops * COUNT * 1000) / (t - t0)
}

const rotated = (xs, r) => xs.map((_, i) => xs[(i + r) % xs.length])

const contenders = {
  wafka: (rs) => after.encodeRecordBatch(rs),
  ...(before ? { 'wafka before': (rs) => before.encodeRecordBatch(rs) } : {}),
  'bare wasm design': bare,
  ...(args.has('no-peers') ? {} : { 'KafkaJS 2.2.4': kafkajs, '@platformatic/kafka 2.x': platformatic2 }),
}
const lines = [
  `## ${runtime}`,
  '',
  `1,000 records (16 B key), no compression; a warm-up, then best of ${ROUNDS} interleaved rounds (order rotated) of ${TIME} ms of ${cpu ? 'CPU' : 'wall'} time; M records/s (ratio: wafka ÷ contender)`,
  '',
]
lines.push(
  `| input | ${Object.keys(contenders).join(' | ')} |`,
  `|---|${Object.keys(contenders)
    .map(() => '---:')
    .join('|')}|`,
)
for (const strings of args.get('input') === 'strings' ? [true] : args.get('input') === 'buffers' ? [false] : [false, true])
  for (const size of SIZES) {
    const rs = records(size, strings)
    const ref = after.encodeRecordBatch(rs)
    // The bare design must make wafka's bytes, or it is not the same work.
    if (!bare(rs).equals(ref)) throw new Error(`bare design's batch differs at ${size} B`)
    if (before && !before.encodeRecordBatch(rs).equals(ref)) throw new Error(`before/after batches differ at ${size} B`)
    const best = {}
    for (const fn of Object.values(contenders)) await rate(fn, rs) // warm-up, not counted
    for (let r = 0; r < ROUNDS; r++)
      // Rotated each round: whichever runs first after the collection pays for it (up to 15 % on Deno at 1 KiB).
      for (const [name, fn] of rotated(Object.entries(contenders), r)) {
        globalThis.gc?.() ?? globalThis.Bun?.gc(true)
        best[name] = Math.max(best[name] ?? 0, await rate(fn, rs))
      }
    const w = best.wafka
    lines.push(
      `| ${size} B ${strings ? 'strings' : 'Buffers'} | ${Object.entries(best)
        .map(([n, v]) => `${(v / 1e6).toFixed(2)}${n === 'wafka' ? '' : ` (${(w / v).toFixed(2)}×)`}`)
        .join(' | ')} |`,
    )
  }
console.log(lines.join('\n') + '\n')
