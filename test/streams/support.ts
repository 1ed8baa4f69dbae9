// Shared by the streams tests: the two brokers every end-to-end test runs on
// with the same assertions (real Kafka 4.4 and the embedded broker), and a
// topic read as a table (the latest value per key), as a compacted output is
// read; topics created, String records written, a Java Streams application run
// to its end or beside a wafka one in a classic group, and waits until a
// streams group coordinator sees new topics and until a counts store holds
// given counts.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCluster } from '../../src/broker/index.js'
import { Kafka, type Consumer, type LogEntry } from '../../src/index.js'
import { startKafka } from '../peers/kafka.js'
import { until, wafka, wafkaRead } from '../kafka/support.js'
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { Serdes, type KafkaStreams } from '../../src/public/streams.js'
import { countWords, type wordLines } from './word-count-app.js'
import { javaStreamsApp, type JavaStreamsAppName, type JavaStreamsOptions, type JavaStreamsRun } from '../peers/java-streams.js'
import type { BrokerTarget, RunningTarget } from '../peers/targets.js'
import { StreamsGroupHeartbeat } from '../../src/protocol/messages/index.js'
import type { RawClient } from '../broker/raw-client.js'
import { openCoordinator } from '../broker/support.js'

/** The streams group status of a topology whose source topics the coordinator does not have (yet). */
const MISSING_SOURCE_TOPICS = 1

export interface Target {
  bootstrap: string
  stop(): Promise<void>
}

export const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka()
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1 })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
]

/**
 * brokerTargets() options for clusters that delete nothing by time while a test runs, for records with timestamps
 * near 0 (1970; sliding windows' early records): retention would take them from output topics and changelogs
 * (real Kafka: at its first retention check, 30 s after start, and whenever its log cleaner runs on a
 * compact,delete changelog, so the cleaner is off too).
 */
export const NO_TIME_RETENTION = {
  kafka: {
    config: { 'log.retention.check.interval.ms': '86400000', 'log.initial.task.delay.ms': '86400000', 'log.cleaner.enable': 'false' },
  },
  embedded: { retentionCheckIntervalMs: 86_400_000 },
}

/** Creates `topics`, `numPartitions` each (the admin client's default: once each partition has its leader). */
export async function createTopics(kafka: Kafka, topics: string[], numPartitions: number): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions })) })
  } finally {
    await admin.disconnect()
  }
}

export const client = (t: { bootstrap: string }) =>
  new Kafka({ clientId: 'wafka-streams-test', brokers: t.bootstrap.split(','), retryBackoffMs: 100 })

/**
 * Reads every partition of `topic` from the start, keeping the latest value (as bytes) per key (as a string, by `keyOf`)
 * and the partitions each key was in; read_uncommitted unless `isolationLevel` says otherwise.
 */
export async function tableReader(
  kafka: Kafka,
  topic: string,
  keyOf: (key: Buffer) => string = (k) => k.toString(),
  isolationLevel: 'read_uncommitted' | 'read_committed' = 'read_uncommitted',
): Promise<{ table: Map<string, Buffer | null>; partitions: Map<string, Set<number>>; records: () => number; stop(): Promise<void> }> {
  const admin = kafka.admin()
  await admin.connect()
  const meta = await admin.fetchTopicMetadata({ topics: [topic] }).finally(() => admin.disconnect())
  const consumer: Consumer = kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 200, isolationLevel })
  const table = new Map<string, Buffer | null>()
  const partitions = new Map<string, Set<number>>()
  let records = 0
  await consumer.connect()
  consumer.assign([{ topic, partitions: meta.topics[0].partitions.map((p: { partitionId: number }) => p.partitionId) }])
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      records++
      const key = keyOf(message.key!)
      table.set(key, message.value)
      let ps = partitions.get(key)
      if (!ps) partitions.set(key, (ps = new Set()))
      ps.add(partition)
    },
  })
  return { table, partitions, records: () => records, stop: () => consumer.disconnect() }
}

