// A librdkafka mock cluster in a child process (test/peers/mock-cluster.c),
// with its fault-injection commands as promises. One command at a time goes
// down its stdin; each reply line ("ok [value]" / "error text") settles the
// oldest pending command.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { type PeerBuild, mockClusterBinary } from './available.js'
import { LineSplitter, appendTail, killOnExit } from './child.js'

export { peersAvailable, requirePeers, type PeerBuild } from './available.js'

/** librdkafka's _TRANSPORT: as an injected error, the broker drops the connection. */
export const DISCONNECT = -195

export interface MockBroker {
  id: number
  host: string
  port: number
}

export interface StartOptions {
  /** Broker count; ids are 1..brokers. Default 3. */
  brokers?: number
  /** 'modern': librdkafka 2.15 (flexible versions); 'legacy': Debian's 2.0.2 (old versions). Default modern. */
  build?: PeerBuild
}

export interface TopicPartition {
  topic: string
  partition: number
}

/** An error to inject on one broker, optionally with a delay before its response. */
export type BrokerError = number | { code: number; rttMs?: number }

const START_TIMEOUT_MS = 5_000
const STOP_TIMEOUT_MS = 1_000

// Commands the legacy build answers with "error unsupported".
const MODERN_ONLY = new Set([
  'delete-topic',
  'delete-records',
  'partition-errors',
  'decommission',
  'add-broker',
  'hide-broker',
  'controller',
  'rebalance-delay',
  'group-consumer-session-timeout',
  'group-consumer-heartbeat-interval',
  'target-assignment',
])

interface Pending {
  line: string
  resolve: (value: string) => void
  reject: (err: Error) => void
}

export class MockCluster {
  /** "127.0.0.1:port,..." — the mock listens on IPv4 loopback only. */
  readonly bootstrap: string
  /** The brokers it started with, ids 1..N. */
  readonly brokers: MockBroker[]
  readonly build: PeerBuild
  private readonly child: ChildProcessWithoutNullStreams
  private readonly pending: Pending[] = []
  private stderrTail: string[] = []
  private exited: Promise<void>
  private dead: string | null = null

