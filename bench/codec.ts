/**
 * wafka's codec against its peers, side by side in one process:
 * CRC-32C; RecordBatch v2 encode and decode of 1,000 records; LZ4 and snappy.
 * Prints a table and writes bench/results/codec.json and codec.md.
 *
 *   npx esbuild bench/codec.ts --bundle --platform=node --format=esm --target=node20 \
 *     --loader:.wasm=binary --packages=external --outfile=dist/bench/codec.js
 *   node --expose-gc dist/bench/codec.js [--quick] [--only=<text>]
 *
 * --quick: one short run of every case (a smoke test; figures are rough and
 * no results are written). --only: just the cases whose name contains <text>.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32c as nativeCrc32c } from '@node-rs/crc32'
import type { CompressionName } from '../src/index.js'
import { lz4Peers, snappyPeers, wafkaLz4, wafkaSnappy, type Compressor } from './compressors.js'
import { kafkajs, platformatic, wafka, type PeerCodec } from './peers/index.js'
import { decodeAndTouch as wafkaDecodeAndTouch } from './peers/wafka.js'
import { benchRecords, jsonLines, noise, type InputKind } from './support/data.js'
import { machine, packageVersion, repositoryRoot } from './support/environment.js'
import { measureAll, type Case, type MeasureOptions } from './support/measure.js'
import { markdown, printCase, type ReportHeader } from './support/report.js'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const options: MeasureOptions = quick
  ? { rounds: 1, time: 40, warmupTime: 10, warmupPass: 0 }
  : { rounds: 3, time: 300, warmupTime: 100, warmupPass: 100 }

const KIB = 1024
const MIB = 1024 * KIB
const RECORDS = 1000
const VALUE_SIZES = [10, 100, KIB]
const CODECS: CompressionName[] = ['none', 'lz4', 'snappy', 'zstd', 'gzip']
const notes: string[] = []

const sizeName = (n: number) => (n >= MIB ? `${n / MIB} MiB` : n >= KIB ? `${n / KIB} KiB` : `${n} B`)

function crcCases(): Case[] {
  return [KIB, 16 * KIB, MIB].map((size) => {
    const data = noise(size)
    return {
      group: 'CRC-32C',
      name: sizeName(size),
      unit: 'MB/s',
      perOp: size,
      repeat: Math.max(1, Math.round((64 * KIB) / size)),
      contenders: [
        { name: 'wafka', fn: () => wafka.crc32c(data) },
        { name: 'KafkaJS', fn: () => kafkajs.crc32c(data) },
        { name: '@platformatic/kafka', fn: () => platformatic.crc32c(data) },
        { name: '@node-rs/crc32', fn: () => nativeCrc32c(data) },
      ],
    }
  })
}

const peers: PeerCodec[] = [wafka, kafkajs, platformatic]

function encodeCases(kind: InputKind): Case[] {
  const cases: Case[] = []
  for (const size of VALUE_SIZES) {
    const records = benchRecords(RECORDS, size, kind)
    for (const compression of CODECS) {
      cases.push({
        group: `encode 1,000 records, ${kind} in`,
        name: `${sizeName(size)} values, ${compression}`,
        unit: 'records/s',
        perOp: RECORDS,
        contenders: peers
          .filter((p) => p.codecs.includes(compression))
          .map((p) => ({ name: p.name, fn: () => p.encode(records, { compression }) })),
      })
    }
  }
  return cases
}

/**
 * Every decoder reads the same bytes: wafka's encoding, except for snappy,
 * where it is @platformatic/kafka's (a raw snappy block), because
 * @platformatic/kafka cannot read the xerial framing wafka and the Java
 * client write.
 */
