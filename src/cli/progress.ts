/**
 * Live progress for long runs: on a terminal, bars redrawn in place (a
 * carriage return, and cursor-up for the lines above); elsewhere, one plain
 * line per bar every `plainEveryMs`; nothing when quiet.
 */
export interface BarState {
  label: string
  done: number
  total: number
  /** Extra figures after the bar, e.g. "acked 1,000". */
  detail: string
}

export type ProgressMode = 'tty' | 'plain' | 'quiet'

const WIDTH = 28

export function renderBar(s: BarState): string {
  const f = s.total > 0 ? Math.min(1, s.done / s.total) : 1
  const full = Math.round(f * WIDTH)
  const pct = `${Math.floor(f * 100)}`.padStart(3)
  return `${s.label.padEnd(8)} [${'█'.repeat(full)}${'░'.repeat(WIDTH - full)}] ${pct}%  ${s.detail}`
}

export function renderPlain(s: BarState): string {
  const f = s.total > 0 ? Math.min(1, s.done / s.total) : 1
  return `${s.label}: ${Math.floor(f * 100)}%  ${s.detail}`
}

export class Progress {
  private readonly bars: Array<() => BarState> = []
  private timer: ReturnType<typeof setInterval> | undefined
  private drawn = 0
  /** The last plain lines written: the same figures are not written twice. */
  private lastPlain = ''

  constructor(
    private readonly mode: ProgressMode,
    private readonly write: (s: string) => void,
    private readonly plainEveryMs = 1000,
  ) {}

  add(bar: () => BarState): void {
    this.bars.push(bar)
  }

  start(): void {
    if (this.mode === 'quiet' || this.timer) return
    this.timer = setInterval(() => this.draw(), this.mode === 'tty' ? 100 : this.plainEveryMs)
  }

  draw(): void {
    if (this.mode === 'quiet') return
    const states = this.bars.map((b) => b())
    if (this.mode === 'plain') {
      const lines = states.map((s) => renderPlain(s) + '\n').join('')
      if (lines !== this.lastPlain) this.write(lines)
      this.lastPlain = lines
      return
    }
    // Back to the first bar's line, then each bar over its old text (\x1b[K clears the rest).
    let out = this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : ''
    out += states.map((s) => `\r${renderBar(s)}\x1b[K`).join('\n')
    this.drawn = states.length
    this.write(out)
  }

  /** Draws the final state once more and ends the line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.mode === 'quiet') return
    this.draw()
    if (this.mode === 'tty') this.write('\n')
    this.drawn = 0
  }
}

const int = new Intl.NumberFormat('en-US')

export function count(n: number): string {
  return int.format(Math.round(n))
}

/** 1234567 -> "1.23 M", 12345 -> "12.3 k". */
export function rate(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`
  return `${n.toFixed(0)}`
}

export function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** A plain text table, first column left-aligned, the rest right-aligned (or every column left-aligned). */
export function table(rows: string[][], allLeft = false): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 || allLeft ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('   ')
        .trimEnd(),
    )
    .join('\n')
}
