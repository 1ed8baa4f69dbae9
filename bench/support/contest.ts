import { type ChildProcess, fork } from 'node:child_process'
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { clientVersions, type Rig } from './clients.js'
import { MESSAGE_KEY_BYTES, MESSAGE_VALUE_BYTES } from './data.js'
import { machine, option, repositoryRoot, wafkaRevision } from './environment.js'
import { median } from './measure.js'
import { contestChartSvg, contestChartTitle } from '../../src/cli/bench/result-charts.js'

/**
 * What the end-to-end client benchmarks (bench/producer.ts,
 * bench/consumer.ts) share: every (round, scenario, contender) is a child
 * process of its own, so CPU time and RSS belong to one client and no client
 * pays for another's garbage; the contenders' order rotates each round;
 * figures are medians over the rounds and each ratio is the median of the
 * per-round ratios. Here: the contenders, the child's meter, running a child,
 * and the summaries, console tables and markdown.
 */

export type ContenderId = 'wafka' | 'kafkajs' | 'platformatic' | 'confluent' | 'kcat' | 'java'

/** Where the contest runs (--target): librdkafka's mock cluster (3 brokers), or one real Apache Kafka broker. */
export type Target = 'mock' | 'kafka'

/** `external`: not a Node child of this script, but a process the benchmark's external hook runs. */
const CONTENDERS: Array<{ id: ContenderId; name: string; targets: Target[]; external?: true }> = [
  { id: 'wafka', name: 'wafka', targets: ['mock', 'kafka'] },
  { id: 'kafkajs', name: 'KafkaJS', targets: ['mock', 'kafka'] },
  { id: 'platformatic', name: '@platformatic/kafka', targets: ['mock', 'kafka'] },
  { id: 'confluent', name: '@confluentinc/kafka-javascript', targets: ['mock', 'kafka'] },
  // librdkafka in C, as a command: the native reference.
  { id: 'kcat', name: 'kcat', targets: ['mock', 'kafka'], external: true },
  // Kafka's own perf tools: they need a broker that speaks what the Java client does, which the mock does not.
  { id: 'java', name: 'Java client', targets: ['kafka'], external: true },
]

/** The contenders in round `round`'s order: rotated by one each round, so none always goes first. */
function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length
  return [...items.slice(shift), ...items.slice(0, shift)]
}

// ---- child: measuring (src/cli/bench/meter.ts, which wafka bench uses too) ----------

export { ChildMeter, type ChildResult } from '../../src/cli/bench/meter.js'
import type { ChildResult } from '../../src/cli/bench/meter.js'

/** An error's stack, with what it aggregates and its cause, which clients' retry loops wrap the real reason in. */
function describeError(err: unknown, depth = 0): string {
  if (!(err instanceof Error)) return String(err)
  let text = err.stack ?? String(err)
  if (depth >= 3) return text
  const inner = [...(err instanceof AggregateError ? err.errors : []), ...(err.cause !== undefined ? [err.cause] : [])]
  // Nested errors without their stacks, so that the innermost reasons (a broker's error code) still show.
  for (const e of inner.slice(-3))
    text += `\n  caused by: ${describeError(e, depth + 1)
      .split('\n')
      .filter((l) => !l.trim().startsWith('at '))
      .slice(0, 6)
      .join('\n  ')}`
  return text
}

/**
 * The child's side: when this process was started by runChild, runs `work`
 * on the job it was given, sends back its result or error and exits, and
 * returns true; otherwise returns false (this is the parent).
 */
export async function childMain<J, R>(work: (job: J) => Promise<R>): Promise<boolean> {
  const at = process.argv.indexOf('--child')
  if (at < 0) return false
  const job = JSON.parse(process.argv[at + 1]) as J
  try {
    const result = await work(job)
    process.send!({ result }, () => process.exit(0))
  } catch (err) {
    process.send!({ error: describeError(err) }, () => process.exit(1))
  }
  return true
}

// ---- parent: options, running the children ------------------------------------------

export interface ContestOptions<S> {
  /** --target: mock (the default) or kafka. */
  target: Target
  quick: boolean
  /** Messages timed per run: --messages (1,000,000; 100,000 with --quick). */
  messages: number
  /** --rounds (3; 1 with --quick). */
  rounds: number
  /** @confluentinc/kafka-javascript's API: its Standard one, or its KafkaJS-compatible one (--confluent-api=kafkajs). */
  confluentApi: 'standard' | 'kafkajs'
  /** The contenders and scenarios --only and --scenario leave. */
  contenders: typeof CONTENDERS
  scenarios: S[]
  /** --quick, --only, --scenario, --profile or --confluent-api: not the full comparison, so its results are not written. */
  partial: boolean
  root: string
  /** This script (the bundle in dist/bench/). */
  bundle: string
  /** Which wafka the run measures (wafkaRevision); a stale bundle is warned about. */
  revision: string
  /** Where a contender's children write CPU profiles: --profile=<contender> (dist/bench/profiles/), else null. */
  profileDir(c: { id: ContenderId; name: string }): string | null
  /** Seconds since the options were read, for progress lines: "12 s". */
  elapsed(): string
}

