// Drives the built CLI (dist/cli.js) as a subprocess, as a user's shell would.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const cli = `${root}dist/cli.js`
export const built = existsSync(cli)
if (!built && process.env.CI) throw new Error('dist/cli.js is missing: run npm run build first')

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** `wafka ...args`, with `input` on stdin; resolves when it exits. */
export function wafka(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

/**
 * `wafka ...args` on a pseudo-terminal (util-linux script), so stdout is a TTY. Output has \r\n line ends.
 * Asynchronous: an embedded broker in this process keeps answering meanwhile.
 */
export function wafkaOnTty(args: string[], timeoutMs = 60_000): Promise<Run> {
  const quoted = [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', quoted, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Whether util-linux's `script` is here; under CI it must be (.ci/run installs it), so the terminal tests run and fail without it. */
export function hasScript(): boolean {
  return !!process.env.CI || spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0
}

/** One line on stderr, naming the command, with no stack trace. */
export function oneCleanLine(stderr: string): boolean {
  const lines = stderr.trimEnd().split('\n')
  return lines.length === 1 && /^wafka[ :]/.test(lines[0]) && !/\n\s+at |at .*\.js:\d+/.test(stderr)
}
