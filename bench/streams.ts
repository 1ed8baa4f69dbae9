/**
 * Stream processing: wafka/streams (the built package, dist/streams.js)
 * beside Java Kafka Streams 4.4 (the rig's RigStreams, test/peers/java) and
 * kafkats's `@kafkats/flow`, in one run, on the same brokers: one real
 * Apache Kafka 4.4 broker (test/peers/kafka.ts) and wafka's embedded broker
 * (in this process); two applications (a word count, with its repartition
 * topic, and a tumbling-window count per key with grace), each under
 * at_least_once and exactly_once_v2.
 *
 * Per target the parent writes each input topic once, with wafka's
 * producer. Then every (round, target, application, guarantee, contender)
 * is a process of its own (a Node child, or a JVM) with a fresh application
 * id, so it reads its input from the beginning. The parent measures every
 * contender the same way, from outside: CPU (user + system, every thread)
 * from /proc/<pid>/stat, peak RSS from /proc/<pid>/status (VmHWM), and the
 * application's committed offsets (its group's) every 100 ms, until they
 * reach the input's end and, past that, the ends of its repartition topics.
 * Contenders' order rotates each round. Prints tables and writes
 * bench/results/streams.json and streams.md.
 *
 *   npm run bench:streams      (builds, then runs it in full)
 *   node dist/bench/streams.js [--quick] [--rounds=N] [--lines=N] [--events=N] [--only=<contender>]
 *        [--target=kafka|embedded] [--app=wordcount|windowed] [--guarantee=at_least_once|exactly_once_v2]
 *        [--kafkats-flow=<dir holding node_modules/@kafkats/flow>] [--profile=<dir>] [--out=<name>]
 *
 *   npm run bench:streams -- --restore [--keys=N] [--rounds=N] [--target=...]
 *        restoring a 1,000,000-key store from its changelog, wafka beside Java (restoreBench below):
 *        bench/results/streams-restore.md and .json
 *   node dist/bench/streams.js --rewrite [--command="..."]   streams.md again from streams.json's runs
 *
 * --profile: the wafka children run with --cpu-prof into <dir> (their
 * figures then carry the profiler's cost; results are not written).
 * Results are written by a run without --quick, --only, --target, --app or
 * --guarantee.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Admin } from '../src/admin/admin.js'
import { type ContestRun, fmt, printTables, snapshotBundle, summarize, type Summary } from './support/contest.js'
import { machine, option, packageVersion, repositoryRoot, wafkaRevision } from './support/environment.js'
import { JAVA_CLIENT_OPTIONS, javaVersion } from './support/java-contender.js'
import { processCpuSeconds } from './support/kafka-broker.js'
import { median } from './support/measure.js'
import { selfTimes } from './support/cpu-profile.js'

const PARTITIONS = 3
const WINDOW_MS = 60_000
const GRACE_MS = 10_000
const COMMIT_INTERVAL_MS = 100
const VOCABULARY = 5_000
const KEYS = 1_000
const POLL_MS = 100
const RUN_TIMEOUT_MS = 300_000
const CLOSE_TIMEOUT_MS = 60_000
const STALL_MS = 60_000
/** kafkats processes a few hundred records a second: it gets this share of the input (a topic of its own), or the run would take an hour. */
const KAFKATS_SHARE = 10
/** Java's JIT as a server runs it: the rig's tool options stop at C1 (-XX:TieredStopAtLevel=1), which would slow Java down. */
const JAVA_OPTIONS = [...JAVA_CLIENT_OPTIONS, '-XX:TieredStopAtLevel=4']

type TargetId = 'kafka' | 'embedded'
type AppId = 'wordcount' | 'windowed'
type Guarantee = 'at_least_once' | 'exactly_once_v2'
type Id = 'wafka' | 'java' | 'kafkats'

const CONTENDERS: Array<{ id: Id; name: string }> = [
  { id: 'wafka', name: 'wafka' },
  { id: 'java', name: 'Java Kafka Streams' },
  { id: 'kafkats', name: '@kafkats/flow' },
]
const TARGET_NAMES: Record<TargetId, string> = { kafka: 'Kafka 4.4', embedded: 'embedded broker' }
const APP_NAMES: Record<AppId, string> = { wordcount: 'word count', windowed: 'windowed count' }
const scenarioName = (t: TargetId, a: AppId, g: Guarantee) => `${TARGET_NAMES[t]}, ${APP_NAMES[a]}, ${g}`

function settings(id: Id, app: AppId, g: Guarantee): string {
  const topology =
    app === 'wordcount'
      ? 'stream(text).flatMapValues(words).groupBy(word).count().toStream().to(output)'
      : `stream(events).groupByKey().windowedBy(tumbling ${WINDOW_MS / 1000} s${id === 'kafkats' ? ', no grace: kafkats has none' : `, grace ${GRACE_MS / 1000} s`}).count().toStream().to(output)`
  switch (id) {
    case 'wafka':
      return `new KafkaStreams(topology, { processingGuarantee: '${g}', commitIntervalMs: ${COMMIT_INTERVAL_MS}, stateDir: a fresh temporary directory }) from dist/streams.js, its defaults otherwise (classic group protocol, persistent stores, 10 MiB record cache); ${topology}`
    case 'java':
      return `RigStreams (test/peers/java/RigStreams.java) in a JVM of its own (${JAVA_OPTIONS.join(' ')}), processing.guarantee=${g}, commit.interval.ms=${COMMIT_INTERVAL_MS}, group.protocol=classic, Kafka Streams' defaults otherwise (1 stream thread, RocksDB stores, 10 MiB record cache); ${topology}`
    case 'kafkats':
      return `flow({ applicationId, client, processingGuarantee: '${g === 'exactly_once_v2' ? 'exactly_once' : 'at_least_once'}', commitIntervalMs: ${COMMIT_INTERVAL_MS} }), its defaults otherwise (in-memory stores with changelogs); ${topology}${app === 'wordcount' ? ' (kafkats groupBy re-keys in place, with no repartition topic: less work than the others do, and counts per input partition)' : ''}`
  }
}

/** Lower case, split on non-word characters, as RigStreams' word count. */
function words(line: string | null): string[] {
  return (line ?? '').toLowerCase().split(/\W+/).filter(Boolean)
}

