// Real Apache Kafka in the rig: KRaft clusters of 1 or 3 combined
// broker+controller JVMs from the Maven Central jars test/peers/kafka/pom.xml
// resolves, on free 127.0.0.1 ports, fresh log dirs every time. Also the
// Java tools (kafka-tools, kafka-clients and the rig's own test/peers/java
// programs) on the same class path.
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { type Server, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Connection } from '../../src/net/connection.js'
import { Metadata } from '../../src/protocol/messages/index.js'
import { appendTail, killOnExit, shownCommand } from './child.js'
import { RIG_INTERNAL_TOPICS } from './internal-topics.mjs'

/** test/peers: where this file is, or, when it is bundled elsewhere (the benchmarks in dist/bench/), the repository's. */
function peersDir(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'kafka', 'pom.xml'))) return dir
    if (existsSync(join(dir, 'test', 'peers', 'kafka', 'pom.xml'))) return join(dir, 'test', 'peers')
    if (dirname(dir) === dir) return start
  }
}
const here = peersDir(dirname(fileURLToPath(import.meta.url)))
const root = join(here, '..', '..')
const pomDir = join(here, 'kafka')
const javaSources = join(here, 'java')
const cacheDir = join(root, 'node_modules', '.cache', 'wafka-peers')

export type KafkaVersion = '4' | '3.9'
/** The exact versions the pom resolves for each line (newest of each that resolves). */
export const KAFKA_VERSIONS: Record<KafkaVersion, string> = { '4': '4.4.0', '3.9': '3.9.2' }

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL'

export interface KafkaListener {
  /** Listener name (upper case), e.g. 'PLAINTEXT', 'SASL_SSL', 'EXTERNAL'. */
  name: string
  protocol: SecurityProtocol
  /** Broker config for this listener only; keys are prefixed with `listener.name.<name>.`. */
  config?: Record<string, string>
}

export interface KafkaOptions {
  /** Combined broker+controller nodes, one controller quorum; ids 1..brokers. Default 1. */
  brokers?: 1 | 3
  /** Default '4' (4.4.0); '3.9' is 3.9.2. */
  version?: KafkaVersion
  /**
   * The client listeners, each on its own port per broker; the first is
   * `bootstrap`. Default one PLAINTEXT. Without a PLAINTEXT one, the rig
   * adds `RIG` (PLAINTEXT) for replication and its readiness checks.
   */
  listeners?: KafkaListener[]
  /** Broker config on top of the rig's (wins over it), for every broker. */
  config?: Record<string, string>
  /** Broker config for one broker (by id, from 1), on top of `config`: e.g. its broker.rack. */
  brokerConfig?: (id: number) => Record<string, string>
  /** JVM flags after the rig's (later flags win: `-XX:TieredStopAtLevel=4` re-enables C2). */
  jvmOpts?: string[]
  /** How long start (and startBroker) may take. Default 90 s. */
  startTimeoutMs?: number
  /** More arguments for `kafka-storage format`, e.g. ['--add-scram', 'SCRAM-SHA-512=[name=alice,password=...]']. */
  formatArgs?: string[]
  /** Each broker logs every completed request (kafka.request.logger at DEBUG, with totalTimeMs) to request.log in its log dir. */
  requestLog?: boolean
}

export interface KafkaBroker {
  id: number
  host: string
  /** Port of the first listener. */
  port: number
  /** Port of every listener by name (the rig's RIG listener included). */
  ports: Record<string, number>
  controllerPort: number
  logDir: string
}

export interface JavaResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunJavaOptions {
  /** Written to stdin, which then closes (without it, stdin is closed at once). */
  input?: string
  /** Killed (SIGKILL) after this long; the promise then rejects. Default 120 s. */
  timeoutMs?: number
  jvmOpts?: string[]
  env?: NodeJS.ProcessEnv
}