  /** @internal use startMockCluster() */
  constructor(child: ChildProcessWithoutNullStreams, build: PeerBuild, bootstrap: string, lines: LineSplitter, stderrTail: string[]) {
    this.child = child
    this.build = build
    this.bootstrap = bootstrap
    this.stderrTail = stderrTail
    this.brokers = bootstrap.split(',').map((hostPort, i) => {
      const at = hostPort.lastIndexOf(':')
      return { id: i + 1, host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) }
    })
    lines.onLine = (line) => this.settle(line)
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.dead = `mock cluster (${build}) exited (${signal ?? `code ${code}`})`
        const err = this.failure(this.dead)
        for (const p of this.pending.splice(0)) p.reject(err)
        resolve()
      })
    })
  }

  /** Whether this build has a command (the legacy one lacks the newer ones). */
  supports(command: string): boolean {
    return this.build === 'modern' || !MODERN_ONLY.has(command)
  }

  /** Sends one raw command line; resolves with the text after "ok". */
  command(...args: (string | number)[]): Promise<string> {
    for (const a of args) {
      if (typeof a === 'string' && !/^\S+$/.test(a)) {
        return Promise.reject(new Error(`mock cluster arguments cannot be empty or contain blanks: ${JSON.stringify(a)}`))
      }
    }
    const line = args.join(' ')
    if (this.dead) return Promise.reject(this.failure(`${this.dead}; cannot run "${line}"`))
    return new Promise((resolve, reject) => {
      this.pending.push({ line, resolve, reject })
      this.child.stdin.write(`${line}\n`)
    })
  }

  private settle(line: string): void {
    const p = this.pending.shift()
    if (!p) return
    if (line === 'ok' || line.startsWith('ok ')) p.resolve(line.slice(3))
    else p.reject(new Error(`mock cluster (${this.build}): "${p.line}": ${line.replace(/^error /, '')}`))
  }

  private failure(message: string): Error {
    const tail = this.stderrTail.join('\n').trim()
    return new Error(tail ? `${message}\nstderr:\n${tail}` : message)
  }

  // ---- topics and partitions ----------------------------------------------

  /** The mock has no CreateTopics API: this is how tests make topics. */
  async createTopic(name: string, opts: { partitions?: number; replicationFactor?: number } = {}): Promise<void> {
    const partitions = opts.partitions ?? 1
    const rf = opts.replicationFactor ?? Math.min(3, this.brokers.length)
    await this.command('topic', name, partitions, rf)
  }

  /** Moves a partition's leadership (null: leaderless). Creates the topic if missing. */
  async setLeader(topic: string, partition: number, brokerId: number | null): Promise<void> {
    await this.command('leader', topic, partition, brokerId ?? -1)
  }

  /** The preferred read replica a consumer is told to fetch from (KIP-392). */
  async setFollower(topic: string, partition: number, brokerId: number): Promise<void> {
    await this.command('follower', topic, partition, brokerId)
  }

  /** Sets the Metadata (and AddPartitionsToTxn) error of a topic; 0 clears it. */
  async setTopicError(topic: string, code: number): Promise<void> {
    await this.command('topic-error', topic, code)
  }

  // ---- brokers -------------------------------------------------------------

  /** Drops the broker's connections and refuses new ones (-1: all). Leaders stay put. */
  async brokerDown(brokerId: number): Promise<void> {
    await this.command('down', brokerId)
  }

  async brokerUp(brokerId: number): Promise<void> {
    await this.command('up', brokerId)
  }

  /** Delays every response of a broker by ms (-1: all brokers; 0 removes it). */
  async setRtt(brokerId: number, ms: number): Promise<void> {
    await this.command('rtt', brokerId, ms)
  }

  async setRack(brokerId: number, rack: string): Promise<void> {
    await this.command('rack', brokerId, rack)
  }

  // ---- request errors ------------------------------------------------------

  /**
   * The next requests with this API key, to any broker, get these error
   * codes, one per request in order (0: no error). DISCONNECT drops the
   * connection instead of answering.
   */
  async pushRequestErrors(apiKey: number, codes: number[]): Promise<void> {
    await this.command('errors', apiKey, ...codes)
  }

  /** Like pushRequestErrors, on one broker only, each with an optional response delay. Takes precedence over cluster-wide errors. */
  async pushBrokerRequestErrors(brokerId: number, apiKey: number, errors: BrokerError[]): Promise<void> {
    const entries = errors.map((e) => (typeof e === 'number' ? `${e}` : `${e.code}:${e.rttMs ?? 0}`))
    await this.command('broker-errors', brokerId, apiKey, ...entries)
  }

  /** The next `count` requests with this API key (on one broker, or any) close the connection. */
  async pushDisconnects(apiKey: number, count = 1, brokerId?: number): Promise<void> {
    const codes = Array<number>(count).fill(DISCONNECT)
    if (brokerId === undefined) await this.pushRequestErrors(apiKey, codes)
    else await this.pushBrokerRequestErrors(brokerId, apiKey, codes)
  }

  /** How many errors pushed on this broker for this API are still unused. */
  async brokerErrorCount(brokerId: number, apiKey: number): Promise<number> {
    return Number(await this.command('error-count', brokerId, apiKey))
  }

  /** Forgets the cluster-wide errors pushed for an API key. */
  async clearRequestErrors(apiKey: number): Promise<void> {
    await this.command('clear-errors', apiKey)
  }

  // ---- coordinators and versions -------------------------------------------

  /** Makes brokerId the group (group.id) or transaction (transactional.id) coordinator of key. */
  async setCoordinator(type: 'group' | 'transaction', key: string, brokerId: number): Promise<void> {
    await this.command('coordinator', type, key, brokerId)
  }

  /** Narrows the versions ApiVersions advertises for an API (-1, -1 hides it). */
  async setApiVersion(apiKey: number, min: number, max: number): Promise<void> {
    await this.command('apiversion', apiKey, min, max)
  }

  // ---- modern build only (legacy rejects with "unsupported") ---------------

  async deleteTopic(name: string): Promise<void> {
    await this.command('delete-topic', name)
  }

  /** Moves a partition's log start offset up to `offset`. */
  async deleteRecords(topic: string, partition: number, offset: number): Promise<void> {
    await this.command('delete-records', topic, partition, offset)
  }

  /** Partition-level error codes in the next responses of this API naming the partition. */
  async pushPartitionErrors(topic: string, partition: number, apiKey: number, codes: number[]): Promise<void> {
    await this.command('partition-errors', topic, partition, apiKey, ...codes)
  }

  /** Removes a broker; its partitions move to the others. */
  async decommissionBroker(brokerId: number): Promise<void> {
    await this.command('decommission', brokerId)
  }

  /** Adds a broker (its port is not reported: find it with a Metadata request). */
  async addBroker(brokerId: number): Promise<void> {
    await this.command('add-broker', brokerId)
  }

  /** Hides a broker from Metadata responses, keeping its connections. */
  async hideBroker(brokerId: number): Promise<void> {
    await this.command('hide-broker', brokerId)
  }

  /** The controller id Metadata reports (-1: none). */
  async setControllerId(brokerId: number): Promise<void> {
    await this.command('controller', brokerId)
  }

  /** group.initial.rebalance.delay.ms (the mock's default is 3000). */
  async setRebalanceDelay(ms: number): Promise<void> {
    await this.command('rebalance-delay', ms)
  }

  // KIP-848 (ConsumerGroupHeartbeat) groups. A group takes the two settings
  // up at its members' next heartbeat.

  /** How long after its last heartbeat a member is fenced (default 30000; checked once a second). */
  async setGroupConsumerSessionTimeout(ms: number): Promise<void> {
    await this.command('group-consumer-session-timeout', ms)
  }

  /** The HeartbeatIntervalMs of ConsumerGroupHeartbeat responses (default 3000). */
  async setGroupConsumerHeartbeatInterval(ms: number): Promise<void> {
    await this.command('group-consumer-heartbeat-interval', ms)
  }

  /**
   * The target assignment of a group's members, by member id, instead of the
   * mock's own range assignment; null brings that back. Nothing happens for a
   * group no member has heartbeated to yet; unknown member ids are skipped.
   */
  async setTargetAssignment(groupId: string, assignment: Record<string, TopicPartition[]> | null): Promise<void> {
    const entries = Object.entries(assignment ?? {}).map(
      ([memberId, parts]) => `${memberId}=${parts.map((p) => `${p.topic}:${p.partition}`).join(',')}`,
    )
    if (assignment && !entries.length) throw new Error('setTargetAssignment: no members (null goes back to automatic)')
    await this.command('target-assignment', groupId, ...entries)
  }

  // ---- lifecycle -----------------------------------------------------------

  /** Destroys the cluster and ends the process (killed if it lingers). */
  async stop(): Promise<void> {
    if (!this.dead) {
      this.child.stdin.end('quit\n')
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await this.exited
      clearTimeout(timer)
    }
  }
}