// ---- child: one Node application ---------------------------------------------------------

interface Job {
  contender: Id
  app: AppId
  guarantee: Guarantee
  bootstrap: string
  input: string
  output: string
  applicationId: string
  root: string
  flowDir?: string
}

interface App {
  start(): Promise<void>
  close(): Promise<void>
}

const LONG = {
  encode: (n: number) => {
    const b = Buffer.alloc(8)
    b.writeBigInt64BE(BigInt(n))
    return b
  },
  decode: (b: Buffer) => Number(b.readBigInt64BE()),
}

async function wafkaApp(job: Job): Promise<App & { stateDir: string }> {
  // The built package, as users get it: not the bundled source.
  const s = (await import(pathToFileURL(join(job.root, 'dist', 'streams.js')).href)) as typeof import('../src/public/streams.js')
  const str = s.Serdes.String()
  const builder = new s.StreamsBuilder()
  if (job.app === 'wordcount')
    builder
      .stream<string, string>(job.input, { keySerde: str, valueSerde: str })
      .flatMapValues(words)
      .groupBy((_key, word) => word, { keySerde: str, valueSerde: str })
      .count({ storeName: 'counts' })
      .toStream()
      .to(job.output, { keySerde: str, valueSerde: s.Serdes.Long() })
  else
    builder
      .stream<string, string>(job.input, { keySerde: str, valueSerde: str })
      .groupByKey()
      .windowedBy(s.TimeWindows.ofSizeAndGrace(WINDOW_MS, GRACE_MS))
      .count({ storeName: 'windowed-counts' })
      .toStream()
      .to(job.output, { valueSerde: s.Serdes.Long() })
  const stateDir = mkdtempSync(join(tmpdir(), 'bench-streams-'))
  const app = new s.KafkaStreams(builder.build(), {
    applicationId: job.applicationId,
    brokers: job.bootstrap.split(','),
    clientId: 'bench-wafka',
    logLevel: 0,
    processingGuarantee: job.guarantee,
    commitIntervalMs: COMMIT_INTERVAL_MS,
    stateDir,
  })
  return { start: () => app.start(), close: () => app.close(), stateDir }
}

async function kafkatsApp(job: Job): Promise<App> {
  const where = job.flowDir
    ? pathToFileURL(join(job.flowDir, 'node_modules', '@kafkats', 'flow', 'dist', 'index.js')).href
    : '@kafkats/flow'
  const f = await import(where)
  const app = f.flow({
    applicationId: job.applicationId,
    client: { brokers: job.bootstrap.split(','), clientId: 'bench-kafkats', logLevel: 'error' },
    processingGuarantee: job.guarantee === 'exactly_once_v2' ? 'exactly_once' : 'at_least_once',
    commitIntervalMs: COMMIT_INTERVAL_MS,
    // Its at_least_once commits come from the consumer's auto-commit (5 s by default): at the others' interval.
    runEach: { autoCommitIntervalMs: COMMIT_INTERVAL_MS },
  })
  const str = f.string()
  const stream = app.stream(job.input, { key: str, value: str, offsetReset: 'earliest' })
  if (job.app === 'wordcount')
    stream
      .flatMapValues(words)
      .groupBy((_key: string, word: string) => word, { key: str, value: str })
      .count()
      .toStream()
      .to(job.output, { key: str, value: LONG })
  else {
    // Java's TimeWindowedSerializer layout: the key's bytes, then the window start (8 bytes, big-endian).
    const windowed = {
      encode: (w: { key: string; window: { start: number } }) => {
        const k = Buffer.from(w.key)
        const b = Buffer.alloc(k.length + 8)
        k.copy(b)
        b.writeBigInt64BE(BigInt(w.window.start), k.length)
        return b
      },
      decode: (b: Buffer) => {
        const start = Number(b.readBigInt64BE(b.length - 8))
        return { key: b.subarray(0, b.length - 8).toString(), window: { start, end: start + WINDOW_MS } }
      },
    }
    stream.groupByKey().windowedBy(f.TimeWindows.of(WINDOW_MS)).count().toStream().to(job.output, { key: windowed, value: LONG })
  }
  return { start: () => app.start(), close: () => app.close() }
}

async function childMain(): Promise<boolean> {
  const at = process.argv.indexOf('--child')
  if (at < 0) return false
  const job = JSON.parse(process.argv[at + 1]) as Job
  const fail = (err: unknown) => process.send!({ error: (err as Error)?.stack ?? String(err) }, () => process.exit(1))
  process.on('uncaughtException', fail)
  process.on('unhandledRejection', fail)
  try {
    const app = job.contender === 'wafka' ? await wafkaApp(job) : await kafkatsApp(job)
    process.on('message', (m) => {
      if (m !== 'stop') return
      app
        .close()
        .then(() => {
          if ('stateDir' in app) rmSync(app.stateDir as string, { recursive: true, force: true })
          process.send!({ closed: true }, () => process.exit(0))
        })
        .catch(fail)
    })
    process.send!({ started: true })
    await app.start()
  } catch (err) {
    fail(err)
  }
  return true
}

// ---- the application process, seen from the parent -----------------------------------------

interface Proc {
  pid: number
  /** Resolves when the application is about to start (Node: before start(); Java: its first state change, in start()). */
  started: Promise<void>
  /** Rejects when the process fails or exits before stop(). */
  failed: Promise<never>
  stop(): Promise<void>
}

function nodeProc(script: string, job: Job, profileDir: string | null): Proc {
  const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const proc: ChildProcess = fork(script, ['--child', JSON.stringify(job)], { execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] })
  let stderr = ''
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-3000)))
  let stopping = false
  let onStarted!: () => void
  const started = new Promise<void>((r) => (onStarted = r))
  let onClosed!: () => void
  const closed = new Promise<void>((r) => (onClosed = r))
  const failed = new Promise<never>((_, reject) => {
    proc.on('message', (m: { started?: true; closed?: true; error?: string }) => {
      if (m.started) onStarted()
      if (m.closed) onClosed()
      if (m.error) reject(new Error(`${job.contender}: ${m.error}`))
    })
    proc.on('exit', (code, signal) => {
      onClosed()
      if (!stopping) reject(new Error(`${job.contender} exited (${signal ?? `code ${code}`}) ${stderr.trim().slice(-800)}`))
    })
  })
  failed.catch(() => {})
  return {
    pid: proc.pid!,
    started,
    failed,
    async stop() {
      stopping = true
      proc.send('stop')
      const timer = setTimeout(() => proc.kill('SIGKILL'), CLOSE_TIMEOUT_MS)
      await closed
      clearTimeout(timer)
      if (proc.exitCode === null && proc.signalCode === null) await new Promise((r) => proc.once('exit', r))
    },
  }
}