/** The options every end-to-end benchmark takes (see bench/producer.ts's header). */
export function contestOptions<S>(scriptUrl: string, scenarios: S[], scenarioName: (s: S) => string): ContestOptions<S> {
  const started = performance.now()
  const quick = process.argv.includes('--quick')
  const only = option('only')
  const scenarioFilter = option('scenario')
  const profile = option('profile')
  const confluentApi = option('confluent-api') === 'kafkajs' ? 'kafkajs' : 'standard'
  const targetOption = option('target') ?? 'mock'
  if (targetOption !== 'mock' && targetOption !== 'kafka') throw new Error(`--target=${targetOption}: mock or kafka`)
  const target: Target = targetOption
  const root = repositoryRoot()
  const profiles = profile ? join(root, 'dist', 'bench', 'profiles') : null
  if (profiles) mkdirSync(profiles, { recursive: true })
  const bundle = fileURLToPath(scriptUrl)
  const revision = wafkaRevision(root, bundle)
  if (revision.includes('STALE')) console.log(`warning: wafka ${revision}`)
  return {
    target,
    quick,
    messages: Number(option('messages') ?? (quick ? 100_000 : 1_000_000)),
    rounds: Number(option('rounds') ?? (quick ? 1 : 3)),
    confluentApi,
    contenders: CONTENDERS.filter((c) => c.targets.includes(target) && (!only || c.id.includes(only) || c.name.includes(only))),
    scenarios: scenarios.filter((s) => !scenarioFilter || scenarioName(s).includes(scenarioFilter)),
    partial: quick || !!only || !!scenarioFilter || !!profile || confluentApi !== 'standard',
    root,
    bundle,
    revision,
    profileDir: (c) => (profile && (c.id.includes(profile) || c.name.includes(profile)) ? profiles : null),
    elapsed: () => `${((performance.now() - started) / 1000).toFixed(0)} s`,
  }
}

/**
 * A private copy of this bundle for the children, so a rebuild of dist/
 * during the run (npm test builds it) cannot change the code under test
 * halfway. It sits beside the bundle so that packages resolve the same way;
 * the caller removes it.
 */
export function snapshotBundle(bundle: string, name: string): string {
  const snapshot = join(dirname(bundle), `.${name}-run-${process.pid}.js`)
  copyFileSync(bundle, snapshot)
  return snapshot
}

/** Runs `script --child <job>` and resolves with what it sent back; SIGKILLs it after `timeoutMs`. */
export function runChild<R>(script: string, job: unknown, timeoutMs: number, profileDir: string | null): Promise<R> {
  const execArgv = ['--expose-gc', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])]
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = fork(script, ['--child', JSON.stringify(job)], { execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] })
    let stderr = ''
    proc.stderr?.setEncoding('utf8')
    proc.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000)
    })
    let result: R | undefined
    let error: string | undefined
    proc.on('message', (m: { result?: R; error?: string }) => {
      result = m.result
      error = m.error
    })
    const timer = setTimeout(() => {
      error = `timed out after ${timeoutMs / 1000} s`
      proc.kill('SIGKILL')
    }, timeoutMs)
    proc.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (result) resolve(result)
      else
        reject(
          new Error(`${error ?? `exited (${signal ?? `code ${code}`})`}${stderr.trim() ? `; stderr: ${stderr.trim().slice(-600)}` : ''}`),
        )
    })
  })
}

/** What a benchmark does around each child process that runContest starts. */
export interface ContestHooks<S, Run extends ContestRun> {
  /** The run's record and its child's job (setting up what the run needs, e.g. its topic). */
  start(round: number, scenario: S, contender: { id: ContenderId; name: string }): Promise<{ run: Run; job: unknown }>
  /** Before the child starts; throwing fails the run. */
  before?(run: Run): Promise<void>
  /** After the child's result is in; throwing fails the run. */
  check?(run: Run): Promise<void>
  /** After the run, however it went (e.g. deletes its topic). */
  end?(run: Run): Promise<void>
  /** Said in the progress line after the peak RSS. */
  detail?(run: Run): string | undefined
  /** Runs a contender that is not a Node child (kcat, the Java client) on the job start() made. */
  external?(run: Run, job: unknown, timeoutMs: number, contender: ContenderId): Promise<ChildResult>
}

