/**
 * End-to-end consumer throughput: wafka beside KafkaJS, @platformatic/kafka,
 * @confluentinc/kafka-javascript (librdkafka 2.15) and kcat (librdkafka's C
 * client as a command, bench/support/kcat-contender.ts), in one run against
 * the same broker — librdkafka's mock cluster (3 brokers), as
 * bench/producer.ts uses it.
 *
 * Per scenario (uncompressed, lz4) the parent produces the messages once,
 * with wafka's producer, to a 48-partition topic, and checks that every
 * partition holds all it was given (the mock keeps only ~5 MiB a partition,
 * dropping its oldest batches). Then every (round, scenario, contender) is a
 * child process of its own that reads the whole topic from the beginning
 * with a fresh consumer group, through the client's batch-level API where it
 * has one. The timer runs from subscribing to the last message, so it
 * includes joining the group (on the mock, ~20 to ~130 ms; the time to the
 * first message is reported beside it). The child checks that it got every
 * message of every partition, and every key and value byte. The
 * contenders' order rotates each round. Prints tables and writes
 * bench/results/consumer.json and consumer.md.
 *
 *   npm run bench:consumer      (builds, then runs it in full)
 *   node --expose-gc dist/bench/consumer.js [--target=mock|kafka] [--quick] [--messages=N]
 *     [--rounds=N] [--only=<contender>] [--scenario=<text>]
 *     [--confluent-api=kafkajs] [--profile=<contender>]
 *
 * --target=kafka runs the same contest on one real Apache Kafka broker started
 * by the test rig (test/peers/kafka.ts; Java 17 and the Maven jars), with the
 * Java client in it through Kafka's own ConsumerPerformance (bench/support/java-contender.ts),
 * and writes bench/results/consumer-kafka.json and .md instead.
 * Needs the real peers (test/peers/README.md: `node test/peers/build.mjs
 * --install` builds the mock cluster and @confluentinc/kafka-javascript).
 * --quick: 100,000 messages, 1 round. --only and --scenario narrow the run;
 * --confluent-api=kafkajs runs that client through its KafkaJS-compatible
 * API (eachBatch) instead of its Standard one; --profile runs that
 * contender's children with --cpu-prof (profiles in dist/bench/profiles/).
 * Options take `--name=value` or `--name value`. Results are written by a
 * run without --quick, --only, --scenario, --profile or --confluent-api.
 */
import type { Admin } from '../src/admin/admin.js'
import { loadConfluent, loadKafkaJS, type Rig, startRig } from './support/clients.js'
import {
  ChildMeter,
  type ContenderId,
  type ContestHeader,
  type ContestRun,
  childMain,
  contestHeader,
  contestOptions,
  fmt,
  printTables,
  runContest,
  summarize,
  writeResults,
} from './support/contest.js'
import { JAVA_CLIENT_OPTIONS, consumerPerformanceRate, runJavaTool } from './support/java-contender.js'
import { runKcat } from './support/kcat-contender.js'
import { watchedConsume } from './support/watched-consume.js'
import { MESSAGE_KEY_BYTES as KEY_BYTES, MESSAGE_POOL as POOL, MESSAGE_VALUE_BYTES as VALUE_BYTES, messagePool } from './support/data.js'

// ---- the workload -----------------------------------------------------------

