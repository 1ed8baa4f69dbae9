/**
 * End-to-end producer throughput: wafka beside KafkaJS, @platformatic/kafka
 * and @confluentinc/kafka-javascript (librdkafka 2.15), in one run against
 * the same broker — the project's real-peer rig, librdkafka's mock cluster
 * (3 brokers; the program test/peers/mock-cluster.ts runs, started by
 * bench/support/mock-broker.ts).
 *
 * Every (round, scenario, contender) is a child process of its own, so CPU
 * time and RSS belong to one client and no client pays for another's
 * garbage; the contenders' order rotates each round. Each child warms up,
 * then sends the timed messages to a fresh 48-partition topic; the parent
 * checks that the topic's high watermarks add up to what was sent, then
 * deletes it. Prints tables and writes bench/results/producer.json and
 * producer.md.
 *
 *   npm run bench:producer      (builds, then runs it in full: about 6 minutes)
 *   node --expose-gc dist/bench/producer.js [--quick] [--messages=N]
 *     [--rounds=N] [--only=<contender>] [--scenario=<text>] [--inflight=N]
 *     [--confluent-api=kafkajs] [--profile=<contender>]
 *
 * Needs the real peers (test/peers/README.md: `node test/peers/build.mjs
 * --install` builds the mock cluster and @confluentinc/kafka-javascript).
 * --quick: 100,000 messages, 1 round. --only and --scenario narrow the run;
 * --inflight changes the window of send() calls (64); --confluent-api=kafkajs
 * runs that client through its KafkaJS-compatible API instead; --profile runs
 * that contender's children with --cpu-prof (profiles in dist/bench/profiles/).
 * Results are written by a full, default run only.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { benchRecords } from './support/data.js'
import { machine, packageVersion, repositoryRoot } from './support/environment.js'
import { median } from './support/measure.js'
import { MockBroker, peerBuild } from './support/mock-broker.js'
import { ApiVersionsShim } from './support/api-versions-shim.js'

// ---- the workload -----------------------------------------------------------

const KEY_BYTES = 16
const VALUE_BYTES = 100
/** Distinct pre-generated key/value pairs; message i uses pair i mod POOL. */
const POOL = 65_536
const PARTITIONS = 48
const REPLICATION = 3
/** Messages per send() for the promise-based clients. */
const CHUNK = 1000
const LINGER_MS = 5
const BATCH_BYTES = 16_384
/** The child gives up (and the run is marked failed) after this long. */
const CHILD_TIMEOUT_MS = 240_000

type Compression = 'none' | 'lz4'
type Acks = 1 | -1

interface Scenario {
  acks: Acks
  compression: Compression
}

const SCENARIOS: Scenario[] = [
  { acks: 1, compression: 'none' },
  { acks: -1, compression: 'none' },
  { acks: 1, compression: 'lz4' },
  { acks: -1, compression: 'lz4' },
]

const scenarioName = (s: Scenario) => `acks=${s.acks === -1 ? 'all' : '1'}, ${s.compression === 'none' ? 'uncompressed' : s.compression}`

type ContenderId = 'wafka' | 'kafkajs' | 'platformatic' | 'confluent'

const CONTENDERS: Array<{ id: ContenderId; name: string }> = [
  { id: 'wafka', name: 'wafka' },
  { id: 'kafkajs', name: 'KafkaJS' },
  { id: 'platformatic', name: '@platformatic/kafka' },
  { id: 'confluent', name: '@confluentinc/kafka-javascript' },
]

/** What each client is told, per scenario: the report prints it. */
function settings(id: ContenderId, s: Scenario, inflight: number): string {
  const idem = s.acks === -1
  const window = `${inflight} send() calls of ${CHUNK} messages in flight`
  switch (id) {
    case 'wafka':
      return `producer({ acks: ${s.acks === -1 ? "'all'" : 1}, idempotent: ${idem}, lingerMs: ${LINGER_MS}, batchSize: ${BATCH_BYTES}, compression: '${s.compression}' }), other options default (maxInFlight 5 per broker, bufferMemory 32 MiB); ${window}`
    case 'kafkajs':
      return `producer({ idempotent: ${idem}, allowAutoTopicCreation: false, createPartitioner: DefaultPartitioner }), send({ acks: ${s.acks}, compression: ${s.compression === 'lz4' ? 'LZ4 (kafkajs-lz4)' : 'None'} }); no linger or batch size: each send() is one Produce request per broker${idem ? ' (idempotent: one request at a time per broker)' : ''}; ${window}`
    case 'platformatic':
      return `new Producer({ acks: ${s.acks}, idempotent: ${idem}, compression: '${s.compression}', autocreateTopics: false${idem ? ', producerId: -1n, producerEpoch: -1' : ''} }), other options default (maxInflights 5${idem ? ', forced to 1 by idempotent' : ''}); no linger or batch size: each send() is one Produce request per broker; ${window}`
    case 'confluent':
      return `Standard (node-rdkafka) API: Producer({ acks: ${s.acks}, 'enable.idempotence': ${idem}, 'linger.ms': ${LINGER_MS}, 'batch.size': ${BATCH_BYTES}, 'compression.codec': '${s.compression}', partitioner: 'murmur2_random', dr_cb: true }), setPollInBackground(true), produce() per message, a 'delivery-report' event per message; QUEUE_FULL waits for reports (queue.buffering.max.messages default 100,000)`
  }
}

