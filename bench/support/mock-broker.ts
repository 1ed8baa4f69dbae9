import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { repositoryRoot } from './environment.js'

/**
 * The real-peer rig for benchmarks: librdkafka's mock cluster, the same
 * compiled program (test/peers/mock-cluster.c) and stdin protocol that
 * test/peers/mock-cluster.ts drives for the tests, reduced to what a
 * benchmark needs: start, create and delete topics, stop.
 *
 * test/peers/build.mjs is loaded from the repository at run time rather than
 * bundled: it finds mock-cluster.c and the librdkafka build next to itself
 * (import.meta.url), which a bundle in dist/bench/ would get wrong — and so
 * would mock-cluster.ts, which reaches it through available.ts.
 */

/** USER_HZ: 100 on Linux for every architecture Node runs on. */
const CLOCK_TICKS = 100

interface PeerBuildModule {
  buildMockCluster(build: 'modern' | 'legacy'): { path: string } | { error: string }
  /** Where `node test/peers/build.mjs --install` puts @confluentinc/kafka-javascript. */
  ckjsDir: string
}

let buildModule: Promise<PeerBuildModule> | undefined

export function peerBuild(): Promise<PeerBuildModule> {
  // A computed specifier: esbuild leaves this import alone.
  const url = pathToFileURL(join(repositoryRoot(), 'test', 'peers', 'build.mjs')).href
  buildModule ??= import(url) as Promise<PeerBuildModule>
  return buildModule
}

export class MockBroker {
  private readonly pending: Array<{ line: string; resolve: (v: string) => void; reject: (e: Error) => void }> = []
  private readonly exited: Promise<void>
  private dead: string | null = null
  private stderrTail = ''

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** "127.0.0.1:port,..." */
    readonly bootstrap: string,
    lines: { onLine: (line: string) => void },
  ) {
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000)
    })
    lines.onLine = (line) => {
      const p = this.pending.shift()
      if (!p) return
      if (line === 'ok' || line.startsWith('ok ')) p.resolve(line.slice(3))
      else p.reject(new Error(`mock cluster: "${p.line}": ${line.replace(/^error /, '')}`))
    }
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.dead = `mock cluster exited (${signal ?? `code ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`
        for (const p of this.pending.splice(0)) p.reject(new Error(this.dead))
        resolve()
      })
    })
  }

  /** Starts librdkafka 2.15's mock cluster ('modern' build) with `brokers` brokers. */
  static async start(brokers = 3): Promise<MockBroker> {
    const built = (await peerBuild()).buildMockCluster('modern')
    if ('error' in built) throw new Error(`${built.error} (see test/peers/README.md)`)
    const child = spawn(built.path, [String(brokers)], { stdio: ['pipe', 'pipe', 'pipe'] })
    process.once('exit', () => child.kill('SIGKILL'))
    child.stdin.on('error', () => {})
    const lines = { onLine: (_line: string) => {} }
    let buffered = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      let nl: number
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        lines.onLine(line)
      }
    })
    const bootstrap = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('mock cluster did not print its bootstrap list in 5 s')), 5000)
      child.once('exit', (code) => reject(new Error(`mock cluster exited (code ${code}) before starting`)))
      lines.onLine = (line) => {
        clearTimeout(timer)
        resolve(line)
      }
    })
    return new MockBroker(child, bootstrap, lines)
  }

  private command(...args: Array<string | number>): Promise<string> {
    const line = args.join(' ')
    if (this.dead) return Promise.reject(new Error(this.dead))
    return new Promise((resolve, reject) => {
      this.pending.push({ line, resolve, reject })
      this.child.stdin.write(`${line}\n`)
    })
  }

  async createTopic(name: string, opts: { partitions: number; replicationFactor: number }): Promise<void> {
    await this.command('topic', name, opts.partitions, opts.replicationFactor)
  }

  async deleteTopic(name: string): Promise<void> {
    await this.command('delete-topic', name)
  }

  /** User + system CPU seconds the mock's process has used so far (Linux /proc; NaN elsewhere). */
  cpuSeconds(): number {
    try {
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8')
      // Fields after the command name, which is in parentheses: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
    } catch {
      return NaN
    }
  }

  /** The versions the brokers advertise for an API (ApiVersions answers with them). */
  async setApiVersion(apiKey: number, min: number, max: number): Promise<void> {
    await this.command('apiversion', apiKey, min, max)
  }

  /** The controller id Metadata reports. */
  async setControllerId(brokerId: number): Promise<void> {
    await this.command('controller', brokerId)
  }

  /** Makes `brokerId` the coordinator of a consumer group or a transactional id. */
  async setCoordinator(kind: 'group' | 'transaction', key: string, brokerId: number): Promise<void> {
    await this.command('coordinator', kind, key, brokerId)
  }

  /** group.initial.rebalance.delay.ms: how long a new group waits for more members before its first assignment (the mock's default is 3000). */
  async setRebalanceDelay(ms: number): Promise<void> {
    await this.command('rebalance-delay', ms)
  }

  async stop(): Promise<void> {
    if (this.dead) return
    this.child.stdin.end('quit\n')
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 1000)
    await this.exited
    clearTimeout(timer)
  }
}
