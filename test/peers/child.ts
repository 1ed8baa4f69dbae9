// Plumbing shared by the long-running peer processes (the mock cluster, a
// kcat group consumer): lines out of a stream, the tail of stderr for error
// messages, and no process left behind when the tests end.
import type { ChildProcess } from 'node:child_process'

/** Splits a stream into lines and hands them to whoever listens now. */
export class LineSplitter {
  onLine: (line: string) => void = () => {}
  private buffered = ''
  push(chunk: string): void {
    this.buffered += chunk
    let nl: number
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl)
      this.buffered = this.buffered.slice(nl + 1)
      this.onLine(line)
    }
  }
}

/** Keeps the last `max` non-empty lines of a chunk stream in `tail`. */
export function appendTail(tail: string[], chunk: string, max = 20): void {
  tail.push(...chunk.split('\n').filter(Boolean))
  tail.splice(0, Math.max(0, tail.length - max))
}

// Killed when the test process exits, however it exits. (A killed test
// process also closes their stdin, which ends the mock cluster by itself.)
const live = new Set<ChildProcess>()
let exitHookInstalled = false
export function killOnExit(child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL')
  })
}

/**
 * A command line as an error shows it, secrets masked: `sasl.password=…`,
 * `ssl.key.password=…`, a JAAS `password="…"` and OAUTHBEARER configs.
 */
export function shownCommand(args: readonly string[]): string {
  return args
    .map((a) =>
      a
        .replace(/(sasl\.oauthbearer\.config)=.*/s, '$1=***')
        .replace(/((?:^|\.)password)=(?!")\S*/g, '$1=***')
        .replace(/password="[^"]*"/g, 'password="***"'),
    )
    .join(' ')
}
