import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Admin } from '../../src/admin/admin.js'
import { ApiVersionsShim } from './api-versions-shim.js'
import type { ContenderId, Target } from './contest.js'
import { packageVersion } from './environment.js'
import { javaVersion } from './java-contender.js'
import { kcatVersion } from './kcat-contender.js'
import { KafkaBroker } from './kafka-broker.js'
import { MockBroker, peerBuild } from './mock-broker.js'

/**
 * The Kafka clients the end-to-end benchmarks compare, loaded as each
 * expects, and the rig they run against: librdkafka's mock cluster with the
 * shim @platformatic/kafka bootstraps through, and a wafka admin client for
 * the parent's checks.
 *
 * wafka itself is imported dynamically wherever it is used, so that a peer's
 * child process never instantiates wafka's WebAssembly (its RSS would count
 * against the peer).
 */

type Untyped = any

/** KafkaJS, with kafkajs-lz4 registered (as its README does) when the scenario compresses with lz4. */
export function loadKafkaJS(compression: 'none' | 'lz4'): Untyped {
  const require = createRequire(import.meta.url)
  const kafkajs = require('kafkajs')
  if (compression === 'lz4') {
    const LZ4Codec = require('kafkajs-lz4')
    kafkajs.CompressionCodecs[kafkajs.CompressionTypes.LZ4] = new LZ4Codec().codec
  }
  return kafkajs
}

/** @confluentinc/kafka-javascript. Not a devDependency: test/peers/build.mjs --install puts it in ~/.cache/wafka-peers. */
export async function loadConfluent(): Promise<Untyped> {
  const { ckjsDir } = await peerBuild()
  const require = createRequire(join(ckjsDir, 'package.json'))
  return require(ckjsDir)
}

/** The versions of every contender, for a results header. */
export function clientVersions(wafka: string, ckjsDir: string): Record<string, string> {
  const ckjs = JSON.parse(readFileSync(join(ckjsDir, 'package.json'), 'utf8'))
  return {
    wafka,
    kafkajs: packageVersion('kafkajs'),
    'kafkajs-lz4': packageVersion('kafkajs-lz4'),
    '@platformatic/kafka': packageVersion('@platformatic/kafka'),
    '@confluentinc/kafka-javascript': ckjs.version,
    librdkafka: ckjs.librdkafka ?? '2.15',
    kcat: kcatVersion(),
  }
}

export { windowed } from '../../src/cli/bench/windowed.js'

/** What the contest needs of the broker it runs against (the mock cluster or a real Kafka broker). */
export interface BenchCluster {
  readonly bootstrap: string
  /** CPU seconds the broker's process has used so far (NaN when unknown). */
  cpuSeconds(): number
}

export interface Rig {
  target: Target
  cluster: BenchCluster
  /** The mock cluster (target mock only): for the settings only it needs. */
  mock?: MockBroker
  /** The real broker (target kafka only): its class path runs the Java contender. */
  kafka?: KafkaBroker
  /** @platformatic/kafka's bootstrap address on the mock (bench/support/api-versions-shim.ts); none on real Kafka. */
  shim?: ApiVersionsShim
  /** wafka's admin client, connected. */
  admin: Admin
  ckjsDir: string
  /** What the workload line calls the broker: "librdkafka 2.15's mock cluster (3 brokers, on this machine)". */
  description: string
  /** The replication factor topics get: 3 on the mock's 3 brokers, 1 on one real broker. */
  replication: number
  /** Versions beside the clients' for the results header (Kafka's and Java's on real Kafka). */
  versions: Record<string, string>
  /** The bootstrap list a contender is given. */
  bootstrapFor(id: ContenderId): string
  createTopic(name: string, partitions: number): Promise<void>
  deleteTopic(name: string): Promise<void>
  close(): Promise<void>
}

/**
 * Starts the target's broker: the mock cluster (startMockRig) or one real
 * Apache Kafka broker (startKafkaRig).
 */
export function startRig(target: Target, options: { consumers?: boolean } = {}): Promise<Rig> {
  return target === 'kafka' ? startKafkaRig() : startMockRig(options)
}

/**
 * One real Apache Kafka broker (bench/support/kafka-broker.ts). Every
 * contender speaks to it as it is: no shim, no settings of the mock's.
 */
async function startKafkaRig(): Promise<Rig> {
  const { ckjsDir } = await peerBuild()
  const { Kafka } = await import('../../src/index.js')
  const kafka = await KafkaBroker.start()
  const admin = new Kafka({ clientId: 'bench-check', brokers: kafka.bootstrap.split(',') }).admin()
  await admin.connect()
  return {
    target: 'kafka',
    cluster: kafka,
    kafka,
    admin,
    ckjsDir,
    description: `one Apache Kafka ${kafka.version} broker (KRaft, combined broker and controller, on this machine)`,
    replication: 1,
    versions: { 'Apache Kafka (broker, Java client, perf tools)': kafka.version, Java: javaVersion() },
    bootstrapFor: () => kafka.bootstrap,
    createTopic: async (name, partitions) => {
      await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1 }] })
    },
    deleteTopic: (name) => admin.deleteTopics({ topics: [name] }),
    close: async () => {
      await admin.disconnect().catch(() => {})
      await kafka.stop()
    },
  }
}

/**
 * Starts the mock cluster (3 brokers) and what every contender needs to work
 * with it: @platformatic/kafka only speaks ApiVersions v3, which the mock
 * answers wrongly, so it bootstraps through the shim; KafkaJS's idempotent
 * producer asks the controller for a producer id, and the mock names none
 * until told, so broker 1 is made the controller.
 *
 * `consumers`: also what consumer groups need. The mock advertises only the
 * group API versions it reads correctly (test/peers/mock-cluster.c); a new group
 * gets its first assignment at once (the mock's
 * group.initial.rebalance.delay.ms, 3 s by default, is set to 0); and the
 * shim also stands in as the group coordinator, in front of broker 1, for
 * @platformatic/kafka's consumer, which only speaks group API versions the
 * mock does not read (bench/support/api-versions-shim.ts).
 */
async function startMockRig(options: { consumers?: boolean }): Promise<Rig> {
  const { ckjsDir } = await peerBuild()
  const { Kafka } = await import('../../src/index.js')
  const cluster = await MockBroker.start(3)
  await cluster.setControllerId(1)
  if (options.consumers) {
    await cluster.setRebalanceDelay(0)
  }
  const [host, port] = cluster.bootstrap.split(',')[0].split(':')
  const shim = await ApiVersionsShim.start(host, Number(port), { coordinator: options.consumers })
  const admin = new Kafka({ clientId: 'bench-check', brokers: cluster.bootstrap.split(',') }).admin()
  await admin.connect()
  return {
    target: 'mock',
    cluster,
    mock: cluster,
    shim,
    admin,
    ckjsDir,
    description: "librdkafka 2.15's mock cluster (3 brokers, on this machine)",
    replication: 3,
    versions: {},
    bootstrapFor: (id) => (id === 'platformatic' ? shim.address : cluster.bootstrap),
    createTopic: (name, partitions) => cluster.createTopic(name, { partitions, replicationFactor: 3 }),
    deleteTopic: (name) => cluster.deleteTopic(name),
    close: async () => {
      await admin.disconnect().catch(() => {})
      await shim.close()
      await cluster.stop()
    },
  }
}
