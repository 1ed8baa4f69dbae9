/**
 * Share-group (KIP-932, queues) consumption: wafka's kafka.shareConsumer()
 * beside Java's KafkaShareConsumer and kafkats's ShareConsumer
 * (`@kafkats/client`), in one run, on the same brokers: one real Apache Kafka
 * 4.4 broker (started by the test rig, test/peers/kafka.ts) and wafka's
 * embedded broker (in this process), each in the implicit and the explicit
 * acknowledgement mode.
 *
 * Per target the parent produces the messages once, with wafka's producer,
 * to a topic of a few partitions. Then every (round, target, mode,
 * contender) is a process of its own (a Node child, or a JVM running
 * bench/java/SharePerf.java) that joins a fresh share group (its
 * share.auto.offset.reset set to earliest) and reads until it has every
 * message. The rate runs from the first message to the last (joining a
 * fresh share group waits for the coordinator's heartbeat round, the same for
 * every client: reported beside it); CPU from subscribing to the last. The Node children check that every partition's count
 * came in (a record delivered twice would leave another partition short); the
 * contenders' order rotates each round. Prints tables and writes
 * bench/results/share.json and share.md.
 *
 *   npm run bench:share      (builds, then runs it in full)
 *   node --expose-gc dist/bench/share.js [--quick] [--messages=N] [--rounds=N] [--only=<contender>] [--target=kafka|embedded]
 *
 * Default: 200,000 messages, 3 rounds (about 10 minutes on 2 cores:
 * kafkats reads a few thousand a second from Kafka). --quick: 20,000
 * messages, 1 round. Results are written by a run without --quick, --only
 * or --target.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { Admin } from '../src/admin/admin.js'
import { type Bytes, type ConsumerResult, Tally } from '../src/cli/bench/tally.js'
import { CONSUME_WORKLOAD } from '../src/cli/bench/wafka-consumer.js'
import {
  ChildMeter,
  type ChildResult,
  type ContestRun,
  childMain,
  contestMarkdown,
  fmt,
  printTables,
  runChild,
  snapshotBundle,
  summarize,
} from './support/contest.js'
import { watchedConsume } from './support/watched-consume.js'
import { MESSAGE_KEY_BYTES as KEY_BYTES, MESSAGE_VALUE_BYTES as VALUE_BYTES, messagePool } from './support/data.js'
import { machine, option, packageVersion, repositoryRoot, wafkaRevision } from './support/environment.js'
import { JAVA_CLIENT_OPTIONS, benchJavaClasses, javaVersion } from './support/java-contender.js'
import { processCpuSeconds } from './support/kafka-broker.js'

/** Partitions of the topic: a few, as a work queue has; every member is assigned all of them. */
const PARTITIONS = 6
const CHILD_TIMEOUT_MS = 240_000
const CHILD_GIVE_UP_MS = CHILD_TIMEOUT_MS - 15_000
const CHILD_STALL_MS = 30_000
const CLOSE_TIMEOUT_MS = 15_000

type Mode = 'implicit' | 'explicit'
type TargetId = 'kafka' | 'embedded'
type Id = 'wafka' | 'java' | 'kafkats'

const CONTENDERS: Array<{ id: Id; name: string }> = [
  { id: 'wafka', name: 'wafka' },
  { id: 'java', name: 'Java KafkaShareConsumer' },
  { id: 'kafkats', name: 'kafkats' },
]
const MODES: Mode[] = ['implicit', 'explicit']
const TARGET_NAMES: Record<TargetId, string> = { kafka: 'Kafka 4.4', embedded: 'embedded broker' }
const scenarioName = (t: TargetId, m: Mode) => `${TARGET_NAMES[t]}, ${m}`

