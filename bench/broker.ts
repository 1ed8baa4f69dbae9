/**
 * The embedded broker beside Apache Kafka on this machine, with the same
 * clients on both: wafka (`wafka bench produce|consume -b … --broker-pids …`,
 * a child process of its own) and the Java client (Kafka's own
 * ProducerPerformance and ConsumerPerformance, a JVM of its own). One and
 * three brokers, acks=1 and acks=all (replication = brokers, idempotent with
 * acks=all), then a fresh group reading it all back. What it reports is the
 * brokers' work: messages/s and broker CPU per message, each target's, and
 * the embedded broker's ratio to Kafka's from the same round.
 *
 *   npm run bench:broker    (builds, then about 10 minutes)
 *   node dist/bench/broker.js [--quick] [--messages=N] [--rounds=N] [--brokers=1|3]
 *
 * --quick: 100,000 messages, 1 round. Results (bench/results/broker.json and
 * broker.md) are written by a full run only. Needs Java 17 and the Kafka jars
 * (test/peers/kafka.ts resolves them through Maven).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { Kafka } from '../src/index.js'
import { startBrokerProcess, type BrokerProcess } from '../src/cli/bench/broker-process.js'
import { processesCpuSeconds } from '../src/cli/bench/process-cpu.js'
import { KAFKA_VERSIONS, type KafkaCluster, kafkaClassPath, rigClassDir, startKafka } from '../test/peers/kafka.js'
import {
  JAVA_CLIENT_OPTIONS,
  consumerPerformanceRate,
  javaVersion,
  producerPerformanceRate,
  runJavaTool,
} from './support/java-contender.js'
import { machine, option, repositoryRoot, wafkaRevision } from './support/environment.js'

const PARTITIONS = 12
const RUN_TIMEOUT_MS = 300_000

type Acks = '1' | 'all'
type TargetKind = 'kafka' | 'embedded'
type Client = 'wafka' | 'java'
type Phase = 'produce' | 'consume'

interface Scenario {
  brokers: 1 | 3
  phase: Phase
  /** produce only: consume reads what acks=all wrote. */
  acks: Acks
}

/** A running cluster of either kind: where it serves, and its processes for their CPU. */
interface Target {
  kind: TargetKind
  bootstrap: string
  pids(): number[]
  stop(): Promise<void>
}

interface Figure {
  round: number
  scenario: string
  target: TargetKind
  client: Client
  ok: boolean
  error?: string
  msgPerSec?: number
  brokerCpuUsPerMessage?: number
  clientCpuUsPerMessage?: number
}

const root = repositoryRoot()
const cli = join(root, 'dist', 'cli.js')
const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

const scenarioName = (s: Scenario) =>
  `${s.brokers} broker${s.brokers === 1 ? '' : 's'}, ${s.phase === 'produce' ? `produce acks=${s.acks}` : 'consume'}`

async function startTarget(kind: TargetKind, brokers: 1 | 3): Promise<Target> {
  if (kind === 'embedded') {
    const broker: BrokerProcess = await startBrokerProcess(brokers, cli)
    return { kind, bootstrap: broker.bootstrap, pids: () => [broker.pid!], stop: () => broker.stop() }
  }
  // Full JIT for the broker being measured (the test rig stops at C1 to start faster).
  const kafka: KafkaCluster = await startKafka({ brokers, jvmOpts: ['-XX:TieredStopAtLevel=4'] })
  const ids = Array.from({ length: brokers }, (_, i) => i + 1)
  return { kind, bootstrap: kafka.bootstrap, pids: () => ids.map((id) => kafka.pid(id)!), stop: () => kafka.stop() }
}

/** Runs `node dist/cli.js args…` to its end; its stdout (JSON) on success. */
function runCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err = (err + s).slice(-2000)))
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(out)
      else reject(new Error(`wafka ${args.slice(0, 2).join(' ')}: ${signal ?? `exit ${code}`}: ${err.trim().split('\n').pop()}`))
    })
  })
}

async function wafkaRun(
  t: Target,
  s: Scenario,
  messages: number,
): Promise<Omit<Figure, 'round' | 'scenario' | 'target' | 'client' | 'ok'>> {
  const args = [
    'bench',
    s.phase,
    '-b',
    t.bootstrap,
    '--messages',
    String(messages),
    '-P',
    String(PARTITIONS),
    '-r',
    String(s.brokers),
    ...(s.phase === 'produce' ? ['--acks', s.acks] : []),
    '--broker-pids',
    t.pids().join(','),
    '--json',
    '--quiet',
  ]
  const { result } = JSON.parse(await runCli(args)) as {
    result: { msgPerSec: number; cpuUsPerMessage: number; brokerCpuSec: number; messages: number }
  }
  return {
    msgPerSec: result.msgPerSec,
    clientCpuUsPerMessage: result.cpuUsPerMessage,
    brokerCpuUsPerMessage: (result.brokerCpuSec * 1e6) / result.messages,
  }
}

