import { writeFileSync } from 'node:fs'
import { Kafka, type KafkaConfig } from '../kafka.js'
import type { Admin } from '../admin/admin.js'
import type { CompressionName } from '../codec/compression.js'
import type { Acks } from '../producer/config.js'
import {
  CONNECTION_OPTIONS,
  CONNECTION_USAGE,
  UsageError,
  acksFlag,
  compressionFlag,
  int,
  parse,
  resolveConnection,
  str,
  type Values,
} from './args.js'
import { startBrokerProcess, type BrokerProcess } from './bench/broker-process.js'
import { lineChartSvg } from './bench/chart.js'
import { codecChartSvg } from './bench/result-charts.js'
import { CODEC_TIMING, compressionCases, crcCases, decodeCases, encodeCases, wafkaCompressors } from './bench/codec-cases.js'
import { MESSAGE_KEY_BYTES, MESSAGE_VALUE_BYTES, messagePool } from './bench/data.js'
import { measureAll } from './bench/measure.js'
import { ChildMeter, type ChildResult } from './bench/meter.js'
import { processesCpuSeconds } from './bench/process-cpu.js'
import { StatsGatherer, type BenchStatistics } from './bench/stats.js'
import { awaitTopicHolds } from './bench/topic-holds.js'
import { Tally } from './bench/tally.js'
import { Timeline } from './bench/timeline.js'
import { wafka as wafkaCodec } from './bench/wafka-codec.js'
import { CONSUME_WORKLOAD, wafkaConsumer, type ConsumeDriver } from './bench/wafka-consumer.js'
import type { ConsumerStatistics } from '../observe/statistics.js'
import { PRODUCE_WORKLOAD, warmupFor, wafkaProducer } from './bench/wafka-producer.js'
import { Progress, count, rate, table, type ProgressMode } from './progress.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka bench produce|consume|codec [options]

The harness of the repository's bench/ (the same workloads, drivers and
meters), for wafka alone, against your cluster (-b) or the embedded broker.

  wafka bench produce   N messages (16-byte keys, 100-byte JSON values) to a fresh topic in
                        send() calls of ${PRODUCE_WORKLOAD.chunk}, ${PRODUCE_WORKLOAD.inflight} in flight, after an untimed warm-up; checks that
                        the topic's high watermarks add up to every message sent; deletes the topic
  wafka bench consume   writes N messages to a fresh topic, then times a fresh consumer group
                        reading them all from the beginning (eachBatch, from subscribing to the
                        last message); checks every partition's count and every key and value byte
  wafka bench codec     wafka's codec: CRC-32C, RecordBatch v2 encode and decode, LZ4, snappy
                        (the repository's npm run bench puts other clients beside it)

Without -b (or bootstrap.servers in --config), produce and consume start the
embedded broker (3 brokers) in a child process, so the figures are the client's.

  --messages N              timed messages (default 1,000,000; 100,000 with --quick)
  -P, --partitions P        partitions of the topic (default ${PRODUCE_WORKLOAD.partitions})
  -r, --replication-factor R  (default: the cluster's)
  --acks 0|1|all            produce: default all (idempotent); 0 and 1 are not idempotent
  -z, --compression C       none, gzip, snappy, lz4 or zstd (default none)
  --linger-ms MS            produce (default ${PRODUCE_WORKLOAD.lingerMs})
  --batch-size B            produce (default ${PRODUCE_WORKLOAD.batchSize})
  --inflight N              produce: send() calls outstanding (default ${PRODUCE_WORKLOAD.inflight})
  --quick                   a short run (codec: one round of short samples, rough figures)
  --only TEXT               codec: just the cases whose name contains TEXT
  --chart FILE.svg          an SVG chart of the run: messages/s over time (produce, consume),
                            throughput per case (codec)
  --broker-pids PID,...     a cluster of yours on this machine: its processes' CPU over the timed
                            part is reported beside the client's (the embedded broker's always is)
  --stats                   produce, consume: the benchmarked client's statistics (statisticsIntervalMs
                            1000, or statistics.interval.ms in -X/--config): each snapshot a JSON line
                            on stderr, and in the report per broker its requests, latency and throttle
                            over the run, the producer's batches or the consumer's partitions' lag
  --quiet                   no progress lines
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  messages: { type: 'string' },
  partitions: { type: 'string', short: 'P' },
  'replication-factor': { type: 'string', short: 'r' },
  acks: { type: 'string' },
  compression: { type: 'string', short: 'z' },
  'linger-ms': { type: 'string' },
  'batch-size': { type: 'string' },
  inflight: { type: 'string' },
  quick: { type: 'boolean' },
  only: { type: 'string' },
  chart: { type: 'string' },
  quiet: { type: 'boolean' },
  stats: { type: 'boolean' },
  'broker-pids': { type: 'string' },
} as const