function settings(id: Id, mode: Mode): string {
  switch (id) {
    case 'wafka':
      return `kafka.shareConsumer({ groupId, acknowledgementMode: '${mode}' }) with its defaults (maxPollRecords 500, shareAcquireMode 'batch_optimized'), subscribe({ topics }), run({ eachBatch })${mode === 'explicit' ? ", acknowledge(message, 'accept') for every message" : ' (a batch accepted when the handler returns)'}; reads every key and value`
    case 'java':
      return `KafkaShareConsumer<byte[], byte[]> (bench/java/SharePerf.java) in a JVM of its own (${JAVA_CLIENT_OPTIONS.join(' ')}), share.acknowledgement.mode=${mode}, the client's defaults otherwise (max.poll.records 500, fetch.max.bytes 50 MiB); a poll(1 s) loop that adds up each record's key and value sizes${mode === 'explicit' ? ' and calls acknowledge(record) (ACCEPT) for every record' : ''}`
    case 'kafkats':
      return `new KafkaClient({ brokers, clientId }).shareConsumer({ groupId }) with its defaults, runEach(topic, handler)${mode === 'explicit' ? ': the handler awaits message.ack() for every message' : ': the handler returns (kafkats accepts a message when its handler resolves: its only implicit mode)'}; reads every key and value`
  }
}

// ---- child: one Node contender --------------------------------------------------------

interface Job {
  contender: Id
  mode: Mode
  bootstrap: string
  topic: string
  groupId: string
  messages: number
  expected: number[]
}

interface Driver {
  consume(tally: Tally): Promise<void>
  close(): Promise<void>
}

async function wafkaDriver(job: Job): Promise<Driver> {
  const { Kafka } = await import('../src/index.js')
  const consumer = new Kafka({ clientId: 'bench-wafka', brokers: job.bootstrap.split(','), logLevel: 0 }).shareConsumer({
    groupId: job.groupId,
    acknowledgementMode: job.mode,
  })
  await consumer.connect()
  return {
    consume: async (tally) => {
      consumer.on(consumer.events.CRASH, (e) => tally.fail(e.payload.error))
      await consumer.subscribe({ topics: [job.topic] })
      await consumer.run({
        eachBatch: async ({ batch }) => {
          tally.batch(batch.partition, batch.messages)
          if (job.mode === 'explicit') for (const m of batch.messages) consumer.acknowledge(m, 'accept')
        },
      })
    },
    close: () => consumer.disconnect(),
  }
}

async function kafkatsDriver(job: Job): Promise<Driver> {
  const { KafkaClient } = await import('@kafkats/client')
  const client = new KafkaClient({ clientId: 'bench-kafkats', brokers: job.bootstrap.split(','), logLevel: 'error' })
  await client.connect()
  const consumer = client.shareConsumer({ groupId: job.groupId })
  return {
    consume: async (tally) => {
      consumer.on('error', tally.fail)
      consumer
        .runEach(job.topic, async (m: { partition: number; key: Bytes; value: Bytes; ack(): Promise<void> }) => {
          tally.message(m.partition, m.key, m.value)
          if (job.mode === 'explicit') await m.ack()
        })
        .catch(tally.fail)
    },
    close: async () => {
      await consumer.stop()
      await client.disconnect()
    },
  }
}

async function child(job: Job): Promise<ConsumerResult> {
  const driver = await (job.contender === 'wafka' ? wafkaDriver : kafkatsDriver)(job)
  const meter = new ChildMeter()
  const tally = new Tally(job.messages, job.expected.length, meter)
  const result = await watchedConsume(driver, tally, job.messages, {
    giveUpMs: CHILD_GIVE_UP_MS,
    stallMs: CHILD_STALL_MS,
    closeMs: CLOSE_TIMEOUT_MS,
  })
  const short = job.expected.flatMap((n, p) => (tally.perPartition[p] === n ? [] : [`partition ${p}: ${tally.perPartition[p]} of ${n}`]))
  if (short.length) throw new Error(`not every record exactly once: ${short.join(', ')}`)
  if (tally.keyBytes !== job.messages * KEY_BYTES || tally.valueBytes !== job.messages * VALUE_BYTES)
    throw new Error(`key/value bytes ${tally.keyBytes}/${tally.valueBytes}, not ${job.messages} × ${KEY_BYTES}/${VALUE_BYTES}`)
  return result
}