async function javaProc(job: Job): Promise<Proc> {
  const { spawnJava } = await import('../test/peers/kafka.js')
  const args = [job.app === 'wordcount' ? 'wordcount' : 'windowed-count', job.bootstrap, job.applicationId]
  args.push('--inputs', job.input, '--output', job.output)
  if (job.app === 'windowed') args.push('--window-ms', String(WINDOW_MS), '--grace-ms', String(GRACE_MS))
  for (const [k, v] of Object.entries({
    'processing.guarantee': job.guarantee,
    'commit.interval.ms': COMMIT_INTERVAL_MS,
    'group.protocol': 'classic',
  }))
    args.push('--prop', `${k}=${v}`)
  const proc = spawnJava('RigStreams', args, { jvmOpts: JAVA_OPTIONS })
  let stderr = ''
  let stopping = false
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-3000)))
  let onStarted!: () => void
  const started = new Promise<void>((r) => (onStarted = r))
  const exited = new Promise<void>((r) => proc.once('exit', () => r()))
  const failed = new Promise<never>((_, reject) => {
    let buffered = ''
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      buffered += c
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        if (!line.startsWith('{')) continue
        const e = JSON.parse(line)
        if (e.event === 'state') onStarted()
        if (e.event === 'error') reject(new Error(`java: ${e.error}: ${e.message}`))
      }
    })
    proc.on('exit', (code, signal) => {
      if (!stopping) reject(new Error(`java exited (${signal ?? `code ${code}`}) ${stderr.trim().slice(-800)}`))
    })
  })
  failed.catch(() => {})
  return {
    pid: proc.pid!,
    started,
    failed,
    async stop() {
      stopping = true
      proc.stdin!.end()
      const timer = setTimeout(() => proc.kill('SIGKILL'), CLOSE_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    },
  }
}

/** Peak resident set (VmHWM) of a live process, in bytes. */
function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : NaN
  } catch {
    return NaN
  }
}

/**
 * The application's committed input records (its group's offsets, summed), and whether it has caught up:
 * every input record committed and, past that, its repartition topics committed to their ends (under
 * exactly_once_v2 a partition's last offset is a transaction marker, which a position may stop before).
 */
async function progress(admin: Admin, job: Job, total: number): Promise<{ committed: number; done: boolean }> {
  const repartitions = (await admin.listTopics()).filter((t) => t.startsWith(`${job.applicationId}-`) && t.endsWith('-repartition'))
  // Topics named: the embedded broker answered a kafkats group's OffsetFetch for all topics with none.
  const offsets = await admin.fetchOffsets({ groupId: job.applicationId, topics: [job.input, ...repartitions] })
  const at = (topic: string, partition: number) =>
    Math.max(0, Number(offsets.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === partition)?.offset ?? 0))
  let committed = 0
  for (let p = 0; p < PARTITIONS; p++) committed += at(job.input, p)
  if (committed < total) return { committed, done: false }
  const slack = job.guarantee === 'exactly_once_v2' ? 1 : 0
  for (const topic of repartitions)
    for (const e of await admin.fetchTopicOffsets(topic))
      if (at(topic, e.partition) < Number(e.high) - slack) return { committed, done: false }
  return { committed, done: true }
}

interface Measure {
  /** From start() to caught up. */
  wallMs: number
  /** From the first committed progress to caught up: the rate's span, group join left out. */
  processingMs: number
  recordsTimed: number
  cpuSec: number
  rssPeak: number
}

async function measureRun(proc: Proc, admin: Admin, job: Job, total: number): Promise<Measure> {
  const deadline = Date.now() + RUN_TIMEOUT_MS
  await Promise.race([proc.started, proc.failed])
  const t0 = performance.now()
  const cpu0 = processCpuSeconds(proc.pid)
  let first: { t: number; committed: number } | undefined
  let last = { t: performance.now(), committed: 0 }
  for (;;) {
    if (Date.now() > deadline) throw new Error(`not caught up in ${RUN_TIMEOUT_MS / 1000} s (${last.committed} of ${total} committed)`)
    const p = await Promise.race([progress(admin, job, total).catch(() => ({ committed: last.committed, done: false })), proc.failed])
    const t = performance.now()
    if (!first && p.committed > 0) first = { t, committed: p.committed }
    if (p.committed !== last.committed) last = { t, committed: p.committed }
    else if (t - last.t > STALL_MS) throw new Error(`no progress in ${STALL_MS / 1000} s (${last.committed} of ${total} committed)`)
    if (p.done) {
      const cpuSec = processCpuSeconds(proc.pid) - cpu0
      const rssPeak = peakRss(proc.pid)
      if (!first || first.committed >= total) first = { t: t0, committed: 0 }
      return { wallMs: t - t0, processingMs: t - first.t, recordsTimed: total - first.committed, cpuSec, rssPeak }
    }
    await sleep(POLL_MS)
  }
}

// ---- targets and input ----------------------------------------------------------------------

interface Target {
  bootstrap: string
  description: string
  stop(): Promise<void>
}

async function startTarget(id: TargetId): Promise<Target> {
  if (id === 'kafka') {
    const { startKafka } = await import('../test/peers/kafka.js')
    const k = await startKafka({ brokers: 1, config: { 'group.initial.rebalance.delay.ms': '0' } })
    return {
      bootstrap: k.bootstrap,
      description: `one Apache Kafka ${k.version} broker (the test rig's: KRaft, combined broker and controller, -Xmx512m, SerialGC, group.initial.rebalance.delay.ms 0)`,
      stop: () => k.stop(),
    }
  }
  const { startCluster } = await import('../src/broker/index.js')
  const c = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 })
  return {
    bootstrap: c.bootstrapServers,
    description: "wafka's embedded broker (1 broker, in memory, in the benchmark's parent process, no initial rebalance delay)",
    stop: () => c.stop(),
  }
}

