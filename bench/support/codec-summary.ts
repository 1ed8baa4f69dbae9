import type { CaseResult } from './measure.js'
import { ratio, throughput, type ReportHeader } from './report.js'
import { RUNTIME_LABELS, runtimeLabel, type RuntimeName } from './runtime.js'

/**
 * The codec benchmark across runtimes: a few cases from each runtime's
 * results (bench/results/codec-<runtime>.json), wafka's figure, its ratio to
 * each peer, and the native ceiling as a column; then every cell where wafka
 * is behind. bench/codec-runtimes.ts writes it to bench/results/codec.md and
 * into the README (between the codec-summary markers), so both follow the
 * committed results.
 */

export const RUNTIMES: RuntimeName[] = ['node', 'bun', 'deno']

export interface CodecResults extends ReportHeader {
  cases: CaseResult[]
}

/** The peer columns, as [title, contender name]. */
const PEERS: Array<[string, string]> = [
  ['vs KafkaJS', 'KafkaJS'],
  ['vs @platformatic/kafka 1.35', '@platformatic/kafka'],
  ['vs @platformatic/kafka 2.12', '@platformatic/kafka 2'],
  ['vs bare wasm', 'bare wasm'],
]
/** The native ceiling of a case, where a native library does the same work. */
const CEILINGS = ['native ceiling (@node-rs/crc32)', 'native ceiling (lz4-napi, raw block)']

/** The rows: [group, case name, what the row is called]. */
const ROWS: Array<[string, string, string]> = [
  ['CRC-32C', '1 KiB', 'CRC-32C, 1 KiB'],
  ['CRC-32C', '16 KiB', 'CRC-32C, 16 KiB'],
  ['CRC-32C', '1 MiB', 'CRC-32C, 1 MiB'],
  ['encode 1,000 records, buffers in', '100 B values, none', 'encode, Buffers in, 100 B'],
  ['encode 1,000 records, buffers in', '1 KiB values, none', 'encode, Buffers in, 1 KiB'],
  ['encode 1,000 records, strings in', '100 B values, none', 'encode, strings in, 100 B'],
  ['decode 1,000 records, read key and value', '100 B values, none', 'decode (CRC checked), 100 B'],
  ['decode 1,000 records, read key and value', '1 KiB values, none', 'decode (CRC checked), 1 KiB'],
  ['LZ4', 'compress 1 MiB JSON lines', 'LZ4 frame compress, 1 MiB'],
  ['LZ4', 'decompress 1 MiB JSON lines', 'LZ4 frame decompress, 1 MiB'],
]

export const SUMMARY_START = '<!-- codec-summary: written by bench/codec-runtimes.ts from bench/results/codec-*.json -->'
export const SUMMARY_END = '<!-- /codec-summary -->'

const find = (results: CodecResults, group: string, name: string) => results.cases.find((c) => c.group === group && c.name === name)

/** The table: a row per case and runtime. */
export function summaryTable(byRuntime: Partial<Record<RuntimeName, CodecResults>>): string {
  const head = ['what (1,000 records, 16 B keys, uncompressed)', 'runtime', 'wafka', ...PEERS.map(([t]) => t), 'native ceiling']
  const out = [
    `| ${head.join(' | ')} |`,
    `|---|---|${head
      .slice(2)
      .map(() => '---:')
      .join('|')}|`,
  ]
  for (const [group, name, title] of ROWS) {
    for (const runtime of RUNTIMES) {
      const results = byRuntime[runtime]
      const c = results && find(results, group, name)
      if (!results || !c) continue
      const cell = (contender: string) => {
        // The standalone compressors are named for their package too: "KafkaJS (kafkajs-lz4)".
        const r = c.results.find((x) => x.name === contender || x.name.startsWith(`${contender} (`))
        return r ? ratio(r.wafkaRatio) : 'n/a'
      }
      const ceiling = c.results.find((r) => CEILINGS.includes(r.name))
      out.push(
        `| ${title} | ${runtimeLabel(results.runtime ?? { name: runtime, version: results.machine.node })}${results.quick ? ' (quick)' : ''} | ${throughput(c.results[0].throughput, c.unit)} | ${PEERS.map(([, p]) => cell(p)).join(' | ')} | ${ceiling ? `${throughput(ceiling.throughput, c.unit)} (${ratio(ceiling.wafkaRatio)})` : '—'} |`,
      )
    }
  }
  return out.join('\n')
}

