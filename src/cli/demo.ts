import { Kafka } from '../kafka.js'
import type { Consumer, EachBatchPayload } from '../consumer/consumer.js'
import type { Admin } from '../admin/admin.js'
import type { Producer } from '../producer/producer.js'
import type { CompressionName } from '../codec/compression.js'
import { startCluster, type RunningCluster } from '../broker/index.js'
import {
  CONNECTION_OPTIONS,
  CONNECTION_USAGE,
  UsageError,
  cliLogLevel,
  compressionFlag,
  int,
  parse,
  resolveConnection,
  str,
  type Values,
} from './args.js'
import { Progress, count, mb, rate, table, type ProgressMode } from './progress.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka demo [-b BROKERS] [--messages N] [--size B] [--compression C] [--partitions P] [--failover] [--quiet] [--json]

Produces N messages to a new topic while a consumer group of 3 members reads
them back, checks every message arrived exactly once (exit 1 otherwise) and
prints throughput each way, produce and end-to-end latency, CPU and peak memory.
Without -b it starts the embedded broker in this process (3 virtual brokers,
replication factor 3; with -b the factor is 3, or the broker count if fewer).

  --messages N       messages to send (default 1,000,000)
  --size B           value size in bytes, at least 8 (default 100)
  --compression C    none, gzip, snappy, lz4 or zstd (default none)
  --partitions P     partitions of the demo topic (default 6)
  --failover         halfway through, stop the embedded broker leading
                     partition 0: its partitions fail over to in-sync
                     replicas, and nothing acknowledged may be lost
  --quiet            no progress, only the summary
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  messages: { type: 'string' },
  size: { type: 'string' },
  compression: { type: 'string' },
  partitions: { type: 'string' },
  failover: { type: 'boolean' },
  quiet: { type: 'boolean' },
} as const

/** Messages per send() call, and send() calls awaiting their acknowledgement at once. */
const CHUNK = 500
const WINDOW = 32
const MEMBERS = 3

/** Percentile of a histogram of whole milliseconds. */
function percentile(hist: Uint32Array, total: number, p: number): number {
  const want = Math.ceil(total * p)
  let seen = 0
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i]
    if (seen >= want) return i
  }
  return hist.length - 1
}

function sortedPercentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]
}

