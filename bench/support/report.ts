import type { CaseResult } from './measure.js'
import { runtimeLabel, type Runtime } from './runtime.js'

/** The benchmark's figures as a console table and as markdown for the README. */

const group3 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

export function throughput(value: number, unit: CaseResult['unit']): string {
  if (unit === 'MB/s') return value >= 100 ? `${group3.format(value)} MB/s` : `${value.toFixed(1)} MB/s`
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M rec/s`
  return `${group3.format(value / 1e3)} k rec/s`
}

export function ratio(r: number): string {
  return r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`
}

export function printCase(c: CaseResult): void {
  const rows = c.results.map((r) => [
    `  ${r.name}`,
    group3.format(r.opsPerSec),
    throughput(r.throughput, c.unit),
    r === c.results[0] ? '' : ratio(r.wafkaRatio),
  ])
  const header = [`${c.group}: ${c.name}`, 'ops/s', c.unit === 'MB/s' ? 'throughput' : 'records', 'wafka vs']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('   ')
  console.log(line(header))
  for (const row of rows) console.log(line(row))
}

export interface ReportHeader {
  date: string
  /** The runtime the run was on (results written before there were three have none: Node). */
  runtime?: Runtime
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; os: string }
  versions: Record<string, string>
  rounds: number
  /** A --quick run: a smoke test, figures rough. */
  quick?: boolean
  /** The command that made it. */
  command?: string
  notes: string[]
}

/** One table per group: a row per case, a column per contender; each peer's cell leads with wafka's ratio. */
export function markdown(header: ReportHeader, cases: readonly CaseResult[]): string {
  const m = header.machine
  const out: string[] = [
    '<!-- Written by bench/codec.ts; do not edit by hand. -->',
    `Measured ${header.date.slice(0, 10)} on **${header.runtime ? `${runtimeLabel(header.runtime)} (${header.runtime.engine})` : `Node ${m.node}`}**, ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), ${m.os}.`,
    ...(header.quick ? ['**A --quick run (1 short round): a smoke test, not figures to quote.**'] : []),
    ...(header.command ? [`Made with \`${header.command}\` (\`npm run bench\` runs it on every runtime).`] : []),
    `Each figure is the median of ${header.rounds} round${header.rounds === 1 ? '' : 's'} in one process, every contender in the same round; "n×" is wafka's speed divided by that contender's (above 1: wafka is faster), the median of the per-round ratios, given first.`,
    `Versions: ${Object.entries(header.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
  ]
  const groups = [...new Set(cases.map((c) => c.group))]
  for (const group of groups) {
    const rows = cases.filter((c) => c.group === group)
    const contenders = [...new Set(rows.flatMap((c) => c.results.map((r) => r.name)))]
    out.push(`**${group}**`, '', `| | ${contenders.join(' | ')} |`, `|---|${contenders.map(() => '---:').join('|')}|`)
    for (const c of rows) {
      const cells = contenders.map((name, i) => {
        const r = c.results.find((x) => x.name === name)
        if (!r) return 'n/a'
        return i === 0 ? throughput(r.throughput, c.unit) : `${ratio(r.wafkaRatio)} (${throughput(r.throughput, c.unit)})`
      })
      out.push(`| ${c.name} | ${cells.join(' | ')} |`)
    }
    out.push('')
  }
  if (header.notes.length) out.push('Notes:', '', ...header.notes.map((n) => `- ${n}`), '')
  return out.join('\n')
}
