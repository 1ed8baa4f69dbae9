/**
 * wafka's codec against its peers, side by side in one process:
 * CRC-32C; RecordBatch v2 encode and decode of 1,000 records; LZ4, snappy,
 * gzip and zstd. Runs on Node, Bun and Deno alike; prints a table and writes
 * bench/results/codec-<runtime>.json, .md and .svg (node, bun, deno), each
 * saying the runtime's version.
 *
 *   npm run build   (src/build/bundle.mjs bundles every bench/ script into dist/bench/)
 *   node --expose-gc dist/bench/codec.js [--quick] [--only=<text>] [--out=<dir>]
 *   bun dist/bench/codec.js ...
 *   deno run -A --v8-flags=--expose-gc dist/bench/codec.js ...
 *
 * `npm run bench` runs all three in turn (bench/codec-runtimes.ts).
 * --quick: one short run of every case (a smoke test; figures are rough and
 * written only with --out). --only: just the cases whose name contains
 * <text> (results not written). --out: where to write (default bench/results).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import process from 'node:process'
import { LZ4_NATIVE_CEILING, lz4Peers, snappyPeers, wafkaLz4, wafkaSnappy, wafkaZlib, zlibPeers } from './compressors.js'
import { bareWasm, kafkajs, platformatic, platformatic2, wafka, type PeerCodec } from './peers/index.js'
import { machine, option, packageVersion, repositoryRoot } from './support/environment.js'
import { measureAll, type Case, type MeasureOptions } from './support/measure.js'
import { absences, currentRuntime, optional, runtimeLabel } from './support/runtime.js'
// The cases, shared with `wafka bench codec` (which runs wafka's contenders alone).
import { CODEC_TIMING, compressionCases, crcCases, decodeCases, encodeCases } from '../src/cli/bench/codec-cases.js'
import { markdown, printCase, type ReportHeader } from './support/report.js'
import { codecChartSvg, codecChartTitle } from '../src/cli/bench/result-charts.js'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = option('only')
const out = option('out')
const options: MeasureOptions = quick ? CODEC_TIMING.quick : CODEC_TIMING.full
const runtime = currentRuntime()

/** The column every table shows beside wafka for the work a native library does at the hardware's limit. */
export const CRC_NATIVE_CEILING = 'native ceiling (@node-rs/crc32)'

const require = createRequire(import.meta.url)
const nativeCrc = optional('@node-rs/crc32', (): { crc32c(d: Buffer): number } => require('@node-rs/crc32'))

const notes: string[] = []
const peers: PeerCodec[] = [wafka, bareWasm, kafkajs, platformatic, platformatic2]
/** The CRC-32C contenders: each client's own, the bare wasm core, and the native one @platformatic/kafka prefers when installed. */
const crcs = [
  { name: 'wafka', crc32c: wafka.crc32c },
  { name: 'bare wasm', crc32c: bareWasm.crc32c },
  { name: 'KafkaJS', crc32c: kafkajs.crc32c },
  { name: '@platformatic/kafka', crc32c: platformatic.crc32c },
  ...(nativeCrc ? [{ name: CRC_NATIVE_CEILING, crc32c: (d: Uint8Array) => nativeCrc.crc32c(d as Buffer) }] : []),
]