const MESSAGE_BYTES = MESSAGE_KEY_BYTES + MESSAGE_VALUE_BYTES
/** A consumer run gives up after this long without a new message (bench/consumer.ts's child does the same). */
const STALL_MS = 30_000
const CLOSE_TIMEOUT_MS = 15_000

interface Output {
  io: Io
  json: boolean
  mode: ProgressMode
  /** A progress or note line: stdout, or stderr when stdout carries JSON. */
  note(line: string): void
}

function output(values: Values, io: Io): Output {
  const json = values.json === true
  const tty = json ? io.errIsTTY : io.outIsTTY
  const mode: ProgressMode = values.quiet ? 'quiet' : tty ? 'tty' : 'plain'
  return { io, json, mode, note: (line) => mode !== 'quiet' && (json ? io.err : io.out)(line + '\n') }
}

function writeChart(file: string | undefined, svg: () => string, out: Output): void {
  if (file === undefined) return
  try {
    writeFileSync(file, svg())
  } catch (err) {
    throw new Error(`cannot write --chart ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  out.note(`chart: ${file}`)
}

export async function benchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const [what, ...rest] = positionals
  if (!['produce', 'consume', 'codec'].includes(what))
    throw new UsageError(what === undefined ? 'say produce, consume or codec' : `unknown benchmark ${what}`)
  if (rest.length > 0) throw new UsageError(`bench ${what} takes flags, not ${JSON.stringify(rest[0])}`)
  const chart = str(values, 'chart')
  if (chart !== undefined && !chart.endsWith('.svg')) throw new UsageError(`--chart writes SVG: name a .svg file, not ${chart}`)
  const out = output(values, io)
  if (what === 'codec' && values.stats === true)
    throw new UsageError('--stats is for bench produce and bench consume: the codec has no client')
  if (what === 'codec') return codecBench(values, out, chart)
  const messages = int(values, 'messages', 1) ?? (values.quick ? 100_000 : 1_000_000)
  const run: RunSettings = {
    messages,
    partitions: int(values, 'partitions', 1) ?? PRODUCE_WORKLOAD.partitions,
    replicationFactor: int(values, 'replication-factor', 1),
    compression: compressionFlag(values),
    acks: acksFlag(values),
    lingerMs: int(values, 'linger-ms', 0) ?? PRODUCE_WORKLOAD.lingerMs,
    batchSize: int(values, 'batch-size', 1) ?? PRODUCE_WORKLOAD.batchSize,
    inflight: int(values, 'inflight', 1) ?? PRODUCE_WORKLOAD.inflight,
  }

  // The cluster: the one named, or the embedded broker in a child process of its own.
  let broker: BrokerProcess | undefined
  let conn: Values = values
  const givenPids = pidList(str(values, 'broker-pids'))
  const embedded = str(values, 'brokers') === undefined && str(values, 'config') === undefined
  if (embedded && givenPids.length > 0) throw new UsageError('--broker-pids is for a cluster named with -b (or --config)')
  if (embedded) {
    broker = await startBrokerProcess(3)
    conn = { ...values, brokers: broker.bootstrap }
    out.note(`embedded broker: 3 brokers in a child process at ${broker.bootstrap}`)
  }
  const brokerPids = broker ? [broker.pid!] : givenPids
  try {
    const connection = resolveConnection(conn)
    const kafka = connection.kafka
    const given = connection.clientOptions(what === 'produce' ? 'producer' : 'consumer', (line) => io.err(`wafka bench: ${line}\n`))
    const extra = values.stats === true ? { statisticsIntervalMs: 1000, ...given } : given
    // --stats: stderr, as wafka consume --stats prints them (stdout keeps the progress and the report).
    const stats = values.stats === true ? new StatsGatherer(Number(extra.statisticsIntervalMs), (line) => io.err(line + '\n')) : undefined
    const target = { bootstrap: String(kafka.brokers), embedded: broker !== undefined }
    const config: KafkaConfig = { ...kafka, clientId: str(values, 'client-id') ?? 'wafka-bench' }
    const admin = new Kafka(config).admin()
    await admin.connect()
    try {
      const report =
        what === 'produce'
          ? await produceBench({ config, extra, admin, run, out, brokerPids, stats })
          : await consumeBench({ config, extra, admin, run, out, brokerPids, stats })
      const full = { bench: what, target, ...report }
      writeChart(chart, () => timelineSvg(what, full), out)
      if (out.json) io.out(JSON.stringify(full) + '\n')
      else io.out(summary(full) + '\n')
      return 0
    } finally {
      await admin.disconnect().catch(() => {})
    }
  } finally {
    await broker?.stop()
  }
}

/** What a produce or consume benchmark runs with. */
interface BenchSetup {
  config: KafkaConfig
  /** Client options given on the command line (-X, --config), for the benchmark's producer or consumer. */
  extra: Record<string, unknown>
  admin: Admin
  run: RunSettings
  out: Output
  /** Broker processes whose CPU time is measured. */
  brokerPids: number[]
  /** --stats: gathers the benchmarked client's statistics. */
  stats: StatsGatherer | undefined
}

interface RunSettings {
  messages: number
  partitions: number
  replicationFactor: number | undefined
  compression: CompressionName
  acks: Acks
  lingerMs: number
  batchSize: number
  inflight: number
}

interface Figures {
  messages: number
  seconds: number
  msgPerSec: number
  mbPerSec: number
  /** The client process's CPU (user + system, every thread) over the timed part. */
  cpuSec: number
  cpuUsPerMessage: number
  rssPeakBytes: number
  rssAboveBaselineBytes: number
  /** The broker processes' CPU over the timed part: the embedded broker's, or --broker-pids' (else null). */
  brokerCpuSec: number | null
  /** consume: from subscribing to the first message (group join and first fetch). */
  firstMessageMs?: number
}

interface Report {
  workload: Record<string, unknown>
  result: Figures
  /** Messages done by each moment of the timed part: [seconds, messages]. */
  timeline: Array<[number, number]>
  checked: string
  /** --stats: the benchmarked client's statistics over its run. */
  statistics?: BenchStatistics
}

function figures(messages: number, r: ChildResult, brokerCpuSec: number | null): Figures {
  const seconds = r.wallMs / 1000
  const msgPerSec = messages / seconds
  return {
    messages,
    seconds,
    msgPerSec,
    mbPerSec: (msgPerSec * MESSAGE_BYTES) / 1e6,
    cpuSec: r.cpuSec,
    cpuUsPerMessage: (r.cpuSec * 1e6) / messages,
    rssPeakBytes: r.rssPeak,
    rssAboveBaselineBytes: r.rssPeak - r.rssBaseline,
    brokerCpuSec: Number.isFinite(brokerCpuSec) ? brokerCpuSec : null,
  }
}

async function freshTopic(admin: Admin, kind: string, run: RunSettings): Promise<string> {
  const topic = `wafka-bench-${kind}-${process.pid}-${Date.now()}`
  await admin.createTopics({
    topics: [{ topic, numPartitions: run.partitions, replicationFactor: run.replicationFactor }],
    waitForLeaders: true,
  })
  return topic
}

/** --broker-pids: process ids, comma-separated. */
function pidList(text: string | undefined): number[] {
  if (text === undefined) return []
  const pids = text.split(',').map((p) => Number(p.trim()))
  if (pids.some((p) => !Number.isInteger(p) || p <= 0))
    throw new UsageError(`--broker-pids takes process ids, comma-separated, not ${text}`)
  return pids
}

async function produceBench({ config, extra, admin, run, out, brokerPids, stats }: BenchSetup): Promise<Report> {
  const warmup = warmupFor(run.messages)
  const { keys, values } = messagePool()
  const topic = await freshTopic(admin, 'produce', run)
  let acked = 0
  const idempotent = run.acks === 'all'
  const options = { acks: run.acks, idempotent, lingerMs: run.lingerMs, batchSize: run.batchSize, compression: run.compression, ...extra }
  try {
    const meter = new ChildMeter()
    const driver = await wafkaProducer(
      config,
      options,
      { topic, inflight: run.inflight, chunk: PRODUCE_WORKLOAD.chunk, onAcked: (n) => (acked += n), onStats: stats?.take },
      keys,
      values,
    )
    await driver.connect()
    const progress = new Progress(out.mode, out.json ? out.io.err : out.io.out)
    const total = warmup + run.messages
    progress.add(() => ({
      label: 'produce',
      done: acked,
      total,
      detail: `${count(acked)}/${count(total)} acknowledged${acked < warmup ? ' (warm-up)' : ''}`,
    }))
    progress.start()
    let result: ChildResult
    let timeline: Timeline
    let brokerCpu0: number
    let statistics: BenchStatistics | undefined
    try {
      if (warmup > 0) await driver.produce(0, warmup)
      brokerCpu0 = processesCpuSeconds(brokerPids)
      timeline = new Timeline(() => acked - warmup)
      meter.start()
      await driver.produce(warmup, total)
      result = meter.stop()
      timeline.stop()
      statistics = stats?.result(driver.statistics())
    } finally {
      progress.stop()
      await driver.close()
    }
    const brokerCpu = brokerPids.length > 0 ? processesCpuSeconds(brokerPids) - brokerCpu0 : null
    await awaitTopicHolds(admin, topic, total)
    return {
      workload: {
        topic,
        partitions: run.partitions,
        warmup,
        producer: { acks: run.acks, idempotent, lingerMs: run.lingerMs, batchSize: run.batchSize, compression: run.compression, ...extra },
        chunk: PRODUCE_WORKLOAD.chunk,
        inflight: run.inflight,
        keyBytes: MESSAGE_KEY_BYTES,
        valueBytes: MESSAGE_VALUE_BYTES,
      },
      result: figures(run.messages, result, brokerCpu),
      timeline: timeline.points,
      checked: `the topic's high watermarks add up to ${count(total)}, every message sent (${count(warmup)} warm-up + ${count(run.messages)} timed)`,
      ...(statistics ? { statistics } : {}),
    }
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
  }
}