export interface KafkaCluster {
  version: string
  clusterId: string
  /** 'host:port,...' of the first listener. */
  bootstrap: string
  brokers: KafkaBroker[]
  /** 'host:port,...' of the named listener. */
  bootstrapFor(listener: string): string
  /** Each broker's log dir (data under data/, server.log and server.properties beside it). */
  logDirs: string[]
  classPath: string
  javaBin: string
  /** Runs a main class (kafka-tools, kafka-clients, the rig's programs) to its end. */
  runJava(mainClass: string, args: string[], options?: RunJavaOptions): Promise<JavaResult>
  /** Starts a long-running main class; it dies with the test process. */
  spawnJava(mainClass: string, args: string[], options?: { jvmOpts?: string[]; env?: NodeJS.ProcessEnv }): ChildProcess
  /** Controlled shutdown of one broker (SIGTERM; SIGKILL after 30 s); its log dir stays. */
  stopBroker(id: number): Promise<void>
  /** SIGKILL one broker; its log dir stays. */
  kill(id: number): Promise<void>
  /** Starts a stopped or killed broker again with the same id and log dir; resolves when it serves. */
  startBroker(id: number): Promise<void>
  /** Whether the broker's JVM is running. */
  isRunning(id: number): boolean
  /** The broker's JVM process id while it runs (for its CPU time from /proc). */
  pid(id: number): number | undefined
  /** Kills every broker and removes the log dirs. */
  stop(): Promise<void>
}

const RIG_LISTENER = 'RIG'
const CONTROLLER_LISTENER = 'CONTROLLER'
const BASE_JVM_OPTS = [
  '-Xmx512m',
  '-Xms64m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xss1m',
  '-Djava.awt.headless=true',
  '-Djava.net.preferIPv4Stack=true',
]
const TOOL_JVM_OPTS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true']

// ---------------------------------------------------------------- Java and the jars

let javaFound: string | null | undefined
/** The java binary ($JAVA_HOME/bin/java, else java on PATH), or null. */
export function javaBin(): string | null {
  if (javaFound !== undefined) return javaFound
  const candidates = [process.env.JAVA_HOME && join(process.env.JAVA_HOME, 'bin', 'java'), 'java'].filter(Boolean) as string[]
  javaFound = candidates.find((j) => spawnSync(j, ['-version'], { stdio: 'ignore' }).status === 0) ?? null
  return javaFound
}

function javacBin(): string | null {
  const java = javaBin()
  if (!java) return null
  const javac = java === 'java' ? 'javac' : join(dirname(java), 'javac')
  return spawnSync(javac, ['-version'], { stdio: 'ignore' }).status === 0 ? javac : null
}

function pomHash(version: string): string {
  return createHash('sha256')
    .update(readFileSync(join(pomDir, 'pom.xml')))
    .update(version)
    .digest('hex')
    .slice(0, 16)
}

const classPaths = new Map<string, string>()

/**
 * The class path of Kafka `version` (exact, e.g. '4.4.0'): resolved by Maven
 * once (offline first, from ~/.m2), then cached by the pom's hash.
 */
export function kafkaClassPath(version: string): string {
  const known = classPaths.get(version)
  if (known) return known
  const file = join(cacheDir, `kafka-${version}-${pomHash(version)}.classpath`)
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    const args = ['-q', '-B', 'dependency:build-classpath', `-Dkafka.version=${version}`, `-Dmdep.outputFile=${tmp}`]
    let r = spawnSync('mvn', ['-o', ...args], { cwd: pomDir, encoding: 'utf8' })
    if (r.status !== 0) r = spawnSync('mvn', args, { cwd: pomDir, encoding: 'utf8' })
    if (r.error || r.status !== 0) {
      const why = r.error ? r.error.message : (r.stdout + r.stderr).trim().split('\n').slice(-5).join('\n')
      throw new Error(`Maven could not resolve Kafka ${version} (test/peers/kafka/pom.xml): ${why}`)
    }
    writeFileSync(file, readFileSync(tmp, 'utf8').trim())
    rmSync(tmp, { force: true })
  }
  const cp = readFileSync(file, 'utf8').trim()
  const missing = cp.split(':').find((jar) => !existsSync(jar))
  if (missing) {
    rmSync(file, { force: true })
    throw new Error(`Kafka ${version} class path names a missing jar (${missing}); run again to resolve it anew`)
  }
  classPaths.set(version, cp)
  return cp
}