async function decodeCases(): Promise<Case[]> {
  notes.push(
    'wafka checks each batch\'s CRC-32C when decoding, as the Java client does; KafkaJS and @platformatic/kafka never do. The "wafka, CRC unchecked" column is wafka with { verifyCrc: false }; its ratio is what the check costs.',
    "Decode inputs are the same bytes for every decoder: wafka's encoding, except snappy, which is @platformatic/kafka's raw-block encoding, since @platformatic/kafka cannot read the xerial-framed snappy that wafka and the Java client write.",
  )
  const cases: Case[] = []
  for (const size of VALUE_SIZES) {
    const records = benchRecords(RECORDS, size, 'buffers')
    const expectedBytes = RECORDS * (16 + size)
    for (const compression of CODECS) {
      const batch = await (compression === 'snappy' ? platformatic : wafka).encode(records, { compression })
      const contenders = peers.filter((p) => p.codecs.includes(compression))
      for (const p of contenders) {
        const seen = await p.decodeAndTouch(batch)
        if (seen !== expectedBytes)
          throw new Error(`${p.name} decoded ${seen} key+value bytes of ${compression} batch, expected ${expectedBytes}`)
      }
      cases.push({
        group: 'decode 1,000 records, read key and value',
        name: `${sizeName(size)} values, ${compression}`,
        unit: 'records/s',
        perOp: RECORDS,
        contenders: [
          ...contenders.map((p) => ({ name: p.name, fn: () => p.decodeAndTouch(batch) })),
          { name: 'wafka, CRC unchecked', fn: () => wafkaDecodeAndTouch(batch, { verifyCrc: false }) },
        ],
      })
    }
  }
  return cases
}

async function compressionCases(codec: string, ours: Compressor | null, theirs: Compressor[], note: string): Promise<Case[]> {
  if (!ours) {
    console.log(`(skipping ${codec}: wafka's module for it is not there yet)`)
    notes.push(`${codec}: skipped, wafka's ${codec} module was not available in this build.`)
    return []
  }
  notes.push(note)
  const data = jsonLines(MIB)
  const all = [ours, ...theirs]
  const cases: Case[] = [
    {
      group: codec,
      name: 'compress 1 MiB JSON lines',
      unit: 'MB/s',
      perOp: MIB,
      contenders: all.map((c) => ({ name: c.name, fn: () => c.compress(data) })),
    },
  ]
  // Each decompresses its own output, checked once here.
  const compressed = all.map((c) => c.compress(data))
  all.forEach((c, i) => {
    if (!Buffer.from(c.decompress(compressed[i])).equals(data)) throw new Error(`${c.name} ${codec} does not round trip`)
  })
  const ratios = all.map((c, i) => `${c.name} ${(data.length / compressed[i].length).toFixed(2)}`).join(', ')
  notes.push(`${codec} compression ratio on the 1 MiB of JSON lines: ${ratios}.`)
  cases.push({
    group: codec,
    name: 'decompress 1 MiB JSON lines',
    unit: 'MB/s',
    perOp: MIB,
    contenders: all.map((c, i) => ({ name: c.name, fn: () => c.decompress(compressed[i]) })),
  })
  return cases
}

async function main(): Promise<void> {
  for (const p of peers) await p.load()
  if (!(globalThis as { gc?: unknown }).gc) console.log('(run node with --expose-gc to collect garbage between contenders)')
  notes.push(
    `KafkaJS has no zstd here (its codec, @kafkajs/zstd, needs a native zstd build); @platformatic/kafka's zstd needs node:zlib zstd (Node >= 22.15)${platformatic.codecs.includes('zstd') ? '' : ', absent on this Node'}.`,
    `@platformatic/kafka's CRC-32C column is its own (Rust, wasm). When the optional @node-rs/crc32 is installed, as here, it uses that native one instead: the @node-rs/crc32 column.`,
    `Encode counts JS objects in to one finished Buffer out; "strings in" gives keys and values as strings. Decode counts a Buffer in to records whose key and value have been read.`,
  )
  const cases: Case[] = [
    ...crcCases(),
    ...encodeCases('buffers'),
    ...encodeCases('strings'),
    ...(await decodeCases()),
    ...(await compressionCases(
      'LZ4',
      await wafkaLz4(),
      lz4Peers,
      'LZ4 is Kafka\'s LZ4 frame format in every contender but "lz4-napi, raw block", a bare LZ4 block (no frame, no checksums), shown as the native ceiling.',
    )),
    ...(await compressionCases(
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
  console.log(`wrote ${join(dir, 'codec.json')} and codec.md`)
}

await main()