async function consumeBench({ config, extra, admin, run, out, brokerPids, stats }: BenchSetup): Promise<Report> {
  const { keys, values } = messagePool()
  const topic = await freshTopic(admin, 'consume', run)
  const groupId = `${topic}-group`
  const progress = new Progress(out.mode, out.json ? out.io.err : out.io.out)
  try {
    // The data, as bench/consumer.ts writes it: larger batches, a longer linger.
    let written = 0
    const producer = await wafkaProducer(
      config,
      { compression: run.compression, lingerMs: CONSUME_WORKLOAD.dataLingerMs, batchSize: CONSUME_WORKLOAD.dataBatchBytes },
      { topic, inflight: CONSUME_WORKLOAD.dataInflight, chunk: CONSUME_WORKLOAD.dataChunk, onAcked: (n) => (written += n) },
      keys,
      values,
    )
    let tally: Tally | undefined
    progress.add(() => ({ label: 'data', done: written, total: run.messages, detail: `${count(written)}/${count(run.messages)} written` }))
    progress.add(() => ({
      label: 'consume',
      done: tally?.received ?? 0,
      total: run.messages,
      detail: `${count(tally?.received ?? 0)}/${count(run.messages)} received`,
    }))
    progress.start()
    await producer.connect()
    try {
      await producer.produce(0, run.messages)
    } finally {
      await producer.close()
    }
    const expected = await awaitTopicHolds(admin, topic, run.messages)

    const meter = new ChildMeter()
    const consumer = await wafkaConsumer(config, topic, groupId, extra, stats?.take)
    await consumer.connect()
    const t = new Tally(run.messages, expected.length, meter)
    tally = t
    let seen = 0
    let seenAt = performance.now()
    const watch = setInterval(() => {
      if (t.received !== seen) [seen, seenAt] = [t.received, performance.now()]
      else if (performance.now() - seenAt > STALL_MS)
        t.fail(new Error(`no new message for ${STALL_MS / 1000} s, with ${count(t.received)} of ${count(run.messages)} received`))
    }, 1000)
    const brokerCpu0 = processesCpuSeconds(brokerPids)
    const timeline = new Timeline(() => t.received)
    let statistics: BenchStatistics | undefined
    t.subscribing()
    try {
      await consumer.consume(t)
      await t.done
      if (stats) statistics = stats.result(await caughtUp(consumer))
    } finally {
      timeline.stop()
      clearInterval(watch)
      progress.stop()
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([consumer.close(), new Promise((r) => (timer = setTimeout(r, CLOSE_TIMEOUT_MS)))])
      clearTimeout(timer)
    }
    const brokerCpu = brokerPids.length > 0 ? processesCpuSeconds(brokerPids) - brokerCpu0 : null
    const result = t.result()
    const wrong = expected.flatMap((n, p) => (t.perPartition[p] === n ? [] : [`partition ${p}: ${t.perPartition[p]} of ${n}`]))
    if (wrong.length) throw new Error(`not every partition's messages arrived: ${wrong.slice(0, 5).join(', ')}`)
    if (t.keyBytes !== run.messages * MESSAGE_KEY_BYTES || t.valueBytes !== run.messages * MESSAGE_VALUE_BYTES)
      throw new Error(
        `received ${t.keyBytes} key and ${t.valueBytes} value bytes, not ${MESSAGE_KEY_BYTES} and ${MESSAGE_VALUE_BYTES} a message`,
      )
    return {
      workload: {
        topic,
        groupId,
        partitions: run.partitions,
        compression: run.compression,
        data: { lingerMs: CONSUME_WORKLOAD.dataLingerMs, batchSize: CONSUME_WORKLOAD.dataBatchBytes },
        consumer: { eachBatch: true, ...extra },
        keyBytes: MESSAGE_KEY_BYTES,
        valueBytes: MESSAGE_VALUE_BYTES,
      },
      result: { ...figures(run.messages, result, brokerCpu), firstMessageMs: result.firstMessageMs },
      timeline: timeline.points,
      checked: `every partition's ${count(run.messages)} messages arrived, every key and value byte`,
      ...(statistics ? { statistics } : {}),
    }
  } finally {
    progress.stop()
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.deleteGroups([groupId]).catch(() => {})
  }
}