/**
 * The rounds: every scenario, every contender in the round's rotated order,
 * each run in a child process (of a private copy of the bundle) with the
 * mock's CPU time and the shim's traffic counted around it; prints a line per
 * run and returns the records.
 */
export async function runContest<S, Run extends ContestRun & { shimBytes?: number }>(
  name: string,
  options: ContestOptions<S>,
  rig: Rig,
  timeoutMs: number,
  hooks: ContestHooks<S, Run>,
): Promise<Run[]> {
  const runs: Run[] = []
  const snapshot = snapshotBundle(options.bundle, name)
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const scenario of options.scenarios) {
        for (const c of rotated(options.contenders, round)) {
          const { run, job } = await hooks.start(round, scenario, c)
          try {
            await hooks.before?.(run)
            const shimBytes = rig.shim?.forwardedBytes ?? 0
            const brokerCpu0 = rig.cluster.cpuSeconds()
            if (c.external) {
              if (!hooks.external) throw new Error(`this benchmark cannot run ${c.name}`)
              run.result = await hooks.external(run, job, timeoutMs, c.id)
            } else {
              run.result = await runChild<ChildResult>(snapshot, job, timeoutMs, options.profileDir(c))
            }
            if (c.id === 'platformatic' && rig.shim) run.shimBytes = rig.shim.forwardedBytes - shimBytes
            run.brokerCpuSec = rig.cluster.cpuSeconds() - brokerCpu0
            await hooks.check?.(run)
            succeeded(run, run.result)
          } catch (err) {
            run.error = (err as Error).message
          }
          runs.push(run)
          console.log(progressLine(run, options.elapsed(), { detail: hooks.detail?.(run), shimBytes: run.shimBytes }))
          await hooks.end?.(run)
          // Let the mock settle before the next contender.
          await sleep(200)
        }
      }
    }
  } finally {
    rmSync(snapshot, { force: true })
  }
  return runs
}

// ---- figures -----------------------------------------------------------------------

/** What every benchmark's run record holds (each adds its own fields). */
export interface ContestRun {
  round: number
  scenario: string
  contender: string
  ok: boolean
  error?: string
  /** Messages timed. */
  messages: number
  msgPerSec?: number
  mbPerSec?: number
  result?: ChildResult
  /** CPU seconds the broker's process used during the run (child start to exit), from /proc. */
  brokerCpuSec?: number
}

/** A run that worked: its rates from its child's result. */
function succeeded(run: ContestRun, result: ChildResult): void {
  run.result = result
  run.ok = true
  run.msgPerSec = run.messages / (result.wallMs / 1000)
  run.mbPerSec = (run.msgPerSec * (MESSAGE_KEY_BYTES + MESSAGE_VALUE_BYTES)) / 1e6
}

/** The console line for a finished run; `detail` follows the peak RSS. */
function progressLine(run: ContestRun, elapsed: string, extra: { detail?: string; shimBytes?: number } = {}): string {
  const r = run.result
  const figures = run.ok
    ? `${rate(run.msgPerSec!)}, ${run.mbPerSec!.toFixed(1)} MB/s, CPU ${r!.cpuSec.toFixed(2)} s (broker ${run.brokerCpuSec!.toFixed(2)} s for the whole child), peak RSS ${mib(r!.rssPeak)}${extra.detail ?? ''}`
    : `FAILED: ${run.error}`
  const shim = extra.shimBytes !== undefined ? ` [${fmt.format(extra.shimBytes)} request bytes via the shim]` : ''
  return `round ${run.round + 1}, ${run.scenario}, ${run.contender}: ${figures}${shim} (${elapsed})`
}

const KB = 1024
export const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const rate = (v: number) => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${fmt.format(v / 1e3)} k/s`)
const mib = (bytes: number) => `${fmt.format(bytes / (KB * KB))} MiB`
const ratio = (r: number) => (!Number.isFinite(r) ? 'n/a' : r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`)