/** A deterministic generator (a linear congruential one), so every run and machine writes the same input. */
function lcg(seed: number): (n: number) => number {
  let x = seed
  return (n) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
}

async function produceInput(bootstrap: string, topic: string, app: AppId, records: number, t0: number): Promise<number> {
  const { Kafka } = await import('../src/index.js')
  const producer = new Kafka({ clientId: 'bench-data', brokers: bootstrap.split(','), logLevel: 0 }).producer({ lingerMs: 5 })
  await producer.connect()
  const next = lcg(app === 'wordcount' ? 7 : 11)
  let words = 0
  try {
    const CHUNK = 5_000
    for (let i = 0; i < records; i += CHUNK) {
      const messages = []
      for (let j = i; j < Math.min(records, i + CHUNK); j++) {
        if (app === 'wordcount') {
          const n = 1 + next(5)
          words += n
          const line = Array.from({ length: n }, () => `w${next(VOCABULARY)}`).join(next(3) === 0 ? ', ' : ' ')
          messages.push({ key: `line-${j}`, value: line, partition: j % PARTITIONS })
        } else {
          // 5 ms apart, some up to 3 s late (within the grace): windows close as stream time passes them.
          const timestamp = t0 + j * 5 - (next(10) === 0 ? next(3_000) : 0)
          messages.push({ key: `key-${next(KEYS)}`, value: 'x', timestamp, partition: j % PARTITIONS })
        }
      }
      await producer.send({ topic, messages })
    }
  } finally {
    await producer.disconnect()
  }
  return words
}

// ---- parent ------------------------------------------------------------------------------------

interface Run extends ContestRun {
  target: TargetId
  app: AppId
  guarantee: Guarantee
  applicationId: string
  wallMs?: number
  processingMs?: number
  recordsTimed?: number
}

/**
 * The CPU ratios per input record: summarize() divides CPU seconds, which holds only where both read the same
 * input (kafkats reads a smaller one).
 */
function perRecordCpuRatios(summaries: Summary[], runs: readonly ContestRun[]): void {
  for (const s of summaries) {
    const wafka = new Map(runs.filter((r) => r.scenario === s.scenario && r.contender === 'wafka' && r.ok).map((r) => [r.round, r]))
    const perRecord = (r: ContestRun) => r.result!.cpuSec / r.messages
    const mine = runs.filter((r) => r.scenario === s.scenario && r.contender === s.contender && r.ok && wafka.has(r.round))
    s.cpuRatio = median(mine.map((r) => perRecord(r) / perRecord(wafka.get(r.round)!)))
  }
}

/** --rewrite: streams.json's runs summarized again and streams.md written again, nothing measured. */
function rewrite(root: string, name: string): void {
  const file = join(root, 'bench', 'results', `${name}.json`)
  const { summaries, runs, ...header } = JSON.parse(readFileSync(file, 'utf8'))
  // Files written before the workload went into the JSON: the markdown's third line, from the same run.
  // And the command, which older files did not keep: --command says it.
  const command = option('command')
  if (command) header.command = command
  header.workload ??= readFileSync(join(root, 'bench', 'results', `${name}.md`), 'utf8').split('\n')[2]
  perRecordCpuRatios(summaries, runs)
  const aim = aimLines(summaries)
  writeFileSync(file, `${JSON.stringify({ ...header, summaries, runs }, null, 2)}\n`)
  writeFileSync(join(root, 'bench', 'results', `${name}.md`), markdown(header, header.workload, summaries, aim))
  console.log(`rewrote ${file} and ${name}.md from its runs`)
}

// ---- --restore: a 1,000,000-key store restored from its changelog -----------------------------

/**
 * Each run: a fresh application id whose word count store ("counts") has a changelog already holding `keys`
 * keys (word0 … wordN, a count of 1 each, written by wafka's producer to the partition Java's partitioner
 * gives each key, as Streams writes it), a fresh state directory, and an input of three lines naming three
 * of those words. Timed from start() until the application has committed those lines: its tasks restored
 * the store, then processed them. The output must then hold a count of 2 for each of the three words (the
 * restored 1, plus 1): a run that did not restore fails.
 */