// Partitions, and how the data is produced: shared with `wafka bench consume` (src/cli/bench/wafka-consumer.ts).
import { CONSUME_WORKLOAD } from '../src/cli/bench/wafka-consumer.js'
import { channelsFlag, subscribeChannels } from './support/channels.js'
import { otelFlag, registerOtel } from './support/otel.js'
const {
  partitions: PARTITIONS,
  dataBatchBytes: DATA_BATCH_BYTES,
  dataLingerMs: DATA_LINGER_MS,
  dataChunk: DATA_CHUNK,
  dataInflight: DATA_INFLIGHT,
} = CONSUME_WORKLOAD
/** Messages per consume() call of @confluentinc/kafka-javascript's Standard API. */
const CONFLUENT_CONSUME_BATCH = 1000
/** The child gives up (and the run is marked failed) after this long. */
const CHILD_TIMEOUT_MS = 240_000
/** A child's own limits, shorter, so it can say how far it got: in all, and without a new message. */
const CHILD_GIVE_UP_MS = CHILD_TIMEOUT_MS - 15_000
const CHILD_STALL_MS = 30_000
/** How long a child waits for its client to close once the messages are in (not timed). */
const CLOSE_TIMEOUT_MS = 15_000

type Compression = 'none' | 'lz4'

interface Scenario {
  compression: Compression
}

const SCENARIOS: Scenario[] = [{ compression: 'none' }, { compression: 'lz4' }]

const scenarioName = (s: Scenario) => (s.compression === 'none' ? 'uncompressed' : s.compression)

type ConfluentApi = 'standard' | 'kafkajs'

/** What each client is told: the report prints it. */
function settings(id: ContenderId, confluentApi: ConfluentApi): string {
  switch (id) {
    case 'wafka':
      return 'consumer({ groupId }) with its default fetch settings, subscribe({ topics, fromBeginning: true }), run({ eachBatch }): counts batch.messages and reads every key and value'
    case 'kafkajs':
      return 'consumer({ groupId }) with its defaults (maxBytes 10 MiB, maxBytesPerPartition 1 MiB, minBytes 1, maxWaitTimeInMs 5000, autoCommit), subscribe({ topics, fromBeginning: true }), run({ eachBatch }) (eachBatchAutoResolve, partitionsConsumedConcurrently 1); lz4 through kafkajs-lz4'
    case 'platformatic':
      return "new Consumer({ groupId }) with its defaults (maxBytes 10 MiB, maxWaitTime 5000, highWaterMark 1024, autocommit), consume({ topics, mode: 'committed', fallbackMode: 'earliest' }): a Readable stream, one 'data' event per message (it has no batch-level API)"
    case 'java':
      return `ConsumerPerformance (kafka-tools) in a JVM of its own (${JAVA_CLIENT_OPTIONS.join(' ')}): --topic --group (fresh) --num-records N --timeout 30000 --hide-header, the Java client's defaults otherwise (fetch.max.bytes 50 MiB, max.partition.fetch.bytes 1 MiB, max.poll.records 500, the tool's 2 MiB receive buffer, auto.offset.reset earliest); a poll() loop that adds up each record's key and value sizes; no warm-up (as the Node contenders, its first run in the process)`
    case 'kcat':
      return "kcat -C -G <fresh group> <topic> -X auto.offset.reset=earliest -c N -f '%k%s' -q, librdkafka's other consumer defaults (fetch.max.bytes 50 MiB, max.partition.fetch.bytes 1 MiB, queued.max.messages.kbytes 64 MiB): every key and value written to its stdout, whose bytes the benchmark counts (N × 116 or the run fails); the clock runs from starting it to the last byte of the Nth message (group join included; its close, which leaves the group, is not timed, as the Node clients' is not), its CPU over the whole process"
    case 'confluent':
      return confluentApi === 'standard'
        ? `Standard (node-rdkafka) API: KafkaConsumer({ 'group.id', 'auto.offset.reset': 'earliest' }) with librdkafka's defaults (fetch.max.bytes 50 MiB, max.partition.fetch.bytes 1 MiB, fetch.wait.max.ms 500, queued.max.messages.kbytes 64 MiB, enable.auto.commit), subscribe(), then consume(${fmt.format(CONFLUENT_CONSUME_BATCH)}, cb) called again from each callback (non-flowing mode: up to ${fmt.format(CONFLUENT_CONSUME_BATCH)} messages a call, fetched and decoded by librdkafka's threads), with setDefaultIsTimeoutOnlyForFirstMessage(true) as its KafkaJS-compatible layer sets it (a call waits only for its first message, then takes what is ready)`
        : "KafkaJS-compatible API: consumer({ kafkaJS: { groupId, fromBeginning: true }, 'js.consumer.max.batch.size': -1 }), run({ eachBatch }), librdkafka's other defaults"
  }
}

