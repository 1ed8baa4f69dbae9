// Decode of 1,000 uncompressed records (10 B, 100 B, 1 KiB values, 16 B
// keys), every key and value read: wafka's built decodeRecordSet (dist/codec.js)
// with the CRC checked and unchecked, beside KafkaJS's and @platformatic/kafka's
// decoders (which check no CRC), all in one process, rounds interleaved; the
// ratio to each peer is taken per round and the median reported. Plain JS, so
// Node, Bun and Deno run the same file (bench/codec.ts's bundle does not load
// under Bun and Deno yet: a native peer of its compression cases):
//   npm run build && node bench/crc-lab/decode.mjs [--rounds 7] [--ms 100] [--dist <dir>]
//   node_modules/.bin/bun bench/crc-lab/decode.mjs
//   node_modules/.bin/deno run -A bench/crc-lab/decode.mjs
// --dist: another build of the package (e.g. main's dist/) for a before/after
// in the same harness.
import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? dflt : args[i + 1]
}
const ROUNDS = Number(opt('rounds', 7))
const MS = Number(opt('ms', 100))
const dist = resolve(opt('dist', new URL('../../dist/', import.meta.url).pathname))
const runtime =
  typeof Deno !== 'undefined'
    ? `deno ${Deno.version.deno}`
    : typeof Bun !== 'undefined'
      ? `bun ${Bun.version}`
      : `node ${process.versions.node}`

const wafka = await import(pathToFileURL(join(dist, 'codec.js')).href)
const Decoder = require('kafkajs/src/protocol/decoder')
const kafkajsDecode = require('kafkajs/src/protocol/recordBatch/v0/decoder')
const platformatic = await import('@platformatic/kafka')
let platformatic2 = null
try {
  platformatic2 = await import('platformatic-kafka-2')
} catch {}

// One touch loop per contender, written out: a shared loop would see every
// contender's record shape and go megamorphic, slowing all of them unevenly.
const wafkaDecode = (options) => (batch) => {
  let bytes = 0
  for (const b of wafka.decodeRecordSet(batch, options).batches) {
    const records = b.records
    for (let i = 0; i < records.length; i++) bytes += (records[i].key?.length ?? 0) + (records[i].value?.length ?? 0)
  }
  return bytes
}
const contenders = [
  ['wafka (CRC checked)', wafkaDecode({})],
  ['wafka, CRC unchecked', wafkaDecode({ verifyCrc: false })],
  // KafkaJS's decoder is async (decompression); uncompressed it resolves at once, measured as it is used.
  [
    'KafkaJS',
    async (batch) => {
      const { records } = await kafkajsDecode(new Decoder(batch))
      let bytes = 0
      for (let i = 0; i < records.length; i++) bytes += (records[i].key?.length ?? 0) + (records[i].value?.length ?? 0)
      return bytes
    },
  ],
  [
    '@platformatic/kafka 1.x',
    (batch) => {
      const { records } = platformatic.readRecordsBatch(platformatic.Reader.from(batch))
      let bytes = 0
      for (let i = 0; i < records.length; i++) bytes += (records[i].key?.length ?? 0) + (records[i].value?.length ?? 0)
      return bytes
    },
  ],
]
if (platformatic2?.readRecordsBatch)
  contenders.push([
    '@platformatic/kafka 2.x',
    (batch) => {
      const { records } = platformatic2.readRecordsBatch(platformatic2.Reader.from(batch))
      let bytes = 0
      for (let i = 0; i < records.length; i++) bytes += (records[i].key?.length ?? 0) + (records[i].value?.length ?? 0)
      return bytes
    },
  ])

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

console.log(`${runtime}: decode 1,000 records, ${ROUNDS} rounds of ${MS} ms, wafka from ${dist}`)
console.log(
  '| value | ' +
    contenders.map(([n]) => n).join(' | ') +
    ' | checked ÷ KafkaJS | checked ÷ @platformatic 1.x' +
    (platformatic2 ? ' | checked ÷ 2.x' : '') +
    ' | checked ÷ unchecked |',
)
console.log('|---|' + contenders.map(() => '---:').join('|') + '|---:|---:|' + (platformatic2 ? '---:|' : '') + '---:|')
for (const size of [10, 100, 1024]) {
  const records = Array.from({ length: 1000 }, (_, i) => ({
    key: Buffer.from(`key-${String(i).padStart(12, '0')}`),
    value: Buffer.alloc(size, i & 0xff),
    timestamp: 1_700_000_000_000 + i,
  }))
  const batch = Buffer.from(wafka.encodeRecordBatch(records))
  const expected = 1000 * (16 + size)
  for (const [name, fn] of contenders) {
    const seen = await fn(batch)
    if (seen !== expected) throw new Error(`${name} read ${seen} bytes, expected ${expected}`)
  }
  const rates = contenders.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    for (let c = 0; c < contenders.length; c++) {
      const fn = contenders[c][1]
      for (let w = 0; w < 20; w++) await fn(batch)
      let n = 0
      const t0 = performance.now()
      let t = t0
      while (t - t0 < MS) {
        for (let k = 0; k < 10; k++) await fn(batch)
        n += 10
        t = performance.now()
      }
      rates[c].push((n * 1000) / ((t - t0) / 1000))
    }
  }
  const ratio = (a, b) => median(rates[a].map((x, i) => x / rates[b][i])).toFixed(2) + '×'
  const cells = rates.map((r) => (median(r) / 1e6).toFixed(2) + ' M/s')
  const ratios = [ratio(0, 2), ratio(0, 3), ...(platformatic2 ? [ratio(0, 4)] : []), ratio(0, 1)]
  console.log(`| ${size === 1024 ? '1 KiB' : size + ' B'} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`)
}