/**
 * The consumer's statistics once every partition's position reached its high
 * watermark (at most a few seconds): the tally counts inside eachBatch, so
 * the last batches' positions move only as their handler calls return.
 */
async function caughtUp(consumer: ConsumeDriver): Promise<ConsumerStatistics> {
  const deadline = performance.now() + 5000
  let s = consumer.statistics()
  while (s.partitions.some((p) => p.lag !== 0) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10))
    s = consumer.statistics()
  }
  return s
}

const mib = (bytes: number) => `${count(bytes / 2 ** 20)} MiB`

function summary(r: { bench: string; target: { bootstrap: string; embedded: boolean } } & Report): string {
  const f = r.result
  const w = r.workload
  const where = r.target.embedded ? `the embedded broker (3 brokers, a child process)` : r.target.bootstrap
  const header = ['messages/s', 'MB/s', 'seconds', 'CPU s', 'CPU µs/msg', 'peak RSS', ...(f.brokerCpuSec !== null ? ['broker CPU s'] : [])]
  const row = [
    `${rate(f.msgPerSec)}`,
    f.mbPerSec.toFixed(1),
    f.seconds.toFixed(2),
    f.cpuSec.toFixed(2),
    f.cpuUsPerMessage.toFixed(2),
    mib(f.rssPeakBytes),
    ...(f.brokerCpuSec !== null ? [f.brokerCpuSec.toFixed(2)] : []),
  ]
  const lines = [
    `wafka bench ${r.bench}: ${count(f.messages)} messages (${MESSAGE_KEY_BYTES}-byte keys, ${MESSAGE_VALUE_BYTES}-byte values), ${w.partitions} partitions, on ${where}`,
  ]
  if (r.bench === 'produce') {
    const p = w.producer as RunSettings & { idempotent: boolean }
    lines.push(
      `acks=${p.acks}${p.idempotent ? ', idempotent' : ''}, linger ${p.lingerMs} ms, batch ${count(p.batchSize)} B, ${p.compression}; ${w.inflight} send() calls of ${count(w.chunk as number)} in flight, after ${count(w.warmup as number)} warm-up`,
    )
  } else
    lines.push(
      `${w.compression}; a fresh group, eachBatch, from subscribing to the last message (first message after ${f.firstMessageMs!.toFixed(0)} ms)`,
    )
  lines.push('', table([header, row]), '', `checked: ${r.checked}`)
  if (r.statistics) lines.push('', ...statisticsLines(r.statistics))
  return lines.join('\n')
}