// ---- child: one contender, one scenario ---------------------------------------

interface Job {
  contender: ContenderId
  bootstrap: string
  topic: string
  groupId: string
  compression: Compression
  /** Messages in the topic: the child stops at this many. */
  messages: number
  /** Messages each partition holds, by partition. */
  expected: number[]
  confluentApi: ConfluentApi
  /** --channels: wafka's tracing channels subscribed (bench/support/channels.ts). */
  channels?: boolean
  /** --otel: the OpenTelemetry SDK registered with wafka/otel on (bench/support/otel.ts). */
  otel?: boolean
}

// The counting of what a client delivers (src/cli/bench/tally.ts, which wafka bench consume uses too).
import { Tally, type Bytes, type ConsumerResult } from '../src/cli/bench/tally.js'

interface Driver {
  /** Connects (untimed). */
  connect(): Promise<void>
  /** Subscribes and starts delivering messages to the tally; resolves once started. */
  consume(tally: Tally): Promise<void>
  close(): Promise<void>
}

async function wafkaDriver(job: Job): Promise<Driver> {
  // The same driver wafka bench consume runs (imported here, not above, so a peer's child never loads wafka).
  const { wafkaConsumer } = await import('../src/cli/bench/wafka-consumer.js')
  return wafkaConsumer({ clientId: 'bench-wafka', brokers: job.bootstrap.split(',') }, job.topic, job.groupId)
}

async function kafkajsDriver(job: Job): Promise<Driver> {
  const { Kafka, logLevel } = loadKafkaJS(job.compression)
  const consumer = new Kafka({ clientId: 'bench-kafkajs', brokers: job.bootstrap.split(','), logLevel: logLevel.NOTHING }).consumer({
    groupId: job.groupId,
  })
  let tally: Tally | undefined
  consumer.on(consumer.events.CRASH, ({ payload }: { payload: { error: Error } }) => tally?.fail(payload.error))
  return {
    connect: () => consumer.connect(),
    consume: async (t) => {
      tally = t
      await consumer.subscribe({ topics: [job.topic], fromBeginning: true })
      consumer
        .run({
          eachBatch: async ({ batch }: { batch: { partition: number; messages: Array<{ key: Bytes; value: Bytes }> } }) =>
            t.batch(batch.partition, batch.messages),
        })
        .catch(t.fail)
    },
    close: () => consumer.disconnect(),
  }
}

async function platformaticDriver(job: Job): Promise<Driver> {
  const { Consumer, MessagesStreamModes, MessagesStreamFallbackModes } = await import('@platformatic/kafka')
  const consumer = new Consumer({ clientId: 'bench-platformatic', groupId: job.groupId, bootstrapBrokers: job.bootstrap.split(',') })
  let stream: { close(): Promise<void> } | undefined
  return {
    // It connects on first use: ask for the topic's metadata so that connecting is not in the first-message time.
    connect: async () => {
      await consumer.metadata({ topics: [job.topic] })
    },
    consume: async (tally) => {
      const s = await consumer.consume({
        topics: [job.topic],
        mode: MessagesStreamModes.COMMITTED,
        fallbackMode: MessagesStreamFallbackModes.EARLIEST,
      })
      stream = s
      s.on('data', (m) => tally.message(m.partition, m.key, m.value))
      s.on('error', tally.fail)
    },
    close: async () => {
      await stream?.close()
      await consumer.close()
    },
  }
}

