/**
 * Benchmark charts as small standalone SVG files: a line chart (throughput
 * over time) and a grouped horizontal bar chart (one bar per client in each
 * case). Written here rather than with a charting library: the two shapes
 * need some 150 lines, and a library would bring a DOM or a canvas. Each
 * series is a <g class="series" data-series="NAME">, so tools (and tests)
 * can find it.
 */

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4b5563']
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'

export interface LineSeries {
  name: string
  /** [x, y] points, x ascending. */
  points: Array<[number, number]>
}

export interface LineChart {
  title: string
  xLabel: string
  yLabel: string
  series: LineSeries[]
}

export interface BarGroup {
  /** The case, e.g. "encode 1,000 records: 100 B values, lz4". */
  name: string
  bars: Array<{ series: string; value: number }>
}

/** Bars on one scale. */
export interface BarPanel {
  /** A heading above the panel, e.g. "encode 1,000 records". */
  title?: string
  /** What the bars measure, e.g. "records/s". */
  unit: string
  groups: BarGroup[]
}

export interface BarChart {
  title: string
  /** One below the other, each with its own scale (cases measured in different units). */
  panels: BarPanel[]
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** Round numbers from 0 to at least `max`: about `count` steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1]
  const raw = max / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!
  const ticks: number[] = []
  for (let v = 0; v < max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)))
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)))
  return ticks
}