// ---- child: one contender, one scenario ---------------------------------------

interface Job {
  contender: ContenderId
  bootstrap: string
  topic: string
  scenario: Scenario
  messages: number
  warmup: number
  inflight: number
  /** @confluentinc/kafka-javascript: its Standard API (default) or its KafkaJS-compatible one. */
  confluentApi?: 'standard' | 'kafkajs'
}

interface ChildResult {
  wallMs: number
  /** process.cpuUsage() over the timed part, user + system, in seconds. */
  cpuSec: number
  userSec: number
  systemSec: number
  /** process.memoryUsage.rss() before connecting (data made, heap collected). */
  rssBaseline: number
  /** The highest RSS sampled (every 50 ms) from connecting to the end of the timed part. */
  rssPeak: number
}

interface Driver {
  connect(): Promise<void>
  /** Sends messages [from, to) and resolves once every one is acknowledged. */
  produce(from: number, to: number): Promise<void>
  close(): Promise<void>
}

const collectGarbage = (globalThis as { gc?: () => void }).gc

function pool(): { keys: Buffer[]; values: Buffer[] } {
  const records = benchRecords(POOL, VALUE_BYTES, 'buffers')
  const keys = records.map((r) => r.key as Buffer)
  const values = records.map((r) => r.value as Buffer)
  if (keys[0].length !== KEY_BYTES || values[0].length !== VALUE_BYTES) throw new Error('bench data is not 16-byte keys and 100-byte values')
  return { keys, values }
}

/**
 * Keeps up to `inflight` sends of CHUNK messages outstanding, starting the
 * next as one completes, until [from, to) is sent: what a high-throughput
 * caller of a promise-based producer does.
 */
async function windowed(from: number, to: number, inflight: number, send: (from: number, to: number) => Promise<unknown>): Promise<void> {
  let next = from
  let failure: unknown
  const lane = async () => {
    while (next < to && failure === undefined) {
      const start = next
      next = Math.min(to, next + CHUNK)
      try {
        await send(start, next)
      } catch (err) {
        failure ??= err
      }
    }
  }
  await Promise.all(Array.from({ length: inflight }, lane))
  if (failure !== undefined) throw failure
}

async function wafkaDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const { Kafka } = await import('../src/index.js')
  const s = job.scenario
  const producer = new Kafka({ clientId: 'bench-wafka', brokers: job.bootstrap.split(',') }).producer({
    acks: s.acks === -1 ? 'all' : 1,
    idempotent: s.acks === -1,
    lingerMs: LINGER_MS,
    batchSize: BATCH_BYTES,
    compression: s.compression,
  })
  const mask = POOL - 1
  return {
    connect: () => producer.connect(),
    produce: (from, to) =>
      windowed(from, to, job.inflight, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
        return producer.send({ topic: job.topic, messages })
      }),
    close: () => producer.disconnect(),
  }
}

async function kafkajsDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const require = createRequire(import.meta.url)
  const { Kafka, CompressionTypes, CompressionCodecs, Partitioners, logLevel } = require('kafkajs')
  if (job.scenario.compression === 'lz4') {
    // As kafkajs-lz4's README registers it.
    const LZ4Codec = require('kafkajs-lz4')
    CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec
  }
  const s = job.scenario
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: job.bootstrap.split(','), logLevel: logLevel.NOTHING })
  const producer = kafka.producer({
    idempotent: s.acks === -1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  })
  const compression = s.compression === 'lz4' ? CompressionTypes.LZ4 : CompressionTypes.None
  const mask = POOL - 1
  return {
    connect: () => producer.connect(),
    produce: (from, to) =>
      windowed(from, to, job.inflight, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
        return producer.send({ topic: job.topic, messages, acks: s.acks, compression })
      }),
    close: () => producer.disconnect(),
  }
}