export async function demoCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, OPTIONS)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const run = demoSettings(values, io)
  const { n, size, partitions, compression, json, note } = run
  let cluster: RunningCluster | undefined
  let conn: Values = values
  if (run.embedded) {
    // Its log as the client's: on request (WAFKA_LOG_LEVEL); --failover's lost broker is the demo's own doing, said on stdout.
    cluster = await startCluster({ brokers: 3, logLevel: cliLogLevel() })
    conn = { ...values, brokers: cluster.bootstrapServers }
    note(`embedded broker: 3 virtual brokers at ${cluster.bootstrapServers}`)
  }
  const { kafka: config, extra } = resolveConnection(conn)
  const kafka = new Kafka(config)
  const topic = `wafka-demo-${Date.now().toString(36)}`
  const admin = kafka.admin()
  const producer = kafka.producer({ compression, ...extra })
  const consumers: Consumer[] = []
  const cpu0 = process.cpuUsage()
  const wall0 = performance.now()
  try {
    await admin.connect()
    const replicationFactor = cluster ? 3 : Math.min(3, (await admin.describeCluster()).brokers.length)
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor }], waitForLeaders: true })
    note(
      `topic ${topic}: ${partitions} partitions, replication factor ${replicationFactor}; ${count(n)} messages of ${size} B, ${compression}`,
    )

    // The consumers join first and wait for one stable assignment, so no rebalance interrupts the run.
    const tally = new Tally(n)
    consumers.push(...(await startGroup(kafka, extra, topic, partitions, tally)))

    const sends = new Sends()
    const t0 = performance.now()
    const progress = showProgress(run, io, sends, tally, t0)
    // --failover: the broker leading partition 0 is stopped while the load runs.
    const halfway = run.failover ? (at: number) => stopLeader(admin, cluster!, topic, at, t0, note) : undefined
    const failoverDone = await produceAll(producer, topic, run, sends, halfway)
    const produceSeconds = (sends.producedAt - t0) / 1000
    await Promise.race([tally.done, new Promise<void>((resolve) => setTimeout(resolve, 60_000).unref())])
    // A short grace period: a duplicate would arrive right behind the last message.
    await new Promise((resolve) => setTimeout(resolve, 200))
    progress.stop()
    // Consumption runs alongside production: its time is from the first send to the last message received.
    const consumeSeconds = tally.lastReceive > 0 ? (tally.lastReceive - t0) / 1000 : 0
    const cpu = process.cpuUsage(cpu0)
    const wall = (performance.now() - wall0) / 1000
    const rssPeak = process.resourceUsage().maxRSS * 1024
    sends.latencies.sort((a, b) => a - b)
    const { received, duplicates, foreign } = tally
    const missing = n - received
    const ok = missing === 0 && duplicates === 0 && foreign === 0

    const failover = failoverDone ? await newLeaders(admin, topic, failoverDone) : undefined
    const summary = {
      topic,
      broker: cluster ? 'embedded (3 virtual brokers, in process)' : String(config.brokers),
      replicationFactor,
      ...(failover ? { failover } : {}),
      messages: n,
      valueBytes: size,
      partitions,
      compression,
      consumers: MEMBERS,
      produce: {
        seconds: round(produceSeconds, 3),
        messagesPerSecond: Math.round(n / produceSeconds),
        megabytesPerSecond: round((n * size) / produceSeconds / 1e6, 2),
        sendLatencyMs: {
          p50: round(sortedPercentile(sends.latencies, 0.5), 1),
          p99: round(sortedPercentile(sends.latencies, 0.99), 1),
          messagesPerSend: CHUNK,
        },
      },
      consume: {
        seconds: round(consumeSeconds, 3),
        messagesPerSecond: consumeSeconds > 0 ? Math.round(received / consumeSeconds) : 0,
        megabytesPerSecond: consumeSeconds > 0 ? round((received * size) / consumeSeconds / 1e6, 2) : 0,
        endToEndLatencyMs: {
          p50: percentile(tally.e2e, received + duplicates, 0.5),
          p99: percentile(tally.e2e, received + duplicates, 0.99),
        },
      },
      verified: { received, missing, duplicates, unexpected: foreign, exactlyOnce: ok },
      cpuSeconds: {
        user: round(cpu.user / 1e6, 2),
        system: round(cpu.system / 1e6, 2),
        ofWallClock: round((cpu.user + cpu.system) / 1e6 / wall, 2),
      },
      peakRssBytes: rssPeak,
    }
    if (json) io.out(JSON.stringify(summary) + '\n')
    else io.out(renderSummary(summary) + '\n')
    if (!ok) io.err(`wafka demo: ${count(missing)} missing, ${count(duplicates)} duplicated, ${count(foreign)} unexpected messages\n`)
    return ok ? 0 : 1
  } finally {
    await Promise.allSettled(consumers.map((c) => c.disconnect()))
    await producer.disconnect().catch(() => {})
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.disconnect().catch(() => {})
    await cluster?.stop()
  }
}

/** The demo's flags, checked, and where its notes go. */
interface DemoSettings {
  n: number
  size: number
  partitions: number
  compression: CompressionName
  json: boolean
  mode: ProgressMode
  /** No -b or --config: the embedded broker. */
  embedded: boolean
  failover: boolean
  /** A line of progress (not with --quiet; on stderr with --json). */
  note: (line: string) => void
}

function demoSettings(values: Values, io: Io): DemoSettings {
  const n = int(values, 'messages', 1) ?? 1_000_000
  const size = int(values, 'size', 8) ?? 100
  const partitions = int(values, 'partitions', 1) ?? 6
  const compression = compressionFlag(values)
  if (n > 0xffffffff) throw new UsageError('--messages: at most 4,294,967,295')
  const json = values.json === true
  // With --json, stdout carries only the summary: progress goes to stderr.
  const progressStream = json ? io.errIsTTY : io.outIsTTY
  const mode: ProgressMode = values.quiet ? 'quiet' : progressStream ? 'tty' : 'plain'
  const note = (line: string) => {
    if (mode !== 'quiet') (json ? io.err : io.out)(line + '\n')
  }
  const embedded = str(values, 'brokers') === undefined && str(values, 'config') === undefined
  const failover = values.failover === true
  if (failover && !embedded)
    throw new UsageError('--failover stops a broker of the embedded cluster: it cannot be used with -b or --config')
  return { n, size, partitions, compression, json, mode, embedded, failover, note }
}

/** What the consumer group received: each demo message once, its end-to-end latency, and anything else. */
class Tally {
  /** Times each message index arrived (saturating at 255). */
  readonly seen: Uint8Array
  /** End-to-end latency histogram, whole milliseconds up to 60 s. */
  readonly e2e = new Uint32Array(60_001)
  received = 0
  duplicates = 0
  foreign = 0
  lastReceive = 0
  /** Resolves once every message has arrived. */
  readonly done: Promise<void>
  private allReceived: () => void = () => {}

  constructor(readonly n: number) {
    this.seen = new Uint8Array(n)
    this.done = new Promise<void>((resolve) => (this.allReceived = resolve))
  }

