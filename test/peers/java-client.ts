// The Java client (kafka-clients) as a reference client in tests, through
// the rig's own program test/peers/java/RigClient.java (JSON lines, bytes as
// base64). Producer, reader of a whole topic, and a long-running group member.
import type { ChildProcess } from 'node:child_process'
import { LineSplitter, appendTail } from './child.js'
import type { JavaPeer } from './kafka.js'

type Bytes = string | Uint8Array | null | undefined

export interface JavaRecordIn {
  key?: Bytes
  value?: Bytes
  headers?: Array<[string, Bytes]>
  /** Absent: the Java producer's partitioner decides. */
  partition?: number
  timestamp?: number
}

export interface JavaRecord {
  topic: string
  partition: number
  offset: number
  timestamp: number
  timestampType: string
  key: Buffer | null
  value: Buffer | null
  headers: Array<[string, Buffer | null]>
}

export type JavaProps = Record<string, string | number | boolean>

const b64 = (b: Bytes): string | null => (b === null || b === undefined ? null : Buffer.from(b).toString('base64'))
const unb64 = (s: string | null): Buffer | null => (s === null ? null : Buffer.from(s, 'base64'))
const propArgs = (props: JavaProps = {}) => Object.entries(props).flatMap(([k, v]) => ['--prop', `${k}=${v}`])

function parseRecord(o: any): JavaRecord {
  return {
    topic: o.topic,
    partition: o.partition,
    offset: o.offset,
    timestamp: o.timestamp,
    timestampType: o.timestampType,
    key: unb64(o.key),
    value: unb64(o.value),
    headers: o.headers.map(([k, v]: [string, string | null]) => [k, unb64(v)]),
  }
}

/**
 * Sends `records` with the Java producer (any producer property in `props`,
 * e.g. compression.type); per record, in order, where it landed or the error.
 */
export async function javaProduce(
  cluster: JavaPeer,
  topic: string,
  records: JavaRecordIn[],
  props: JavaProps = {},
): Promise<Array<{ partition: number; offset: number } | { error: string }>> {
  const input =
    records
      .map((r) =>
        JSON.stringify({
          key: b64(r.key),
          value: b64(r.value),
          headers: (r.headers ?? []).map(([k, v]) => [k, b64(v)]),
          partition: r.partition,
          timestamp: r.timestamp,
        }),
      )
      .join('\n') + '\n'
  const r = await cluster.runJava('RigClient', ['produce', cluster.bootstrap, topic, ...propArgs(props)], { input })
  if (r.code !== 0) throw new Error(`Java producer failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/** Where the Java producer's default partitioner puts each key (sent for real; ask Java, don't recompute). */
export async function javaPartitionsFor(cluster: JavaPeer, topic: string, keys: Bytes[], props: JavaProps = {}): Promise<number[]> {
  const out = await javaProduce(
    cluster,
    topic,
    keys.map((key) => ({ key, value: 'p' })),
    props,
  )
  return out.map((o) => {
    if ('error' in o) throw new Error(`Java producer: ${o.error}`)
    return o.partition
  })
}

/**
 * Reads every partition of `topic` from the beginning with the Java consumer:
 * `count` records, or (without it) up to the end offsets when it started.
 */
export async function javaConsume(
  cluster: JavaPeer,
  topic: string,
  options: { count?: number; timeoutMs?: number; props?: JavaProps } = {},
): Promise<JavaRecord[]> {
  const args = ['consume', cluster.bootstrap, topic, ...propArgs(options.props)]
  if (options.count !== undefined) args.push('--count', String(options.count))
  if (options.timeoutMs !== undefined) args.push('--timeout-ms', String(options.timeoutMs))
  const r = await cluster.runJava('RigClient', args, { timeoutMs: (options.timeoutMs ?? 30_000) + 60_000 })
  if (r.code !== 0) throw new Error(`Java consumer failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => parseRecord(JSON.parse(l)))
}

export interface JavaTopicPartition {
  topic: string
  partition: number
}

export type JavaGroupEvent =
  | { event: 'started' }
  | { event: 'assigned' | 'revoked' | 'lost'; partitions: JavaTopicPartition[]; assignment?: JavaTopicPartition[] }
  | ({ event: 'record' } & JavaRecord)
  | { event: 'committed'; records: number }
  | { event: 'closed' }

export interface JavaGroupMember {
  process: ChildProcess
  events: JavaGroupEvent[]
  records(): JavaRecord[]
  /** The member's assignment after its latest rebalance callback. */
  assignment(): JavaTopicPartition[]
  /** Resolves with the first event (from the start) that matches; rejects after timeoutMs or when the process ends. */
  waitFor(match: (e: JavaGroupEvent) => boolean, timeoutMs?: number): Promise<JavaGroupEvent>
  /** SIGTERM: the member closes (leaving the group) and exits. */
  stop(): Promise<void>
  /** SIGKILL: gone without leaving. */
  kill(): Promise<void>
  stderr: string[]
}

/**
 * A Java group member subscribed to `topics` (comma-separated, or a regex with
 * pattern: true). props: any consumer property, e.g. group.protocol=consumer,
 * partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor,
 * group.instance.id, session.timeout.ms. commit: after each non-empty poll
 * (default 'sync'), 'async', or 'none'.
 */
export function javaGroupMember(
  cluster: JavaPeer,
  groupId: string,
  topics: string,
  options: { props?: JavaProps; pattern?: boolean; commit?: 'sync' | 'async' | 'none' } = {},
): JavaGroupMember {
  const args = ['group', cluster.bootstrap, groupId, topics, ...propArgs(options.props), '--commit', options.commit ?? 'sync']
  if (options.pattern) args.push('--pattern')
  const child = cluster.spawnJava('RigClient', args)
  const events: JavaGroupEvent[] = []
  const stderr: string[] = []
  let current: JavaTopicPartition[] = []
  const waiters = new Set<() => void>()
  const lines = new LineSplitter()
  lines.onLine = (line) => {
    if (!line.startsWith('{')) return
    const o = JSON.parse(line)
    const e: JavaGroupEvent = o.event === 'record' ? { event: 'record', ...parseRecord(o) } : o
    if (e.event === 'assigned') current = e.assignment ?? [...current, ...e.partitions]
    if (e.event === 'revoked' || e.event === 'lost') {
      const gone = new Set(e.partitions.map((p) => `${p.topic}:${p.partition}`))
      current = current.filter((p) => !gone.has(`${p.topic}:${p.partition}`))
    }
    events.push(e)
    for (const w of waiters) w()
  }
  child.stdout!.setEncoding('utf8').on('data', (s: string) => lines.push(s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => appendTail(stderr, s, 40))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let ended = false
  void exited.then(() => {
    ended = true
    for (const w of waiters) w()
  })
  return {
    process: child,
    events,
    stderr,
    records: () => events.filter((e): e is { event: 'record' } & JavaRecord => e.event === 'record'),
    assignment: () => current,
    waitFor(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(match)
          if (hit) done(() => resolve(hit))
          else if (ended) done(() => reject(new Error(`Java member exited before the event:\n${stderr.join('\n')}`)))
        }
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(`no such Java member event in ${timeoutMs} ms; last: ${JSON.stringify(events.slice(-3))}\n${stderr.join('\n')}`),
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
      if (!ended) child.kill('SIGTERM')
      await exited
    },
    async kill() {
      if (!ended) child.kill('SIGKILL')
      await exited
    },
  }
}
