// Java Kafka Streams (kafka-streams 4.4) in tests, through the rig's programs
// test/peers/java/RigStreams.java (the reference applications a wafka/streams
// topology is held to, each a Streams client of any cluster) and
// test/peers/java/RigSerdes.java (Java's serdes, value by value).
import type { ChildProcess } from 'node:child_process'
import { LineSplitter, appendTail } from './child.js'
import { type JavaPeer, runJava } from './kafka.js'
import type { JavaProps } from './java-client.js'

// ---------------------------------------------------------------- serdes

/** Java's serdes by name, or a windowed one around an inner serde. */
export type JavaSerde =
  | 'String'
  | 'Long'
  | 'Integer'
  | 'Double'
  | 'ByteArray'
  | { windowed: 'time'; inner: JavaSerde; windowSize: number }
  | { windowed: 'session'; inner: JavaSerde }

/**
 * A value as RigSerdes carries it, exact whatever JSON does: a string as
 * its UTF-16 code units, a long as a bigint, a double by its raw IEEE bits
 * (so NaN payloads and -0 survive), bytes as a Buffer.
 */
export type JavaValue = string | bigint | number | Buffer | { key: JavaValue | null; start: number; end: number } | null

export type JavaSerdeAnswer = { bytes: Buffer | null } | { value: JavaValue } | { error: string; message: string }

export type JavaSerdeRequest =
  { op: 'serialize'; serde: JavaSerde; value: JavaValue } | { op: 'deserialize'; serde: JavaSerde; bytes: Buffer | null }

function innerOf(serde: JavaSerde): JavaSerde {
  return typeof serde === 'object' ? serde.inner : serde
}

function toWire(serde: JavaSerde, v: JavaValue): unknown {
  if (v === null) return null
  if (typeof serde === 'object') {
    const w = v as { key: JavaValue; start: number; end: number }
    return { key: toWire(innerOf(serde), w.key), start: String(w.start), end: String(w.end) }
  }
  switch (serde) {
    case 'String':
      return { utf16: Array.from({ length: (v as string).length }, (_, i) => (v as string).charCodeAt(i)) }
    case 'Long':
      return String(v as bigint)
    case 'Integer':
      return v
    case 'Double': {
      const b = Buffer.alloc(8)
      b.writeDoubleBE(v as number)
      return String(b.readBigInt64BE())
    }
    case 'ByteArray':
      return (v as Buffer).toString('base64')
  }
}

function fromWire(serde: JavaSerde, v: any): JavaValue {
  if (v === null) return null
  if (typeof serde === 'object') return { key: fromWire(innerOf(serde), v.key), start: Number(v.start), end: Number(v.end) }
  switch (serde) {
    case 'String':
      return String.fromCharCode(...(v.utf16 as number[]))
    case 'Long':
      return BigInt(v)
    case 'Integer':
      return v as number
    case 'Double': {
      const b = Buffer.alloc(8)
      b.writeBigInt64BE(BigInt(v))
      return b.readDoubleBE()
    }
    case 'ByteArray':
      return Buffer.from(v, 'base64')
  }
}