export interface Summary {
  scenario: string
  contender: string
  settings: string
  rounds: number
  failed: string[]
  msgPerSec: number
  /** The slowest and fastest round: how noisy the figure is. */
  msgPerSecRange: [number, number]
  mbPerSec: number
  cpuSec: number
  /** CPU seconds per million messages: comparable across message counts. */
  cpuSecPerMillion: number
  rssPeak: number
  rssAboveBaseline: number
  /** The mock cluster's CPU seconds while this contender's child ran (warm-up and connection set-up included). */
  brokerCpuSec: number
  /** wafka ÷ this, median of per-round ratios: above 1, wafka is faster. */
  speedRatio: number
  /** this ÷ wafka CPU seconds: above 1, this one uses more CPU. */
  cpuRatio: number
  /** this ÷ wafka peak RSS: above 1, this one's peak RSS is higher. */
  rssRatio: number
}

/** A summary per (scenario, contender), in that order; `settings` says what the contender was told in the scenario at that index. */
export function summarize<Id extends string = ContenderId>(
  runs: readonly ContestRun[],
  scenarios: readonly string[],
  contenders: ReadonlyArray<{ id: Id; name: string }>,
  settings: (id: Id, scenario: number) => string,
): Summary[] {
  const out: Summary[] = []
  scenarios.forEach((name, index) => {
    const wafkaRuns = new Map(runs.filter((r) => r.scenario === name && r.contender === 'wafka' && r.ok).map((r) => [r.round, r]))
    for (const c of contenders) {
      const mine = runs.filter((r) => r.scenario === name && r.contender === c.name)
      const ok = mine.filter((r) => r.ok)
      const perRound = (f: (mine: ContestRun, w: ContestRun) => number) =>
        median(ok.filter((r) => wafkaRuns.has(r.round)).map((r) => f(r, wafkaRuns.get(r.round)!)))
      out.push({
        scenario: name,
        contender: c.name,
        settings: settings(c.id, index),
        rounds: ok.length,
        failed: mine.filter((r) => !r.ok).map((r) => `round ${r.round + 1}: ${r.error}`),
        msgPerSec: ok.length ? median(ok.map((r) => r.msgPerSec!)) : NaN,
        msgPerSecRange: [Math.min(...ok.map((r) => r.msgPerSec!)), Math.max(...ok.map((r) => r.msgPerSec!))],
        mbPerSec: ok.length ? median(ok.map((r) => r.mbPerSec!)) : NaN,
        cpuSec: ok.length ? median(ok.map((r) => r.result!.cpuSec)) : NaN,
        cpuSecPerMillion: ok.length ? median(ok.map((r) => (r.result!.cpuSec * 1e6) / r.messages)) : NaN,
        rssPeak: ok.length ? median(ok.map((r) => r.result!.rssPeak)) : NaN,
        rssAboveBaseline: ok.length ? median(ok.map((r) => r.result!.rssPeak - r.result!.rssBaseline)) : NaN,
        brokerCpuSec: ok.length ? median(ok.map((r) => r.brokerCpuSec!)) : NaN,
        speedRatio: perRound((r, w) => w.msgPerSec! / r.msgPerSec!),
        cpuRatio: perRound((r, w) => r.result!.cpuSec / w.result!.cpuSec),
        rssRatio: perRound((r, w) => r.result!.rssPeak / w.result!.rssPeak),
      })
    }
  })
  return out
}

function cell(x: Summary, v: string, r: number, first: boolean): string {
  if (x.rounds === 0) return 'failed'
  return first ? v : `${v} (${ratio(r)})`
}

export function printTables(summaries: Summary[]): void {
  for (const name of [...new Set(summaries.map((x) => x.scenario))]) {
    const rows = summaries.filter((x) => x.scenario === name)
    const header = [name, 'messages/s', 'MB/s', 'CPU s', 'peak RSS', 'wafka faster by']
    const body = rows.map((x, i) =>
      x.rounds === 0
        ? [`  ${x.contender}`, 'failed', '', '', '', '']
        : [
            `  ${x.contender}`,
            rate(x.msgPerSec),
            x.mbPerSec.toFixed(1),
            x.cpuSec.toFixed(2),
            mib(x.rssPeak),
            i === 0 ? '' : ratio(x.speedRatio),
          ],
    )
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)))
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ')
    console.log(line(header))
    for (const row of body) console.log(line(row))
    for (const x of rows) for (const f of x.failed) console.log(`  ! ${x.contender} ${f}`)
    console.log('')
  }
}

export interface ContestHeader {
  date: string
  machine: ReturnType<typeof machine>
  versions: Record<string, string>
  notes: string[]
}

/** The start of a results header: when, where, which versions, and the run's size; a benchmark adds its own fields and the notes. */
export function contestHeader(options: ContestOptions<unknown>, rig: Rig) {
  return {
    date: new Date().toISOString(),
    machine: machine(),
    versions: { ...clientVersions(options.revision, rig.ckjsDir), ...rig.versions },
    rounds: options.rounds,
    messages: options.messages,
  }
}