/** --stats in the text summary: a row per broker, then the producer's batches or the consumer's lag. */
function statisticsLines(s: BenchStatistics): string[] {
  const ms = (v: number) => v.toFixed(2)
  const rows = [['broker', 'requests', 'timeouts', 'latency avg ms', 'latency max ms', 'throttle avg ms', 'throttle max ms']]
  for (const b of s.brokers)
    rows.push([
      b.broker,
      count(b.requests),
      count(b.timeouts),
      ms(b.latencyAvgMs),
      ms(b.latencyMaxMs),
      ms(b.throttleTimeAvgMs),
      ms(b.throttleTimeMaxMs),
    ])
  const lines = [
    `statistics: ${count(s.snapshots)} snapshots, one every ${count(s.intervalMs)} ms (per broker: what they covered; batches and lag: at the end)`,
    table(rows),
  ]
  if (s.batches) {
    const b = s.batches
    lines.push(
      `batches: ${count(b.batches)} of ${count(b.records)} records, ${b.recordsPerBatchAvg.toFixed(1)} records and ${count(b.bytesPerBatchAvg)} B a batch on average (${count(b.bytesPerBatchMax)} B max), linger ${ms(b.lingerAvgMs)} ms on average (${ms(b.lingerMaxMs)} ms max)`,
    )
  }
  if (s.partitions) {
    const lag = s.partitions.reduce((n, p) => n + (p.lag ?? 0), 0)
    lines.push(`partitions: ${s.partitions.length}, lag ${count(lag)} in all once the last message was handed over`)
  }
  return lines
}