/** Until `output` (a count table: Long values) holds exactly `expected`, word to count; read_committed if `committed`. */
export async function countsAre(kafka: Kafka, output: string, expected: Map<string, bigint>, committed = false): Promise<void> {
  const reader = await tableReader(kafka, output, undefined, committed ? 'read_committed' : 'read_uncommitted')
  try {
    await until(
      `${output} to hold the counts`,
      () => new Map([...reader.table].map(([k, v]) => [k, v === null ? null : v.readBigInt64BE()])),
      (table) => table.size === expected.size && [...expected].every(([w, n]) => table.get(w) === n),
      60_000,
    )
  } finally {
    await reader.stop()
  }
}

/** Until the group `groupId` (an application's) has committed every record of `topics`. */
export async function consumedAll(kafka: Kafka, groupId: string, topics: string[], timeoutMs = 60_000): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await until(
      `${groupId} to commit ${topics.join(', ')}`,
      async () => {
        let behind = 0
        for (const topic of topics) {
          const ends = await admin.fetchTopicOffsets(topic)
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] })
          for (const e of ends) {
            const c = committed.partitions.find((p: { partition: number }) => p.partition === e.partition)
            behind += Number(e.high) - Math.max(0, Number(c?.offset ?? 0))
          }
        }
        return behind
      },
      (behind) => behind === 0,
      timeoutMs,
    )
  } finally {
    await admin.disconnect()
  }
}

/**
 * Each partition of `topic` in order, read to the end offsets found first (a compacted topic has gaps):
 * `keyhex:valuehex@timestamp`, '-' for a null key or value, timestamps less `t0`.
 */
export async function partitionRecords(kafka: Kafka, topic: string, t0: number): Promise<string[][]> {
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  const out: string[][] = ends.map(() => [])
  const pending = new Set(ends.filter((e) => Number(e.high) > 0).map((e) => e.partition))
  if (pending.size === 0) return out
  const consumer = kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 200 })
  await consumer.connect()
  try {
    consumer.assign([{ topic, partitions: ends.map((e) => e.partition) }])
    await consumer.run({
      eachMessage: async ({ partition, message: m }) => {
        const end = BigInt(ends.find((e) => e.partition === partition)!.high)
        if (m.offsetBigInt >= end) return
        out[partition].push(`${m.key?.toString('hex') ?? '-'}:${m.value?.toString('hex') ?? '-'}@${m.timestampMs - t0}`)
        // The last record of a partition is never compacted away.
        if (m.offsetBigInt + 1n >= end) pending.delete(partition)
      },
    })
    await until(
      `${topic} read to its end`,
      async () => pending.size,
      (n) => n === 0,
      30_000,
    )
  } finally {
    await consumer.disconnect()
  }
  return out
}

const str = Serdes.String()

/** Writes each record (String key and value) to its partition of `topic`. */
export async function produceStrings(
  kafka: Kafka,
  topic: string,
  records: Array<{ key: string | null; value: string | null; timestamp: number; partition: number }>,
): Promise<void> {
  const producer = kafka.producer()
  await producer.connect()
  try {
    await producer.send({
      topic,
      messages: records.map((r) => ({
        key: str.serialize(topic, r.key),
        value: str.serialize(topic, r.value),
        timestamp: r.timestamp,
        partition: r.partition,
      })),
    })
  } finally {
    await producer.disconnect()
  }
}

/**
 * Runs a Java Streams application (classic protocol, 100 ms commits, unless
 * `options.props` says otherwise) until it has committed `options.count`
 * input records and closed cleanly, with no error.
 */