  add({ batch }: Pick<EachBatchPayload, 'batch'>): void {
    const { n, seen, e2e } = this
    const now = Date.now()
    for (const message of batch.messages) {
      const v = message.value
      if (v === null || v.length < 4) {
        this.foreign++
        continue
      }
      const i = v.readUInt32BE(0)
      if (i >= n) {
        this.foreign++
        continue
      }
      if (seen[i] !== 0) this.duplicates++
      else this.received++
      if (seen[i] < 255) seen[i]++
      const lag = now - message.timestampMs
      e2e[lag < 0 ? 0 : lag > 60_000 ? 60_000 : lag]++
    }
    this.lastReceive = performance.now()
    if (this.received === n) this.allReceived()
  }
}

/** MEMBERS consumers in one group, reading `topic` into `tally`; resolves once they hold one stable assignment. */
async function startGroup(
  kafka: Kafka,
  extra: Record<string, unknown>,
  topic: string,
  partitions: number,
  tally: Tally,
): Promise<Consumer[]> {
  const consumers: Consumer[] = []
  const assignments = new Map<number, number[]>()
  let assigned: () => void = () => {}
  const stable = new Promise<void>((resolve) => (assigned = resolve))
  const checkStable = () => {
    const all = [...assignments.values()].flat()
    if (assignments.size === MEMBERS && all.length === partitions && new Set(all).size === partitions) assigned()
  }
  const groupId = `${topic}-group`
  for (let m = 0; m < MEMBERS; m++) {
    const c = kafka.consumer({ groupId, ...extra })
    consumers.push(c)
    c.on(c.events.GROUP_JOIN, ({ payload }: { payload: { memberAssignment: Record<string, number[]> } }) => {
      assignments.set(m, payload.memberAssignment[topic] ?? [])
      checkStable()
    })
  }
  await Promise.all(
    consumers.map(async (c) => {
      await c.connect()
      await c.subscribe({ topics: [topic], fromBeginning: true })
      await c.run({ eachBatch: async (payload) => tally.add(payload) })
    }),
  )
  await Promise.race([
    stable,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the consumer group did not settle in 30 s')), 30_000).unref()),
  ])
  return consumers
}

/** The producer's side of the run: messages handed out, acknowledged, each send()'s latency. */
class Sends {
  sent = 0
  acked = 0
  /** When the last send was acknowledged (0 until then). */
  producedAt = 0
  readonly latencies: number[] = []
}

/** The produce and consume bars, started. */
function showProgress({ n, size, mode, json }: DemoSettings, io: Io, sends: Sends, tally: Tally, t0: number): Progress {
  const progress = new Progress(mode, json ? io.err : io.out)
  // Seconds since the first send, up to when that side finished (so a finished bar's rate stays put).
  const since = (t: number, end = 0) => Math.max(1e-3, ((end || performance.now()) - t) / 1000)
  progress.add(() => ({
    label: 'produce',
    done: sends.acked,
    total: n,
    detail: `${count(sends.acked)}/${count(n)} acknowledged  ${rate(sends.acked / since(t0, sends.producedAt))} msg/s  ${mb((sends.acked * size) / since(t0, sends.producedAt))}/s`,
  }))
  progress.add(() => {
    const { received } = tally
    const end = received === n ? tally.lastReceive : 0
    return {
      label: 'consume',
      done: received,
      total: n,
      detail: `${count(received)}/${count(n)} received  ${rate(received / since(t0, end))} msg/s  ${mb((received * size) / since(t0, end))}/s`,
    }
  })
  progress.start()
  return progress
}

/**
 * Sends the n messages (each value starts with its index), CHUNK a send()
 * and WINDOW sends in flight. `halfway` runs once half are acknowledged
 * (--failover); its result is awaited once the sends are done.
 */
async function produceAll(
  producer: Producer,
  topic: string,
  { n, size }: DemoSettings,
  sends: Sends,
  halfway: ((acked: number) => Promise<Failover>) | undefined,
): Promise<Failover | null> {
  let failedOver: Promise<Failover> | null = null
  const filler = Buffer.alloc(size - 4, 0x61)
  const sendChunk = async (from: number, to: number) => {
    const messages = new Array(to - from)
    for (let i = from; i < to; i++) {
      const value = Buffer.allocUnsafe(size)
      value.writeUInt32BE(i, 0)
      filler.copy(value, 4)
      messages[i - from] = { value }
    }
    const start = performance.now()
    await producer.send({ topic, messages })
    sends.latencies.push(performance.now() - start)
    sends.acked += to - from
    if (halfway && !failedOver && sends.acked >= n / 2) {
      failedOver = halfway(sends.acked)
      // Awaited once the sends are done; until then a failure must not count as unhandled.
      failedOver.catch(() => {})
    }
  }
  await producer.connect()
  const workers = Array.from({ length: WINDOW }, async () => {
    while (sends.sent < n) {
      const from = sends.sent
      sends.sent = Math.min(n, sends.sent + CHUNK)
      await sendChunk(from, sends.sent)
    }
  })
  await Promise.all(workers)
  sends.producedAt = performance.now()
  return failedOver ? await (failedOver as Promise<Failover>) : null
}