// ---- the Java contender ------------------------------------------------------------------

function runSharePerf(classPath: string, job: Job, timeoutMs: number): Promise<ChildResult & { firstMessageMs: number }> {
  const classes = benchJavaClasses(classPath, 'SharePerf')
  const log4j = join(repositoryRoot(), 'bench', 'java', 'log4j2.yaml')
  // Through the rig's RigMain, which halts the JVM when its stdin closes: no client JVM outlives the benchmark.
  const args = [
    ...JAVA_CLIENT_OPTIONS,
    `-Dlog4j2.configurationFile=${log4j}`,
    '-cp',
    `${classPath}${delimiter}${classes}`,
    'RigMain',
    'SharePerf',
    job.bootstrap,
    job.groupId,
    job.topic,
    String(job.messages),
    job.mode,
  ]
  return new Promise((resolve, reject) => {
    const proc = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)))
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
    proc.on('exit', (code, signal) => {
      clearTimeout(timer)
      try {
        if (code !== 0) throw new Error(`exited (${signal ?? `code ${code}`})`)
        const m = JSON.parse(stdout.trim().split('\n').pop() ?? '')
        const bytes = job.messages * (KEY_BYTES + VALUE_BYTES)
        if (m.records !== job.messages || m.bytes !== bytes)
          throw new Error(`read ${m.records} records, ${m.bytes} bytes, not ${job.messages}, ${bytes}`)
        resolve({
          wallMs: m.wallMs,
          cpuSec: m.cpuSec,
          userSec: NaN,
          systemSec: NaN,
          rssBaseline: m.rssBaseline,
          rssPeak: m.rssPeak,
          firstMessageMs: m.firstMessageMs,
        })
      } catch (err) {
        reject(new Error(`SharePerf: ${(err as Error).message}${stderr.trim() ? `; stderr: ${stderr.trim().slice(-600)}` : ''}`))
      }
    })
  })
}

// ---- parent ------------------------------------------------------------------------------

interface Run extends ContestRun {
  /** From subscribing to the first message (group join and first ShareFetch). */
  firstMessageMs?: number
  target: TargetId
  mode: Mode
  groupId: string
}

interface Target {
  id: TargetId
  bootstrap: string
  description: string
  cpuSeconds(): number
  stop(): Promise<void>
}

async function startTarget(id: TargetId): Promise<Target> {
  if (id === 'kafka') {
    const { startKafka } = await import('../test/peers/kafka.js')
    const k = await startKafka({ brokers: 1 })
    return {
      id,
      bootstrap: k.bootstrap,
      description: `one Apache Kafka ${k.version} broker (KRaft, combined broker and controller, -Xmx512m, SerialGC, its share-group defaults)`,
      cpuSeconds: () => processCpuSeconds(k.pid(1)),
      stop: () => k.stop(),
    }
  }
  const { startCluster } = await import('../src/broker/index.js')
  const c = await startCluster({ brokers: 1 })
  return {
    id,
    bootstrap: c.bootstrapServers,
    description: "wafka's embedded broker (1 broker, in memory, in the benchmark's parent process)",
    cpuSeconds: () => {
      const u = process.cpuUsage()
      return (u.user + u.system) / 1e6
    },
    stop: () => c.stop(),
  }
}