/** 1234567 → "1.23M", 12345 → "12.3k", 0.5 → "0.5". */
export function short(v: number): string {
  const abs = Math.abs(v)
  if (abs >= 1e9) return `${+(v / 1e9).toPrecision(3)}G`
  if (abs >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`
  if (abs >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`
  return `${+v.toPrecision(3)}`
}

const fixed = (v: number) => v.toFixed(1)

function legend(names: string[], x: number, y: number): string {
  return names
    .map((name, i) => {
      const top = y + i * 18
      return `<rect x="${x}" y="${top}" width="12" height="12" rx="2" fill="${PALETTE[i % PALETTE.length]}"/><text x="${x + 18}" y="${top + 10}" font-size="12" fill="#111827">${escape(name)}</text>`
    })
    .join('')
}

function frame(width: number, height: number, title: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>
<rect width="${width}" height="${height}" fill="#ffffff"/>
<text x="${width / 2}" y="24" font-size="15" font-weight="600" text-anchor="middle" fill="#111827">${escape(title)}</text>
${body}
</svg>
`
}

export function lineChartSvg(chart: LineChart): string {
  const width = 760
  const height = 380
  const left = 70
  const right = chart.series.length > 1 ? 170 : 24
  const top = 44
  const bottom = 52
  const plotW = width - left - right
  const plotH = height - top - bottom
  const all = chart.series.flatMap((s) => s.points)
  const xMax = Math.max(0, ...all.map(([x]) => x))
  const yMax = Math.max(0, ...all.map(([, y]) => y))
  const xTicks = niceTicks(xMax, 8)
  const yTicks = niceTicks(yMax, 5)
  const xTop = xTicks[xTicks.length - 1]
  const yTop = yTicks[yTicks.length - 1]
  const px = (x: number) => left + (x / xTop) * plotW
  const py = (y: number) => top + plotH - (y / yTop) * plotH
  const grid = [
    ...yTicks.map(
      (t) =>
        `<line x1="${left}" x2="${left + plotW}" y1="${fixed(py(t))}" y2="${fixed(py(t))}" stroke="#e5e7eb"/><text x="${left - 8}" y="${fixed(py(t) + 4)}" font-size="11" text-anchor="end" fill="#4b5563">${short(t)}</text>`,
    ),
    ...xTicks.map(
      (t) =>
        `<line x1="${fixed(px(t))}" x2="${fixed(px(t))}" y1="${top + plotH}" y2="${top + plotH + 4}" stroke="#9ca3af"/><text x="${fixed(px(t))}" y="${top + plotH + 18}" font-size="11" text-anchor="middle" fill="#4b5563">${short(t)}</text>`,
    ),
  ].join('\n')
  const axes = `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#9ca3af"/><line x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}" stroke="#9ca3af"/>
<text x="${left + plotW / 2}" y="${height - 12}" font-size="12" text-anchor="middle" fill="#111827">${escape(chart.xLabel)}</text>
<text transform="translate(16 ${top + plotH / 2}) rotate(-90)" font-size="12" text-anchor="middle" fill="#111827">${escape(chart.yLabel)}</text>`
  const lines = chart.series
    .map((s, i) => {
      const color = PALETTE[i % PALETTE.length]
      const points = s.points.map(([x, y]) => `${fixed(px(x))},${fixed(py(y))}`).join(' ')
      return `<g class="series" data-series="${escape(s.name)}"><polyline points="${points}" fill="none" stroke="${color}" stroke-width="2" stroke-linejoin="round"/></g>`
    })
    .join('\n')
  const key =
    chart.series.length > 1
      ? legend(
          chart.series.map((s) => s.name),
          left + plotW + 16,
          top,
        )
      : ''
  return frame(width, height, chart.title, `${grid}\n${axes}\n${lines}\n${key}`)
}

export function barChartSvg(chart: BarChart): string {
  const series = [...new Set(chart.panels.flatMap((p) => p.groups.flatMap((g) => g.bars.map((b) => b.series))))]
  const barH = 14
  const gap = 10
  // Room for the longest label (about 6.6 px a character at 12 px).
  const longest = Math.max(0, ...chart.panels.flatMap((p) => p.groups.map((g) => g.name.length)))
  const labelW = Math.min(420, Math.max(80, Math.ceil(longest * 6.6) + 12))
  const left = labelW + 16
  const right = 70
  const width = left + 560 + right
  const plotW = width - left - right
  const color = (name: string) => PALETTE[series.indexOf(name) % PALETTE.length]
  const bySeries = new Map<string, string[]>(series.map((s) => [s, []]))
  const rest: string[] = []
  let y = 44 + (series.length > 1 ? series.length * 18 + 8 : 0)
  for (const panel of chart.panels) {
    if (panel.title) {
      rest.push(`<text x="${left}" y="${y + 12}" font-size="13" font-weight="600" fill="#111827">${escape(panel.title)}</text>`)
      y += 22
    }
    const top = y
    const plotH = panel.groups.reduce((h, g) => h + g.bars.length * barH + gap, 0)
    const ticks = niceTicks(Math.max(0, ...panel.groups.flatMap((g) => g.bars.map((b) => b.value))), 6)
    const px = (v: number) => left + (v / ticks[ticks.length - 1]) * plotW
    for (const t of ticks)
      rest.push(
        `<line x1="${fixed(px(t))}" x2="${fixed(px(t))}" y1="${top}" y2="${top + plotH}" stroke="#e5e7eb"/><text x="${fixed(px(t))}" y="${top + plotH + 14}" font-size="11" text-anchor="middle" fill="#4b5563">${short(t)}</text>`,
      )
    for (const g of panel.groups) {
      rest.push(
        `<text x="${labelW}" y="${fixed(y + (g.bars.length * barH) / 2 + 4)}" font-size="12" text-anchor="end" fill="#111827">${escape(g.name)}</text>`,
      )
      for (const b of g.bars) {
        const w = Math.max(0, px(b.value) - left)
        bySeries
          .get(b.series)!
          .push(
            `<rect x="${left}" y="${fixed(y)}" width="${fixed(w)}" height="${barH - 2}" fill="${color(b.series)}"/><text x="${fixed(left + w + 4)}" y="${fixed(y + barH - 4)}" font-size="10" fill="#374151">${short(b.value)}</text>`,
          )
        y += barH
      }
      y += gap
    }
    rest.push(
      `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#9ca3af"/><text x="${left + plotW / 2}" y="${top + plotH + 30}" font-size="12" text-anchor="middle" fill="#111827">${escape(panel.unit)}</text>`,
    )
    y += 48
  }
  const bars = series.map((s) => `<g class="series" data-series="${escape(s)}">${bySeries.get(s)!.join('')}</g>`).join('\n')
  const key = series.length > 1 ? legend(series, left, 40) : ''
  return frame(width, y, chart.title, `${rest.join('\n')}\n${bars}\n${key}`)
}