export async function runJavaToEnd(cluster: RunningTarget, app: JavaStreamsAppName, options: JavaStreamsOptions): Promise<void> {
  const run = javaStreamsApp(cluster, app, {
    ...options,
    props: { 'group.protocol': 'classic', 'commit.interval.ms': 100, ...options.props },
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  const exit = await Promise.race([
    run.exited,
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () =>
            reject(
              new Error(
                `${app} did not finish in 150 s (state ${run.state()}, last events ${JSON.stringify(run.events.slice(-4))}):\n${run.stderr.join('\n')}`,
              ),
            ),
          150_000,
        )),
    ),
  ]).finally(() => {
    clearTimeout(timer)
    return run.kill()
  })
  expect({ exit, errors: run.events.filter((e) => e.event === 'error') }, run.stderr.join('\n')).toEqual({
    exit: { code: 0, signal: null },
    errors: [],
  })
  expect(run.events.find((e) => e.event === 'committed')).toEqual({ event: 'committed', records: options.count })
}

/** Every record of `topic` as key bytes (hex) to value bytes (hex), the latest per key; tombstones delete. */
export async function rawTable(kafka: Kafka, topic: string): Promise<Record<string, string>> {
  const table: Record<string, string> = {}
  for (const r of await wafkaRead(kafka, topic, 'end')) {
    const key = r.key!.toString('hex')
    if (r.value === null) delete table[key]
    else table[key] = r.value.toString('hex')
  }
  return table
}

/**
 * Until the group coordinator knows `topics` (its metadata image follows topic creation a little later): Kafka
 * 4.4 answers UNKNOWN_SERVER_ERROR to a member with an endpoint joining while a source topic is missing (see
 * README), so a test's instances start once a probe member (no endpoint) of a group of its own sees them.
 */
export async function coordinatorSees(bootstrap: string, topics: string[], raw: RawClient[]): Promise<void> {
  const groupId = `probe-${topics.join('-')}`
  const c = await openCoordinator(bootstrap, groupId, raw)
  const subtopology = {
    subtopologyId: '0',
    sourceTopics: topics,
    sourceTopicRegex: [],
    stateChangelogTopics: [],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
  }
  let attempt = 0
  await until(
    `the group coordinator to see ${topics.join(', ')}`,
    async () => {
      const memberId = `probe-${++attempt}`
      const r = await c.request(StreamsGroupHeartbeat, 0, {
        groupId,
        memberId,
        memberEpoch: 0,
        endpointInformationEpoch: -1,
        rebalanceTimeoutMs: 10_000,
        topology: { epoch: 0, subtopologies: [subtopology] },
        processId: memberId,
        activeTasks: [],
        standbyTasks: [],
        warmupTasks: [],
      })
      await c.request(StreamsGroupHeartbeat, 0, { groupId, memberId, memberEpoch: -1 })
      return r
    },
    (r) => r.errorCode === 0 && !r.status.some((st) => st.statusCode === MISSING_SOURCE_TOPICS),
    30_000,
  )
}

/** The restores the state manager logged at INFO for store counts: task, records restored, the offset begun at. */
export function restoresIn(logs: LogEntry[]): Array<{ task: string; restored: number; from: bigint }> {
  return logs.flatMap((e) => {
    const m = /^restored (\d+) records of store counts from changelog \S+ starting at offset (\d+)/.exec(e.log.message)
    return m ? [{ task: e.log.task as string, restored: Number(m[1]), from: BigInt(m[2]) }] : []
  })
}

/** What the tests of a describeOnTargets block use: the running target and a wafka client on it (set before the first test). */
export interface OnTarget {
  cluster: RunningTarget
  kafka: Kafka
}

/**
 * One describe block per broker target, titled `<title> on <target>`: the
 * target started before its tests (2 min allowed) with a wafka client on it,
 * stopped after them; `body` declares the tests, which read `on.cluster` and
 * `on.kafka`. Skipped where the target is not available, and, with
 * `builtOnEmbedded`, on real Kafka under the built package (WAFKA_BUILT: the
 * built slice is held to the embedded broker).
 */
export function describeOnTargets(
  targets: BrokerTarget[],
  title: string,
  body: (on: OnTarget, target: BrokerTarget) => void,
  options: { builtOnEmbedded?: boolean } = {},
): void {
  for (const target of targets)
    describe.skipIf(!target.available || (!!options.builtOnEmbedded && !!process.env.WAFKA_BUILT && !target.embedded))(
      `${title} on ${target.name}`,
      () => {
        const on = {} as OnTarget
        beforeAll(async () => {
          on.cluster = await target.start()
          on.kafka = wafka(on.cluster)
        }, 120_000)
        afterAll(async () => {
          await on.cluster?.stop()
        })
        body(on, target)
      },
    )
}