export interface MarkdownText {
  /** The script that writes the file, for the do-not-edit line: 'bench/producer.ts'. */
  script: string
  /** What one run does, after the "Measured on" line. */
  workload: string
  /** What the timed part runs to, for the RSS caption: 'the last acknowledgement'. */
  timedUntil: string
}

export function contestMarkdown(h: ContestHeader, text: MarkdownText, summaries: Summary[]): string {
  const m = h.machine
  const scenarios = [...new Set(summaries.map((x) => x.scenario))]
  const contenders = [...new Set(summaries.map((x) => x.contender))]
  const find = (s: string, c: string) => summaries.find((x) => x.scenario === s && x.contender === c)!
  const table = (value: (x: Summary) => string, ratioOf: (x: Summary) => number) => [
    `| | ${contenders.join(' | ')} |`,
    `|---|${contenders.map(() => '---:').join('|')}|`,
    ...scenarios.map(
      (s) => `| ${s} | ${contenders.map((c, i) => cell(find(s, c), value(find(s, c)), ratioOf(find(s, c)), i === 0)).join(' | ')} |`,
    ),
  ]
  const out: string[] = [
    `<!-- Written by ${text.script}; do not edit by hand. -->`,
    `Measured ${h.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.os}.`,
    text.workload,
    `Versions: ${Object.entries(h.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    '**Messages per second** ("n×": wafka\'s rate divided by that contender\'s; above 1, wafka is faster)',
    '',
    ...table(
      (x) => rate(x.msgPerSec),
      (x) => x.speedRatio,
    ),
    '',
    "**Client CPU time per message, µs** (the client process's own CPU, user + system, every thread, over the timed messages; \"n×\": that contender's CPU time divided by wafka's, from the same round)",
    '',
    ...table(
      (x) => x.cpuSecPerMillion.toFixed(2),
      (x) => x.cpuRatio,
    ),
    '',
    `**Peak RSS** (sampled every 50 ms from connect to ${text.timedUntil}; "n×": that contender's divided by wafka's)`,
    '',
    ...table(
      (x) => mib(x.rssPeak),
      (x) => x.rssRatio,
    ),
    '',
    '**Every figure**',
    '',
    '| scenario | contender | messages/s | slowest–fastest round | MB/s | CPU s | CPU s per M msgs | peak RSS | RSS above baseline | broker CPU s | wafka faster by | rounds ok |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...summaries.map((x) =>
      x.rounds === 0
        ? `| ${x.scenario} | ${x.contender} | failed | | | | | | | | | 0 |`
        : `| ${x.scenario} | ${x.contender} | ${rate(x.msgPerSec)} | ${rate(x.msgPerSecRange[0])}–${rate(x.msgPerSecRange[1])} | ${x.mbPerSec.toFixed(1)} | ${x.cpuSec.toFixed(2)} | ${x.cpuSecPerMillion.toFixed(2)} | ${mib(x.rssPeak)} | ${mib(x.rssAboveBaseline)} | ${x.brokerCpuSec.toFixed(2)} | ${x.contender === 'wafka' ? '' : ratio(x.speedRatio)} | ${x.rounds} |`,
    ),
    '',
    '**Settings**',
    '',
    ...contenders.map((c) => {
      const lines = scenarios.map((s) => `  - ${s}: ${find(s, c).settings}`)
      return [`- ${c}:`, ...lines].join('\n')
    }),
    '',
  ]
  const failures = summaries.flatMap((x) => x.failed.map((f) => `- ${x.contender}, ${x.scenario}, ${f}`))
  if (failures.length) out.push('**Failed runs**', '', ...failures, '')
  if (h.notes.length) out.push('Notes:', '', ...h.notes.map((n) => `- ${n}`), '')
  return out.join('\n')
}

/** Writes bench/results/<name>.json (header, summaries, runs) and <name>.md. */
export function writeResults(
  name: string,
  root: string,
  header: ContestHeader,
  text: MarkdownText,
  summaries: Summary[],
  runs: ContestRun[],
): string {
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ ...header, summaries, runs }, null, 2)}\n`)
  writeFileSync(join(dir, `${name}.md`), contestMarkdown(header, text, summaries))
  writeFileSync(
    join(dir, `${name}.svg`),
    contestChartSvg(contestChartTitle(name, header as ContestHeader & { messages?: number; rounds?: number }), summaries),
  )
  return `wrote ${join(dir, `${name}.json`)}, ${name}.md and ${name}.svg`
}
