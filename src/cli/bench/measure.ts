// tinybench is loaded when a benchmark runs, not when the wafka command starts.

/**
 * Runs contenders side by side in one process. Every case is run `rounds`
 * times, one round of all cases after another, so a burst of load from
 * elsewhere on the machine spoils one round of a case rather than all of
 * them; the contenders' order rotates each round so none always goes first.
 * Figures are medians over the rounds, and each ratio is the median of the
 * per-round ratios.
 */

export interface Contender {
  name: string
  fn: () => unknown
}

export interface Case {
  /** The first contender is wafka: ratios are taken against it. */
  group: string
  name: string
  /** What one operation processes, for the throughput column. */
  unit: 'MB/s' | 'records/s'
  /** Bytes (for MB/s) or records (for records/s) one operation processes. */
  perOp: number
  /**
   * Operations per timed sample, for operations of a microsecond or so that
   * one timer reading cannot resolve. Only for synchronous contenders.
   */
  repeat?: number
  contenders: Contender[]
}

export interface ContenderResult {
  name: string
  /** Median over the rounds of each round's median operations per second. */
  opsPerSec: number
  /** opsPerSec × perOp, in the case's unit. */
  throughput: number
  opsPerSecByRound: number[]
  /** wafka's speed ÷ this one's: median of the per-round ratios (1 for wafka itself). */
  wafkaRatio: number
}

export interface CaseResult {
  group: string
  name: string
  unit: Case['unit']
  perOp: number
  results: ContenderResult[]
}

export interface MeasureOptions {
  rounds: number
  /** Time budget per contender per round, in ms. */
  time: number
  warmupTime: number
  /**
   * Before any timing, each contender runs this many ms, so the peers'
   * JavaScript is optimized before it is timed, not during its first case.
   */
  warmupPass: number
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

// Node and Deno expose gc() with --expose-gc (Deno: --v8-flags=--expose-gc); Bun always has Bun.gc.
const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun
const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (bun ? () => bun.gc(true) : undefined)

function repeated(fn: Contender['fn'], times: number): Contender['fn'] {
  if (times <= 1) return fn
  return () => {
    for (let i = 0; i < times; i++) fn()
  }
}

async function runRound(contenders: readonly Contender[], repeat: number, options: MeasureOptions): Promise<Map<string, number>> {
  const { Bench } = await import('tinybench')
  const bench = new Bench({
    time: options.time,
    warmupTime: options.warmupTime,
    // The time budget decides; a slow contender still gets a few samples.
    iterations: 5,
    warmupIterations: 2,
    throws: true,
  })
  for (const c of contenders) {
    // Start each contender with a clean heap, so it does not pay for another's garbage.
    bench.add(c.name, repeated(c.fn, repeat), { beforeAll: () => collectGarbage?.() })
  }
  await bench.run()
  const ops = new Map<string, number>()
  for (const task of bench.tasks) {
    const r = task.result
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`)
    ops.set(task.name, (1000 * repeat) / r.latency.p50)
  }
  return ops
}

async function warmUp(c: Case, ms: number): Promise<void> {
  for (const contender of c.contenders) {
    const end = performance.now() + ms
    while (performance.now() < end) await contender.fn()
  }
}

function summarize(c: Case, byRound: ReadonlyArray<Map<string, number>>): CaseResult {
  const wafkaName = c.contenders[0].name
  const results = c.contenders.map((contender): ContenderResult => {
    const opsPerSecByRound = byRound.map((ops) => ops.get(contender.name)!)
    const opsPerSec = median(opsPerSecByRound)
    return {
      name: contender.name,
      opsPerSec,
      throughput: (opsPerSec * c.perOp) / (c.unit === 'MB/s' ? 1e6 : 1),
      opsPerSecByRound,
      wafkaRatio: median(byRound.map((ops) => ops.get(wafkaName)! / ops.get(contender.name)!)),
    }
  })
  return { group: c.group, name: c.name, unit: c.unit, perOp: c.perOp, results }
}

export async function measureAll(cases: readonly Case[], options: MeasureOptions, progress: (line: string) => void): Promise<CaseResult[]> {
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  if (options.warmupPass > 0) {
    for (const c of cases) await warmUp(c, options.warmupPass)
    progress(`warm-up pass done (${elapsed()})`)
  }
  const byCase = cases.map((): Array<Map<string, number>> => [])
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < cases.length; i++) {
      const contenders = cases[i].contenders
      const shift = round % contenders.length
      const order = [...contenders.slice(shift), ...contenders.slice(0, shift)]
      byCase[i].push(await runRound(order, cases[i].repeat ?? 1, options))
    }
    progress(`round ${round + 1} of ${options.rounds} done (${elapsed()})`)
  }
  return cases.map((c, i) => summarize(c, byCase[i]))
}