async function produceData(bootstrap: string, admin: Admin, topic: string, messages: number): Promise<number[]> {
  const { wafkaProducer } = await import('../src/cli/bench/wafka-producer.js')
  const { keys, values } = messagePool()
  const producer = await wafkaProducer(
    { clientId: 'bench-data', brokers: bootstrap.split(',') },
    { compression: 'none', lingerMs: CONSUME_WORKLOAD.dataLingerMs, batchSize: CONSUME_WORKLOAD.dataBatchBytes },
    { topic, inflight: CONSUME_WORKLOAD.dataInflight, chunk: CONSUME_WORKLOAD.dataChunk },
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
  const counts = new Array<number>(offsets.length)
  for (const p of offsets) counts[p.partition] = Number(p.high) - Number(p.low)
  if (counts.reduce((a, b) => a + b, 0) !== messages) throw new Error(`the topic holds ${counts}, not ${messages} messages`)
  return counts
}

async function parent(): Promise<void> {
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  const quick = process.argv.includes('--quick')
  const only = option('only')
  const onlyTarget = option('target') as TargetId | undefined
  const messages = Number(option('messages') ?? (quick ? 20_000 : 200_000))
  const rounds = Number(option('rounds') ?? (quick ? 1 : 3))
  const partial = quick || !!only || !!onlyTarget
  const root = repositoryRoot()
  const bundle = fileURLToPath(import.meta.url)
  const revision = wafkaRevision(root, bundle)
  if (revision.includes('STALE')) console.log(`warning: wafka ${revision}`)
  const contenders = CONTENDERS.filter((c) => !only || c.id.includes(only) || c.name.includes(only))
  const targets: TargetId[] = onlyTarget ? [onlyTarget] : ['kafka', 'embedded']
  const { KAFKA_VERSIONS, kafkaClassPath, rigClassDir } = await import('../test/peers/kafka.js')
  const javaClassPath = `${rigClassDir(KAFKA_VERSIONS['4'])}${delimiter}${kafkaClassPath(KAFKA_VERSIONS['4'])}`
  const { Kafka, ConfigResourceTypes } = await import('../src/index.js')
  const snapshot = snapshotBundle(bundle, 'share')
  const runs: Run[] = []
  const descriptions: string[] = []
  try {
    for (const targetId of targets) {
      const target = await startTarget(targetId)
      descriptions.push(target.description)
      const admin = new Kafka({ clientId: 'bench-check', brokers: target.bootstrap.split(','), logLevel: 0 }).admin()
      try {
        await admin.connect()
        const topic = `bench-share-${process.pid}`
        await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }] })
        const t0 = performance.now()
        const expected = await produceData(target.bootstrap, admin, topic, messages)
        console.log(
          `${TARGET_NAMES[targetId]}: ${fmt.format(messages)} messages produced to ${topic} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        )
        for (let round = 0; round < rounds; round++)
          for (const mode of MODES) {
            const shift = round % contenders.length
            for (const c of [...contenders.slice(shift), ...contenders.slice(0, shift)]) {
              const scenario = scenarioName(targetId, mode)
              const groupId = `bench-share-${process.pid}-${targetId}-${mode}-${round + 1}-${c.id}`
              const run: Run = { round, scenario, contender: c.name, ok: false, messages, target: targetId, mode, groupId }
              const job: Job = { contender: c.id, mode, bootstrap: target.bootstrap, topic, groupId, messages, expected }
              try {
                await admin.alterConfigs({
                  resources: [
                    {
                      type: ConfigResourceTypes.GROUP,
                      name: groupId,
                      configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }],
                    },
                  ],
                })
                const cpu0 = target.cpuSeconds()
                run.result =
                  c.id === 'java'
                    ? await runSharePerf(javaClassPath, job, CHILD_TIMEOUT_MS)
                    : await runChild<ChildResult>(snapshot, job, CHILD_TIMEOUT_MS, null)
                run.brokerCpuSec = target.cpuSeconds() - cpu0
                run.ok = true
                // The rate from the first message on: a fresh share group's first assignment waits for the coordinator's
                // heartbeat round (Kafka's group.share.heartbeat.interval.ms, 5 s), the same for every client, which would swamp it.
                const first = (run.result as ChildResult & { firstMessageMs: number }).firstMessageMs
                run.firstMessageMs = first
                run.msgPerSec = messages / ((run.result.wallMs - first) / 1000)
                run.mbPerSec = (run.msgPerSec * (KEY_BYTES + VALUE_BYTES)) / 1e6
              } catch (err) {
                run.error = (err as Error).message
              }
              runs.push(run)
              const r = run.result as (ChildResult & { firstMessageMs?: number }) | undefined
              console.log(
                `round ${round + 1}, ${scenario}, ${c.name}: ${
                  run.ok
                    ? `${fmt.format(run.msgPerSec!)} msg/s, CPU ${r!.cpuSec.toFixed(2)} s (${((r!.cpuSec * 1e6) / messages).toFixed(2)} µs/msg), peak RSS ${fmt.format(r!.rssPeak / 2 ** 20)} MiB, first message ${fmt.format(r!.firstMessageMs ?? NaN)} ms`
                    : `FAILED: ${run.error}`
                } (${elapsed()})`,
              )
              await sleep(200)
            }
          }
      } finally {
        await admin.disconnect().catch(() => {})
        await target.stop()
      }
    }
  } finally {
    rmSync(snapshot, { force: true })
  }

  const scenarios = targets.flatMap((t) => MODES.map((m) => ({ t, m, name: scenarioName(t, m) })))
  const summaries = summarize<Id>(
    runs,
    scenarios.map((s) => s.name),
    contenders,
    (id, i) => settings(id, scenarios[i].m),
  )
  console.log('')
  printTables(summaries)
  if (partial) {
    console.log('(--quick, --only or --target: results not written)')
    return
  }
  const header = {
    date: new Date().toISOString(),
    machine: machine(),
    versions: {
      wafka: revision,
      '@kafkats/client': packageVersion('@kafkats/client'),
      'Apache Kafka (broker, Java client)': KAFKA_VERSIONS['4'],
      Java: javaVersion(),
    },
    rounds,
    messages,
    partitions: PARTITIONS,
    notes: [
      'Each run is one share-group member alone in a fresh group (share.auto.offset.reset earliest, set with alterConfigs before it joins), reading the whole topic: the rate of one worker, not of a group.',
      'Implicit: a delivered batch is accepted when the next is asked for (wafka: when the eachBatch handler returns; Java: at the next poll(); kafkats: when each message handler resolves). Explicit: every record is accepted one by one (wafka acknowledge(message, "accept"), piggy-backed on the next ShareFetch; Java acknowledge(record), likewise; kafkats message.ack()).',
      "Messages per second run from the first message to the last: a fresh share group's first assignment waits for the coordinator's heartbeat round (Kafka's group.share.heartbeat.interval.ms, 5 s by default; the first-message times are in share.json, firstMessageMs), the same wait for every client, which would swamp the rate. CPU (and peak RSS) run from just before subscribing to the last message, so joining is in them. Acknowledgements still in flight at the last message are not (they go out on close, which is not timed). CPU is the client process's own (process.cpuUsage(); the JVM's process CPU time: every thread, GC and JIT included).",
      "The Node children check that every partition's count came in exactly and every key and value byte (a record delivered twice would leave another partition short: the run fails); the Java program checks the record and byte totals.",
      "Broker CPU is the broker process's CPU while the contender ran; for the embedded broker that is this benchmark's parent process, which does little else meanwhile.",
      'The machine has 2 cores shared with other work (other sessions ran tests and JVMs during this run): read the per-round ratios, not the absolute figures.',
    ],
  }
  const text = {
    script: 'bench/share.ts',
    workload: `${fmt.format(messages)} messages (16-byte keys, 100-byte JSON values), produced once per target by wafka's producer to a ${PARTITIONS}-partition topic on ${descriptions.join(' and on ')}, read whole by one member of a fresh share group each run. Each contender runs in a process of its own; ${rounds} round(s), interleaved, contender order rotating; figures are medians, and each "n×" is the median of the per-round ratios.`,
    timedUntil: 'the last message',
  }
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'share.json'), `${JSON.stringify({ ...header, summaries, runs }, null, 2)}\n`)
  writeFileSync(join(dir, 'share.md'), contestMarkdown(header, text, summaries))
  console.log(`wrote bench/results/share.json and share.md (${elapsed()})`)
}

if (!(await childMain(child))) await parent()
