import { barChartSvg } from './chart.js'
import type { CaseResult } from './measure.js'

/**
 * The charts of benchmark results, drawn the same way wherever they come
 * from: `wafka bench codec --chart`, bench/codec.ts and the end-to-end
 * contests (bench/support/contest.ts) when they write bench/results/, and
 * bench/charts.ts redrawing them from the committed JSON.
 */

/** The codec cases: a panel per group (CRC-32C, encode, decode, LZ4, snappy), a bar per contender. */
export function codecChartSvg(title: string, cases: readonly CaseResult[]): string {
  return barChartSvg({
    title,
    panels: [...new Set(cases.map((c) => c.group))].map((group) => {
      const mine = cases.filter((c) => c.group === group)
      return {
        title: group,
        unit: `${mine[0].unit} (more is better)`,
        groups: mine.map((c) => ({ name: c.name, bars: c.results.map((r) => ({ series: r.name, value: r.throughput })) })),
      }
    }),
  })
}

/** What a contest's summary needs to hold for its chart (bench/support/contest.ts's Summary has it). */
export interface ContestFigures {
  scenario: string
  contender: string
  /** Successful rounds: 0 means the contender failed the scenario (no bar). */
  rounds: number
  msgPerSec: number
  cpuSecPerMillion: number
}

/** An end-to-end contest: messages/s and client CPU µs per message, per scenario, a bar per client. */
export function contestChartSvg(title: string, summaries: readonly ContestFigures[]): string {
  const scenarios = [...new Set(summaries.map((s) => s.scenario))]
  const panel = (unit: string, value: (s: ContestFigures) => number) => ({
    unit,
    groups: scenarios.map((scenario) => ({
      name: scenario,
      bars: summaries.filter((s) => s.scenario === scenario && s.rounds > 0).map((s) => ({ series: s.contender, value: value(s) })),
    })),
  })
  return barChartSvg({
    title,
    panels: [
      { title: 'throughput (median of the rounds)', ...panel('messages/s (more is better)', (s) => s.msgPerSec) },
      { title: "the client process's CPU time per message", ...panel('CPU µs per message (less is better)', (s) => s.cpuSecPerMillion) },
    ],
  })
}

const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** bench/results/codec-<runtime>.svg's title, from its results header (runtime: e.g. "Bun 1.4.5"). */
export function codecChartTitle(header: { date: string; rounds: number; runtime?: { name: string; version: string } }): string {
  const on = header.runtime ? ` on ${header.runtime.name[0].toUpperCase()}${header.runtime.name.slice(1)} ${header.runtime.version}` : ''
  return `codec${on}, wafka beside the other clients: median of ${header.rounds} rounds, ${header.date.slice(0, 10)}`
}

/** bench/results/<name>.svg's title for a contest (producer, consumer; -kafka: on real Kafka). */
export function contestChartTitle(name: string, header: { date: string; messages?: number; rounds?: number }): string {
  // Names are <producer|consumer>[-kafka][-cold], as the contests write them.
  const what = name.startsWith('producer') ? 'producer' : 'consumer'
  const cold = name.endsWith('-cold') ? ', cold (no warm-up)' : ''
  const where = name.includes('-kafka') ? 'one Apache Kafka broker' : "librdkafka's mock cluster"
  return `${what}: ${count.format(header.messages ?? 0)} messages${cold}, ${header.rounds ?? '?'} rounds, on ${where}, ${header.date.slice(0, 10)}`
}