async function restoreBench(): Promise<void> {
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  const keys = Number(option('keys') ?? 1_000_000)
  const rounds = Number(option('rounds') ?? 2)
  const onlyTarget = option('target') as TargetId | undefined
  const targets: TargetId[] = onlyTarget ? [onlyTarget] : ['kafka', 'embedded']
  const profileDir = option('profile') ?? null
  const contenders = CONTENDERS.filter((c) => c.id !== 'kafkats' && (!option('only') || c.id === option('only')))
  const root = repositoryRoot()
  const bundle = fileURLToPath(import.meta.url)
  const revision = wafkaRevision(root, bundle)
  const { Kafka } = await import('../src/index.js')
  const snapshot = snapshotBundle(bundle, 'streams-restore')
  const runs: Run[] = []
  const descriptions: string[] = []
  const load: string[] = []
  const probe = [7, Math.floor(keys / 2), keys - 1].map((i) => `word${i}`)
  try {
    for (const targetId of targets) {
      const target = await startTarget(targetId)
      descriptions.push(target.description)
      const kafka = new Kafka({ clientId: 'bench-restore', brokers: target.bootstrap.split(','), logLevel: 0 })
      const admin = kafka.admin()
      try {
        await admin.connect()
        for (let round = 0; round < rounds; round++)
          for (const c of round % 2 ? [...contenders].reverse() : contenders) {
            const scenario = `${TARGET_NAMES[targetId]}, restore ${fmt.format(keys)} keys`
            const applicationId = `bench-restore-${process.pid}-${targetId}-${round + 1}-${c.id}`
            const input = `${applicationId}-text`
            const output = `${applicationId}-output`
            const changelog = `${applicationId}-counts-changelog`
            const run: Run = {
              round,
              scenario,
              contender: c.name,
              ok: false,
              messages: keys,
              target: targetId,
              app: 'wordcount',
              guarantee: 'at_least_once',
              applicationId,
            }
            const job: Job = {
              contender: c.id,
              app: 'wordcount',
              guarantee: 'at_least_once',
              bootstrap: target.bootstrap,
              input,
              output,
              applicationId,
              root,
            }
            let proc: Proc | undefined
            try {
              await admin.createTopics({
                topics: [
                  { topic: input, numPartitions: PARTITIONS, replicationFactor: 1 },
                  { topic: output, numPartitions: PARTITIONS, replicationFactor: 1 },
                  {
                    topic: changelog,
                    numPartitions: PARTITIONS,
                    replicationFactor: 1,
                    configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
                  },
                ],
                waitForLeaders: true,
              })
              const tp = performance.now()
              await writeChangelog(kafka, changelog, keys)
              const producer = kafka.producer()
              await producer.connect()
              await producer.send({
                topic: input,
                messages: probe.map((w, i) => ({ key: `line-${i}`, value: w, partition: i % PARTITIONS })),
              })
              await producer.disconnect()
              console.log(`${scenario}: ${changelog} written in ${((performance.now() - tp) / 1000).toFixed(1)} s`)
              load.push(readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '))
              proc = c.id === 'java' ? await javaProc(job) : nodeProc(snapshot, job, profileDir)
              const m = await measureRun(proc, admin, job, probe.length)
              const counts = await readCounts(kafka, output, probe.length)
              const wrong = probe.filter((w) => counts.get(w) !== 2)
              if (wrong.length)
                throw new Error(
                  `not restored: output counts ${JSON.stringify(Object.fromEntries(counts))}, wanted 2 for ${probe.join(', ')}`,
                )
              run.wallMs = m.wallMs
              run.msgPerSec = keys / (m.wallMs / 1000)
              run.mbPerSec = 0
              run.result = { wallMs: m.wallMs, cpuSec: m.cpuSec, userSec: NaN, systemSec: NaN, rssBaseline: 0, rssPeak: m.rssPeak }
              run.ok = true
            } catch (err) {
              run.error = (err as Error).message.slice(0, 1500)
            } finally {
              await proc?.stop().catch(() => {})
              await admin.deleteTopics({ topics: [input, output, changelog, `${applicationId}-counts-repartition`] }).catch(() => {})
            }
            runs.push(run)
            const r = run.result
            console.log(
              `round ${round + 1}, ${scenario}, ${c.name}: ${
                run.ok
                  ? `restored and caught up in ${(run.wallMs! / 1000).toFixed(2)} s (${fmt.format(run.msgPerSec!)} keys/s), CPU ${r!.cpuSec.toFixed(2)} s, peak RSS ${mib(r!.rssPeak)}`
                  : `FAILED: ${run.error}`
              } (${elapsed()})`,
            )
            await sleep(500)
          }
      } finally {
        await admin.disconnect().catch(() => {})
        await target.stop()
      }
    }
  } finally {
    rmSync(snapshot, { force: true })
  }
  const scenarios = [...new Set(runs.map((r) => r.scenario))]
  const summaries = summarize<Id>(runs, scenarios, contenders, (id) =>
    id === 'wafka'
      ? 'the word count of the main benchmark (dist/streams.js), at_least_once, a fresh stateDir: its persistent store, restored from the changelog'
      : `RigStreams' word count in a JVM of its own (${JAVA_OPTIONS.join(' ')}), at_least_once, a fresh state.dir: its RocksDB store, restored from the changelog (Kafka Streams' defaults: the state updater thread)`,
  )
  printTables(summaries)
  const lines = summaries.map(
    (x) =>
      `| ${x.scenario} | ${x.contender} | ${x.rounds ? `${(keys / x.msgPerSec).toFixed(2)} s` : 'failed'} | ${x.rounds ? fmt.format(x.msgPerSec) : ''} | ${x.rounds ? x.cpuSec.toFixed(2) : ''} | ${x.rounds ? mib(x.rssPeak) : ''} | ${x.contender === 'wafka' || !x.rounds ? '' : ratio(x.speedRatio)} | ${x.rounds} |`,
  )
  if (profileDir) console.log(profileMarkdown(root, profileDir, runs, revision, process.argv.slice(2).join(' '), 'profile-streams-restore'))
  if (onlyTarget || option('keys') || option('only') || profileDir) {
    console.log('(--target, --keys, --only or --profile: results not written)')
    return
  }
  const m = machine()
  const header = {
    date: new Date().toISOString(),
    command: `npm run bench:streams -- ${process.argv.slice(2).join(' ')}`,
    machine: m,
    loadAverages: load,
    versions: {
      wafka: revision,
      'Apache Kafka (broker, kafka-streams)': (await import('../test/peers/kafka.js')).KAFKA_VERSIONS['4'],
      Java: javaVersion(),
    },
    rounds,
    keys,
  }
  const dir = join(root, 'bench', 'results')
  writeFileSync(join(dir, 'streams-restore.json'), `${JSON.stringify({ ...header, summaries, runs }, null, 2)}\n`)
  writeFileSync(
    join(dir, 'streams-restore.md'),
    [
      '<!-- Written by bench/streams.ts --restore; do not edit by hand. -->',
      `Measured ${header.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.os}, by \`${header.command}\`.`,
      `Versions: ${Object.entries(header.versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}. On ${descriptions.join(' and on ')}; ${rounds} rounds, the order alternating; medians.`,
      '',
      `**Restoring a ${fmt.format(keys)}-key store** (a word count's "counts", String keys, Long counts): from start() until the application has restored its store from the changelog and committed three input lines that update three of its keys (the output then checked: a count of 2 each). Keys per second is ${fmt.format(keys)} over that time; CPU and peak RSS are the application process's (/proc, every thread). "wafka faster by": the other's time divided by wafka's, per round, median.`,
      '',
      '| scenario | contender | start to caught up | keys/s | CPU s | peak RSS | wafka faster by | rounds ok |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...lines,
      '',
      ...contenders.map((c) => `- ${c.name}: ${summaries.find((x) => x.contender === c.name)?.settings ?? ''}`),
      '',
      ...(summaries.some((x) => x.failed.length)
        ? [
            '**Failed runs**',
            '',
            ...summaries.flatMap((x) => x.failed.map((f) => `- ${x.contender}, ${x.scenario}, ${f.replace(/\n/g, ' ')}`)),
            '',
          ]
        : []),
      `The machine is shared with other sessions: load averages at each run's start are in streams-restore.json (first ${load[0] ?? 'n/a'}, last ${load.at(-1) ?? 'n/a'}). Group join is in the time, the same for both (no initial rebalance delay on either broker).`,
      '',
    ].join('\n'),
  )
  console.log(`wrote bench/results/streams-restore.json and streams-restore.md (${elapsed()})`)
}

/** `keys` records word<i> → 1 (Long) to `topic`, each to the partition the default (murmur2) partitioner gives its key. */
async function writeChangelog(kafka: import('../src/index.js').Kafka, topic: string, keys: number): Promise<void> {
  const producer = kafka.producer({ lingerMs: 5 })
  await producer.connect()
  try {
    const one = LONG.encode(1)
    const CHUNK = 10_000
    const sends: Promise<unknown>[] = []
    for (let i = 0; i < keys; i += CHUNK) {
      const messages = []
      for (let j = i; j < Math.min(keys, i + CHUNK); j++) messages.push({ key: `word${j}`, value: one })
      sends.push(producer.send({ topic, messages }))
      if (sends.length >= 8) await sends.shift()
    }
    await Promise.all(sends)
  } finally {
    await producer.disconnect()
  }
}

/** The latest count per key of a word count's output topic, once `want` keys have come (30 s at most). */
async function readCounts(kafka: import('../src/index.js').Kafka, topic: string, want: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  const consumer = kafka.consumer({ groupId: `${topic}-reader`, autoOffsetReset: 'earliest', maxWaitTimeInMs: 200 })
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic] })
    await consumer.run({
      eachMessage: async ({ message }) => {
        counts.set(message.key!.toString(), LONG.decode(message.value!))
      },
    })
    const deadline = Date.now() + 30_000
    while (counts.size < want && Date.now() < deadline) await sleep(100)
  } finally {
    await consumer.disconnect()
  }
  return counts
}