async function confluentDriver(job: Job): Promise<Driver> {
  const Kafka = await loadConfluent()
  const consumer = new Kafka.KafkaConsumer(
    { 'client.id': 'bench-confluent', 'bootstrap.servers': job.bootstrap, 'group.id': job.groupId },
    { 'auto.offset.reset': 'earliest' },
  )
  // Errors librdkafka reports on the side (a dropped connection it will redo, ...) are not failures by themselves.
  let sideErrors = 0
  consumer.on('event.error', (err: Error) => {
    if (sideErrors++ === 0) process.stderr.write(`librdkafka: ${err.message}\n`)
  })
  // Wait (up to the default 1 s) for the first message of a consume(n) call only, then take what is ready, up to n, as the
  // package's own KafkaJS-compatible layer does; otherwise every call waits out the timeout whenever fewer than n are ready.
  consumer.setDefaultIsTimeoutOnlyForFirstMessage(true)
  return {
    connect: () => new Promise<void>((resolve, reject) => consumer.connect({}, (err: Error | null) => (err ? reject(err) : resolve()))),
    consume: async (tally) => {
      consumer.subscribe([job.topic])
      const next = () =>
        consumer.consume(CONFLUENT_CONSUME_BATCH, (err: Error | null, messages: Array<{ partition: number; key: Bytes; value: Bytes }>) => {
          if (err) return tally.fail(err)
          for (let i = 0; i < messages.length; i++) tally.message(messages[i].partition, messages[i].key, messages[i].value)
          if (!tally.finished) next()
        })
      next()
    },
    close: () => new Promise<void>((resolve) => consumer.disconnect(() => resolve())),
  }
}

/**
 * The same package through its KafkaJS-compatible API (--confluent-api=kafkajs),
 * for checking which of its two APIs is faster: eachBatch, with no limit on
 * the batch size (its default is 32 messages).
 */
async function confluentKafkaJSDriver(job: Job): Promise<Driver> {
  const { Kafka, logLevel } = (await loadConfluent()).KafkaJS
  const consumer = new Kafka({
    kafkaJS: { clientId: 'bench-confluent', brokers: job.bootstrap.split(','), logLevel: logLevel.NOTHING },
  }).consumer({
    kafkaJS: { groupId: job.groupId, fromBeginning: true },
    'js.consumer.max.batch.size': -1,
  })
  return {
    connect: () => consumer.connect(),
    consume: async (tally) => {
      await consumer.subscribe({ topics: [job.topic] })
      consumer
        .run({
          eachBatch: async ({ batch }: { batch: { partition: number; messages: Array<{ key: Bytes; value: Bytes }> } }) =>
            tally.batch(batch.partition, batch.messages),
        })
        .catch(tally.fail)
    },
    close: () => consumer.disconnect(),
  }
}

const drivers: Record<Exclude<ContenderId, 'java' | 'kcat'>, (job: Job) => Promise<Driver>> = {
  wafka: wafkaDriver,
  kafkajs: kafkajsDriver,
  platformatic: platformaticDriver,
  confluent: confluentDriver,
}

async function child(job: Job): Promise<ConsumerResult> {
  const make =
    job.contender === 'confluent' && job.confluentApi === 'kafkajs'
      ? confluentKafkaJSDriver
      : drivers[job.contender as Exclude<ContenderId, 'java' | 'kcat'>]
  const traced = job.channels && job.contender === 'wafka' ? await subscribeChannels() : null
  const spans = job.otel && job.contender === 'wafka' ? await registerOtel() : null
  const driver = await make(job)
  const meter = new ChildMeter()
  await driver.connect()
  const tally = new Tally(job.messages, job.expected.length, meter)
  const result = await watchedConsume(driver, tally, job.messages, {
    giveUpMs: CHILD_GIVE_UP_MS,
    stallMs: CHILD_STALL_MS,
    closeMs: CLOSE_TIMEOUT_MS,
  })
  if (traced && traced() === 0) throw new Error('--channels: no channel event was seen')
  if (spans && (await spans()) === 0) throw new Error('--otel: no span was exported')
  const wrong = job.expected.flatMap((n, p) => (tally.perPartition[p] === n ? [] : [`partition ${p}: ${tally.perPartition[p]} of ${n}`]))
  if (wrong.length)
    throw new Error(
      `${fmt.format(job.messages)} messages received, but not each partition's: ${wrong.slice(0, 5).join(', ')}${wrong.length > 5 ? ', ...' : ''}`,
    )
  if (tally.keyBytes !== job.messages * KEY_BYTES || tally.valueBytes !== job.messages * VALUE_BYTES) {
    throw new Error(
      `received ${fmt.format(tally.keyBytes)} key and ${fmt.format(tally.valueBytes)} value bytes, not ${KEY_BYTES} and ${VALUE_BYTES} a message`,
    )
  }
  return result
}