async function main(): Promise<void> {
  for (const p of peers) await p.load()
  const gc = (globalThis as { gc?: unknown; Bun?: { gc?: unknown } }).gc ?? (globalThis as { Bun?: { gc?: unknown } }).Bun?.gc
  if (!gc) console.log('(run with --expose-gc to collect garbage between contenders)')
  console.log(`${runtimeLabel(runtime)} (${runtime.engine})`)
  notes.push(
    `KafkaJS has no zstd here (its codec, @kafkajs/zstd, needs a native zstd build); @platformatic/kafka's zstd needs node:zlib zstd (Node >= 22.15, Bun, Deno)${platformatic.codecs.includes('zstd') ? '' : `, absent on ${runtimeLabel(runtime)}`}.`,
    `@platformatic/kafka's CRC-32C column is its own (Rust, wasm). When the optional @node-rs/crc32 is installed, as here, it uses that native one instead: the "${CRC_NATIVE_CEILING}" column (SSE4.2's CRC instruction).`,
    `"@platformatic/kafka" is 1.35; "@platformatic/kafka 2" is 2.12 (the same record codec API). 2.12's CRC-32C is 1.35's (the same @platformatic/wasm-utils ${packageVersion('@platformatic/wasm-utils')}), so CRC-32C has one @platformatic/kafka column.`,
    `"bare wasm" is wafka's wasm core driven directly with no API around it (bench/peers/bare-wasm.ts): bytes copied straight into wasm memory, one call, the result copied out (decode: keys and values as views over wasm memory, CRC checked). It takes Buffers only and has the in-wasm codecs only (none, snappy, LZ4): the ceiling for what wafka's TypeScript layer costs.`,
    `Encode counts JS objects in to one finished Buffer out; "strings in" gives keys and values as strings. Decode counts a Buffer in to records whose key and value have been read.`,
  )
  const cases: Case[] = [
    ...crcCases(crcs),
    ...encodeCases(peers, 'buffers'),
    ...encodeCases(
      peers.filter((p) => p !== bareWasm),
      'strings',
    ),
    ...(await decodeCases(peers, platformatic, notes)),
    ...(await compressionCases(
      notes,
      'LZ4',
      await wafkaLz4(),
      lz4Peers,
      `LZ4 is Kafka's LZ4 frame format in every contender but "${LZ4_NATIVE_CEILING}", a bare LZ4 block (no frame, no checksums), shown as the native ceiling.`,
    )),
    ...(await compressionCases(
      notes,
      'snappy',
      await wafkaSnappy(),
      snappyPeers,
      "wafka's snappy output is xerial-framed (as the Java client writes); the others write one raw block.",
    )),
    ...(await compressionCases(notes, 'gzip', wafkaZlib('gzip'), zlibPeers.gzip, "wafka's gzip is node:zlib's (level 6).")),
    ...(await compressionCases(
      notes,
      'zstd',
      wafkaZlib('zstd'),
      zlibPeers.zstd,
      zlibPeers.zstd.length
        ? "wafka's zstd is node:zlib's (level 3)."
        : `node:zlib: n/a, ${runtimeLabel(runtime)}'s node:zlib has no zstd (Node >= 22.15 has); wafka's zstd here is the @bokuweb/zstd-wasm build it loads on demand (level 3).`,
    )),
  ].filter((c) => !only || `${c.group}: ${c.name}`.includes(only))
  for (const a of absences) notes.push(`${a.name}: n/a on ${runtimeLabel(runtime)}, it does not load here (${a.reason}).`)

  console.log(`${cases.length} cases, ${options.rounds} round(s) of each`)
  const results = await measureAll(cases, options, (line) => console.log(line))
  console.log('')
  for (const result of results) printCase(result)
  console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}\n`)

  if (only || (quick && !out)) {
    console.log('(--only, or --quick without --out: results not written)')
    return
  }
  const header: ReportHeader = {
    date: new Date().toISOString(),
    runtime,
    machine: machine(),
    versions: Object.fromEntries(
      [
        'kafkajs',
        '@platformatic/kafka',
        'platformatic-kafka-2',
        '@node-rs/crc32',
        'lz4-napi',
        'snappy-wasm',
        'kafkajs-lz4',
        'kafkajs-snappy',
        '@bokuweb/zstd-wasm',
        'tinybench',
      ].map((name) => [name === 'platformatic-kafka-2' ? '@platformatic/kafka 2' : name, packageVersion(name)]),
    ),
    rounds: options.rounds,
    quick,
    command: commandLine(),
    notes,
  }
  const dir = out ?? join(repositoryRoot(), 'bench', 'results')
  const name = `codec-${runtime.name}`
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ ...header, options, cases: results }, null, 2)}\n`)
  writeFileSync(join(dir, `${name}.md`), markdown(header, results))
  writeFileSync(join(dir, `${name}.svg`), codecChartSvg(codecChartTitle(header), results))
  console.log(`wrote ${join(dir, name)}.json, .md and .svg`)
}

/** How this run was started, for the results: the runtime, its flags and the script's arguments. */
function commandLine(): string {
  const script = 'dist/bench/codec.js'
  const rest = args.filter((a) => !a.startsWith('--out')).join(' ')
  const launch = runtime.name === 'node' ? 'node --expose-gc' : runtime.name === 'bun' ? 'bun' : 'deno run -A --v8-flags=--expose-gc'
  return `${launch} ${script}${rest ? ` ${rest}` : ''}`
}

await main()