async function parent(): Promise<void> {
  if (process.argv.includes('--restore')) return restoreBench()
  if (process.argv.includes('--rewrite')) return rewrite(repositoryRoot(), option('out') ?? 'streams')
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  const quick = process.argv.includes('--quick')
  const only = option('only')
  const onlyTarget = option('target') as TargetId | undefined
  const onlyApp = option('app') as AppId | undefined
  const onlyGuarantee = option('guarantee') as Guarantee | undefined
  const profileDir = option('profile') ?? null
  const lines = Number(option('lines') ?? (quick ? 10_000 : 60_000))
  const events = Number(option('events') ?? (quick ? 20_000 : 200_000))
  const rounds = Number(option('rounds') ?? (quick ? 1 : 2))
  const partial = quick || !!only || !!onlyTarget || !!onlyApp || !!onlyGuarantee || !!profileDir
  const root = repositoryRoot()
  const bundle = fileURLToPath(import.meta.url)
  const revision = wafkaRevision(root, bundle)
  if (revision.includes('STALE')) console.log(`warning: wafka ${revision}`)
  const flowDir = option('kafkats-flow')
  const flowNote: string[] = []
  let contenders = CONTENDERS.filter((c) => !only || c.id.includes(only) || c.name.includes(only))
  if (contenders.some((c) => c.id === 'kafkats')) {
    const installed = flowDir ? join(flowDir, 'node_modules', '@kafkats', 'flow') : join(root, 'node_modules', '@kafkats', 'flow')
    if (!existsSync(installed)) {
      flowNote.push('@kafkats/flow was not installed (npm install, or --kafkats-flow=<dir>): it did not run.')
      contenders = contenders.filter((c) => c.id !== 'kafkats')
    }
  }
  const targets: TargetId[] = onlyTarget ? [onlyTarget] : ['kafka', 'embedded']
  const apps: AppId[] = onlyApp ? [onlyApp] : ['wordcount', 'windowed']
  const guarantees: Guarantee[] = onlyGuarantee ? [onlyGuarantee] : ['at_least_once', 'exactly_once_v2']
  const { Kafka } = await import('../src/index.js')
  const snapshot = snapshotBundle(bundle, 'streams')
  const runs: Run[] = []
  const descriptions: string[] = []
  let wordsTotal = 0
  const load: string[] = []
  try {
    for (const targetId of targets) {
      const target = await startTarget(targetId)
      descriptions.push(target.description)
      const admin = new Kafka({ clientId: 'bench-check', brokers: target.bootstrap.split(','), logLevel: 0 }).admin()
      try {
        await admin.connect()
        const inputs: Record<string, { topic: string; records: number }> = {
          wordcount: { topic: `bench-text-${process.pid}`, records: lines },
          windowed: { topic: `bench-events-${process.pid}`, records: events },
          'wordcount-kafkats': { topic: `bench-text-small-${process.pid}`, records: Math.ceil(lines / KAFKATS_SHARE) },
          'windowed-kafkats': { topic: `bench-events-small-${process.pid}`, records: Math.ceil(events / KAFKATS_SHARE) },
        }
        const inputOf = (app: AppId, id: Id) => inputs[id === 'kafkats' ? `${app}-kafkats` : app]
        const t0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
        for (const app of apps)
          for (const id of (contenders.some((c) => c.id === 'kafkats') ? ['wafka', 'kafkats'] : ['wafka']) as Id[]) {
            const { topic, records } = inputOf(app, id)
            await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true })
            const tp = performance.now()
            const w = await produceInput(target.bootstrap, topic, app, records, t0)
            if (app === 'wordcount' && id === 'wafka') wordsTotal = w
            console.log(
              `${TARGET_NAMES[targetId]}: ${fmt.format(records)} records produced to ${topic} in ${((performance.now() - tp) / 1000).toFixed(1)} s`,
            )
          }
        for (let round = 0; round < rounds; round++)
          for (const app of apps)
            for (const guarantee of guarantees) {
              const shift = round % contenders.length
              for (const c of [...contenders.slice(shift), ...contenders.slice(0, shift)]) {
                const scenario = scenarioName(targetId, app, guarantee)
                const applicationId = `bench-${process.pid}-${targetId}-${app}-${guarantee === 'exactly_once_v2' ? 'eos' : 'alos'}-${round + 1}-${c.id}`
                const { topic, records } = inputOf(app, c.id)
                const output = `${applicationId}-output`
                const run: Run = {
                  round,
                  scenario,
                  contender: c.name,
                  ok: false,
                  messages: records,
                  target: targetId,
                  app,
                  guarantee,
                  applicationId,
                }
                const job: Job = {
                  contender: c.id,
                  app,
                  guarantee,
                  bootstrap: target.bootstrap,
                  input: topic,
                  output,
                  applicationId,
                  root,
                  flowDir,
                }
                load.push(readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '))
                let proc: Proc | undefined
                try {
                  await admin.createTopics({
                    topics: [{ topic: output, numPartitions: PARTITIONS, replicationFactor: 1 }],
                    waitForLeaders: true,
                  })
                  proc = c.id === 'java' ? await javaProc(job) : nodeProc(snapshot, job, c.id === 'wafka' ? profileDir : null)
                  const m = await measureRun(proc, admin, job, records)
                  Object.assign(run, { wallMs: m.wallMs, processingMs: m.processingMs, recordsTimed: m.recordsTimed })
                  run.msgPerSec = m.recordsTimed / (m.processingMs / 1000)
                  run.mbPerSec = 0
                  run.result = { wallMs: m.wallMs, cpuSec: m.cpuSec, userSec: NaN, systemSec: NaN, rssBaseline: 0, rssPeak: m.rssPeak }
                  run.ok = true
                } catch (err) {
                  run.error = (err as Error).message.slice(0, 1500)
                } finally {
                  await proc?.stop().catch(() => {})
                }
                runs.push(run)
                const r = run.result
                console.log(
                  `round ${round + 1}, ${scenario}, ${c.name}: ${
                    run.ok
                      ? `${fmt.format(run.msgPerSec!)} records/s, CPU ${r!.cpuSec.toFixed(2)} s (${((r!.cpuSec * 1e6) / records).toFixed(1)} µs/record), peak RSS ${fmt.format(r!.rssPeak / 2 ** 20)} MiB, caught up ${(run.wallMs! / 1000).toFixed(1)} s after start()`
                      : `FAILED: ${run.error}`
                  } (${elapsed()})`,
                )
                await sleep(500)
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

  const scenarios = targets.flatMap((t) => apps.flatMap((a) => guarantees.map((g) => ({ t, a, g, name: scenarioName(t, a, g) }))))
  const summaries = summarize<Id>(
    runs,
    scenarios.map((s) => s.name),
    contenders,
    (id, i) => settings(id, scenarios[i].a, scenarios[i].g),
  )
  perRecordCpuRatios(summaries, runs)
  console.log('')
  printTables(summaries)
  const aim = aimLines(summaries)
  for (const l of aim) console.log(l)
  if (profileDir) {
    const written = profileMarkdown(root, profileDir, runs, revision, process.argv.slice(2).join(' '))
    console.log(written)
  }
  if (partial) {
    console.log('(--quick, --only, --target, --app, --guarantee or --profile: results not written)')
    return
  }
  const header = {
    date: new Date().toISOString(),
    command: `npm run bench:streams${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: machine(),
    loadAverages: load,
    versions: {
      wafka: revision,
      '@kafkats/flow': flowDir
        ? JSON.parse(readFileSync(join(flowDir, 'node_modules', '@kafkats', 'flow', 'package.json'), 'utf8')).version
        : packageVersion('@kafkats/flow'),
      'Apache Kafka (broker, kafka-streams)': (await import('../test/peers/kafka.js')).KAFKA_VERSIONS['4'],
      Java: javaVersion(),
    },
    rounds,
    records: { wordcount: lines, wordcountWords: wordsTotal, windowed: events },
    partitions: PARTITIONS,
    notes: [
      ...flowNote,
      "Each run is one application instance (one stream thread) alone in a fresh application id, processing its whole input topic from the beginning; each contender runs in a process of its own, measured from outside by the parent: CPU is /proc/<pid>/stat (user + system, every thread: GC and JIT included) from the start() call (Node: just before it; Java: its first state change, made inside start()) to the moment the application had caught up; peak RSS is the process's VmHWM then (the whole process life: for the JVM, its heap is capped at -Xmx512m).",
      `Caught up: the application's group has committed every input offset (every partition's end) and, past that, every offset of its repartition topics (their ends, less the final transaction marker under exactly_once_v2), polled with wafka's admin every ${POLL_MS} ms. Records per second count the input records committed after the first committed progress, over the time from that first progress to caught up, so group join and task assignment are left out of the rate (they are in the CPU).`,
      `Commit interval ${COMMIT_INTERVAL_MS} ms for every contender and guarantee (Java's default under exactly_once_v2; its at_least_once default, 30 s, would swamp the end detection). Word count: lines of 1 to 5 words out of ${fmt.format(VOCABULARY)} (${fmt.format(wordsTotal)} words in ${fmt.format(lines)} lines); a word count counts per line read (input records), every word goes through the repartition topic (not with kafkats, which has none) and updates a count. Windowed count: ${fmt.format(KEYS)} keys, records 5 ms apart in event time with one in ten up to 3 s late (inside the ${GRACE_MS / 1000} s grace), ${WINDOW_MS / 1000} s tumbling windows.`,
      `The machine is shared with other sessions (agents running tests and JVMs): the load average (1, 5, 15 min) at the start of each run is in streams.json (loadAverages); at the first run it was ${load[0] ?? 'n/a'}, at the last ${load.at(-1) ?? 'n/a'}. Read the per-round ratios rather than the absolute figures.`,
      `@kafkats/flow processes a few hundred to a few thousand records a second, so it reads an input topic of its own, the first 1/${KAFKATS_SHARE} of the others' (the same generator): its records per second and CPU per record are comparable, its peak RSS less so (a smaller input).`,
      "The embedded broker runs in the benchmark's parent process, on the same 2 cores as the application; so does the real Kafka broker (its own JVM).",
    ],
  }
  const text = {
    workload: `Input written once per target by wafka's producer to ${PARTITIONS}-partition topics on ${descriptions.join(' and on ')}: ${fmt.format(lines)} lines for the word count, ${fmt.format(events)} events for the windowed count. ${rounds} round(s), interleaved, contender order rotating; figures are medians, and each "n×" is the median of the per-round ratios.`,
  }
  const name = option('out') ?? 'streams'
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ ...header, workload: text.workload, summaries, runs }, null, 2)}\n`)
  writeFileSync(join(dir, `${name}.md`), markdown(header, text.workload, summaries, aim))
  console.log(`wrote bench/results/${name}.json and ${name}.md (${elapsed()})`)
}

/**
 * bench/results/profile-streams.md: each profiled wafka run's figures and its top 10 functions by self time
 * (the children's --cpu-prof files, in the order the runs went).
 */
function profileMarkdown(root: string, dir: string, runs: Run[], revision: string, args: string, name = 'profile-streams'): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
  const profiled = runs.filter((r) => r.contender === 'wafka')
  const m = machine()
  const out = [
    `<!-- Written by bench/streams.ts (node dist/bench/streams.js ${args}); do not edit by hand. -->`,
    "# Where a wafka/streams application's time goes",
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${m.cpu} (${m.cores} cores, shared with other sessions: noisy), Node ${m.node}; wafka ${revision}. The wafka application of bench/streams.ts (dist/streams.js, in a process of its own) run with --cpu-prof, from its start to its close; the profiler's own cost is in its figures. Self time is sampled wall time in a frame (file:line in the built bundle, dist/).`,
    '',
  ]
  files.forEach((file, i) => {
    const run = profiled[i]
    const { total, rows } = selfTimes(file)
    out.push(
      `### ${run ? run.scenario : file}`,
      '',
      run?.ok
        ? `Profiled run: ${fmt.format(run.msgPerSec!)} records/s, ${((run.result!.cpuSec * 1e6) / run.messages).toFixed(1)} µs CPU per input record, peak RSS ${mib(run.result!.rssPeak)}.`
        : `Profiled run: ${run?.error ?? 'no run matched'}`,
      `Sampled non-idle time ${fmt.format(total)} ms; top 10 functions by self time:`,
      '',
      '| self ms | % | function |',
      '|---:|---:|---|',
      ...rows
        .filter((r) => r.fn !== '(idle)' && !r.fn.startsWith('(idle)'))
        .slice(0, 10)
        .map((r) => `| ${r.ms.toFixed(1)} | ${((100 * r.ms) / total).toFixed(1)} | \`${r.fn}\` |`),
      '',
    )
  })
  const file = join(root, 'bench', 'results', `${name}.md`)
  writeFileSync(file, out.join('\n'))
  return `wrote ${file} (${files.length} profiles from ${dir})`
}