async function platformaticDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const { Producer } = await import('@platformatic/kafka')
  const s = job.scenario
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: job.bootstrap.split(','),
    acks: s.acks,
    idempotent: s.acks === -1,
    compression: s.compression,
    autocreateTopics: false,
    // What the protocol says a new producer sends in InitProducerId. Its
    // default, 0 and 0, asks to bump producer 0's epoch (KIP-360): Kafka lets
    // that pass for a non-transactional producer, the mock refuses it.
    ...(s.acks === -1 ? { producerId: -1n, producerEpoch: -1 } : {}),
  })
  const mask = POOL - 1
  const topic = job.topic
  return {
    // It connects on first use: ask for the topic's metadata so the timed part starts connected.
    connect: async () => {
      await producer.metadata({ topics: [topic] })
    },
    produce: (from, to) =>
      windowed(from, to, job.inflight, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { topic, key: keys[i & mask], value: values[i & mask] }
        return producer.send({ messages })
      }),
    close: () => producer.close(),
  }
}

const ERR_QUEUE_FULL = -184

async function confluentDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  // Not a devDependency: test/peers/build.mjs --install puts it in ~/.cache/wafka-peers.
  const { ckjsDir } = await peerBuild()
  const require = createRequire(join(ckjsDir, 'package.json'))
  const Kafka = require(ckjsDir)
  const s = job.scenario
  const producer = new Kafka.Producer({
    'client.id': 'bench-confluent',
    'bootstrap.servers': job.bootstrap,
    acks: s.acks,
    'enable.idempotence': s.acks === -1,
    'linger.ms': LINGER_MS,
    'batch.size': BATCH_BYTES,
    'compression.codec': s.compression,
    // Java's murmur2 on keys, as the other clients' defaults (librdkafka's own default is crc32-based).
    partitioner: 'murmur2_random',
    dr_cb: true,
  })
  let delivered = 0
  let target = 0
  let failure: Error | undefined
  let wake: (() => void) | undefined
  producer.on('delivery-report', (err: Error | null) => {
    if (err) failure ??= err
    delivered++
    if (wake && (delivered >= target || failure || delivered % 1000 === 0)) {
      const w = wake
      wake = undefined
      w()
    }
  })
  // Errors librdkafka reports on the side (a dropped connection it will redo, ...) are not
  // failures by themselves; a message it gives up on comes back in its delivery report.
  let sideErrors = 0
  producer.on('event.error', (err: Error) => {
    if (sideErrors++ === 0) process.stderr.write(`librdkafka: ${err.message}\n`)
  })
  const waitForReports = () => new Promise<void>((resolve) => (wake = resolve))
  const mask = POOL - 1
  const topic = job.topic
  return {
    connect: () =>
      new Promise<void>((resolve, reject) => {
        producer.connect({ topic, allTopics: false }, (err: Error | null) => {
          if (err) return reject(err)
          producer.setPollInBackground(true)
          resolve()
        })
      }),
    produce: async (from, to) => {
      target += to - from
      for (let i = from; i < to; ) {
        if (failure) throw failure
        try {
          producer.produce(topic, null, values[i & mask], keys[i & mask])
          i++
        } catch (err) {
          if ((err as { code?: number }).code !== ERR_QUEUE_FULL) throw err
          await waitForReports()
          continue
        }
        // Let delivery reports in now and then, as a producing loop that never yields would starve them.
        if (i % CHUNK === 0) await new Promise<void>((r) => setImmediate(r))
      }
      while (delivered < target && !failure) await waitForReports()
      if (failure) throw failure
    },
    close: () =>
      new Promise<void>((resolve) => {
        producer.setPollInBackground(false)
        producer.disconnect(10_000, () => resolve())
      }),
  }
}

/**
 * The same package through its KafkaJS-compatible API (--confluent-api=kafkajs),
 * for checking which of its two APIs is faster: send() calls in the same
 * window as the other promise-based clients. It wraps the produce() above with
 * a promise per message.
 */
async function confluentKafkaJSDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const { ckjsDir } = await peerBuild()
  const require = createRequire(join(ckjsDir, 'package.json'))
  const { Kafka, logLevel, CompressionTypes } = require(ckjsDir).KafkaJS
  const s = job.scenario
  const producer = new Kafka({ kafkaJS: { clientId: 'bench-confluent', brokers: job.bootstrap.split(','), logLevel: logLevel.NOTHING } }).producer({
    kafkaJS: { acks: s.acks, idempotent: s.acks === -1, compression: s.compression === 'lz4' ? CompressionTypes.LZ4 : CompressionTypes.None },
    'linger.ms': LINGER_MS,
    'batch.size': BATCH_BYTES,
    partitioner: 'murmur2_random',
  })
  const mask = POOL - 1
  return {
    connect: () => producer.connect(),
    produce: (from, to) =>
      windowed(from, to, job.inflight, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
        return producer.send({ topic: job.topic, messages })
      }),
    close: () => producer.disconnect(),
  }
}

const drivers: Record<ContenderId, (job: Job, keys: Buffer[], values: Buffer[]) => Promise<Driver>> = {
  wafka: wafkaDriver,
  kafkajs: kafkajsDriver,
  platformatic: platformaticDriver,
  confluent: confluentDriver,
}

