/**
 * End-to-end producer throughput: wafka beside KafkaJS, @platformatic/kafka,
 * @confluentinc/kafka-javascript (librdkafka 2.15) and kcat (librdkafka's C
 * client as a command, bench/support/kcat-contender.ts), in one run against
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
 *   node --expose-gc dist/bench/producer.js [--target=mock|kafka] [--cold] [--quick] [--messages=N]
 *     [--rounds=N] [--only=<contender>] [--scenario=<text>] [--inflight=N]
 *     [--confluent-api=kafkajs] [--profile=<contender>]
 *
 * --target=kafka runs the same contest on one real Apache Kafka broker started
 * by the test rig (test/peers/kafka.ts; Java 17 and the Maven jars), with the
 * Java client in it through Kafka's own ProducerPerformance (bench/support/java-contender.ts),
 * and writes bench/results/producer-kafka.json and .md instead.
 * Needs the real peers (test/peers/README.md: `node test/peers/build.mjs
 * --install` builds the mock cluster and @confluentinc/kafka-javascript).
 * --cold: no warm-up, each client's clock starting before it connects, as a
 * fresh process sends its first messages; writes producer-cold.* (or
 * producer-kafka-cold.*). --quick: 100,000 messages, 1 round. --only and --scenario narrow the run;
 * --inflight changes the window of send() calls (64); --confluent-api=kafkajs
 * runs that client through its KafkaJS-compatible API instead; --profile runs
 * that contender's children with --cpu-prof (profiles in dist/bench/profiles/).
 * Results are written by a full, default run only.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfluent, loadKafkaJS, type Rig, startRig, windowed } from './support/clients.js'
import {
  type ChildResult,
  ChildMeter,
  type ContenderId,
  type ContestHeader,
  type ContestRun,
  type Target,
  childMain,
  contestHeader,
  contestOptions,
  fmt,
  printTables,
  runContest,
  summarize,
  writeResults,
} from './support/contest.js'
import { MESSAGE_POOL as POOL, messagePool } from './support/data.js'
import { option } from './support/environment.js'
import { JAVA_CLIENT_OPTIONS, producerPerformanceRate, runJavaTool } from './support/java-contender.js'
import { kcatInputFile, runKcat } from './support/kcat-contender.js'
import { channelsFlag, subscribeChannels } from './support/channels.js'
import { otelFlag, registerOtel } from './support/otel.js'

// ---- the workload -----------------------------------------------------------

// Partitions, messages per send() for the promise-based clients, linger, batch size, the warm-up:
// shared with `wafka bench produce` (src/cli/bench/wafka-producer.ts).
import { PRODUCE_WORKLOAD, warmupFor } from '../src/cli/bench/wafka-producer.js'
const { partitions: PARTITIONS, chunk: CHUNK, lingerMs: LINGER_MS, batchSize: BATCH_BYTES } = PRODUCE_WORKLOAD
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

/** What each client is told, per scenario: the report prints it. */
function settings(id: ContenderId, s: Scenario, inflight: number, target: Target, cold: boolean): string {
  const idem = s.acks === -1
  const window = `${inflight} send() calls of ${CHUNK} messages in flight`
  switch (id) {
    case 'wafka':
      return `producer({ acks: ${s.acks === -1 ? "'all'" : 1}, idempotent: ${idem}, lingerMs: ${LINGER_MS}, batchSize: ${BATCH_BYTES}, compression: '${s.compression}' }), other options default (maxInFlight 5 per broker, bufferMemory 32 MiB); ${window}`
    case 'kafkajs':
      return `producer({ idempotent: ${idem}, allowAutoTopicCreation: false, createPartitioner: DefaultPartitioner }), send({ acks: ${s.acks}, compression: ${s.compression === 'lz4' ? 'LZ4 (kafkajs-lz4)' : 'None'} }); no linger or batch size: each send() is one Produce request per broker${idem ? ' (idempotent: one request at a time per broker)' : ''}; ${window}`
    case 'platformatic':
      return `new Producer({ acks: ${s.acks}, idempotent: ${idem}, compression: '${s.compression}', autocreateTopics: false${idem && target === 'mock' ? ', producerId: -1n, producerEpoch: -1' : ''} }), other options default (maxInflights 5${idem ? ', forced to 1 by idempotent' : ''}); no linger or batch size: each send() is one Produce request per broker; ${window}`
    case 'java':
      return `ProducerPerformance (kafka-tools) in a JVM of its own (${JAVA_CLIENT_OPTIONS.join(' ')}): --num-records N --throughput -1 --payload-file (the same 100-byte values) --key-distribution range --record-key-range ${POOL} (keys "0".."${POOL - 1}", 1 to 5 bytes), --command-property acks=${s.acks === -1 ? 'all' : 1} enable.idempotence=${idem} linger.ms=${LINGER_MS} batch.size=${BATCH_BYTES} compression.type=${s.compression}, the Java client's other defaults (max.in.flight.requests.per.connection 5, buffer.memory 32 MiB); send() per record with a callback, as fast as the buffer allows${cold ? '; no warm-up invocation' : "; a warm-up invocation of the same size as the others' in the same JVM first"}`
    case 'kcat':
      return `kcat -P -K '\\t' (one key<TAB>value line a message, from a file of the same keys and values in the same order) -X acks=${s.acks === -1 ? 'all' : 1} -X enable.idempotence=${idem} -X linger.ms=${LINGER_MS} -X batch.size=${BATCH_BYTES}${s.compression === 'none' ? '' : ` -z ${s.compression}`} -X partitioner=murmur2_random, librdkafka's other defaults (queue.buffering.max.messages 100,000, max.in.flight 1,000,000${idem ? ', 5 when idempotent' : ''}); no warm-up: the clock runs from starting it to its exit, once every message is acknowledged`
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
  target: Target
  /** --cold: no warm-up, and the clock starts before the client connects (a fresh process's first messages). */
  cold: boolean
  /** @confluentinc/kafka-javascript: its Standard API (default) or its KafkaJS-compatible one. */
  confluentApi?: 'standard' | 'kafkajs'
  /** --channels: wafka's tracing channels subscribed (bench/support/channels.ts). */
  channels?: boolean
  /** --otel: the OpenTelemetry SDK registered with wafka/otel on (bench/support/otel.ts). */
  otel?: boolean
}

interface Driver {
  connect(): Promise<void>
  /** Sends messages [from, to) and resolves once every one is acknowledged. */
  produce(from: number, to: number): Promise<void>
  close(): Promise<void>
}

async function wafkaDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  // The same driver wafka bench produce runs (imported here, not above, so a peer's child never loads wafka).
  const { wafkaProducer } = await import('../src/cli/bench/wafka-producer.js')
  const s = job.scenario
  return wafkaProducer(
    { clientId: 'bench-wafka', brokers: job.bootstrap.split(',') },
    { acks: s.acks === -1 ? 'all' : 1, idempotent: s.acks === -1, lingerMs: LINGER_MS, batchSize: BATCH_BYTES, compression: s.compression },
    { topic: job.topic, inflight: job.inflight, chunk: CHUNK },
    keys,
    values,
  )
}

