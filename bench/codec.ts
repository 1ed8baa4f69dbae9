/**
 * wafka's codec against its peers, side by side in one process:
 * CRC-32C; RecordBatch v2 encode and decode of 1,000 records; LZ4 and snappy.
 * Prints a table and writes bench/results/codec.json and codec.md.
 *
 *   npm run build   (src/build/bundle.mjs bundles every bench/ script into dist/bench/)
 *   node --expose-gc dist/bench/codec.js [--quick] [--only=<text>]
 *
 * --quick: one short run of every case (a smoke test; figures are rough and
 * no results are written). --only: just the cases whose name contains <text>.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32c as nativeCrc32c } from '@node-rs/crc32'
import { lz4Peers, snappyPeers, wafkaLz4, wafkaSnappy } from './compressors.js'
import { kafkajs, platformatic, wafka, type PeerCodec } from './peers/index.js'
import { machine, packageVersion, repositoryRoot } from './support/environment.js'
import { measureAll, type Case, type MeasureOptions } from './support/measure.js'
// The cases, shared with `wafka bench codec` (which runs wafka's contenders alone).
import { CODEC_TIMING, compressionCases, crcCases, decodeCases, encodeCases } from '../src/cli/bench/codec-cases.js'
import { markdown, printCase, type ReportHeader } from './support/report.js'
import { codecChartSvg, codecChartTitle } from '../src/cli/bench/result-charts.js'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const options: MeasureOptions = quick ? CODEC_TIMING.quick : CODEC_TIMING.full

const notes: string[] = []
const peers: PeerCodec[] = [wafka, kafkajs, platformatic]
/** The CRC-32C contenders: each client's own, and the native one @platformatic/kafka prefers when installed. */
const crcs = [
  { name: 'wafka', crc32c: wafka.crc32c },
  { name: 'KafkaJS', crc32c: kafkajs.crc32c },
  { name: '@platformatic/kafka', crc32c: platformatic.crc32c },
  { name: '@node-rs/crc32', crc32c: (d: Uint8Array) => nativeCrc32c(d as Buffer) },
]

async function main(): Promise<void> {
  for (const p of peers) await p.load()
  if (!(globalThis as { gc?: unknown }).gc) console.log('(run node with --expose-gc to collect garbage between contenders)')
  notes.push(
    `KafkaJS has no zstd here (its codec, @kafkajs/zstd, needs a native zstd build); @platformatic/kafka's zstd needs node:zlib zstd (Node >= 22.15)${platformatic.codecs.includes('zstd') ? '' : ', absent on this Node'}.`,
    `@platformatic/kafka's CRC-32C column is its own (Rust, wasm). When the optional @node-rs/crc32 is installed, as here, it uses that native one instead: the @node-rs/crc32 column.`,
    `Encode counts JS objects in to one finished Buffer out; "strings in" gives keys and values as strings. Decode counts a Buffer in to records whose key and value have been read.`,
  )
  const cases: Case[] = [
    ...crcCases(crcs),
    ...encodeCases(peers, 'buffers'),
    ...encodeCases(peers, 'strings'),
    ...(await decodeCases(peers, platformatic, notes)),
    ...(await compressionCases(
      notes,
      'LZ4',
      await wafkaLz4(),
      lz4Peers,
      'LZ4 is Kafka\'s LZ4 frame format in every contender but "lz4-napi, raw block", a bare LZ4 block (no frame, no checksums), shown as the native ceiling.',
    )),
    ...(await compressionCases(
      notes,
      'snappy',
      await wafkaSnappy(),
      snappyPeers,
      "wafka's snappy output is xerial-framed (as the Java client writes); the others write one raw block.",
    )),
  ].filter((c) => !only || `${c.group}: ${c.name}`.includes(only))

  console.log(`${cases.length} cases, ${options.rounds} round(s) of each`)
  const results = await measureAll(cases, options, (line) => console.log(line))
  console.log('')
  for (const result of results) printCase(result)
  console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}\n`)

  if (quick || only) {
    console.log('(--quick / --only: results not written)')
    return
  }
  const header: ReportHeader = {
    date: new Date().toISOString(),
    machine: machine(),
    versions: Object.fromEntries(
      [
        'kafkajs',
        '@platformatic/kafka',
        '@node-rs/crc32',
        'lz4-napi',
        'snappy-wasm',
        'kafkajs-lz4',
        'kafkajs-snappy',
        '@bokuweb/zstd-wasm',
        'tinybench',
      ].map((name) => [name, packageVersion(name)]),
    ),
    rounds: options.rounds,
    notes,
  }
  const dir = join(repositoryRoot(), 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'codec.json'), `${JSON.stringify({ ...header, options, cases: results }, null, 2)}\n`)
  writeFileSync(join(dir, 'codec.md'), markdown(header, results))
  writeFileSync(join(dir, 'codec.svg'), codecChartSvg(codecChartTitle(header), results))
  console.log(`wrote ${join(dir, 'codec.json')}, codec.md and codec.svg`)
}

await main()