async function child(job: Job): Promise<ChildResult> {
  const { keys, values } = pool()
  const make = job.contender === 'confluent' && job.confluentApi === 'kafkajs' ? confluentKafkaJSDriver : drivers[job.contender]
  const driver = await make(job, keys, values)
  collectGarbage?.()
  const rssBaseline = process.memoryUsage.rss()
  let rssPeak = rssBaseline
  const sample = () => {
    const rss = process.memoryUsage.rss()
    if (rss > rssPeak) rssPeak = rss
  }
  const sampler = setInterval(sample, 50)
  await driver.connect()
  // Warm-up: the same kind of traffic, untimed, so JIT compilation and the first
  // metadata and connection setup are not in the figures. It goes to the same topic.
  if (job.warmup > 0) await driver.produce(0, job.warmup)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await driver.produce(job.warmup, job.warmup + job.messages)
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  sample()
  clearInterval(sampler)
  await driver.close()
  return {
    wallMs,
    cpuSec: (cpu.user + cpu.system) / 1e6,
    userSec: cpu.user / 1e6,
    systemSec: cpu.system / 1e6,
    rssBaseline,
    rssPeak,
  }
}

// ---- parent: the run -----------------------------------------------------------

interface Run {
  round: number
  scenario: string
  contender: string
  topic: string
  ok: boolean
  error?: string
  messages: number
  /** Sum of the topic's high watermarks, and what it should be (warm-up + timed). */
  highWatermarkSum?: number
  expected: number
  msgPerSec?: number
  mbPerSec?: number
  result?: ChildResult
  /** CPU seconds the mock cluster's process used during the run (child start to exit), from /proc. */
  brokerCpuSec?: number
  /** @platformatic/kafka only: bytes of requests that went through the ApiVersions shim (bootstrap traffic). */
  shimBytes?: number
}

function runChild(script: string, job: Job, profileDir: string | null): Promise<ChildResult> {
  const execArgv = ['--expose-gc', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])]
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = fork(script, ['--child', JSON.stringify(job)], { execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] })
    let stderr = ''
    proc.stderr?.setEncoding('utf8')
    proc.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000)
    })
    let result: ChildResult | undefined
    let error: string | undefined
    proc.on('message', (m: { result?: ChildResult; error?: string }) => {
      result = m.result
      error = m.error
    })
    const timer = setTimeout(() => {
      error = `timed out after ${CHILD_TIMEOUT_MS / 1000} s`
      proc.kill('SIGKILL')
    }, CHILD_TIMEOUT_MS)
    proc.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (result) resolve(result)
      else reject(new Error(`${error ?? `exited (${signal ?? `code ${code}`})`}${stderr.trim() ? `; stderr: ${stderr.trim().slice(-600)}` : ''}`))
    })
  })
}

const KB = 1024
const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const rate = (v: number) => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${fmt.format(v / 1e3)} k/s`)
const mib = (bytes: number) => `${fmt.format(bytes / (KB * KB))} MiB`
const ratio = (r: number) => (!Number.isFinite(r) ? 'n/a' : r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`)

interface Summary {
  scenario: string
  contender: string
  settings: string
  rounds: number
  failed: string[]
  msgPerSec: number
  /** The slowest and fastest round: how noisy the figure is. */
  msgPerSecRange: [number, number]
  mbPerSec: number
  cpuSec: number
  /** CPU seconds per million messages: comparable across message counts. */
  cpuSecPerMillion: number
  rssPeak: number
  rssAboveBaseline: number
  /** The mock cluster's CPU seconds while this contender's child ran (warm-up and connection set-up included). */
  brokerCpuSec: number
  /** wafka ÷ this, median of per-round ratios: above 1, wafka sends faster. */
  speedRatio: number
  /** this ÷ wafka CPU seconds: above 1, this one uses more CPU. */
  cpuRatio: number
  /** this ÷ wafka peak RSS: above 1, this one's peak RSS is higher. */
  rssRatio: number
}