async function kafkajsDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const s = job.scenario
  const { Kafka, CompressionTypes, Partitioners, logLevel } = loadKafkaJS(s.compression)
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
      windowed(from, to, job.inflight, CHUNK, (a, b) => {
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
    // that pass for a non-transactional producer, the mock refuses it. On
    // Kafka the override breaks its idempotent produce, so there it keeps its default.
    ...(s.acks === -1 && job.target === 'mock' ? { producerId: -1n, producerEpoch: -1 } : {}),
  })
  const mask = POOL - 1
  const topic = job.topic
  return {
    // It connects on first use: ask for the topic's metadata so the timed part starts connected.
    connect: async () => {
      await producer.metadata({ topics: [topic] })
    },
    produce: (from, to) =>
      windowed(from, to, job.inflight, CHUNK, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { topic, key: keys[i & mask], value: values[i & mask] }
        return producer.send({ messages })
      }),
    close: () => producer.close(),
  }
}

const ERR_QUEUE_FULL = -184

async function confluentDriver(job: Job, keys: Buffer[], values: Buffer[]): Promise<Driver> {
  const Kafka = await loadConfluent()
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
      for (let i = from; i < to;) {
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
  const { Kafka, logLevel, CompressionTypes } = (await loadConfluent()).KafkaJS
  const s = job.scenario
  const producer = new Kafka({
    kafkaJS: { clientId: 'bench-confluent', brokers: job.bootstrap.split(','), logLevel: logLevel.NOTHING },
  }).producer({
    kafkaJS: {
      acks: s.acks,
      idempotent: s.acks === -1,
      compression: s.compression === 'lz4' ? CompressionTypes.LZ4 : CompressionTypes.None,
    },
    'linger.ms': LINGER_MS,
    'batch.size': BATCH_BYTES,
    partitioner: 'murmur2_random',
  })
  const mask = POOL - 1
  return {
    connect: () => producer.connect(),
    produce: (from, to) =>
      windowed(from, to, job.inflight, CHUNK, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
        return producer.send({ topic: job.topic, messages })
      }),
    close: () => producer.disconnect(),
  }
}