export async function startMockCluster(opts: StartOptions = {}): Promise<MockCluster> {
  const build = opts.build ?? 'modern'
  const brokers = opts.brokers ?? 3
  const binary = mockClusterBinary(build)
  const child = spawn(binary, [String(brokers)], { stdio: ['pipe', 'pipe', 'pipe'] })
  killOnExit(child)

  const stderrTail: string[] = []
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => appendTail(stderrTail, chunk))
  // A write after the child died is reported by the exit handler instead.
  child.stdin.on('error', () => {})

  const lines = new LineSplitter()
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => lines.push(chunk))

  const bootstrap = await new Promise<string>((resolve, reject) => {
    const fail = (why: string) => {
      child.kill('SIGKILL')
      reject(new Error(`mock cluster (${build}) did not start: ${why}\n${stderrTail.join('\n')}`))
    }
    const onError = (e: Error) => fail(e.message)
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${signal ?? `code ${code}`})`)
    const timer = setTimeout(() => fail(`no bootstrap line in ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS)
    child.once('error', onError)
    child.once('exit', onExit)
    lines.onLine = (line) => {
      clearTimeout(timer)
      child.off('error', onError)
      child.off('exit', onExit)
      lines.onLine = () => {}
      resolve(line)
    }
  })
  return new MockCluster(child, build, bootstrap, lines, stderrTail)
}