/** The chart's bins: at least this long, so a burst of acknowledgements does not read as a spike. */
const BIN_SECONDS = 0.25

/** Messages/s over the run, as steps: each bin of the timeline's counts at its own rate. */
export function binnedRates(timeline: Array<[number, number]>): Array<[number, number]> {
  if (timeline.length < 2) return []
  // Bin ends: every sample at least a bin after the last end; the run's end closes the last bin,
  // and a sliver of a bin at the end joins the one before it.
  const ends: Array<[number, number]> = [timeline[0]]
  for (const p of timeline.slice(1, -1)) if (p[0] - ends[ends.length - 1][0] >= BIN_SECONDS) ends.push(p)
  const end = timeline[timeline.length - 1]
  if (ends.length > 1 && end[0] - ends[ends.length - 1][0] < BIN_SECONDS / 2) ends[ends.length - 1] = end
  else ends.push(end)
  const steps: Array<[number, number]> = []
  for (let i = 1; i < ends.length; i++) {
    const [t0, n0] = ends[i - 1]
    const [t1, n1] = ends[i]
    const rate = t1 > t0 ? (n1 - n0) / (t1 - t0) : 0
    steps.push([t0, rate], [t1, rate])
  }
  return steps
}

function timelineSvg(what: string, r: { target: { embedded: boolean; bootstrap: string } } & Report): string {
  const points = binnedRates(r.timeline)
  const where = r.target.embedded ? 'embedded broker' : r.target.bootstrap
  return lineChartSvg({
    title: `wafka bench ${what}: ${count(r.result.messages)} messages, ${rate(r.result.msgPerSec)} msg/s overall (${where})`,
    xLabel: 'seconds into the timed run',
    yLabel: 'messages/s',
    series: [
      { name: `wafka ${what}`, points },
      {
        name: 'overall rate',
        points: [
          [0, r.result.msgPerSec],
          [r.result.seconds, r.result.msgPerSec],
        ],
      },
    ],
  })
}