const drivers: Record<Exclude<ContenderId, 'java' | 'kcat'>, (job: Job, keys: Buffer[], values: Buffer[]) => Promise<Driver>> = {
  wafka: wafkaDriver,
  kafkajs: kafkajsDriver,
  platformatic: platformaticDriver,
  confluent: confluentDriver,
}

async function child(job: Job): Promise<ChildResult> {
  const { keys, values } = messagePool()
  const make =
    job.contender === 'confluent' && job.confluentApi === 'kafkajs'
      ? confluentKafkaJSDriver
      : drivers[job.contender as Exclude<ContenderId, 'java' | 'kcat'>]
  const traced = job.channels && job.contender === 'wafka' ? await subscribeChannels() : null
  const spans = job.otel && job.contender === 'wafka' ? await registerOtel() : null
  const driver = await make(job, keys, values)
  const meter = new ChildMeter()
  if (job.cold) meter.start()
  await driver.connect()
  // Warm-up: the same kind of traffic, untimed, so JIT compilation and the first
  // metadata and connection setup are not in the figures. It goes to the same topic.
  if (job.warmup > 0) await driver.produce(0, job.warmup)
  if (!job.cold) meter.start()
  await driver.produce(job.warmup, job.warmup + job.messages)
  const result = meter.stop()
  await driver.close()
  if (traced && traced() === 0) throw new Error('--channels: no channel event was seen')
  if (spans && (await spans()) === 0) throw new Error('--otel: no span was exported')
  return result
}

// ---- parent: the run -----------------------------------------------------------

/** The pool's values, one a line, for ProducerPerformance's --payload-file: the Java client sends the same bytes. */
function javaPayloadFile(root: string): string {
  const { values } = messagePool()
  if (values.some((v) => v.includes(10))) throw new Error('a bench value holds a newline: it cannot go in a payload file')
  const dir = join(root, 'dist', 'bench', 'java')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'payload-100.txt')
  writeFileSync(file, `${values.map((v) => v.toString('latin1')).join('\n')}\n`)
  return file
}

interface Run extends ContestRun {
  topic: string
  /** Sum of the topic's high watermarks, and what it should be (warm-up + timed). */
  highWatermarkSum?: number
  expected: number
  /** @platformatic/kafka only: bytes of requests that went through the ApiVersions shim (bootstrap traffic). */
  shimBytes?: number
}

interface Header extends ContestHeader {
  rounds: number
  messages: number
  warmup: number
  inflight: number
}