// ---- parent: the run -----------------------------------------------------------

interface Run extends ContestRun {
  topic: string
  groupId: string
  /** @platformatic/kafka only: bytes of requests that went through the ApiVersions shim (bootstrap traffic). */
  shimBytes?: number
  result?: ConsumerResult
}

interface Header extends ContestHeader {
  rounds: number
  messages: number
  partitions: number
  dataBatchBytes: number
  confluentApi: ConfluentApi
}

function workload(h: Header, rig: Rig): string {
  return `${fmt.format(h.messages)} messages (16-byte keys, 100-byte JSON values), produced once per scenario by wafka's producer (batches up to ${fmt.format(h.dataBatchBytes / 1024)} KiB) to a ${h.partitions}-partition topic (replication ${rig.replication}) on ${rig.description}, read whole from the beginning by a fresh consumer group each run. The timer runs from subscribing to the ${fmt.format(h.messages)}th message. Each contender runs in a child process of its own; ${h.rounds} round(s), interleaved, contender order rotating; figures are medians, and each "n×" is the median of the per-round ratios.`
}

/** Messages each partition holds: high watermark minus log start offset. */
async function partitionCounts(admin: Admin, topic: string): Promise<number[]> {
  const offsets = await admin.fetchTopicOffsets(topic)
  const counts = new Array<number>(offsets.length)
  for (const p of offsets) counts[p.partition] = Number(p.high) - Number(p.low)
  return counts
}

/** Produces the scenario's data with wafka's producer; resolves with the messages each partition holds, checked. */
async function produceData(bootstrap: string, admin: Admin, topic: string, compression: Compression, messages: number): Promise<number[]> {
  const { wafkaProducer } = await import('../src/cli/bench/wafka-producer.js')
  const { keys, values } = messagePool()
  const producer = await wafkaProducer(
    { clientId: 'bench-data', brokers: bootstrap.split(',') },
    { compression, lingerMs: DATA_LINGER_MS, batchSize: DATA_BATCH_BYTES },
    { topic, inflight: DATA_INFLIGHT, chunk: DATA_CHUNK },
    keys,
    values,
  )
  await producer.connect()
  try {
    await producer.produce(0, messages)
  } finally {
    await producer.close()
  }
  const offsets = await admin.fetchTopicOffsets(topic)
  const dropped = offsets.filter((p) => Number(p.low) !== 0)
  if (dropped.length)
    throw new Error(`the mock dropped the oldest batches of ${dropped.length} partitions (it keeps ~5 MiB a partition): use fewer messages`)
  const counts = await partitionCounts(admin, topic)
  const total = counts.reduce((a, b) => a + b, 0)
  if (total !== messages) throw new Error(`the topic holds ${total} messages, not the ${messages} produced`)
  return counts
}

