import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Admin } from '../../src/admin/admin.js'
import { ApiVersionsShim } from './api-versions-shim.js'
import type { ContenderId } from './contest.js'
import { packageVersion } from './environment.js'
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
  }
}

/**
 * Keeps up to `inflight` calls of `send` over `chunk` messages outstanding,
 * starting the next as one completes, until [from, to) is sent: what a
 * high-throughput caller of a promise-based producer does.
 */
export async function windowed(from: number, to: number, inflight: number, chunk: number, send: (from: number, to: number) => Promise<unknown>): Promise<void> {
  let next = from
  let failure: unknown
  const lane = async () => {
    while (next < to && failure === undefined) {
      const start = next
      next = Math.min(to, next + chunk)
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

export interface Rig {
  cluster: MockBroker
  /** @platformatic/kafka's bootstrap address (bench/support/api-versions-shim.ts). */
  shim: ApiVersionsShim
  /** wafka's admin client, connected. */
  admin: Admin
  ckjsDir: string
  /** The bootstrap list a contender is given. */
  bootstrapFor(id: ContenderId): string
  close(): Promise<void>
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
export async function startRig(options: { consumers?: boolean } = {}): Promise<Rig> {
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
    cluster,
    shim,
    admin,
    ckjsDir,
    bootstrapFor: (id) => (id === 'platformatic' ? shim.address : cluster.bootstrap),
    close: async () => {
      await admin.disconnect().catch(() => {})
      await shim.close()
      await cluster.stop()
    },
  }
}