function workload(h: Header, rig: Rig): string {
  const start =
    h.warmup > 0
      ? `after ${fmt.format(h.warmup)} untimed warm-up messages`
      : 'cold (--cold): no warm-up, the clock started before the client connects (the Java client: its own figure, from its first send)'
  return `${fmt.format(h.messages)} messages (16-byte keys, 100-byte JSON values) per run, ${start}, to a fresh ${PARTITIONS}-partition topic (replication ${rig.replication}) on ${rig.description}. Each contender runs in a child process of its own; ${h.rounds} round(s), interleaved, contender order rotating; figures are medians, and each "n×" is the median of the per-round ratios.`
}

async function parent(): Promise<void> {
  const options = contestOptions(import.meta.url, SCENARIOS, scenarioName)
  const { messages, rounds, confluentApi, contenders, scenarios, elapsed } = options
  const inflight = Number(option('inflight') ?? PRODUCE_WORKLOAD.inflight)
  const cold = process.argv.includes('--cold')
  const warmup = cold ? 0 : warmupFor(messages)
  const write = !options.partial && !option('inflight')

  const rig = await startRig(options.target)
  const { cluster, admin } = rig
  console.log(
    `${contenders.length} contenders × ${scenarios.length} scenarios × ${rounds} round(s), ${fmt.format(messages)} messages each (+${fmt.format(warmup)} warm-up), ${rig.description} at ${cluster.bootstrap}`,
  )
  const payloadFile = rig.kafka ? javaPayloadFile(options.root) : ''

  let topicSeq = 0
  let runs: Run[]
  try {
    runs = await runContest<Scenario, Run>('producer', options, rig, CHILD_TIMEOUT_MS, {
      // A fresh topic per run.
      start: async (round, s, c) => {
        const topic = `bench-${process.pid}-${++topicSeq}-${c.id}`
        await rig.createTopic(topic, PARTITIONS)
        // kcat is a C program with nothing to warm up; every other client warms up first, in the same process.
        const runWarmup = c.id === 'kcat' ? 0 : warmup
        const job: Job = {
          contender: c.id,
          bootstrap: rig.bootstrapFor(c.id),
          topic,
          scenario: s,
          messages,
          warmup: runWarmup,
          inflight,
          target: rig.target,
          cold,
          confluentApi,
          channels: channelsFlag(),
          otel: otelFlag(),
        }
        return {
          job,
          run: { round, scenario: scenarioName(s), contender: c.name, topic, ok: false, messages, expected: messages + runWarmup },
        }
      },
      check: async (run) => {
        const offsets = await admin.fetchTopicOffsets(run.topic)
        run.highWatermarkSum = offsets.reduce((sum, p) => sum + Number(p.high), 0)
        if (run.highWatermarkSum !== run.expected) {
          throw new Error(`the topic's high watermarks add up to ${run.highWatermarkSum}, not the ${run.expected} messages sent`)
        }
      },
      // Frees the topic's memory in the mock, its disk on a broker.
      end: (run) => rig.deleteTopic(run.topic).catch(() => {}),
      external: (_run, job, timeoutMs, contender) => {
        const j = job as Job
        if (contender === 'kcat') {
          const idem = j.scenario.acks === -1
          return runKcat(
            [
              '-P',
              '-b',
              j.bootstrap,
              '-t',
              j.topic,
              '-K',
              '\\t',
              ...(j.scenario.compression === 'none' ? [] : ['-z', j.scenario.compression]),
              ...['acks=' + (idem ? 'all' : '1'), `enable.idempotence=${idem}`, `linger.ms=${LINGER_MS}`, `batch.size=${BATCH_BYTES}`]
                .concat(['partitioner=murmur2_random', 'client.id=bench-kcat'])
                .flatMap((p) => ['-X', p]),
            ],
            { input: kcatInputFile(j.messages), timeoutMs },
          )
        }
        const args = (n: number) => [
          '--topic',
          j.topic,
          '--num-records',
          String(n),
          '--throughput',
          '-1',
          '--payload-file',
          payloadFile,
          '--key-distribution',
          'range',
          '--record-key-range',
          String(POOL),
          '--command-property',
          `bootstrap.servers=${j.bootstrap}`,
          `acks=${j.scenario.acks === -1 ? 'all' : 1}`,
          `enable.idempotence=${j.scenario.acks === -1}`,
          `linger.ms=${LINGER_MS}`,
          `batch.size=${BATCH_BYTES}`,
          `compression.type=${j.scenario.compression}`,
          'client.id=bench-java',
        ]
        return runJavaTool(
          rig.kafka!.classPath,
          'org.apache.kafka.tools.ProducerPerformance',
          j.warmup > 0 ? args(j.warmup) : [],
          args(j.messages),
          producerPerformanceRate(j.messages),
          timeoutMs,
        )
      },
    })
  } finally {
    await rig.close()
  }

  const summaries = summarize(runs, scenarios.map(scenarioName), contenders, (id, i) =>
    settings(id, scenarios[i], inflight, rig.target, cold),
  )
  console.log('')
  printTables(summaries)
  const notes = [
    `Every client gets the same pre-made Buffers: ${fmt.format(POOL)} distinct key/value pairs (bench/support/data.ts, fixed seed), message i using pair i mod ${fmt.format(POOL)}. The promise-based clients (wafka, KafkaJS, @platformatic/kafka) get them as send() calls of ${fmt.format(CHUNK)} messages, built as the call is made, ${inflight} calls in flight at a time (the next starts when one resolves, i.e. when its messages are acknowledged).`,
    "@confluentinc/kafka-javascript runs through its Standard (node-rdkafka) API, which its INTRODUCTION.md calls the more performant one for high volumes: produce() per message with a delivery-report event each, polled on librdkafka's background thread (setPollInBackground, which the same page calls the more efficient for high-throughput producers). A run ends when every delivery report is in.",
    "acks=1 runs are not idempotent (idempotence needs acks=all); acks=all runs are idempotent in every client, as wafka and the Java client are by default. KafkaJS's idempotent producer sends one request at a time per broker; @platformatic/kafka's forces maxInflights to 1 (5 otherwise); wafka keeps up to 5 in flight per broker either way; librdkafka up to 5 when idempotent (its max.in.flight default, 1,000,000, otherwise).",
    "KafkaJS and @platformatic/kafka have no linger or batch-size setting: a send() becomes one Produce request per broker holding that call's messages (about 21 per partition here), so their batching is set by the caller's chunk size. wafka and librdkafka batch per partition across calls (linger 5 ms, batch size 16 KiB).",
    "kcat (librdkafka's C client as a command, the system's kcat and the librdkafka it links) reads the same keys and values, in the same order, from a file of key<TAB>value lines on its stdin and produces each line as a message, with the same linger, batch size and partitioner (murmur2, as the others hash keys) as wafka. It is the native reference: no runtime, no JIT, so no warm-up; its clock runs from starting the process to its exit, after the last delivery report, so starting, connecting and flushing are in it, and its CPU (bash's `times` once it exits) and peak RSS (VmHWM) are the whole process's.",
    'MB/s counts key + value bytes (116 per message), not protocol overhead.',
    `CPU is process.cpuUsage() over the timed part: every thread of the client process, so librdkafka's own threads and libuv's are in it. The broker (${rig.target === 'kafka' ? 'a JVM' : 'the mock cluster'}, a separate process) is not, but it shares the machine's cores with the client.`,
    'Peak RSS includes each process\'s baseline (Node, the client\'s code, the 65,536-pair data pool); "RSS above baseline" in the full table subtracts the RSS measured just before connecting.',
    "Correctness: after each run the parent reads the topic's high watermarks with wafka's admin fetchTopicOffsets; a run whose partitions do not add up to exactly the warm-up plus timed messages is reported failed and left out of the figures.",
    "The machine is small: its cores are shared by the client (with librdkafka's and libuv's threads) and the broker, and the rounds vary (the slowest–fastest column). @confluentinc/kafka-javascript varies most: in its slow rounds its CPU time per message and the broker's both rise, i.e. it sent more, smaller requests. Read the ratios, not the absolute figures.",
    `Broker CPU (full table) is the ${rig.target === 'kafka' ? 'Kafka broker' : 'mock cluster'} process's CPU time from /proc while the contender's child ran, warm-up and connecting included: how hard each client made the broker work.`,

    ...(rig.target === 'kafka'
      ? [
          "The broker is one real Apache Kafka broker (KRaft, broker and controller in one JVM, -Xmx512m, SerialGC) on this machine, started fresh for the run by the test rig (test/peers/kafka.ts); every client speaks to it as it is, with no shim and no settings of the mock's. Topics have replication 1, so acks=all waits for the one replica's log append only.",
          `The Java client runs as Kafka's own ProducerPerformance (kafka-tools), inside bench/java/PerfRun.java: one JVM per run (-Xmx512m, SerialGC, as every JVM on this 2-core machine), ${cold ? 'one invocation, with no warm-up.' : 'an untimed invocation with the warm-up count to the same topic first, then the timed one.'} Its messages/s is the tool's own figure (from its first send to its last acknowledgement); its CPU is the JVM's process CPU time (every thread: client, GC, JIT) over the whole timed invocation, so creating and closing its producer is in it; its peak RSS is the JVM's VmHWM, the peak of the whole process. It sends the same 100-byte values (--payload-file, picked at random per record), but its keys are the decimal strings 0..65535 (1 to 5 bytes) rather than the 16-byte keys the Node clients send, so its MB/s, counted as 116 bytes a message like the others', overstates its bytes slightly.`,
          'The machine is 2 cores shared with other work (other sessions were running tests and JVMs during this run): the absolute figures are noisy; the per-round ratios, above all CPU per message, are the comparable figures.',
          "@platformatic/kafka's idempotent producer (the acks=all scenarios) fails on real Kafka: the broker answers OUT_OF_ORDER_SEQUENCE_NUMBER once several send() calls are in flight (the mock does not check sequence numbers, so it passes there). Those runs are reported failed and left out of the figures.",
        ]
      : [
          "The broker is librdkafka's mock cluster, which needs three settings for every contender to work with it at all. (1) @platformatic/kafka only speaks ApiVersions v3 and gives up on the UNSUPPORTED_VERSION answer (the protocol says retry v0, as the others do), and the mock's own v3 answer is malformed when widened: it bootstraps through bench/support/api-versions-shim.ts, a small proxy in front of broker 1 that answers ApiVersions v3 itself (with the versions the broker gives v0) and passes everything else through; Metadata then sends it to the brokers directly, so only bootstrap requests (about 100 bytes a run, logged) go through the shim. (2) @platformatic/kafka's idempotent producer sends InitProducerId with producer id 0 and epoch 0, which the mock reads as a KIP-360 epoch bump of an unknown producer and refuses (Kafka lets it pass for non-transactional producers): it is given producerId -1n and producerEpoch -1, what the protocol says a new producer sends. (3) KafkaJS's idempotent producer asks the controller for its producer id, and the mock names no controller until told: broker 1 is made controller.",
          "The mock cluster reads a Produce request's acks and does nothing else with it (it has no real replication), so acks=1 and acks=all differ here only by the clients' own work (idempotence, in-flight limits), not by replication latency.",
          "A quick check of @confluentinc/kafka-javascript's KafkaJS-compatible API (--confluent-api=kafkajs: send() in the same window as the others; it wraps the same produce() with a promise per message) gave about half its Standard API's rate on this machine, so the Standard API is what is compared.",
        ]),
  ]
  if (!write) {
    console.log('(--quick, --only, --scenario, --profile, --inflight or --confluent-api: results not written)')
    return
  }
  const header: Header = {
    ...contestHeader(options, rig),
    warmup,
    inflight,
    notes,
  }
  const text = { script: 'bench/producer.ts', workload: workload(header, rig), timedUntil: 'the last acknowledgement' }
  console.log(
    `${writeResults(`${rig.target === 'kafka' ? 'producer-kafka' : 'producer'}${cold ? '-cold' : ''}`, options.root, header, text, summaries, runs)} (${elapsed()})`,
  )
}

if (!(await childMain(child))) await parent()