async function codecBench(values: Values, out: Output, chart: string | undefined): Promise<number> {
  const only = str(values, 'only')
  const timing = values.quick ? CODEC_TIMING.quick : CODEC_TIMING.full
  await wafkaCodec.load()
  const notes: string[] = []
  const { lz4, snappy } = await wafkaCompressors()
  const cases = [
    ...crcCases([{ name: 'wafka', crc32c: wafkaCodec.crc32c }]),
    ...encodeCases([wafkaCodec], 'buffers'),
    ...encodeCases([wafkaCodec], 'strings'),
    ...(await decodeCases([wafkaCodec], wafkaCodec, notes)),
    ...(await compressionCases(notes, 'LZ4', lz4, [], "Kafka's LZ4 frame format.")),
    ...(await compressionCases(notes, 'snappy', snappy, [], 'xerial-framed, as the Java client writes.')),
  ].filter((c) => !only || `${c.group}: ${c.name}`.includes(only))
  if (cases.length === 0) throw new UsageError(`--only ${only}: no case has that in its name`)
  out.note(`${cases.length} cases, ${timing.rounds} round(s) of each`)
  const results = await measureAll(cases, timing, (line) => out.note(line))
  const fmt = (v: number, unit: string) => (unit === 'MB/s' ? `${v.toFixed(v >= 100 ? 0 : 1)} MB/s` : `${rate(v)} rec/s`)
  writeChart(
    chart,
    () => codecChartSvg(`wafka bench codec${values.quick ? ' --quick' : ''}: median of ${timing.rounds} round(s)`, results),
    out,
  )
  if (out.json) {
    out.io.out(JSON.stringify({ bench: 'codec', timing, cases: results, notes }) + '\n')
    return 0
  }
  const rows = [['case', 'contender', 'throughput', 'ops/s']]
  for (const r of results)
    for (const c of r.results) rows.push([`${r.group}: ${r.name}`, c.name, fmt(c.throughput, r.unit), count(c.opsPerSec)])
  out.io.out(table(rows) + '\n')
  return 0
}