function summarize(runs: Run[], scenarios: Scenario[], contenders: typeof CONTENDERS, inflight: number): Summary[] {
  const out: Summary[] = []
  for (const s of scenarios) {
    const name = scenarioName(s)
    const wafkaRuns = new Map(runs.filter((r) => r.scenario === name && r.contender === 'wafka' && r.ok).map((r) => [r.round, r]))
    for (const c of contenders) {
      const mine = runs.filter((r) => r.scenario === name && r.contender === c.name)
      const ok = mine.filter((r) => r.ok)
      const perRound = (f: (mine: Run, w: Run) => number) =>
        median(ok.filter((r) => wafkaRuns.has(r.round)).map((r) => f(r, wafkaRuns.get(r.round)!)))
      out.push({
        scenario: name,
        contender: c.name,
        settings: settings(c.id, s, inflight),
        rounds: ok.length,
        failed: mine.filter((r) => !r.ok).map((r) => `round ${r.round + 1}: ${r.error}`),
        msgPerSec: ok.length ? median(ok.map((r) => r.msgPerSec!)) : NaN,
        msgPerSecRange: [Math.min(...ok.map((r) => r.msgPerSec!)), Math.max(...ok.map((r) => r.msgPerSec!))],
        mbPerSec: ok.length ? median(ok.map((r) => r.mbPerSec!)) : NaN,
        cpuSec: ok.length ? median(ok.map((r) => r.result!.cpuSec)) : NaN,
        cpuSecPerMillion: ok.length ? median(ok.map((r) => (r.result!.cpuSec * 1e6) / r.messages)) : NaN,
        rssPeak: ok.length ? median(ok.map((r) => r.result!.rssPeak)) : NaN,
        rssAboveBaseline: ok.length ? median(ok.map((r) => r.result!.rssPeak - r.result!.rssBaseline)) : NaN,
        brokerCpuSec: ok.length ? median(ok.map((r) => r.brokerCpuSec!)) : NaN,
        speedRatio: perRound((r, w) => w.msgPerSec! / r.msgPerSec!),
        cpuRatio: perRound((r, w) => r.result!.cpuSec / w.result!.cpuSec),
        rssRatio: perRound((r, w) => r.result!.rssPeak / w.result!.rssPeak),
      })
    }
  }
  return out
}

function cell(x: Summary, v: string, r: number, first: boolean): string {
  if (x.rounds === 0) return 'failed'
  return first ? v : `${v} (${ratio(r)})`
}

function printTables(summaries: Summary[]): void {
  for (const name of [...new Set(summaries.map((x) => x.scenario))]) {
    const rows = summaries.filter((x) => x.scenario === name)
    const header = [name, 'messages/s', 'MB/s', 'CPU s', 'peak RSS', 'wafka faster by']
    const body = rows.map((x, i) =>
      x.rounds === 0
        ? [`  ${x.contender}`, 'failed', '', '', '', '']
        : [`  ${x.contender}`, rate(x.msgPerSec), x.mbPerSec.toFixed(1), x.cpuSec.toFixed(2), mib(x.rssPeak), i === 0 ? '' : ratio(x.speedRatio)],
    )
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)))
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ')
    console.log(line(header))
    for (const row of body) console.log(line(row))
    for (const x of rows) for (const f of x.failed) console.log(`  ! ${x.contender} ${f}`)
    console.log('')
  }
}

interface Header {
  date: string
  machine: ReturnType<typeof machine>
  versions: Record<string, string>
  rounds: number
  messages: number
  warmup: number
  inflight: number
  notes: string[]
}