const rigClasses = new Map<string, string>()

/** The rig's Java programs (test/peers/java) compiled against Kafka `version`'s class path, cached by source hash. */
export function rigClassDir(version: string): string {
  const known = rigClasses.get(version)
  if (known) return known
  const cp = kafkaClassPath(version)
  const sources = readdirSync(javaSources)
    .filter((f) => f.endsWith('.java'))
    // Kafka 3.9's clients have no KafkaShareConsumer (KIP-932 came in 4.0).
    .filter((f) => !(f.startsWith('RigShare') && version.startsWith('3.')))
    .sort()
  const hash = createHash('sha256').update(version)
  for (const s of sources) hash.update(s).update(readFileSync(join(javaSources, s)))
  const dir = join(cacheDir, `rig-java-${version}-${hash.digest('hex').slice(0, 16)}`)
  if (!existsSync(join(dir, 'done'))) {
    const javac = javacBin()
    if (!javac) throw new Error('javac not found (install a JDK 17 or set JAVA_HOME)')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const r = spawnSync(javac, ['-nowarn', '-d', dir, '-cp', cp, ...sources.map((s) => join(javaSources, s))], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`javac failed on test/peers/java:\n${r.stdout}${r.stderr}`)
    writeFileSync(join(dir, 'done'), '')
  }
  rigClasses.set(version, dir)
  return dir
}

export interface KafkaStatus {
  ok: boolean
  missing: string[]
}

/** Whether Java, javac, Maven and the jars of `version` are here (resolving them if Maven can). */
export function kafkaAvailable(version: KafkaVersion = '4'): KafkaStatus {
  const missing: string[] = []
  if (!javaBin()) missing.push('java not found (install OpenJDK 17 or set JAVA_HOME)')
  else if (!javacBin()) missing.push('javac not found (install a JDK 17, not only a JRE)')
  if (missing.length === 0) {
    try {
      rigClassDir(KAFKA_VERSIONS[version])
    } catch (e) {
      missing.push((e as Error).message)
    }
  }
  return { ok: missing.length === 0, missing }
}

/**
 * For `describe.skipIf(!requireKafka())(...)`: true when real Kafka can run.
 * Under CI (CI set) a missing piece throws, failing the file; elsewhere it
 * warns and returns false so the tests skip.
 */
