import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { ChildResult } from './contest.js'
import { repositoryRoot } from './environment.js'

/**
 * The Java client in the real-Kafka contest: Kafka's own perf tools
 * (org.apache.kafka.tools.ProducerPerformance and ConsumerPerformance, from
 * kafka-tools) run inside bench/java/PerfRun.java, which gives them an
 * untimed warm-up invocation where asked and measures the timed one as the
 * Node children measure themselves (wall time, the JVM's own CPU time over
 * every thread, peak RSS).
 */

/** The client JVM: sized as the rig sizes every JVM on this 2-core machine. */
export const JAVA_CLIENT_OPTIONS = ['-Xmx512m', '-XX:+UseSerialGC']

export interface JavaResult extends ChildResult {
  /** Wall time of the timed invocation (client creation and close included); wallMs is the tool's own timed span. */
  invocationMs: number
  /** What the tool printed in its timed invocation. */
  output: string
}

/** Compiles bench/java/<name>.java (once per change) into dist/bench/java; returns the directory. */
export function benchJavaClasses(classPath: string, name = 'PerfRun'): string {
  const root = repositoryRoot()
  const source = join(root, 'bench', 'java', `${name}.java`)
  const out = join(root, 'dist', 'bench', 'java')
  const cls = join(out, `${name}.class`)
  if (!existsSync(cls) || statSync(cls).mtimeMs < statSync(source).mtimeMs) {
    mkdirSync(out, { recursive: true })
    const r = spawnSync('javac', ['-d', out, '-cp', classPath, source], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`javac ${name}.java failed: ${r.stderr || r.error}`)
  }
  return out
}

/** The Java version `java -version` reports, for the results header. */
export function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' })
  return /version "([^"]+)"/.exec(r.stderr ?? '')?.[1] ?? 'unknown'
}

/**
 * Runs `tool` (a class with a main) with `warmup` args (none: no warm-up),
 * then `timed` args; `rate` reads the messages per second from the tool's
 * output (it throws when the output says the run fell short). Killed after
 * `timeoutMs`.
 */
export function runJavaTool(
  classPath: string,
  tool: string,
  warmup: string[],
  timed: string[],
  rate: (output: string) => { messages: number; perSec: number },
  timeoutMs: number,
): Promise<JavaResult> {
  const classes = benchJavaClasses(classPath)
  const log4j = join(repositoryRoot(), 'bench', 'java', 'log4j2.yaml')
  // Through the rig's RigMain (on the launcher's class path), which halts the JVM when its stdin closes:
  // however the benchmark ends, no client JVM outlives it.
  const args = [
    ...JAVA_CLIENT_OPTIONS,
    `-Dlog4j2.configurationFile=${log4j}`,
    '-cp',
    `${classPath}${delimiter}${classes}`,
    'RigMain',
    'PerfRun',
    tool,
    ...warmup,
    '---',
    ...timed,
  ]
  return new Promise((resolve, reject) => {
    const proc = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)))
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
    proc.on('exit', (code, signal) => {
      clearTimeout(timer)
      const line = stdout.trim().split('\n').pop() ?? ''
      try {
        if (code !== 0) throw new Error(`exited (${signal ?? `code ${code}`})`)
        const m = JSON.parse(line) as { wallMs: number; cpuSec: number; rssBaseline: number; rssPeak: number; output: string }
        const { messages, perSec } = rate(m.output)
        resolve({
          wallMs: (messages / perSec) * 1000,
          invocationMs: m.wallMs,
          cpuSec: m.cpuSec,
          userSec: NaN,
          systemSec: NaN,
          rssBaseline: m.rssBaseline,
          rssPeak: m.rssPeak,
          output: m.output,
        })
      } catch (err) {
        reject(new Error(`${tool}: ${(err as Error).message}${stderr.trim() ? `; stderr: ${stderr.trim().slice(-600)}` : ''}`))
      }
    })
  })
}

/** ProducerPerformance's summary of the timed invocation: "N records sent, R records/sec (...)". */
export function producerPerformanceRate(expected: number): (output: string) => { messages: number; perSec: number } {
  return (output) => {
    const all = [...output.matchAll(/(\d+) records sent, ([\d.]+) records\/sec/g)]
    const last = all.at(-1)
    if (!last) throw new Error(`no summary in ProducerPerformance's output: ${output.slice(-300)}`)
    const messages = Number(last[1])
    if (messages !== expected) throw new Error(`ProducerPerformance sent ${messages} records, not ${expected}`)
    return { messages, perSec: Number(last[2]) }
  }
}

/**
 * ConsumerPerformance's result line (--hide-header: one CSV line, "start.time,
 * end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, ..."):
 * its rate runs from before subscribing to the last record, group join included.
 */
export function consumerPerformanceRate(expected: number): (output: string) => { messages: number; perSec: number } {
  return (output) => {
    const line = output
      .trim()
      .split('\n')
      .filter((l) => /^\d{4}-/.test(l))
      .pop()
    if (!line) throw new Error(`no result line in ConsumerPerformance's output: ${output.slice(-300)}`)
    const cells = line.split(',').map((c) => c.trim())
    const messages = Number(cells[4])
    if (messages !== expected) throw new Error(`ConsumerPerformance consumed ${messages} records, not ${expected}`)
    return { messages, perSec: Number(cells[5]) }
  }
}