function markdown(h: Header, summaries: Summary[]): string {
  const m = h.machine
  const scenarios = [...new Set(summaries.map((x) => x.scenario))]
  const contenders = [...new Set(summaries.map((x) => x.contender))]
  const find = (s: string, c: string) => summaries.find((x) => x.scenario === s && x.contender === c)!
  const out: string[] = [
    '<!-- Written by bench/producer.ts; do not edit by hand. -->',
    `Measured ${h.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.os}.`,
    `${fmt.format(h.messages)} messages (16-byte keys, 100-byte JSON values) per run, after ${fmt.format(h.warmup)} untimed warm-up messages, to a fresh ${PARTITIONS}-partition topic (replication ${REPLICATION}) on librdkafka 2.15's mock cluster (3 brokers, on this machine). Each contender runs in a child process of its own; ${h.rounds} round(s), interleaved, contender order rotating; figures are medians, and each "n×" is the median of the per-round ratios.`,
    `Versions: ${Object.entries(h.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    '',
    '**Messages per second** ("n×": wafka\'s rate divided by that contender\'s; above 1, wafka is faster)',
    '',
    `| | ${contenders.join(' | ')} |`,
    `|---|${contenders.map(() => '---:').join('|')}|`,
    ...scenarios.map((s) => `| ${s} | ${contenders.map((c, i) => cell(find(s, c), rate(find(s, c).msgPerSec), find(s, c).speedRatio, i === 0)).join(' | ')} |`),
    '',
    '**CPU seconds for the timed messages** (process.cpuUsage, user + system, every thread of the process; "n×": that contender\'s CPU time divided by wafka\'s)',
    '',
    `| | ${contenders.join(' | ')} |`,
    `|---|${contenders.map(() => '---:').join('|')}|`,
    ...scenarios.map((s) => `| ${s} | ${contenders.map((c, i) => cell(find(s, c), find(s, c).cpuSec.toFixed(2), find(s, c).cpuRatio, i === 0)).join(' | ')} |`),
    '',
    '**Peak RSS** (sampled every 50 ms from connect to the last acknowledgement; "n×": that contender\'s divided by wafka\'s)',
    '',
    `| | ${contenders.join(' | ')} |`,
    `|---|${contenders.map(() => '---:').join('|')}|`,
    ...scenarios.map((s) => `| ${s} | ${contenders.map((c, i) => cell(find(s, c), mib(find(s, c).rssPeak), find(s, c).rssRatio, i === 0)).join(' | ')} |`),
    '',
    '**Every figure**',
    '',
    '| scenario | contender | messages/s | slowest–fastest round | MB/s | CPU s | CPU s per M msgs | peak RSS | RSS above baseline | broker CPU s | wafka faster by | rounds ok |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...summaries.map((x) =>
      x.rounds === 0
        ? `| ${x.scenario} | ${x.contender} | failed | | | | | | | | | 0 |`
        : `| ${x.scenario} | ${x.contender} | ${rate(x.msgPerSec)} | ${rate(x.msgPerSecRange[0])}–${rate(x.msgPerSecRange[1])} | ${x.mbPerSec.toFixed(1)} | ${x.cpuSec.toFixed(2)} | ${x.cpuSecPerMillion.toFixed(2)} | ${mib(x.rssPeak)} | ${mib(x.rssAboveBaseline)} | ${x.brokerCpuSec.toFixed(2)} | ${x.contender === 'wafka' ? '' : ratio(x.speedRatio)} | ${x.rounds} |`,
    ),
    '',
    '**Settings**',
    '',
    ...contenders.map((c) => {
      const lines = scenarios.map((s) => `  - ${s}: ${find(s, c).settings}`)
      return [`- ${c}:`, ...lines].join('\n')
    }),
    '',
  ]
  const failures = summaries.flatMap((x) => x.failed.map((f) => `- ${x.contender}, ${x.scenario}, ${f}`))
  if (failures.length) out.push('**Failed runs**', '', ...failures, '')
  if (h.notes.length) out.push('Notes:', '', ...h.notes.map((n) => `- ${n}`), '')
  return out.join('\n')
}

/**
 * KafkaJS's idempotent producer asks the controller for a producer id, and
 * the mock names none until told: broker 1 is made the controller.
 * (@platformatic/kafka's problem with the mock, ApiVersions, is dealt with by
 * bench/support/api-versions-shim.ts.)
 */
async function prepareBroker(cluster: MockBroker): Promise<void> {
  await cluster.setControllerId(1)
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * Which wafka this run measures: the commit checked out at the start, whether
 * src/ or assembly/ differed from it, and whether either changed after this
 * bundle was built (then the figures are not that commit's: rebuild). Read-only
 * git commands only.
 */
function wafkaRevision(root: string, bundle: string): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' })
  const head = git('rev-parse', '--short', 'HEAD')
  let stamp = head.status === 0 ? head.stdout.trim() : packageVersion('wafka')
  if (head.status === 0) {
    const changed = git('diff', '--quiet', 'HEAD', '--', 'src', 'assembly').status !== 0
    const untracked = git('ls-files', '--others', '--exclude-standard', '--', 'src', 'assembly').stdout.trim() !== ''
    if (changed || untracked) stamp += ' with uncommitted changes in src/ or assembly/'
  }
  const stale = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'assembly'))) > statSync(bundle).mtimeMs
  if (stale) stamp += ' (STALE: src/ or assembly/ changed after this bundle was built; rebuild before trusting the figures)'
  return stamp
}

function option(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
}

async function parent(): Promise<void> {
  const args = process.argv.slice(2)
  const quick = args.includes('--quick')
  const messages = Number(option('messages') ?? (quick ? 100_000 : 1_000_000))
  const rounds = Number(option('rounds') ?? (quick ? 1 : 3))
  const inflight = Number(option('inflight') ?? 64)
  const confluentApi = option('confluent-api') === 'kafkajs' ? 'kafkajs' : 'standard'
  const warmup = Math.min(50_000, Math.round(messages / 10 / CHUNK) * CHUNK)
  const only = option('only')
  const scenarioFilter = option('scenario')
  const profile = option('profile')
  const contenders = CONTENDERS.filter((c) => !only || c.id.includes(only) || c.name.includes(only))
  const scenarios = SCENARIOS.filter((s) => !scenarioFilter || scenarioName(s).includes(scenarioFilter))
  const write = !quick && !only && !scenarioFilter && !profile && confluentApi === 'standard' && !option('inflight')
  const root = repositoryRoot()
  const profileDir = profile ? join(root, 'dist', 'bench', 'profiles') : null
  if (profileDir) mkdirSync(profileDir, { recursive: true })

  // Which wafka is measured, and a private copy of this bundle for the
  // children, so a rebuild of dist/ during the run (npm test builds it) cannot
  // change the code under test halfway. It sits beside the bundle so that
  // packages resolve the same way.
  const bundle = fileURLToPath(import.meta.url)
  const revision = wafkaRevision(root, bundle)
  if (revision.includes('STALE')) console.log(`warning: wafka ${revision}`)

  const { ckjsDir } = await peerBuild()
  const { Kafka } = await import('../src/index.js')
  const cluster = await MockBroker.start(3)
  await prepareBroker(cluster)
  const [host, port] = cluster.bootstrap.split(',')[0].split(':')
  const shim = await ApiVersionsShim.start(host, Number(port))
  const admin = new Kafka({ clientId: 'bench-check', brokers: cluster.bootstrap.split(',') }).admin()
  await admin.connect()
  console.log(
    `${contenders.length} contenders × ${scenarios.length} scenarios × ${rounds} round(s), ${fmt.format(messages)} messages each (+${fmt.format(warmup)} warm-up), mock cluster at ${cluster.bootstrap}`,
  )

  const runs: Run[] = []
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  let topicSeq = 0
  const snapshot = join(dirname(bundle), `.producer-run-${process.pid}.js`)
  copyFileSync(bundle, snapshot)
  try {
    for (let round = 0; round < rounds; round++) {
      for (const s of scenarios) {
        const shift = round % contenders.length
        const order = [...contenders.slice(shift), ...contenders.slice(0, shift)]
        for (const c of order) {
          const topic = `bench-${process.pid}-${++topicSeq}-${c.id}`
          await cluster.createTopic(topic, { partitions: PARTITIONS, replicationFactor: REPLICATION })
          const bootstrap = c.id === 'platformatic' ? shim.address : cluster.bootstrap
          const job: Job = { contender: c.id, bootstrap, topic, scenario: s, messages, warmup, inflight, confluentApi }
          const run: Run = { round, scenario: scenarioName(s), contender: c.name, topic, ok: false, messages, expected: messages + warmup }
          const shimBytes = shim.forwardedBytes
          const brokerCpu0 = cluster.cpuSeconds()
          try {
            run.result = await runChild(snapshot, job, profile && (c.id.includes(profile) || c.name.includes(profile)) ? profileDir : null)
            if (c.id === 'platformatic') run.shimBytes = shim.forwardedBytes - shimBytes
            run.brokerCpuSec = cluster.cpuSeconds() - brokerCpu0
            const offsets = await admin.fetchTopicOffsets(topic)
            run.highWatermarkSum = offsets.reduce((sum, p) => sum + Number(p.high), 0)
            if (run.highWatermarkSum !== run.expected) {
              throw new Error(`the topic's high watermarks add up to ${run.highWatermarkSum}, not the ${run.expected} messages sent`)
            }
            run.ok = true
            run.msgPerSec = messages / (run.result.wallMs / 1000)
            run.mbPerSec = (run.msgPerSec * (KEY_BYTES + VALUE_BYTES)) / 1e6
          } catch (err) {
            run.error = (err as Error).message
          }
          runs.push(run)
          const r = run.result
          console.log(
            `round ${round + 1}, ${scenarioName(s)}, ${c.name}: ${
              run.ok ? `${rate(run.msgPerSec!)}, ${run.mbPerSec!.toFixed(1)} MB/s, CPU ${r!.cpuSec.toFixed(2)} s (broker ${run.brokerCpuSec!.toFixed(2)} s for the whole child), peak RSS ${mib(r!.rssPeak)}` : `FAILED: ${run.error}`
            }${run.shimBytes !== undefined ? ` [${fmt.format(run.shimBytes)} request bytes via the shim]` : ''} (${elapsed()})`,
          )
          await cluster.deleteTopic(topic).catch(() => {})
          // Let the mock settle (and free the topic) before the next contender.
          await sleep(200)
        }
      }
    }
  } finally {
    await admin.disconnect().catch(() => {})
    await shim.close()
    await cluster.stop()
    rmSync(snapshot, { force: true })
  }

  const summaries = summarize(runs, scenarios, contenders, inflight)
  console.log('')
  printTables(summaries)
  const notes = [
    `Every client gets the same pre-made Buffers: ${fmt.format(POOL)} distinct key/value pairs (bench/support/data.ts, fixed seed), message i using pair i mod ${fmt.format(POOL)}. The promise-based clients (wafka, KafkaJS, @platformatic/kafka) get them as send() calls of ${fmt.format(CHUNK)} messages, built as the call is made, ${inflight} calls in flight at a time (the next starts when one resolves, i.e. when its messages are acknowledged).`,
    '@confluentinc/kafka-javascript runs through its Standard (node-rdkafka) API, which its INTRODUCTION.md calls the more performant one for high volumes: produce() per message with a delivery-report event each, polled on librdkafka\'s background thread (setPollInBackground, which the same page calls the more efficient for high-throughput producers). A run ends when every delivery report is in.',
    'acks=1 runs are not idempotent (idempotence needs acks=all); acks=all runs are idempotent in every client, as wafka and the Java client are by default. KafkaJS\'s idempotent producer sends one request at a time per broker; @platformatic/kafka\'s forces maxInflights to 1 (5 otherwise); wafka keeps up to 5 in flight per broker either way; librdkafka up to 5 when idempotent (its max.in.flight default, 1,000,000, otherwise).',
    'KafkaJS and @platformatic/kafka have no linger or batch-size setting: a send() becomes one Produce request per broker holding that call\'s messages (about 21 per partition here), so their batching is set by the caller\'s chunk size. wafka and librdkafka batch per partition across calls (linger 5 ms, batch size 16 KiB).',
    'MB/s counts key + value bytes (116 per message), not protocol overhead.',
    'CPU is process.cpuUsage() over the timed part: every thread of the client process, so librdkafka\'s own threads and libuv\'s are in it. The broker (the mock cluster, a separate process) is not, but it shares the machine\'s cores with the client.',
    'Peak RSS includes each process\'s baseline (Node, the client\'s code, the 65,536-pair data pool); "RSS above baseline" in the full table subtracts the RSS measured just before connecting.',
    'Correctness: after each run the parent reads the topic\'s high watermarks with wafka\'s admin fetchTopicOffsets; a run whose partitions do not add up to exactly the warm-up plus timed messages is reported failed and left out of the figures.',
    'The broker is librdkafka\'s mock cluster, which needs three settings for every contender to work with it at all. (1) @platformatic/kafka only speaks ApiVersions v3 and gives up on the UNSUPPORTED_VERSION answer (the protocol says retry v0, as the others do), and the mock\'s own v3 answer is malformed when widened: it bootstraps through bench/support/api-versions-shim.ts, a small proxy in front of broker 1 that answers ApiVersions v3 itself (with the versions the broker gives v0) and passes everything else through; Metadata then sends it to the brokers directly, so only bootstrap requests (about 100 bytes a run, logged) go through the shim. (2) @platformatic/kafka\'s idempotent producer sends InitProducerId with producer id 0 and epoch 0, which the mock reads as a KIP-360 epoch bump of an unknown producer and refuses (Kafka lets it pass for non-transactional producers): it is given producerId -1n and producerEpoch -1, what the protocol says a new producer sends. (3) KafkaJS\'s idempotent producer asks the controller for its producer id, and the mock names no controller until told: broker 1 is made controller.',
    'A quick check of @confluentinc/kafka-javascript\'s KafkaJS-compatible API (--confluent-api=kafkajs: send() in the same window as the others; it wraps the same produce() with a promise per message) gave about half its Standard API\'s rate on this machine, so the Standard API is what is compared.',
    'The machine is small: its cores are shared by the client (with librdkafka\'s and libuv\'s threads) and the broker, and the rounds vary (the slowest–fastest column). @confluentinc/kafka-javascript varies most: in its slow rounds its CPU time per message and the broker\'s both rise, i.e. it sent more, smaller requests. Read the ratios, not the absolute figures.',
    'Broker CPU (full table) is the mock cluster process\'s CPU time from /proc while the contender\'s child ran, warm-up and connecting included: how hard each client made the broker work.',
    'The mock cluster reads a Produce request\'s acks and does nothing else with it (it has no real replication), so acks=1 and acks=all differ here only by the clients\' own work (idempotence, in-flight limits), not by replication latency.',
  ]
  if (!write) {
    console.log('(--quick, --only, --scenario, --profile, --inflight or --confluent-api: results not written)')
    return
  }
  const header: Header = {
    date: new Date().toISOString(),
    machine: machine(),
    versions: {
      wafka: revision,
      kafkajs: packageVersion('kafkajs'),
      'kafkajs-lz4': packageVersion('kafkajs-lz4'),
      '@platformatic/kafka': packageVersion('@platformatic/kafka'),
      '@confluentinc/kafka-javascript': JSON.parse(readFileSync(join(ckjsDir, 'package.json'), 'utf8')).version,
      librdkafka: JSON.parse(readFileSync(join(ckjsDir, 'package.json'), 'utf8')).librdkafka ?? '2.15',
    },
    rounds,
    messages,
    warmup,
    inflight,
    notes,
  }
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'producer.json'), `${JSON.stringify({ ...header, summaries, runs }, null, 2)}\n`)
  writeFileSync(join(dir, 'producer.md'), markdown(header, summaries))
  console.log(`wrote ${join(dir, 'producer.json')} and producer.md (${elapsed()})`)
}

const childAt = process.argv.indexOf('--child')
if (childAt >= 0) {
  const job = JSON.parse(process.argv[childAt + 1]) as Job
  try {
    const result = await child(job)
    process.send!({ result }, () => process.exit(0))
  } catch (err) {
    process.send!({ error: (err as Error).stack ?? String(err) }, () => process.exit(1))
  }
} else {
  await parent()
}
