import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChildResult } from './contest.js'
import { MESSAGE_POOL as POOL, messagePool } from './data.js'
import { repositoryRoot } from './environment.js'

/**
 * kcat (librdkafka's C client as a command: the native reference) in the
 * contests. It runs as a process of its own through bash, whose `times`
 * reports the CPU kcat used (user and system, every thread) once it exits;
 * its peak RSS is its VmHWM, read from /proc while it runs. The clock runs
 * from starting it to its exit (producer: once every message is
 * acknowledged) or to the last byte of the output it must write (consumer:
 * the last message; closing, which leaves the group, is not timed, as the
 * Node consumers' close is not), so its start-up, connecting and joining the
 * group are in it. Its CPU time is the whole process's.
 */

/** kcat's version line (`kcat -V`), for the results header. */
export function kcatVersion(): string {
  const r = spawnSync('kcat', ['-V'], { encoding: 'utf8' })
  const m = /Version ([^\s]+) \(.*?librdkafka ([^\s]+)/.exec(r.stdout ?? '')
  return m ? `${m[1]} (librdkafka ${m[2]})` : 'unknown'
}

/**
 * The pool's first `count` messages (as the Node producers send them: message
 * i is key i mod pool, value i mod pool), one `key<TAB>value` line each, for
 * kcat -P -K '\t'. Written once per count into dist/bench/kcat/.
 */
export function kcatInputFile(count: number): string {
  const dir = join(repositoryRoot(), 'dist', 'bench', 'kcat')
  const file = join(dir, `messages-${count}.tsv`)
  const { keys, values } = messagePool()
  const lineBytes = keys[0].length + values[0].length + 2
  if (existsSync(file) && statSync(file).size === count * lineBytes) return file
  for (const b of [...keys, ...values])
    if (b.includes(9) || b.includes(10)) throw new Error('a bench key or value holds a tab or newline: it cannot go in kcat input')
  mkdirSync(dir, { recursive: true })
  const lines = Buffer.allocUnsafe(Math.min(count, POOL) * lineBytes)
  for (let i = 0, at = 0; i < Math.min(count, POOL); i++) {
    at += keys[i].copy(lines, at)
    lines[at++] = 9
    at += values[i].copy(lines, at)
    lines[at++] = 10
  }
  const fd = openSync(file, 'w')
  try {
    for (let done = 0; done < count; done += POOL) {
      const n = Math.min(POOL, count - done)
      writeFileSync(fd, lines.subarray(0, n * lineBytes))
    }
  } finally {
    closeSync(fd)
  }
  return file
}

/**
 * Runs kcat with `args`, its stdin from `input` (a file) or nothing; counts
 * what it writes to stdout, which must come to `outputBytes` when given.
 * Killed after `timeoutMs`.
 */
export function runKcat(args: string[], options: { input?: string; outputBytes?: number; timeoutMs: number }): Promise<ChildResult> {
  const stdin = options.input ? openSync(options.input, 'r') : 'ignore'
  const t0 = performance.now()
  // `times` prints the shell's, then its children's user and system time: the second line is kcat's.
  const proc = spawn('bash', ['-c', 'kcat "$@"; code=$?; times >&2; exit $code', 'kcat', ...args], { stdio: [stdin, 'pipe', 'pipe'] })
  if (typeof stdin === 'number') closeSync(stdin)
  let outBytes = 0
  let lastByteAt = 0
  let stderr = ''
  proc.stdout!.on('data', (c: Buffer) => {
    outBytes += c.length
    if (lastByteAt === 0 && options.outputBytes !== undefined && outBytes >= options.outputBytes) lastByteAt = performance.now()
  })
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)))
  let rssBaseline = 0
  let rssPeak = 0
  const sample = () => {
    const kcat = childPid(proc.pid!)
    if (kcat === undefined) return
    const status = readStatus(kcat)
    if (!status) return
    if (rssBaseline === 0) rssBaseline = status.rss
    rssPeak = Math.max(rssPeak, status.hwm)
  }
  const sampler = setInterval(sample, 20)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs)
    proc.on('exit', (code, signal) => {
      // With output to wait for, the clock stops at its last byte (the last message), before kcat closes.
      const wallMs = (lastByteAt || performance.now()) - t0
      clearTimeout(timer)
      clearInterval(sampler)
      try {
        if (code !== 0) throw new Error(`exited (${signal ?? `code ${code}`})`)
        const times = stderr.trim().split('\n').at(-1) ?? ''
        const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(times.trim())
        if (!m) throw new Error(`no CPU times from bash: ${times}`)
        const userSec = Number(m[1]) * 60 + Number(m[2])
        const systemSec = Number(m[3]) * 60 + Number(m[4])
        if (options.outputBytes !== undefined && outBytes !== options.outputBytes)
          throw new Error(`wrote ${outBytes} bytes of keys and values, not ${options.outputBytes}`)
        if (rssPeak === 0) throw new Error('exited before its memory could be read')
        resolve({ wallMs, cpuSec: userSec + systemSec, userSec, systemSec, rssBaseline, rssPeak })
      } catch (err) {
        reject(new Error(`kcat: ${(err as Error).message}${stderr.trim() ? `; stderr: ${stderr.trim().slice(-600)}` : ''}`))
      }
    })
  })
}

/** The pid of bash's child (kcat), once it has one. */
function childPid(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
    return children ? Number(children.split(' ')[0]) : undefined
  } catch {
    return undefined
  }
}

/** VmRSS and VmHWM of `pid`, in bytes. */
function readStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
  } catch {
    return undefined
  }
}
