// kcat (Debian's, librdkafka 2.0.2) as a real client peer: produce, consume,
// list metadata, byte-exact both ways, and run group members (-G).
//
// Producing: kcat splits stdin into records at a delimiter (-D) and each
// record into key and value at a second one (-K). Both are random byte
// strings absent from the data, so any bytes go through. What kcat cannot
// express, this refuses rather than send something else:
//   - per-message headers and partitions: -H / -p hold for a whole run, so
//     messages are sent in consecutive runs that share them;
//   - null vs empty: -Z turns empty keys AND values into null, so a run has
//     -Z only when it holds a null value; a message with a null value and an
//     empty key, or a null key and an empty value, cannot be sent at all
//     (kcat skips an empty record);
//   - header values are command-line strings (UTF-8, no NUL); the producer
//     sets no timestamps.
// Consuming: -J output, read as latin1 — kcat writes key, value and header
// bytes into its JSON unvalidated (escaping only controls, '"' and '\'), so
// mapping each char back to one byte restores them exactly.
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import { LineSplitter, appendTail, killOnExit, shownCommand } from './child.js'
import type { TopicPartition } from './mock-cluster.js'

export type Bytes = string | Uint8Array
export type KcatHeaders = Record<string, string | null> | [string, string | null][]

export interface KcatProduceMessage {
  key?: Bytes | null
  value: Bytes | null
  headers?: KcatHeaders
  /** Default: librdkafka's partitioner (consistent_random on the key). */
  partition?: number
}

export interface KcatProduceOptions {
  compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'
  /** Sends everything in one transaction, committed at the end. */
  transactionalId?: string
  /** Any librdkafka producer property (-X), e.g. { 'enable.idempotence': true, acks: 1 }. */
  config?: Record<string, string | number | boolean>
  /** Per run: message.timeout.ms, and the kill deadline a few seconds later. Default 15000. */
  timeoutMs?: number
}

export interface KcatConsumeOptions {
  /** Stop after this many messages; without it, stop at the end of every partition (-e). */
  count?: number
  /** Default true: from the beginning; false: only new messages (needs count). */
  fromBeginning?: boolean
  /** An absolute start offset (-o N); overrides fromBeginning. */
  offset?: number
  partition?: number
  config?: Record<string, string | number | boolean>
  /** Default 15000. */
  timeoutMs?: number
}

export interface KcatMessage {
  topic: string
  partition: number
  offset: number
  timestamp: number
  timestampType: 'create' | 'logappend' | 'unknown'
  /** The broker id it was fetched from. */
  broker: number
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
}

export interface KcatMetadata {
  controllerId: number
  brokers: { id: number; host: string; port: number }[]
  topics: {
    name: string
    error?: string
    partitions: { id: number; leader: number; replicas: number[]; isrs: number[]; error?: string }[]
  }[]
}

const DEFAULT_TIMEOUT_MS = 15_000

interface KcatResult {
  stdout: Buffer
  stderr: string
}

/** Runs kcat; rejects on a non-zero exit or after timeoutMs (then kills it). */
function runKcat(args: string[], input: Buffer | null, timeoutMs: number): Promise<KcatResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (c: string) => (stderr += c))
    child.stdin.on('error', () => {}) // reported through the exit status
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`kcat ${shownCommand(args)} timed out after ${timeoutMs} ms\n${stderr}`))
    }, timeoutMs)
    child.once('error', (e) => {
      clearTimeout(timer)
      reject(new Error(`kcat could not run (apt-get install -y kcat): ${e.message}`))
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr })
      else reject(new Error(`kcat ${shownCommand(args)} failed (${signal ?? `exit ${code}`}):\n${stderr}`))
    })
    child.stdin.end(input ?? undefined)
  })
}

function configArgs(config: Record<string, string | number | boolean> = {}): string[] {
  return Object.entries(config).flatMap(([k, v]) => ['-X', `${k}=${v}`])
}

const toBuffer = (b: Bytes): Buffer => (typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b))

/** Random 8 bytes >= 0x80: kcat's -D/-K parser reads \xNN escapes and then
 * re-scans the result for '\', which such bytes can never form. */
const randomDelimiter = () => Buffer.from(randomBytes(8).map((b) => b | 0x80))