export function requireKafka(version: KafkaVersion = '4'): boolean {
  const status = kafkaAvailable(version)
  if (status.ok) return true
  const message = `Apache Kafka ${KAFKA_VERSIONS[version]} cannot run here:\n  ${status.missing.join('\n  ')}\n(see test/peers/README.md)`
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}\nskipping the tests that need it (they fail under CI)`)
  return false
}

// ---------------------------------------------------------------- processes

function javaArgs(version: string, jvmOpts: string[], mainClass: string, args: string[], logDir?: string, requestLog?: boolean): string[] {
  const cp = `${rigClassDir(version)}:${kafkaClassPath(version)}`
  const logging = [
    `-Dlog4j2.configurationFile=${join(pomDir, requestLog ? 'log4j2-request-log.properties' : 'log4j2.properties')}`,
    `-Dlog4j.configuration=file:${join(pomDir, 'log4j.properties')}`,
    `-Dkafka.logs.dir=${logDir ?? join(tmpdir(), 'wafka-kafka-tools')}`,
  ]
  return [...jvmOpts, ...logging, '-cp', cp, 'RigMain', mainClass, ...args]
}

function spawnRig(
  version: string,
  jvmOpts: string[],
  mainClass: string,
  args: string[],
  options: SpawnOptions & { logDir?: string; requestLog?: boolean } = {},
): ChildProcess {
  const java = javaBin()
  if (!java) throw new Error('java not found')
  const { logDir, requestLog, ...spawnOptions } = options
  const child = spawn(java, javaArgs(version, jvmOpts, mainClass, args, logDir, requestLog), {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...spawnOptions,
  })
  killOnExit(child)
  return child
}

function runRig(version: string, mainClass: string, args: string[], options: RunJavaOptions = {}): Promise<JavaResult> {
  const child = spawnRig(version, [...TOOL_JVM_OPTS, ...(options.jvmOpts ?? [])], mainClass, args, { env: options.env ?? process.env })
  return new Promise((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (b: Buffer) => out.push(b))
    child.stderr!.on('data', (b: Buffer) => err.push(b))
    const timeoutMs = options.timeoutMs ?? 120_000
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(`${mainClass} ${shownCommand(args)} did not finish in ${timeoutMs} ms:\n${Buffer.concat(err).toString().slice(-2000)}`),
      )
    }, timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() })
    })
    child.stdin!.on('error', () => {})
    child.stdin!.end(options.input)
  })
}

/** What the rig's Java programs (test/peers/java-client.ts) need of a cluster: where it serves, and a JVM to run them in. */
export type JavaPeer = Pick<KafkaCluster, 'bootstrap' | 'runJava' | 'spawnJava'>

/** The Java client's way to any cluster, a rig Kafka's or not (the embedded broker): the rig's JVM on Kafka `version`'s jars. */
export function javaPeer(bootstrap: string, version: KafkaVersion = '4'): JavaPeer {
  return {
    bootstrap,
    runJava: (mainClass, args, o) => runJava(mainClass, args, { ...o, version }),
    spawnJava: (mainClass, args, o) => spawnJava(mainClass, args, { ...o, version }),
  }
}

/** Runs a main class on Kafka `version`'s class path (no cluster needed). */
export function runJava(mainClass: string, args: string[], options: RunJavaOptions & { version?: KafkaVersion } = {}): Promise<JavaResult> {
  return runRig(KAFKA_VERSIONS[options.version ?? '4'], mainClass, args, options)
}

/** Starts a main class on Kafka `version`'s class path as a long-running child (no cluster needed: e.g. a client of the embedded broker). */
export function spawnJava(
  mainClass: string,
  args: string[],
  options: { jvmOpts?: string[]; env?: NodeJS.ProcessEnv; version?: KafkaVersion } = {},
): ChildProcess {
  return spawnRig(KAFKA_VERSIONS[options.version ?? '4'], [...TOOL_JVM_OPTS, ...(options.jvmOpts ?? [])], mainClass, args, {
    env: options.env ?? process.env,
  })
}

/** Ports this process has handed out; the OS may give a just-closed port again. */
const portsHandedOut = new Set<number>()

/**
 * `count` distinct free 127.0.0.1 ports. Every probe socket stays open until
 * all are chosen, so the kernel cannot return one port twice in a call, and
 * a port handed out earlier in this process is never handed out again (a
 * broker still starting may not hold it yet).
 */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = []
  const ports: number[] = []
  try {
    for (let tries = 0; ports.length < count; tries++) {
      if (tries > count + 100) throw new Error(`could not find ${count} free ports`)
      const server = createServer()
      servers.push(server)
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', () => resolve())
      })
      const { port } = server.address() as { port: number }
      if (portsHandedOut.has(port)) continue
      portsHandedOut.add(port)
      ports.push(port)
    }
    return ports
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
  }
}

/** A Kafka Uuid: 16 random bytes, base64url; never one starting with '-' (a CLI would read it as a flag). */
function clusterUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function properties(entries: Record<string, string>): string {
  return (
    Object.entries(entries)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      .join('\n') + '\n'
  )
}

function serverLogTail(logDir: string, lines = 30): string {
  try {
    return readFileSync(join(logDir, 'server.log'), 'utf8').trim().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no server.log)'
  }
}

// Log dirs of clusters not stopped yet: removed when the test process exits
// (its JVMs are killed then too: child.ts).
const liveDirs = new Set<string>()
let dirHookInstalled = false
function removeOnExit(dir: string): void {
  liveDirs.add(dir)
  if (dirHookInstalled) return
  dirHookInstalled = true
  process.once('exit', () => {
    for (const d of liveDirs) {
      try {
        rmSync(d, { recursive: true, force: true, maxRetries: 3 })
      } catch {
        // a JVM still dying may write meanwhile: a leftover temp dir is no failure
      }
    }
  })
}

interface Node {
  broker: KafkaBroker
  propertiesFile: string
  child?: ChildProcess
  exited?: Promise<void>
  /** Set when the rig itself stops or kills this broker: any other exit is reported. */
  stopping?: boolean
  stderr: string[]
}

/**
 * Broker config for tests of share groups (KIP-932). Kafka 4.4 serves them
 * as it is: a freshly formatted cluster finalizes share.version=2, and
 * group.coordinator.rebalance.protocols includes "share" by default. What
 * the tests need is shorter bounds than Kafka's minimums (5 s heartbeats,
 * 45 s sessions, 15 s record locks), so that a member that dies is expired,
 * and a record whose lock runs out comes back, within seconds. A test sets
 * its own group's share.record.lock.duration.ms, share.delivery.count.limit
 * and share.auto.offset.reset through IncrementalAlterConfigs on the group.
 */
export const SHARE_GROUP_TEST_CONFIG: Readonly<Record<string, string>> = {
  'group.share.min.heartbeat.interval.ms': '500',
  'group.share.heartbeat.interval.ms': '1000',
  'group.share.min.session.timeout.ms': '3000',
  'group.share.session.timeout.ms': '6000',
  'group.share.min.record.lock.duration.ms': '1000',
  'group.share.record.lock.duration.ms': '15000',
}

/** Starts a KRaft cluster; resolves once every broker answers ApiVersions and Metadata lists them all. */
export async function startKafka(options: KafkaOptions = {}): Promise<KafkaCluster> {
  const started = Date.now()
  const count = options.brokers ?? 1
  const version = KAFKA_VERSIONS[options.version ?? '4']
  const java = javaBin()
  if (!java) throw new Error('java not found')
  const classPath = kafkaClassPath(version)
  rigClassDir(version)
  const jvmOpts = [...BASE_JVM_OPTS, ...(options.jvmOpts ?? [])]
  const startTimeoutMs = options.startTimeoutMs ?? 90_000

  const listeners = options.listeners ?? [{ name: 'PLAINTEXT', protocol: 'PLAINTEXT' }]
  if (listeners.length === 0) throw new Error('startKafka: listeners must not be empty')
  const plain = listeners.find((l) => l.protocol === 'PLAINTEXT')
  const all: KafkaListener[] = plain ? listeners : [...listeners, { name: RIG_LISTENER, protocol: 'PLAINTEXT' }]
  const checkListener = plain?.name ?? RIG_LISTENER

  const clusterId = clusterUuid()
  const base = mkdtempSync(join(tmpdir(), 'wafka-kafka-'))
  removeOnExit(base)
  const nodes: Node[] = []
  for (let id = 1; id <= count; id++) {
    const [controllerPort, ...listenerPorts] = await freePorts(all.length + 1)
    const ports: Record<string, number> = {}
    all.forEach((l, i) => {
      ports[l.name] = listenerPorts[i]
    })
    const logDir = join(base, `broker-${id}`)
    mkdirSync(logDir, { recursive: true })
    nodes.push({
      broker: { id, host: '127.0.0.1', port: ports[all[0].name], ports, controllerPort, logDir },
      propertiesFile: join(logDir, 'server.properties'),
      stderr: [],
    })
  }
  const voters = nodes.map((n) => `${n.broker.id}@127.0.0.1:${n.broker.controllerPort}`).join(',')
  const replication = String(count)
  for (const n of nodes) {
    const b = n.broker
    const config: Record<string, string> = {
      'process.roles': 'broker,controller',
      'node.id': String(b.id),
      'controller.quorum.voters': voters,
      'controller.listener.names': CONTROLLER_LISTENER,
      listeners: [
        ...all.map((l) => `${l.name}://127.0.0.1:${b.ports[l.name]}`),
        `${CONTROLLER_LISTENER}://127.0.0.1:${b.controllerPort}`,
      ].join(','),
      'advertised.listeners': all.map((l) => `${l.name}://127.0.0.1:${b.ports[l.name]}`).join(','),
      'listener.security.protocol.map': [...all.map((l) => `${l.name}:${l.protocol}`), `${CONTROLLER_LISTENER}:PLAINTEXT`].join(','),
      'inter.broker.listener.name': checkListener,
      'log.dirs': join(b.logDir, 'data'),
      // Two cores for everything on the machine.
      'num.network.threads': '2',
      'num.io.threads': '2',
      'background.threads': '2',
      'num.recovery.threads.per.data.dir': '1',
      'num.replica.fetchers': '1',
      // Internal topics: every broker holds a replica (a single node: replication 1), fewer partitions than 50.
      'offsets.topic.replication.factor': replication,
      'transaction.state.log.replication.factor': replication,
      'transaction.state.log.min.isr': String(Math.min(2, count)),
      ...RIG_INTERNAL_TOPICS,
      'default.replication.factor': '1',
      'num.partitions': '1',
      // Test speed: no wait before the first rebalance; short session bounds allowed (defaults unchanged).
      'group.initial.rebalance.delay.ms': '0',
      'group.min.session.timeout.ms': '500',
      'group.consumer.min.session.timeout.ms': '1000',
      'group.consumer.min.heartbeat.interval.ms': '100',
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': '1000',
      'transaction.remove.expired.transaction.cleanup.interval.ms': '60000',
      'controlled.shutdown.enable': 'true',
      'log.retention.check.interval.ms': '60000',
      'share.coordinator.state.topic.replication.factor': replication,
      'share.coordinator.state.topic.min.isr': String(Math.min(2, count)),
    }
    for (const l of all) {
      for (const [k, v] of Object.entries(l.config ?? {})) config[`listener.name.${l.name.toLowerCase()}.${k}`] = v
    }
    Object.assign(config, options.config, options.brokerConfig?.(b.id))
    writeFileSync(n.propertiesFile, properties(config))
  }

  const kill = (n: Node) => {
    n.stopping = true
    n.child?.kill('SIGKILL')
    return n.exited ?? Promise.resolve()
  }
  const cleanup = async () => {
    await Promise.all(nodes.map(kill))
    rmSync(base, { recursive: true, force: true })
    liveDirs.delete(base)
  }

  try {
    // Formatting is a JVM start per node: in parallel.
    await Promise.all(
      nodes.map(async (n) => {
        const r = await runRig(
          version,
          'kafka.tools.StorageTool',
          ['format', '-t', clusterId, '-c', n.propertiesFile, ...(options.formatArgs ?? [])],
          {
            jvmOpts: [`-Dkafka.logs.dir=${n.broker.logDir}`],
          },
        )
        if (r.code !== 0) throw new Error(`StorageTool format (broker ${n.broker.id}) failed:\n${r.stdout}${r.stderr}`)
      }),
    )
  } catch (e) {
    await cleanup()
    throw e
  }

  const byId = (id: number) => {
    const n = nodes.find((x) => x.broker.id === id)
    if (!n) throw new Error(`no broker ${id} (ids 1..${count})`)
    return n
  }

  const launch = (n: Node) => {
    if (n.child && n.child.exitCode === null && n.child.signalCode === null) throw new Error(`broker ${n.broker.id} is running`)
    n.stderr.length = 0
    n.stopping = false
    const child = spawnRig(version, jvmOpts, 'kafka.Kafka', [n.propertiesFile], {
      logDir: n.broker.logDir,
      requestLog: options.requestLog,
    })
    n.child = child
    child.stdout!.on('data', () => {})
    child.stderr!.on('data', (b: Buffer) => appendTail(n.stderr, b.toString()))
    n.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        // A broker that dies under a test leaves only refused connections behind: say why here.
        if (!n.stopping)
          console.error(
            `kafka ${version}: broker ${n.broker.id} exited (${code ?? signal}) unasked:\n` +
              `${n.stderr.join('\n')}\n${serverLogTail(n.broker.logDir)}`,
          )
        resolve()
      }),
    )
  }
  /** The first listener of `n` that refuses a TCP connection, described; undefined when all accept. */
  const refusingListener = async (n: Node): Promise<string | undefined> => {
    for (const l of all) {
      const port = n.broker.ports[l.name]
      const error = await new Promise<string | undefined>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, timeout: 2000 })
        socket.once('connect', () => (socket.destroy(), resolve(undefined)))
        socket.once('timeout', () => (socket.destroy(), resolve('timed out')))
        socket.once('error', (e) => resolve(e.message))
      })
      if (error) return `listener ${l.name} on port ${port}: ${error}`
    }
    return undefined
  }
  const isRunning = (n: Node) => n.child !== undefined && n.child.exitCode === null && n.child.signalCode === null

  /** Until this broker answers ApiVersions, its Metadata lists `expected` brokers and every listener accepts connections. */
  const waitServing = async (n: Node, expected: number, deadline: number) => {
    const port = n.broker.ports[checkListener]
    let last = 'not started'
    while (Date.now() < deadline) {
      if (!isRunning(n)) {
        throw new Error(
          `broker ${n.broker.id} exited (${n.child?.exitCode ?? n.child?.signalCode}) while starting:\n` +
            `${n.stderr.join('\n')}\n${serverLogTail(n.broker.logDir)}`,
        )
      }
      let conn: Connection | undefined
      try {
        conn = await Connection.open({ host: '127.0.0.1', port, connectTimeoutMs: 2000, requestTimeoutMs: 5000 })
        const md = await conn.request(Metadata, { topics: [], allowAutoTopicCreation: false })
        const ids = md.brokers.map((b: { nodeId: number }) => b.nodeId)
        if (ids.includes(n.broker.id) && ids.length >= expected && md.controllerId !== -1) {
          const refused = await refusingListener(n)
          if (!refused) return
          last = refused
        } else last = `Metadata lists brokers [${ids}] of ${expected}, controller ${md.controllerId}`
      } catch (e) {
        last = (e as Error).message
      } finally {
        conn?.close()
      }
      await sleep(200)
    }
    throw new Error(`broker ${n.broker.id} did not serve within ${startTimeoutMs} ms (${last}):\n${serverLogTail(n.broker.logDir)}`)
  }

  try {
    for (const n of nodes) launch(n)
    const deadline = Date.now() + startTimeoutMs
    await Promise.all(nodes.map((n) => waitServing(n, count, deadline)))
  } catch (e) {
    await cleanup()
    throw e
  }
  console.log(`kafka ${version}: ${count} broker${count > 1 ? 's' : ''} serving in ${Date.now() - started} ms (${nodes[0].broker.port}…)`)

  const list = (name: string) =>
    nodes
      .map((n) => {
        const port = n.broker.ports[name]
        if (port === undefined) throw new Error(`no listener ${name} (have ${Object.keys(n.broker.ports).join(', ')})`)
        return `127.0.0.1:${port}`
      })
      .join(',')

  let stopped = false
  return {
    version,
    clusterId,
    brokers: nodes.map((n) => n.broker),
    bootstrapFor: list,
    logDirs: nodes.map((n) => n.broker.logDir),
    classPath: `${rigClassDir(version)}:${classPath}`,
    javaBin: java,
    ...javaPeer(list(all[0].name), options.version ?? '4'),
    isRunning: (id) => isRunning(byId(id)),
    pid: (id) => (isRunning(byId(id)) ? byId(id).child!.pid : undefined),
    async kill(id) {
      await kill(byId(id))
    },
    async stopBroker(id) {
      const n = byId(id)
      if (!isRunning(n)) return
      n.stopping = true
      n.child!.kill('SIGTERM')
      const timer = setTimeout(() => n.child!.kill('SIGKILL'), 30_000)
      await n.exited
      clearTimeout(timer)
    },
    async startBroker(id) {
      if (stopped) throw new Error('the cluster was stopped')
      const n = byId(id)
      launch(n)
      await waitServing(n, nodes.filter(isRunning).length, Date.now() + startTimeoutMs)
    },
    async stop() {
      if (stopped) return
      stopped = true
      await cleanup()
    },
  }
}