/** The Java client: the tools' own rate; the brokers' CPU over the tool's JVM (it idles the brokers while it starts). */
async function javaRun(
  t: Target,
  classPath: string,
  s: Scenario,
  messages: number,
  round: number,
): Promise<Omit<Figure, 'round' | 'scenario' | 'target' | 'client' | 'ok'>> {
  const admin = new Kafka({ clientId: 'bench-broker', brokers: t.bootstrap.split(',') }).admin()
  await admin.connect()
  const topic = `java-${s.phase}-${s.acks}-${round}-${Date.now()}`
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: s.brokers }] })
    const produceArgs = [
      '--topic',
      topic,
      '--num-records',
      String(messages),
      '--throughput',
      '-1',
      '--record-size',
      '100',
      '--command-property',
      `bootstrap.servers=${t.bootstrap}`,
      `acks=${s.acks}`,
      `enable.idempotence=${s.acks === 'all'}`,
      'linger.ms=5',
      'batch.size=16384',
    ]
    // One tool invocation, with the brokers' CPU over it.
    const measured = async (tool: string, args: string[], rate: typeof producerPerformanceRate) => {
      const cpu0 = processesCpuSeconds(t.pids())
      const r = await runJavaTool(classPath, `org.apache.kafka.tools.${tool}`, [], args, rate(messages), RUN_TIMEOUT_MS)
      return {
        msgPerSec: messages / (r.wallMs / 1000),
        clientCpuUsPerMessage: (r.cpuSec * 1e6) / messages,
        brokerCpuUsPerMessage: ((processesCpuSeconds(t.pids()) - cpu0) * 1e6) / messages,
      }
    }
    const produced = await measured('ProducerPerformance', produceArgs, producerPerformanceRate)
    if (s.phase === 'produce') return produced
    const group = `${topic}-group`
    const consumeArgs = ['--bootstrap-server', t.bootstrap, '--topic', topic, '--group', group, '--num-records', String(messages)]
    return await measured('ConsumerPerformance', [...consumeArgs, '--timeout', '30000', '--hide-header'], consumerPerformanceRate)
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {})
    await admin.disconnect()
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick')
  const messages = Number(option('messages') ?? (quick ? 100_000 : 500_000))
  const rounds = Number(option('rounds') ?? (quick ? 1 : 2))
  const onlyBrokers = option('brokers')
  const write = !quick && option('messages') === undefined && option('rounds') === undefined && onlyBrokers === undefined
  const brokerCounts = ([1, 3] as const).filter((n) => onlyBrokers === undefined || String(n) === onlyBrokers)
  const started = Date.now()
  // The Java tools' jars (the rig's, resolved through Maven: the same Kafka as the broker) and the rig's launcher.
  const version = KAFKA_VERSIONS['4']
  const classPath = `${rigClassDir(version)}${delimiter}${kafkaClassPath(version)}`
  const figures: Figure[] = []
  const scenarios: Scenario[] = []
  for (const brokers of brokerCounts)
    scenarios.push(
      { brokers, phase: 'produce', acks: '1' },
      { brokers, phase: 'produce', acks: 'all' },
      { brokers, phase: 'consume', acks: 'all' },
    )

  for (const brokers of brokerCounts) {
    for (let round = 1; round <= rounds; round++) {
      // Targets alternate which goes first each round; each is started fresh and stopped before the other runs.
      const order: TargetKind[] = round % 2 ? ['kafka', 'embedded'] : ['embedded', 'kafka']
      for (const kind of order) {
        const target = await startTarget(kind, brokers)
        try {
          // An untimed produce and consume first: a fresh JVM measured cold would be measured compiling itself.
          const warm = { brokers, phase: 'consume', acks: 'all' } as const
          await wafkaRun(target, warm, messages).catch((err) => console.log(`${kind} warm-up: ${(err as Error).message}`))
          for (const s of scenarios.filter((x) => x.brokers === brokers)) {
            for (const client of ['wafka', 'java'] as const) {
              const base = { round, scenario: scenarioName(s), target: kind, client }
              try {
                const f = client === 'wafka' ? await wafkaRun(target, s, messages) : await javaRun(target, classPath, s, messages, round)
                figures.push({ ...base, ok: true, ...f })
                console.log(
                  `${base.scenario}, ${kind}, ${client}: ${fmt.format(f.msgPerSec!)} msg/s, broker ${f.brokerCpuUsPerMessage!.toFixed(2)} µs/msg, client ${f.clientCpuUsPerMessage!.toFixed(2)} µs/msg`,
                )
              } catch (err) {
                figures.push({ ...base, ok: false, error: (err as Error).message })
                console.log(`${base.scenario}, ${kind}, ${client}: FAILED ${(err as Error).message}`)
              }
            }
          }
        } finally {
          await target.stop()
        }
      }
    }
  }

  const rows = scenarios.flatMap((s) =>
    (['wafka', 'java'] as const).map((client) => {
      const of = (kind: TargetKind) =>
        figures.filter((f) => f.ok && f.scenario === scenarioName(s) && f.client === client && f.target === kind)
      const [k, e] = [of('kafka'), of('embedded')]
      // Ratios per round (the same round's Kafka and embedded runs), then their median.
      const perRound = (pick: (f: Figure) => number) =>
        median(
          e.flatMap((ef) => {
            const kf = k.find((x) => x.round === ef.round)
            return kf ? [pick(ef) / pick(kf)] : []
          }),
        )
      return {
        scenario: scenarioName(s),
        client,
        kafka: {
          msgPerSec: median(k.map((f) => f.msgPerSec!)),
          brokerCpuUs: median(k.map((f) => f.brokerCpuUsPerMessage!)),
          runs: k.length,
        },
        embedded: {
          msgPerSec: median(e.map((f) => f.msgPerSec!)),
          brokerCpuUs: median(e.map((f) => f.brokerCpuUsPerMessage!)),
          runs: e.length,
        },
        rateRatio: perRound((f) => f.msgPerSec!),
        cpuRatio: perRound((f) => f.brokerCpuUsPerMessage!),
      }
    }),
  )
  const rate = (x: number) => (Number.isFinite(x) ? `${fmt.format(x / 1000)} k/s` : 'failed')
  const us = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'failed')
  const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : 'n/a')
  const table = [
    '| scenario | client | Kafka msg/s | embedded msg/s | embedded ÷ Kafka | Kafka broker CPU µs/msg | embedded broker CPU µs/msg | embedded ÷ Kafka |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.client === 'wafka' ? 'wafka' : 'Java client'} | ${rate(r.kafka.msgPerSec)} | ${rate(r.embedded.msgPerSec)} | ${ratio(r.rateRatio)} | ${us(r.kafka.brokerCpuUs)} | ${us(r.embedded.brokerCpuUs)} | ${ratio(r.cpuRatio)} |`,
    ),
  ]
  console.log('\n' + table.join('\n'))
  console.log(`(${Math.round((Date.now() - started) / 1000)} s)`)
  if (!write) {
    console.log('(--quick, --messages, --rounds or --brokers: results not written)')
    return
  }
  const m = machine()
  const header = {
    date: new Date().toISOString(),
    machine: m,
    versions: { wafka: wafkaRevision(root, cli), kafka: KAFKA_VERSIONS['4'], java: javaVersion() },
    messages,
    rounds,
    partitions: PARTITIONS,
  }
  const notes = [
    `Each target is started fresh for each round and broker count, and stopped before the other runs; which goes first alternates by round. ${fmt.format(messages)} messages a run, to a fresh ${PARTITIONS}-partition topic with replication equal to the broker count; acks=all runs are idempotent; consume runs read what an acks=all run wrote, in a fresh group from the beginning.`,
    "wafka runs as `wafka bench produce|consume -b … --broker-pids …` (the same workload as bench/producer.ts and bench/consumer.ts: 16-byte keys, 100-byte values, send() calls of 1,000 with 64 in flight, linger 5 ms, batch 16 KiB; consume through eachBatch), in a child process; its figures cover the timed part after an untimed warm-up, and the brokers' CPU is read from /proc over that same part.",
    `The Java client runs as Kafka's own ProducerPerformance (--record-size 100, no keys, linger.ms=5, batch.size=16384) and ConsumerPerformance, each in a JVM of its own (${JAVA_CLIENT_OPTIONS.join(' ')}), with no warm-up; the brokers' CPU is read over the whole tool invocation (the brokers idle while the JVM starts).`,
    'Apache Kafka: KRaft, combined broker and controller per node, -Xmx512m, SerialGC, full JIT (the test rig otherwise stops at C1), started by test/peers/kafka.ts. The embedded broker: `wafka broker --brokers N` in one Node process, in memory (no data dir). Each fresh target first serves an untimed `wafka bench consume` of the same size (which writes, then reads), so neither is measured warming up.',
    'Broker CPU is every broker process summed (3 JVMs for Kafka with 3 brokers, one Node process for the embedded broker); "embedded ÷ Kafka" is the median of the per-round ratios: for messages/s above 1 the embedded broker is faster, for CPU below 1 it does the same work with less.',
    'The machine has 2 cores shared by the brokers and the client: read the ratios, not the absolute figures.',
  ]
  const md = [
    '<!-- Written by bench/broker.ts; do not edit by hand. -->',
    `Measured ${header.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.os}; ${rounds} round(s).`,
    `Versions: wafka ${header.versions.wafka}, Apache Kafka ${header.versions.kafka}, Java ${header.versions.java}.`,
    'Command: `npm run bench:broker`.',
    '',
    ...table,
    '',
    'Notes:',
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n')
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'broker.json'), JSON.stringify({ header, notes, rows, figures }, null, 2) + '\n')
  writeFileSync(join(dir, 'broker.md'), md)
  console.log('wrote bench/results/broker.json and broker.md')
}

await main()