async function parent(): Promise<void> {
  const options = contestOptions(import.meta.url, SCENARIOS, scenarioName)
  const { messages, rounds, confluentApi, contenders, scenarios, elapsed } = options
  const rig = await startRig(options.target, { consumers: true })
  const { cluster, admin } = rig
  let runs: Run[]
  try {
    const data: Array<{ topic: string; expected: number[] }> = []
    for (const s of scenarios) {
      const topic = `bench-consume-${process.pid}-${scenarioName(s)}`
      await rig.createTopic(topic, PARTITIONS)
      const t0 = performance.now()
      const expected = await produceData(cluster.bootstrap, admin, topic, s.compression, messages)
      console.log(
        `${scenarioName(s)}: ${fmt.format(messages)} messages produced to ${topic} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${Math.min(...expected)}–${Math.max(...expected)} a partition`,
      )
      data.push({ topic, expected })
    }
    console.log(
      `${contenders.length} contenders × ${scenarios.length} scenarios × ${rounds} round(s), ${fmt.format(messages)} messages each, ${rig.description} at ${cluster.bootstrap}`,
    )
    runs = await runContest<Scenario, Run>('consumer', options, rig, CHILD_TIMEOUT_MS, {
      // The scenario's topic, a fresh group.
      start: async (round, s, c) => {
        const { topic, expected } = data[scenarios.indexOf(s)]
        const groupId = `bench-${process.pid}-${scenarioName(s)}-${round + 1}-${c.id}`
        const job: Job = {
          contender: c.id,
          bootstrap: rig.bootstrapFor(c.id),
          topic,
          groupId,
          compression: s.compression,
          messages,
          expected,
          confluentApi,
          channels: channelsFlag(),
          otel: otelFlag(),
        }
        return { job, run: { round, scenario: scenarioName(s), contender: c.name, topic, groupId, ok: false, messages } }
      },
      before: async (run) => {
        // The topic must still hold every message it was given.
        const { expected } = data.find((d) => d.topic === run.topic)!
        const counts = await partitionCounts(admin, run.topic)
        const lost = expected.flatMap((n, p) => (counts[p] === n ? [] : [`partition ${p} holds ${counts[p]} of ${n}`]))
        if (lost.length) throw new Error(`the topic no longer holds its data: ${lost.slice(0, 5).join(', ')}`)
        // @platformatic/kafka's group requests go through the shim, in front of broker 1 (bench/support/api-versions-shim.ts).
        if (run.contender === '@platformatic/kafka' && rig.mock) await rig.mock.setCoordinator('group', run.groupId, 1)
      },
      external: (_run, job, timeoutMs, contender) => {
        const j = job as Job
        if (contender === 'kcat') {
          return runKcat(
            [
              '-C',
              '-b',
              j.bootstrap,
              '-G',
              j.groupId,
              j.topic,
              '-X',
              'auto.offset.reset=earliest',
              '-X',
              'client.id=bench-kcat',
              '-c',
              String(j.messages),
              '-f',
              '%k%s',
              '-q',
            ],
            { outputBytes: j.messages * (KEY_BYTES + VALUE_BYTES), timeoutMs },
          )
        }
        const args = [
          '--bootstrap-server',
          j.bootstrap,
          '--topic',
          j.topic,
          '--group',
          j.groupId,
          '--num-records',
          String(j.messages),
          '--timeout',
          '30000',
          '--hide-header',
          '--command-property',
          'client.id=bench-java',
        ]
        return runJavaTool(
          rig.kafka!.classPath,
          'org.apache.kafka.tools.ConsumerPerformance',
          [],
          args,
          consumerPerformanceRate(j.messages),
          timeoutMs,
        )
      },
      detail: (run) =>
        run.result?.firstMessageMs !== undefined
          ? `, first message ${fmt.format(run.result.firstMessageMs)} ms after subscribing`
          : undefined,
    })
  } finally {
    await rig.close()
  }

  const summaries = summarize(runs, scenarios.map(scenarioName), contenders, (id) => settings(id, confluentApi))
  console.log('')
  printTables(summaries)
  const notes = [
    "kcat (librdkafka's C client as a command, the system's kcat and the librdkafka it links) joins a fresh group like the others (-G) and writes every key and value to its stdout, which the parent counts: the run fails unless exactly N × 116 bytes arrive. It is the native reference (no runtime, no warm-up); its clock runs from starting the process to the last byte of the Nth message, so starting, connecting and joining the group are in it and its close is not; its CPU (bash's `times` once it exits) and peak RSS (VmHWM) are the whole process's.",
    `The timer runs from just before the client is told to subscribe (wafka's and KafkaJS's subscribe(), then run(); @platformatic/kafka's consume(); @confluentinc/kafka-javascript's subscribe(), then consume()) to the moment the ${fmt.format(messages)}th message is counted, after connecting, so joining the group is in it: on the mock, with no rebalance delay, from ~20 ms (wafka) to ~100 ms (librdkafka) until the first message (consumer.json: firstMessageMs). It is not timed from the first message because a client that prefetches in other threads before it hands over its first message would have part of its work left out (@confluentinc/kafka-javascript's KafkaJS-compatible API handed over its first message ~2 s after subscribing to 200,000 messages, then read the rest at over 2 M/s). CPU time is measured over the same span.`,
    "Every contender is counted through its batch-level API where it has one: wafka and KafkaJS through run({ eachBatch }); @confluentinc/kafka-javascript through its Standard API's consume(n, cb), which hands over up to n messages a call (its KafkaJS-compatible eachBatch is available with --confluent-api=kafkajs); @platformatic/kafka has none, so through its stream's 'data' event, one per message. Every client reads each message's key and value (their lengths are summed), so lazily decoded messages pay for what a reader would touch.",
    `Correctness: before each run the parent checks (wafka's admin fetchTopicOffsets) that every partition still holds what it was given, high watermark minus log start offset; ${rig.target === 'kafka' ? '' : `the mock keeps only about 5 MiB a partition, dropping its oldest batches, hence ${PARTITIONS} partitions. `} The child checks that it received exactly each partition's count and ${KEY_BYTES} + ${VALUE_BYTES} key and value bytes a message; a run that does not is reported failed and left out of the figures.`,
    `The data, ${fmt.format(POOL)} distinct key/value pairs (bench/support/data.ts, fixed seed) with message i using pair i mod ${fmt.format(POOL)}, is produced once per scenario by wafka's producer (lingerMs ${DATA_LINGER_MS}, batchSize ${fmt.format(DATA_BATCH_BYTES)}, the scenario's compression), before the rounds; every contender reads the same topic.`,
    'MB/s counts key + value bytes (116 per message), not protocol overhead.',
    `CPU is process.cpuUsage() over the timed part: every thread of the client process, so librdkafka's own threads (which fetch and decode) and libuv's are in it. The broker (${rig.target === 'kafka' ? 'a JVM' : 'the mock cluster'}, a separate process) is not, but it shares the machine's cores with the client.`,
    'Peak RSS includes each process\'s baseline (Node and the client\'s code); "RSS above baseline" in the full table subtracts the RSS measured just before connecting. librdkafka prefetches up to queued.max.messages.kbytes (64 MiB) per consumer by default.',
    `Broker CPU (full table) is the ${rig.target === 'kafka' ? 'Kafka broker' : 'mock cluster'} process's CPU time while the contender's child ran, connecting, group join and closing included.`,
    "The machine is small: its cores are shared by the client (with librdkafka's and libuv's threads) and the broker, and the rounds vary (the slowest–fastest column). Read the ratios, not the absolute figures.",

    ...(rig.target === 'kafka'
      ? [
          "The broker is one real Apache Kafka broker (KRaft, broker and controller in one JVM, -Xmx512m, SerialGC) on this machine, started fresh for the run by the test rig (test/peers/kafka.ts), with group.initial.rebalance.delay.ms 0; every client speaks to it as it is, with no shim and no settings of the mock's. It fills each Fetch response up to the client's limits, unlike the mock's one batch per partition.",
          "The Java client runs as Kafka's own ConsumerPerformance (kafka-tools), inside bench/java/PerfRun.java: one JVM per run (-Xmx512m, SerialGC, as every JVM on this 2-core machine). Its messages/s is the tool's own nMsg.sec, which runs from before it subscribes to its last record, group join included, as the Node contenders' timer does; the tool checks the count (a run that consumed fewer than all is reported failed); its CPU is the JVM's process CPU time (every thread: client, GC, JIT) over the whole invocation, creating and closing its consumer included; its peak RSS is the JVM's VmHWM, the peak of the whole process. It only counts records and bytes; it does not check every partition's count as the Node children do.",
          'The machine is 2 cores shared with other work (other sessions were running tests and JVMs during this run): the absolute figures are noisy; the per-round ratios, above all CPU per message, are the comparable figures.',
        ]
      : [
          `librdkafka's mock cluster answers a Fetch with at most one record batch per partition (a real broker fills up to the partition's byte limit), so each fetch brings at most one ~${fmt.format(DATA_BATCH_BYTES / 1024)} KiB batch per partition: about 1 MiB a response from each of the 3 brokers. Clients that keep fetches in flight while the application processes (librdkafka prefetches in its own threads) gain from that more than they would against a real broker with large responses.`,
          "The mock cluster needs three settings for every contender to work with it (bench/support/clients.ts startRig): (1) it reads JoinGroup v6 and SyncGroup v4 (the first flexible versions) with an int32 where the array count is a varint, and LeaveGroup v3+ as v0-2, closing the connection, so it is made to advertise JoinGroup up to v5, SyncGroup v3, Heartbeat v3 and LeaveGroup v2, what librdkafka's own client sends; (2) its group.initial.rebalance.delay.ms is set to 0 (its default, 3 s, would delay every fresh group's first assignment); (3) @platformatic/kafka speaks only newer versions of the group APIs (FindCoordinator v4+, OffsetFetch v8+, JoinGroup v6+, SyncGroup v4+, Heartbeat v4, LeaveGroup v4+), so besides bootstrapping through bench/support/api-versions-shim.ts, as in the producer benchmark, it gets the shim as its group coordinator: the shim names itself coordinator, and passes each group request on to broker 1 (made the group's coordinator) in a version the mock reads, translating the answer back with wafka's protocol codecs. Only group traffic (a few kB a run, logged) goes through the shim; Fetch and ListOffsets go to the partition leaders directly.",
          "@confluentinc/kafka-javascript runs through its Standard API, which its INTRODUCTION.md calls the more performant one for high volumes. A check of its KafkaJS-compatible API (--confluent-api=kafkajs: eachBatch with js.consumer.max.batch.size -1, 200,000 messages, uncompressed, 2 rounds, timed from subscribing) gave 102–123 k/s, 1.7–2.2 CPU s and 400–460 MiB peak RSS, against the Standard API's 130–137 k/s, 0.9–1.0 CPU s and 125–132 MiB in the same run, so the Standard API is what is compared. Its batch size hardly matters: consume(100), consume(1,000) and consume(10,000) gave 117–126 k/s (300,000 messages, uncompressed): the cost is per message.",
        ]),
  ]
  if (options.partial) {
    console.log('(--quick, --only, --scenario, --profile or --confluent-api: results not written)')
    return
  }
  const header: Header = {
    ...contestHeader(options, rig),
    partitions: PARTITIONS,
    dataBatchBytes: DATA_BATCH_BYTES,
    confluentApi,
    notes,
  }
  const text = { script: 'bench/consumer.ts', workload: workload(header, rig), timedUntil: 'the last message' }
  console.log(
    `${writeResults(rig.target === 'kafka' ? 'consumer-kafka' : 'consumer', options.root, header, text, summaries, runs)} (${elapsed()})`,
  )
}

if (!(await childMain(child))) await parent()