const ratio = (r: number) => (!Number.isFinite(r) ? 'n/a' : `${r.toFixed(2)}×`)
const rate = (v: number) => `${fmt.format(v)}`
const mib = (b: number) => `${fmt.format(b / 2 ** 20)} MiB`

/** The issue's aim, scenario by scenario: wafka at or above Java's rate with less CPU per record. */
function aimLines(summaries: Summary[]): string[] {
  const out: string[] = []
  for (const s of [...new Set(summaries.map((x) => x.scenario))]) {
    const java = summaries.find((x) => x.scenario === s && x.contender === 'Java Kafka Streams')
    const wafka = summaries.find((x) => x.scenario === s && x.contender === 'wafka')
    if (!java?.rounds || !wafka?.rounds) continue
    const met = java.speedRatio >= 1 && java.cpuRatio > 1
    out.push(
      `- ${s}: wafka ${ratio(java.speedRatio)} Java's rate, Java uses ${ratio(java.cpuRatio)} wafka's CPU per record: aim ${met ? 'met' : 'missed'}`,
    )
  }
  return out
}

function markdown(
  h: { date: string; command?: string; machine: ReturnType<typeof machine>; versions: Record<string, string>; notes: string[] },
  workload: string,
  summaries: Summary[],
  aim: string[],
): string {
  const m = h.machine
  const scenarios = [...new Set(summaries.map((x) => x.scenario))]
  const contenders = [...new Set(summaries.map((x) => x.contender))]
  const find = (s: string, c: string) => summaries.find((x) => x.scenario === s && x.contender === c)!
  const table = (value: (x: Summary) => string, ratioOf: (x: Summary) => number) => [
    `| | ${contenders.join(' | ')} |`,
    `|---|${contenders.map(() => '---:').join('|')}|`,
    ...scenarios.map(
      (s) =>
        `| ${s} | ${contenders
          .map((c, i) => {
            const x = find(s, c)
            return x.rounds === 0 ? 'failed' : i === 0 ? value(x) : `${value(x)} (${ratio(ratioOf(x))})`
          })
          .join(' | ')} |`,
    ),
  ]
  return [
    '<!-- Written by bench/streams.ts; do not edit by hand. -->',
    `Measured ${h.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.os}, by \`${h.command ?? 'npm run bench:streams'}\` (its build, then node dist/bench/streams.js).`,
    workload,
    `Versions: ${Object.entries(h.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    '**Input records per second** ("n×": wafka\'s rate divided by that contender\'s; above 1, wafka is faster)',
    '',
    ...table(
      (x) => rate(x.msgPerSec),
      (x) => x.speedRatio,
    ),
    '',
    "**CPU per input record, µs** (the application process's user + system CPU, every thread; \"n×\": that contender's divided by wafka's, from the same round)",
    '',
    ...table(
      (x) => x.cpuSecPerMillion.toFixed(1),
      (x) => x.cpuRatio,
    ),
    '',
    '**Peak RSS of the application process** ("n×": that contender\'s divided by wafka\'s)',
    '',
    ...table(
      (x) => mib(x.rssPeak),
      (x) => x.rssRatio,
    ),
    '',
    "**The aim** (issue 28: at or above Java Kafka Streams' throughput with less CPU per record)",
    '',
    ...aim,
    '',
    '**Settings**',
    '',
    ...contenders.map((c) => [`- ${c}:`, ...scenarios.map((s) => `  - ${s}: ${find(s, c).settings}`)].join('\n')),
    '',
    ...(summaries.some((x) => x.failed.length)
      ? [
          '**Failed runs**',
          '',
          ...summaries.flatMap((x) => x.failed.map((f) => `- ${x.contender}, ${x.scenario}, ${f.replace(/\n/g, ' ')}`)),
          '',
        ]
      : []),
    'Notes:',
    '',
    ...h.notes.map((n) => `- ${n}`),
    '',
  ].join('\n')
}

if (!(await childMain())) await parent()