/** Runs each request through Java's serdes (one JVM for all), answers in order. */
export async function javaSerdes(requests: JavaSerdeRequest[]): Promise<JavaSerdeAnswer[]> {
  const input = requests
    .map((r) =>
      JSON.stringify(
        r.op === 'serialize'
          ? { op: r.op, serde: r.serde, value: toWire(r.serde, r.value) }
          : { op: r.op, serde: r.serde, bytes: r.bytes === null ? null : r.bytes.toString('base64') },
      ),
    )
    .join('\n')
  const r = await runJava('RigSerdes', [], { input: `${input}\n` })
  if (r.code !== 0) throw new Error(`RigSerdes failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  const lines = r.stdout.trim().split('\n').filter(Boolean)
  if (lines.length !== requests.length) throw new Error(`RigSerdes answered ${lines.length} of ${requests.length} requests`)
  return lines.map((line, i) => {
    const o = JSON.parse(line)
    if ('error' in o) return { error: o.error, message: o.message }
    if ('bytes' in o) return { bytes: o.bytes === null ? null : Buffer.from(o.bytes, 'base64') }
    return { value: fromWire(requests[i].serde, o.value) }
  })
}

// ---------------------------------------------------------------- applications

/** The rig's Java Streams applications (RigStreams' class comment: topologies, stores, output formats). */
export type JavaStreamsAppName =
  | 'wordcount'
  | 'windowed-count'
  | 'sliding-count'
  | 'sliding-aggregate'
  | 'stream-table-join'
  | 'stream-globaltable-join'
  | 'table-table-join'
  | 'fk-join'
  | 'stream-stream-join'
  | 'session-count'
  | 'session-aggregate'
  | 'repartition-count'
  | 'stream-time'

export interface JavaStreamsOptions {
  applicationId: string
  /** wordcount, windowed-count, the sliding ones, session-count, session-aggregate: [topic]; the joins: [stream or left, table or right]. */
  inputs: string[]
  output: string
  /** Close and exit once the application's committed offsets on the inputs sum to this (inputs fresh for the run) and those on its repartition topics reach their ends. */
  count?: number
  /** windowed-count: the window size; sliding-*: the time difference; stream-stream-join: the join window. */
  windowMs?: number
  graceMs?: number
  advanceMs?: number
  gapMs?: number
  /** stream-stream-join: JoinWindows.before() / after() after ofTimeDifferenceAndGrace(windowMs, graceMs). */
  beforeMs?: number
  afterMs?: number
  join?: 'inner' | 'left' | 'outer'
  suppress?: boolean
  /** stream-table-join: the stream keyed by its value (selectKey) before the join. */
  rekey?: boolean
  /** stream-globaltable-join: the global table declared before the stream. */
  globalFirst?: boolean
  /** repartition-count: Repartitioned.withName() and withNumberOfPartitions(); stream-globaltable-join: the global table's Consumed name; fk-join: TableJoined.as(name). */
  name?: string
  partitions?: number
  /** Any StreamsConfig: processing.guarantee, commit.interval.ms, group.protocol, state.dir, ... */
  props?: JavaProps
}

export type JavaStreamsEvent =
  | { event: 'topology'; description: string }
  | { event: 'state'; from: string; to: string }
  | { event: 'error'; error: string; message: string }
  | { event: 'progress'; records: number }
  | { event: 'committed'; records: number }
  | { event: 'closed'; clean: boolean; state: string }

export interface JavaStreamsRun {
  process: ChildProcess
  events: JavaStreamsEvent[]
  stderr: string[]
  /** The client's state after its latest change ('CREATED' before any). */
  state(): string
  /** Resolves with the first event (from the start) that matches; rejects after timeoutMs or when the process ends. */
  waitFor(match: (e: JavaStreamsEvent) => boolean, timeoutMs?: number): Promise<JavaStreamsEvent>
  /** The exit, once it comes: 0 after a clean close. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Closes stdin: the application closes (flushing and committing) and exits; SIGKILL if it has not in 90 s. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL: gone without closing. */
  kill(): Promise<void>
}

function appArgs(app: JavaStreamsAppName, bootstrap: string, o: JavaStreamsOptions, describe: boolean): string[] {
  const args = [app, bootstrap, o.applicationId, '--inputs', o.inputs.join(','), '--output', o.output]
  const flag = (name: string, v: number | string | undefined) => v !== undefined && args.push(name, String(v))
  flag('--count', o.count)
  flag('--window-ms', o.windowMs)
  flag('--grace-ms', o.graceMs)
  flag('--advance-ms', o.advanceMs)
  flag('--gap-ms', o.gapMs)
  flag('--before-ms', o.beforeMs)
  flag('--after-ms', o.afterMs)
  flag('--join', o.join)
  flag('--name', o.name)
  flag('--partitions', o.partitions)
  if (o.suppress) args.push('--suppress')
  if (o.rekey) args.push('--rekey')
  if (o.globalFirst) args.push('--global-first')
  if (describe) args.push('--describe')
  for (const [k, v] of Object.entries(o.props ?? {})) args.push('--prop', `${k}=${v}`)
  return args
}

/** Java's Topology.describe() of an application, without running it. */
export async function javaStreamsDescribe(app: JavaStreamsAppName, options: JavaStreamsOptions): Promise<string> {
  const r = await runJava('RigStreams', appArgs(app, 'unused:9092', options, true))
  if (r.code !== 0) throw new Error(`RigStreams --describe failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  const line = r.stdout.split('\n').find((l) => l.startsWith('{"event":"topology"'))
  if (!line) throw new Error(`RigStreams --describe printed no topology:\n${r.stdout.slice(-2000)}`)
  return JSON.parse(line).description
}

/** Starts a Java Streams application on `cluster` (real Kafka or the embedded broker). */
export function javaStreamsApp(cluster: JavaPeer, app: JavaStreamsAppName, options: JavaStreamsOptions): JavaStreamsRun {
  const child = cluster.spawnJava('RigStreams', appArgs(app, cluster.bootstrap, options, false))
  const events: JavaStreamsEvent[] = []
  const stderr: string[] = []
  let state = 'CREATED'
  const waiters = new Set<() => void>()
  const lines = new LineSplitter()
  lines.onLine = (line) => {
    if (!line.startsWith('{')) return
    const e = JSON.parse(line) as JavaStreamsEvent
    if (e.event === 'state') state = e.to
    events.push(e)
    for (const w of waiters) w()
  }
  child.stdout!.setEncoding('utf8').on('data', (s: string) => lines.push(s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => appendTail(stderr, s, 60))
  child.stdin!.on('error', () => {})
  let ended = false
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true
      for (const w of waiters) w()
      resolve({ code, signal })
    }),
  )
  return {
    process: child,
    events,
    stderr,
    state: () => state,
    exited,
    waitFor(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(match)
          if (hit) done(() => resolve(hit))
          else if (ended) done(() => reject(new Error(`the Java Streams application exited before the event:\n${stderr.join('\n')}`)))
        }
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `no such Java Streams event in ${timeoutMs} ms (state ${state}); last: ${JSON.stringify(events.slice(-3))}\n${stderr.join('\n')}`,
                ),
              ),
            ),
          timeoutMs,
        )
        const done = (f: () => void) => {
          clearTimeout(timer)
          waiters.delete(check)
          f()
        }
        waiters.add(check)
        check()
      })
    },
    async stop() {
      if (!ended) child.stdin!.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
      const r = await exited
      clearTimeout(timer)
      return r
    },
    async kill() {
      if (!ended) child.kill('SIGKILL')
      await exited
    },
  }
}