function occurrences(haystack: Buffer, needle: Buffer): number {
  let n = 0
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) n++
  return n
}

/** The records joined for kcat's stdin, with delimiters that occur nowhere else. */
function encodeRun(records: Run['records']): { input: Buffer; recordDelim: Buffer; keyDelim: Buffer } {
  const keyed = records.filter((r) => r.key).length
  for (;;) {
    const recordDelim = randomDelimiter()
    const keyDelim = randomDelimiter()
    const input = Buffer.concat(
      records.flatMap((r) =>
        r.key
          ? [r.key, keyDelim, r.value, recordDelim]
          : // No key delimiter: kcat sends a null key. A lone one with -Z: null key and value.
            r.value.length
            ? [r.value, recordDelim]
            : [keyDelim, recordDelim],
      ),
    )
    const nullPairs = records.filter((r) => !r.key && !r.value.length).length
    // Checked on the whole input, so no delimiter can form across a boundary either.
    if (occurrences(input, recordDelim) === records.length && occurrences(input, keyDelim) === keyed + nullPairs) {
      return { input, recordDelim, keyDelim }
    }
  }
}
const escaped = (d: Buffer) => [...d].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')

function normalizeHeaders(h: KcatHeaders | undefined): [string, string | null][] {
  const list = !h ? [] : Array.isArray(h) ? h : Object.entries(h)
  for (const [name, value] of list) {
    if (!name || name.includes('=') || name.includes('\0') || value?.includes('\0')) {
      throw new Error(`kcat cannot send header ${JSON.stringify(name)}: names need no '=', neither may hold NUL`)
    }
  }
  return list
}

interface Run {
  partition: number | undefined
  headers: [string, string | null][]
  /** -Z: empty keys and values become null. */
  nulls: boolean | undefined
  records: { key: Buffer | null; value: Buffer }[]
}

/** Consecutive messages that one kcat invocation can send. */
function planRuns(messages: KcatProduceMessage[]): Run[] {
  const runs: Run[] = []
  messages.forEach((m, i) => {
    const key = m.key == null ? null : toBuffer(m.key)
    const value = m.value === null ? null : toBuffer(m.value)
    const emptyKey = key !== null && key.length === 0
    const emptyValue = value !== null && value.length === 0
    if (value === null && emptyKey) throw new Error(`message ${i}: kcat cannot send a null value with an empty key`)
    if (key === null && emptyValue) throw new Error(`message ${i}: kcat cannot send an empty value without a key`)
    // true: needs -Z; false: must not have it; undefined: either.
    const nulls = value === null ? true : emptyKey || emptyValue ? false : undefined
    const headers = normalizeHeaders(m.headers)
    const last = runs.at(-1)
    const fits =
      last &&
      last.partition === m.partition &&
      JSON.stringify(last.headers) === JSON.stringify(headers) &&
      (nulls === undefined || last.nulls === undefined || last.nulls === nulls)
    const record = { key, value: value ?? Buffer.alloc(0) }
    if (fits) {
      last.nulls ??= nulls
      last.records.push(record)
    } else {
      runs.push({ partition: m.partition, headers, nulls, records: [record] })
    }
  })
  return runs
}

/** Produces messages with kcat, in order; resolves when all are acknowledged. */
export async function kcatProduce(
  bootstrap: string,
  topic: string,
  messages: KcatProduceMessage[],
  opts: KcatProduceOptions = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  for (const run of planRuns(messages)) {
    const { input, recordDelim, keyDelim } = encodeRun(run.records)
    // kcat reads each record into a buffer of message.max.bytes (1 MB by default).
    const largest = Math.max(...run.records.map((r) => (r.key?.length ?? 0) + r.value.length + keyDelim.length))
    const config: Record<string, string | number | boolean> = {
      'message.timeout.ms': timeoutMs,
      ...(opts.compression ? { 'compression.codec': opts.compression } : {}),
      ...(opts.transactionalId ? { 'transactional.id': opts.transactionalId } : {}),
      ...(largest > 900_000 ? { 'message.max.bytes': largest + 100_000 } : {}),
      ...opts.config,
    }
    const args = ['-P', '-b', bootstrap, '-t', topic, '-D', escaped(recordDelim), '-K', escaped(keyDelim)]
    if (run.nulls) args.push('-Z')
    if (run.partition !== undefined) args.push('-p', String(run.partition))
    for (const [name, value] of run.headers) args.push('-H', value === null ? name : `${name}=${value}`)
    args.push(...configArgs(config))
    await runKcat(args, input, timeoutMs + 5_000)
  }
}