/** Every case, on every runtime, where a contender is faster than wafka (ratio below 0.95), worst first. */
export function behind(byRuntime: Partial<Record<RuntimeName, CodecResults>>): string[] {
  const found: Array<{ ratio: number; text: string }> = []
  for (const runtime of RUNTIMES) {
    const results = byRuntime[runtime]
    if (!results) continue
    for (const c of results.cases) {
      for (const r of c.results.slice(1)) {
        // "wafka, CRC unchecked" is wafka itself: what the check costs, not a rival.
        if (r.wafkaRatio >= 0.95 || r.name.startsWith('wafka')) continue
        found.push({ ratio: r.wafkaRatio, text: `${RUNTIME_LABELS[runtime]}, ${c.group}: ${c.name}: ${ratio(r.wafkaRatio)} ${r.name}` })
      }
    }
  }
  return found.sort((a, b) => a.ratio - b.ratio).map((f) => f.text)
}

/** The README block: the table, where the full tables are, and how to read it. */
export function readmeBlock(byRuntime: Partial<Record<RuntimeName, CodecResults>>): string {
  const present = RUNTIMES.filter((r) => byRuntime[r])
  const files = present.map((r) => `[\`codec-${r}.md\`](bench/results/codec-${r}.md)`).join(', ')
  const quick = present.some((r) => byRuntime[r]!.quick)
  const lines = behind(byRuntime)
  const cells = present.reduce((n, r) => n + byRuntime[r]!.cases.reduce((m, c) => m + c.results.length - 1, 0), 0)
  return [
    SUMMARY_START,
    ...(quick ? ['', '**Some of these figures are from a `--quick` smoke run, not a measurement: rerun `npm run bench`.**'] : []),
    '',
    summaryTable(byRuntime),
    '',
    `"n×" is wafka's speed divided by that contender's, in the same process and round (above 1: wafka is faster); the native ceiling column is @node-rs/crc32 (SSE4.2) for CRC-32C and lz4-napi's raw block API for LZ4, with wafka's ratio to it. @platformatic/kafka 2.12's CRC-32C is 1.35's (the same wasm package); KafkaJS's LZ4 is n/a on Bun and Deno (its codec sits on a pre-Node-API addon they cannot load). Every case (gzip, zstd, snappy, 10 B values, compressed batches) and the notes: ${files}.`,
    '',
    lines.length
      ? `Where wafka is still behind: ${lines.length} of the ${cells} contender cells are below 0.95×, all listed in [\`codec.md\`](bench/results/codec.md); the worst: ${lines.slice(0, 5).join('; ')}.`
      : 'wafka is at 0.95× or above every contender in every case.',
    SUMMARY_END,
  ].join('\n')
}

/** bench/results/codec.md: the table and every case where wafka is behind. */
export function summaryMarkdown(byRuntime: Partial<Record<RuntimeName, CodecResults>>): string {
  const present = RUNTIMES.filter((r) => byRuntime[r])
  const lines = behind(byRuntime)
  return [
    '<!-- Written by bench/codec-runtimes.ts (npm run bench) from codec-node.json, codec-bun.json and codec-deno.json; do not edit by hand. -->',
    '# The codec on Node, Bun and Deno',
    '',
    ...present.map((r) => {
      const h = byRuntime[r]!
      return `- [${runtimeLabel(h.runtime ?? { name: r, version: h.machine.node })}](codec-${r}.md): ${h.date.slice(0, 10)}, ${h.rounds} round(s)${h.quick ? ', a --quick smoke run' : ''}${h.command ? `, \`${h.command}\`` : ''}`
    }),
    '',
    summaryTable(byRuntime).replaceAll('](bench/results/', ']('),
    '',
    '## Where wafka is behind',
    '',
    lines.length ? 'Every case and contender faster than wafka (ratio below 0.95), worst first:' : 'Nowhere: every ratio is 0.95 or above.',
    '',
    ...lines.map((l) => `- ${l}`),
    '',
  ].join('\n')
}

/** `readme` with its codec-summary block replaced (or unchanged when it has none). */
export function withReadmeBlock(readme: string, block: string): string {
  const start = readme.indexOf(SUMMARY_START)
  const end = readme.indexOf(SUMMARY_END)
  if (start < 0 || end < start) return readme
  return readme.slice(0, start) + block + readme.slice(end + SUMMARY_END.length)
}
