/**
 * Redraws the charts of the committed results, bench/results/<name>.svg,
 * from bench/results/<name>.json, with the functions the benchmarks use when
 * they write their results (src/cli/bench/result-charts.ts): for results
 * written before the benchmarks drew charts, or after a change to the
 * drawing. It reads the figures; it measures nothing.
 *
 *   npm run bench:charts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { codecChartSvg, codecChartTitle, contestChartSvg, contestChartTitle } from '../src/cli/bench/result-charts.js'
import { repositoryRoot } from './support/environment.js'

const dir = join(repositoryRoot(), 'bench', 'results')
for (const name of [
  'codec-node',
  'codec-bun',
  'codec-deno',
  'producer',
  'consumer',
  'producer-kafka',
  'consumer-kafka',
  'producer-cold',
  'producer-kafka-cold',
]) {
  const file = join(dir, `${name}.json`)
  if (!existsSync(file)) continue
  const results = JSON.parse(readFileSync(file, 'utf8'))
  const svg = name.startsWith('codec')
    ? codecChartSvg(codecChartTitle(results), results.cases)
    : contestChartSvg(contestChartTitle(name, results), results.summaries)
  writeFileSync(join(dir, `${name}.svg`), svg)
  console.log(`wrote ${join(dir, `${name}.svg`)}`)
}