/** Stops the broker leading partition 0 (found as a user would, in Metadata). */
async function stopLeader(
  admin: Admin,
  cluster: RunningCluster,
  topic: string,
  at: number,
  t0: number,
  note: (line: string) => void,
): Promise<Failover> {
  const before = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions
  const broker = before.find((p) => p.partitionId === 0)!.leader
  const led = before.filter((p) => p.leader === broker).map((p) => p.partitionId)
  const stoppedAt = performance.now()
  await cluster.stopBroker(broker)
  note(`failover: broker ${broker} stopped at ${count(at)} acknowledged (it led partitions ${led.join(', ')})`)
  return { broker, partitions: led, atAcknowledged: at, atSeconds: round((stoppedAt - t0) / 1000, 3) }
}

/** The failover, with the leaders its partitions have now. */
async function newLeaders(admin: Admin, topic: string, failover: Failover): Promise<Failover & { newLeaders: Record<string, number> }> {
  const after = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions
  const leaders: Record<string, number> = {}
  for (const p of after) if (failover.partitions.includes(p.partitionId)) leaders[p.partitionId] = p.leader
  return { ...failover, newLeaders: leaders }
}

/** The broker --failover stopped: the partitions it led, and when. */
interface Failover {
  broker: number
  partitions: number[]
  atAcknowledged: number
  atSeconds: number
}

function round(x: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

type Summary = {
  failover?: Failover & { newLeaders: Record<string, number> }
  messages: number
  valueBytes: number
  produce: {
    seconds: number
    messagesPerSecond: number
    megabytesPerSecond: number
    sendLatencyMs: { p50: number; p99: number; messagesPerSend: number }
  }
  consume: { seconds: number; messagesPerSecond: number; megabytesPerSecond: number; endToEndLatencyMs: { p50: number; p99: number } }
  verified: { received: number; missing: number; duplicates: number; exactlyOnce: boolean }
  cpuSeconds: { user: number; system: number; ofWallClock: number }
  peakRssBytes: number
}

function renderSummary(s: Summary): string {
  const v = s.verified
  const rows = [
    ['', 'produce', 'consume (group of 3)'],
    ['messages', count(s.messages), count(v.received)],
    ['time', `${s.produce.seconds.toFixed(2)} s`, `${s.consume.seconds.toFixed(2)} s`],
    ['throughput', `${rate(s.produce.messagesPerSecond)} msg/s`, `${rate(s.consume.messagesPerSecond)} msg/s`],
    ['', `${s.produce.megabytesPerSecond.toFixed(1)} MB/s`, `${s.consume.megabytesPerSecond.toFixed(1)} MB/s`],
    [
      `latency p50 / p99`,
      `${s.produce.sendLatencyMs.p50} / ${s.produce.sendLatencyMs.p99} ms`,
      `${s.consume.endToEndLatencyMs.p50} / ${s.consume.endToEndLatencyMs.p99} ms`,
    ],
  ]
  return [
    '',
    table(rows),
    `  (produce: send() of ${s.produce.sendLatencyMs.messagesPerSend} messages until acknowledged; consume: end to end, message timestamp to receipt)`,
    '',
    `CPU         ${s.cpuSeconds.user.toFixed(2)} s user + ${s.cpuSeconds.system.toFixed(2)} s system (${Math.round(s.cpuSeconds.ofWallClock * 100)}% of one core over the run)`,
    `peak memory ${(s.peakRssBytes / 2 ** 20).toFixed(0)} MiB RSS`,
    ...(s.failover
      ? [
          `failover    broker ${s.failover.broker} stopped at ${count(s.failover.atAcknowledged)} acknowledged (${s.failover.atSeconds.toFixed(2)} s); ` +
            `new leaders: ${Object.entries(s.failover.newLeaders)
              .map(([p, b]) => `partition ${p} -> broker ${b}`)
              .join(', ')}`,
        ]
      : []),
    v.exactlyOnce
      ? `verified    all ${count(s.messages)} messages arrived exactly once`
      : `verified    FAILED: ${count(v.missing)} missing, ${count(v.duplicates)} duplicated`,
  ].join('\n')
}