const latin1 = (s: string | null | undefined): Buffer | null => (s == null ? null : Buffer.from(s, 'latin1'))

/** Consumes with kcat -J; messages in the order kcat printed them (per partition, by offset). */
export async function kcatConsume(bootstrap: string, topic: string, opts: KcatConsumeOptions = {}): Promise<KcatMessage[]> {
  const { count, fromBeginning = true, timeoutMs = DEFAULT_TIMEOUT_MS } = opts
  const start = opts.offset !== undefined ? String(opts.offset) : fromBeginning ? 'beginning' : 'end'
  const args = ['-C', '-J', '-q', '-b', bootstrap, '-t', topic, '-o', start]
  if (count !== undefined) args.push('-c', String(count))
  else args.push('-e')
  if (opts.partition !== undefined) args.push('-p', String(opts.partition))
  args.push(...configArgs(opts.config))
  const { stdout } = await runKcat(args, null, timeoutMs)
  return stdout
    .toString('latin1')
    .split('\n')
    .filter((line) => line.trim())
    .map(parseJsonMessage)
}

/** One line of kcat -J output, read as latin1 (see the top of this file). */
function parseJsonMessage(line: string): KcatMessage {
  const j = JSON.parse(line)
  const h: (string | null)[] = j.headers ?? []
  const headers: [string, Buffer | null][] = []
  for (let i = 0; i + 1 < h.length; i += 2) headers.push([latin1(h[i])!.toString('utf8'), latin1(h[i + 1])])
  return {
    topic: latin1(j.topic)!.toString('utf8'),
    partition: j.partition,
    offset: j.offset,
    timestamp: j.ts,
    timestampType: j.tstype,
    broker: j.broker,
    key: latin1(j.key),
    value: latin1(j.payload),
    headers,
  }
}

/** kcat -L -J: brokers and topics as the cluster reports them (all topics, or one). */
export async function kcatMetadata(bootstrap: string, opts: { topic?: string; timeoutMs?: number } = {}): Promise<KcatMetadata> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const args = ['-L', '-J', '-q', '-b', bootstrap, '-m', String(Math.max(1, Math.ceil(timeoutMs / 1000) - 1))]
  if (opts.topic !== undefined) args.push('-t', opts.topic)
  const { stdout } = await runKcat(args, null, timeoutMs)
  const j = JSON.parse(stdout.toString('utf8'))
  const ids = (list: { id: number }[] = []) => list.map((r) => r.id)
  return {
    controllerId: j.controllerid,
    brokers: (j.brokers as { id: number; name: string }[]).map((b) => {
      const at = b.name.lastIndexOf(':')
      return { id: b.id, host: b.name.slice(0, at), port: Number(b.name.slice(at + 1)) }
    }),
    topics: (j.topics as any[]).map((t) => ({
      name: t.topic,
      ...(t.error ? { error: t.error } : {}),
      partitions: (t.partitions as any[]).map((p) => ({
        id: p.partition,
        leader: p.leader,
        replicas: ids(p.replicas),
        isrs: ids(p.isrs),
        ...(p.error ? { error: p.error } : {}),
      })),
    })),
  }
}

/**
 * The API versions a broker advertises, as kcat's ApiVersions debug log
 * shows them: apiKey -> [min, max].
 */