type WordLine = ReturnType<typeof wordLines>[number]

/**
 * Waits until `s`'s counts store read with stale stores (its active tasks'
 * and its standbys' copies, as Java's enableStaleStores) holds every count
 * of `expected`: its standbys followed the other instance's active stores.
 * `what` names the wait.
 */
export async function standbysFollow(s: KafkaStreams, expected: Map<string, bigint>, what: string): Promise<void> {
  const staleView = () =>
    new Map(
      s
        .store<string, bigint>('counts', 'keyValue', { enableStaleStores: true })
        .all()
        .map((e) => [e.key, e.value]),
    )
  await until(what, staleView, (t) => t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n), 30_000)
}

/**
 * The end of a word count's take-over from standbys: `more` lines counted
 * exactly on top of `before`, and the stateful tasks taken over (`taken`)
 * restored from where the standbys were, not from the changelog's start:
 * fewer than 20 records in all (`logs`: the instance's log, read from
 * entry `from` on, when the other left, once the counts are in: the restores
 * are logged by then). `committed`: the counts read read_committed.
 */
export async function tookOverFromStandbys(
  kafka: Kafka,
  topics: { input: string; output: string },
  run: { before: WordLine[]; more: WordLine[]; logs: LogEntry[]; from: number; taken: string[]; committed?: boolean },
): Promise<void> {
  await produceStrings(kafka, topics.input, run.more)
  await countsAre(kafka, topics.output, countWords([...run.before, ...run.more]), run.committed)
  const restores = restoresIn(run.logs.slice(run.from))
  expect(restores.map((r) => r.task).sort()).toEqual([...run.taken].sort())
  for (const r of restores) expect(r.from).toBeGreaterThan(0n)
  expect(restores.reduce((n, r) => n + r.restored, 0)).toBeLessThan(20)
}

/**
 * Until `streams`' store `counts` (a key-value store, read through its
 * cache) holds count `n` for every one of `keys`; `what` names the wait.
 */
export async function storeCounts(
  streams: KafkaStreams,
  keys: string[],
  n: bigint,
  what = 'every update counted',
  timeoutMs = 60_000,
): Promise<void> {
  await until(
    what,
    () => {
      const store = streams.store<string, bigint>('counts', 'keyValue')
      return keys.map((k) => store.get(k))
    },
    (counts) => counts.every((c) => c === n),
    timeoutMs,
  )
}

/**
 * A mixed classic group of a Java Streams instance and a wafka one: `topics`
 * created (`partitions` each), Java's `app` started with
 * `options` (classic protocol, 100 ms commits, application.server
 * java-host:7100 and a state dir of its own, unless `options.props` says
 * otherwise), the wafka instance made by `wafka()` (not started), then `body`
 * run with both; both are closed after it, however it ends.
 */
export async function withJavaBeside(
  kafka: Kafka,
  cluster: RunningTarget,
  setup: { topics: string[]; partitions: number; app: JavaStreamsAppName; options: JavaStreamsOptions; wafka: () => KafkaStreams },
  body: (java: JavaStreamsRun, w: KafkaStreams) => Promise<void>,
): Promise<void> {
  await createTopics(kafka, setup.topics, setup.partitions)
  const java = javaStreamsApp(cluster, setup.app, {
    ...setup.options,
    props: {
      'group.protocol': 'classic',
      'commit.interval.ms': 100,
      'application.server': 'java-host:7100',
      'state.dir': mkdtempSync(join(tmpdir(), `java-${setup.options.applicationId}-`)),
      ...setup.options.props,
    },
  })
  const w = setup.wafka()
  try {
    await body(java, w)
  } finally {
    await java.kill()
    await w.close()
  }
}