export async function kcatApiVersions(bootstrap: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Map<number, [number, number]>> {
  const first = bootstrap.split(',')[0]
  const { stderr } = await runKcat(['-L', '-b', first, '-d', 'feature', '-m', '5'], null, timeoutMs)
  const versions = new Map<number, [number, number]>()
  for (const m of stderr.matchAll(/ApiKey \S+ \((\d+)\) Versions (\d+)\.\.(\d+)/g)) {
    versions.set(Number(m[1]), [Number(m[2]), Number(m[3])])
  }
  return versions
}

// ---- balanced consumer (-G) -----------------------------------------------------

export type KcatAssignor = 'range' | 'roundrobin' | 'cooperative-sticky'

export interface KcatGroupConsumerOptions {
  groupId: string
  topics: string[]
  /** partition.assignment.strategy. Default: librdkafka's ("range,roundrobin": range). */
  assignor?: KcatAssignor
  /**
   * Where a partition the group has no committed offset for starts: true
   * (default) at the beginning, false at the end. Committed offsets win.
   */
  fromBeginning?: boolean
  /**
   * Any librdkafka consumer property, over GROUP_DEFAULTS, except the two kcat
   * cannot set (UNSETTABLE_GROUP_CONFIG).
   */
  config?: Record<string, string | number | boolean>
}

export type KcatPartition = TopicPartition

export interface KcatPartitionEnd extends KcatPartition {
  /** The end offset kcat reached: the next one to read. */
  offset: number
}

/** One rebalance callback of kcat, as it reports it on stderr. */
export interface KcatRebalance {
  kind: 'assigned' | 'revoked'
  /** Cooperative: `partitions` is what changed; eager: the whole new assignment, or all that was owned. */
  incremental: boolean
  /** Cooperative only: librdkafka lost the assignment (e.g. fenced) rather than revoking it. */
  lost: boolean
  memberId: string
  partitions: KcatPartition[]
}

export interface KcatExit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface KcatGroupConsumer {
  /** Date.now() when kcat was started: its auto-commits come every KCAT_AUTO_COMMIT_MS from about then. */
  readonly startedAt: number
  /** Every message kcat printed so far, in its order. */
  readonly messages: KcatMessage[]
  /** Every rebalance so far, oldest first. */
  readonly rebalances: KcatRebalance[]
  /** The member id of the latest rebalance (null before the first). */
  readonly memberId: string | null
  /** The partitions kcat owns now, by topic and partition. */
  assigned(): KcatPartition[]
  /** Resolves with the messages once at least n have arrived; rejects on timeout or exit, with kcat's stderr. */
  waitFor(n: number, timeoutMs?: number): Promise<KcatMessage[]>
  /**
   * Resolves with assigned() once kcat's latest rebalance was an assignment
   * (not a revocation still waiting for the next one) and `check` holds.
   */
  waitForAssignment(check?: (owned: KcatPartition[]) => boolean, timeoutMs?: number): Promise<KcatPartition[]>
  /**
   * Resolves once kcat has read to the end of every partition it owns, each
   * since it was (last) assigned, with the offsets it reached: as of its
   * latest reports, so produce first. The offsets are what its next commit
   * commits.
   */
  waitForEnd(timeoutMs?: number): Promise<KcatPartitionEnd[]>
  /** SIGTERM: kcat closes the consumer (commits, leaves the group) and exits; SIGKILL after timeoutMs. */
  stop(timeoutMs?: number): Promise<KcatExit>
}

/**
 * Rig defaults for group members. The mock holds the JoinGroup of a member
 * joining a running group for session.timeout.ms - 1 s (librdkafka's 45 s
 * would stall each rebalance), and members learn of a rebalance from their
 * next heartbeat.
 */
export const GROUP_DEFAULTS = { 'session.timeout.ms': 3000, 'heartbeat.interval.ms': 300 }

const STOP_TIMEOUT_MS = 10_000

/**
 * kcat's -X sets a property on the topic configuration first when one of
 * that name exists there, and librdkafka 2.0.2 still has deprecated
 * topic-level namesakes of these two, which the group consumer ignores. So
 * kcat always auto-commits, every 5 s from its start (and on close).
 */
export const UNSETTABLE_GROUP_CONFIG = ['enable.auto.commit', 'auto.commit.interval.ms']
export const KCAT_AUTO_COMMIT_MS = 5000

/**
 * Starts kcat -G as a member of a consumer group, subscribed to `topics`.
 * Offsets are committed every KCAT_AUTO_COMMIT_MS, when partitions are
 * revoked, and on stop().
 */
export function kcatGroupConsumer(bootstrap: string, opts: KcatGroupConsumerOptions): KcatGroupConsumer {
  const { groupId, topics, assignor, fromBeginning = true } = opts
  for (const name of UNSETTABLE_GROUP_CONFIG) {
    if (opts.config && name in opts.config) throw new Error(`kcat cannot set ${name} of a group consumer (see UNSETTABLE_GROUP_CONFIG)`)
  }
  const config: Record<string, string | number | boolean> = {
    ...GROUP_DEFAULTS,
    'auto.offset.reset': fromBeginning ? 'earliest' : 'latest',
    ...(assignor ? { 'partition.assignment.strategy': assignor } : {}),
    ...opts.config,
  }
  // No -o: kcat would apply it to every assigned partition, over the committed
  // offsets. No -q: the rebalance lines need verbosity 1. -u: a line per message now.
  const args = ['-b', bootstrap, '-G', groupId, '-J', '-u', ...configArgs(config), ...topics]
  return new KcatGroupMember(spawn('kcat', args, { stdio: ['ignore', 'pipe', 'pipe'] }), groupId)
}

// kcat 1.7.1 prints, at each rebalance (stderr, verbosity 1):
//   eager:       % Group G rebalanced (memberid M): assigned: t [0], t [1]
//                % Group G rebalanced (memberid M): revoked: t [0], t [1]
//   cooperative: % Group G rebalanced: incremental assignment of 2 partition(s) (memberid M, COOPERATIVE rebalance protocol): t [0], t [1]
//                the same with "incremental revoke", and ", assignment lost" after M when lost.
// The partitions come in separate writes, so a librdkafka log line from
// another thread could, rarely, split one.
const EAGER_REBALANCE = /^% Group .* rebalanced \(memberid (\S*)\): (assigned|revoked): (.*)$/
const COOPERATIVE_REBALANCE =
  /^% Group .* rebalanced: incremental (assignment|revoke) of \d+ partition\(s\) \(memberid (\S*?)(, assignment lost)?, \S+ rebalance protocol\): (.*)$/

// With -G, kcat sets enable.partition.eof and reports each partition it has read
// to the end (again after more messages): % Reached end of topic t [2] at offset 6
const PARTITION_END = /^% Reached end of topic (\S+) \[(\d+)\] at offset (\d+)/

const parsePartitionList = (list: string): KcatPartition[] =>
  [...list.matchAll(/([^\s,]+) \[(\d+)\]/g)].map((m) => ({ topic: m[1], partition: Number(m[2]) }))

/** A kcat stderr line as a rebalance, or null when it is something else. */
export function parseRebalanceLine(line: string): KcatRebalance | null {
  const eager = EAGER_REBALANCE.exec(line)
  if (eager) {
    const kind = eager[2] as KcatRebalance['kind']
    return { kind, incremental: false, lost: false, memberId: eager[1], partitions: parsePartitionList(eager[3]) }
  }
  const coop = COOPERATIVE_REBALANCE.exec(line)
  if (!coop) return null
  const kind = coop[1] === 'assignment' ? 'assigned' : 'revoked'
  return { kind, incremental: true, lost: !!coop[3], memberId: coop[2], partitions: parsePartitionList(coop[4]) }
}

const partitionKey = (p: KcatPartition) => `${p.partition}@${p.topic}`
const byTopicPartition = (a: KcatPartition, b: KcatPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition

interface Waiter {
  ready: () => boolean
  resolve: () => void
  reject: (e: Error) => void
}

class KcatGroupMember implements KcatGroupConsumer {
  readonly startedAt = Date.now()
  readonly messages: KcatMessage[] = []
  readonly rebalances: KcatRebalance[] = []
  private readonly owned = new Map<string, KcatPartition>()
  /** Owned partitions read to the end since they were assigned, by partitionKey. */
  private readonly ends = new Map<string, KcatPartitionEnd>()
  private readonly stderrTail: string[] = []
  private readonly waiters = new Set<Waiter>()
  private exit: KcatExit | null = null
  private exitReason = ''
  private readonly exited: Promise<void>

  constructor(
    private readonly child: ChildProcessByStdio<null, Readable, Readable>,
    private readonly groupId: string,
  ) {
    killOnExit(child)
    this.readLines(child.stdout, 'latin1', (line) => this.onStdout(line))
    this.readLines(child.stderr, 'utf8', (line) => this.onStderr(line))
    this.exited = new Promise((resolve) => {
      child.once('error', (e) =>
        this.onExit({ code: null, signal: null }, `could not run (apt-get install -y kcat): ${e.message}`, resolve),
      )
      child.once('close', (code, signal) => this.onExit({ code, signal }, `exited (${signal ?? `code ${code}`})`, resolve))
    })
  }

  get memberId(): string | null {
    return this.rebalances.at(-1)?.memberId ?? null
  }

  assigned(): KcatPartition[] {
    return [...this.owned.values()].sort(byTopicPartition)
  }

  async waitFor(n: number, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<KcatMessage[]> {
    await this.waitUntil(`${n} messages (have ${this.messages.length})`, () => this.messages.length >= n, timeoutMs)
    return [...this.messages]
  }

  async waitForAssignment(check: (owned: KcatPartition[]) => boolean = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
    const settled = () => this.rebalances.at(-1)?.kind === 'assigned' && check(this.assigned())
    await this.waitUntil('an assignment', settled, timeoutMs)
    return this.assigned()
  }

  async waitForEnd(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<KcatPartitionEnd[]> {
    const atEnd = () => this.rebalances.at(-1)?.kind === 'assigned' && [...this.owned.keys()].every((k) => this.ends.has(k))
    await this.waitUntil('the end of every owned partition', atEnd, timeoutMs)
    return [...this.ends.values()].sort(byTopicPartition)
  }

  async stop(timeoutMs = STOP_TIMEOUT_MS): Promise<KcatExit> {
    if (!this.exit) {
      this.child.kill('SIGTERM')
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs)
      await this.exited
      clearTimeout(timer)
    }
    return this.exit!
  }

  private readLines(stream: Readable, encoding: BufferEncoding, onLine: (line: string) => void): void {
    const lines = new LineSplitter()
    lines.onLine = onLine
    stream.setEncoding(encoding)
    stream.on('data', (chunk: string) => lines.push(chunk))
  }

  private onStdout(line: string): void {
    if (!line.trim()) return
    try {
      this.messages.push(parseJsonMessage(line))
    } catch {
      appendTail(this.stderrTail, `(stdout, not JSON) ${line}`)
    }
    this.settleWaiters()
  }

  private onStderr(line: string): void {
    appendTail(this.stderrTail, line)
    const rebalance = parseRebalanceLine(line)
    if (rebalance) this.rebalanced(rebalance)
    const end = PARTITION_END.exec(line)
    if (end) this.reachedEnd({ topic: end[1], partition: Number(end[2]), offset: Number(end[3]) })
    if (rebalance || end) this.settleWaiters()
  }

  private rebalanced(rebalance: KcatRebalance): void {
    this.rebalances.push(rebalance)
    if (!rebalance.incremental) {
      this.owned.clear()
      this.ends.clear()
    }
    for (const p of rebalance.partitions) {
      const key = partitionKey(p)
      // A partition (re)assigned starts again from its committed offset.
      this.ends.delete(key)
      if (rebalance.kind === 'assigned') this.owned.set(key, p)
      else this.owned.delete(key)
    }
  }

  private reachedEnd(end: KcatPartitionEnd): void {
    const key = partitionKey(end)
    if (this.owned.has(key)) this.ends.set(key, end)
  }

  private onExit(exit: KcatExit, reason: string, resolve: () => void): void {
    if (this.exit) return // 'error' and 'close' can both come
    this.exit = exit
    this.exitReason = reason
    for (const w of this.waiters) w.reject(this.failure(reason))
    this.waiters.clear()
    resolve()
  }

  private waitUntil(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
    if (ready()) return Promise.resolve()
    if (this.exit) return Promise.reject(this.failure(`${this.exitReason} before ${what}`))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter)
        reject(this.failure(`timed out after ${timeoutMs} ms waiting for ${what}`))
      }, timeoutMs)
      const waiter: Waiter = {
        ready,
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e) => (clearTimeout(timer), reject(e)),
      }
      this.waiters.add(waiter)
    })
  }

  private settleWaiters(): void {
    for (const w of this.waiters) {
      if (!w.ready()) continue
      this.waiters.delete(w)
      w.resolve()
    }
  }

  private failure(message: string): Error {
    const owned = this.assigned().map(partitionKey).join(' ') || 'none'
    return new Error(
      `kcat group consumer (${this.groupId}): ${message}; ${this.messages.length} messages, owns ${owned}\nstderr:\n${this.stderrTail.join('\n')}`,
    )
  }
}
