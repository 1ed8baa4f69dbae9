// How a KafkaJS send fails, run the same way on KafkaJS 2.2.4 and on
// wafka/kafkajs against the embedded broker: a topic that does not exist
// (auto-creation off), a whole-cluster outage, a send before connect(). Both
// must end after KafkaJS's retry count (its time budget, not wafka's
// deliveryTimeoutMs), with the same error classes down the cause chain
// (KafkaJS's fields on each), and log each failed attempt once, not once per
// record.
//
// Every retry option is given, with no randomization (factor 0): KafkaJS
// reads its test defaults when NODE_ENV is 'test' (as under vitest), and the
// schedule is then exact (initialRetryTime, doubling), so the times compare.
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import type { KafkaJSModule } from './programs/program.js'

const require = createRequire(import.meta.url)
const kafkajs = require('kafkajs') as KafkaJSModule
const clients = { kafkajs, 'wafka/kafkajs': wafkajs as unknown as KafkaJSModule }

const embedded = brokerTargets({ embedded: { brokers: 1, autoCreateTopics: false } }).find((t) => t.embedded)!

interface Entry {
  level: number
  namespace?: string
  message: string
  retryCount?: number
}

/**
 * The error's chain as KafkaJS code sees it: class, retriable and KafkaJS's
 * fields, cause by cause, down to the last KafkaJS error (wafka's translated
 * errors keep wafka's original below it, where KafkaJS's have none).
 */
function chain(e: unknown): object[] {
  const out: object[] = []
  for (
    let err = e as Record<string, unknown> | undefined;
    err && String(err.name).startsWith('KafkaJS') && out.length < 5;
    err = err.cause as Record<string, unknown>
  ) {
    const fields: Record<string, unknown> = { name: err.name, retriable: err.retriable }
    for (const k of ['type', 'code', 'broker', 'retryCount']) if (err[k] !== undefined) fields[k] = err[k]
    out.push(fields)
  }
  return out
}

/** A producer's failing send under `client`: the error's chain, how long it took, and the ERROR entries logged meanwhile. */
async function failingSend(
  client: KafkaJSModule,
  brokers: string[],
  retry: object,
  scenario: (producer: ReturnType<InstanceType<KafkaJSModule['Kafka']>['producer']>, admin: () => Promise<void>) => Promise<unknown>,
  { topic = 'absent', ...options }: { idempotent?: boolean; topic?: string } = {},
) {
  const entries: Entry[] = []
  const kafka = new client.Kafka({
    clientId: 'failures',
    brokers,
    retry,
    logLevel: client.logLevel.ERROR,
    logCreator: () => (e) =>
      entries.push({ level: e.level, namespace: e.namespace, message: e.log.message, retryCount: e.log.retryCount as number }),
  })
  const admin = async () => {
    const a = kafka.admin()
    await a.connect()
    await a.createTopics({ topics: [{ topic: 'present', numPartitions: 1 }] })
    await a.disconnect()
  }
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: client.Partitioners.DefaultPartitioner, ...options })
  let error: unknown
  let began = Date.now()
  try {
    await scenario(producer, admin)
    began = Date.now()
    await producer.send({ topic, messages: Array.from({ length: 50 }, (_, i) => ({ value: `m${i}` })) })
  } catch (err) {
    error = err
  }
  const ms = Date.now() - began
  await producer.disconnect().catch(() => {})
  return { error, chain: chain(error), ms, errors: entries.filter((e) => e.level === client.logLevel.ERROR) }
}

describe('a KafkaJS send that fails, on kafkajs and wafka/kafkajs', () => {
  let cluster: RunningTarget | undefined
  let leaderless: RunningCluster | undefined
  afterEach(async () => {
    await cluster?.stop().catch(() => {})
    await leaderless?.stop().catch(() => {})
    cluster = leaderless = undefined
  })

  it('to a topic that does not exist: KafkaJSNumberOfRetriesExceeded over UNKNOWN_TOPIC_OR_PARTITION after `retries` retries', async () => {
    cluster = await embedded.start()
    const brokers = cluster.bootstrap.split(',')
    // 100 + 200 ms of waiting, then 300 + 600 + 1200 + 2400 + 4800 (KafkaJS's defaults without jitter).
    for (const [retry, waited] of [
      [{ retries: 2, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }, 300],
      [{ retries: 5, initialRetryTime: 300, maxRetryTime: 30_000, factor: 0, multiplier: 2 }, 9300],
    ] as const) {
      const seen: Record<string, Awaited<ReturnType<typeof failingSend>>> = {}
      for (const [name, client] of Object.entries(clients))
        seen[name] = await failingSend(client, brokers, retry, (p) => p.connect() as Promise<unknown>)
      const theirs = seen.kafkajs
      const ours = seen['wafka/kafkajs']
      expect(theirs.chain).toEqual([
        { name: 'KafkaJSNumberOfRetriesExceeded', retriable: false, retryCount: retry.retries },
        { name: 'KafkaJSProtocolError', retriable: true, type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3 },
      ])
      expect(ours.chain).toEqual(theirs.chain)
      expect(ours.error).toBeInstanceOf(wafkajs.KafkaJSNumberOfRetriesExceeded)
      // wafka's engine randomizes each wait by ±20% (KafkaJS's factor), doubling it (its multiplier).
      expect(theirs.ms).toBeGreaterThanOrEqual(waited)
      expect(ours.ms).toBeGreaterThanOrEqual(waited * 0.8)
      for (const { ms } of [theirs, ours]) expect(ms).toBeLessThan(waited * 1.2 + 2000)
      // One ERROR per attempt (KafkaJS's "Failed to send messages"), not one per record.
      expect(ours.errors.map((e) => [e.namespace, e.message.split(':')[0], e.retryCount])).toEqual(
        Array.from({ length: retry.retries + 1 }, (_, i) => ['Producer', 'Failed to send messages', i]),
      )
    }
  }, 60_000)

  it('idempotent, to a topic that does not exist: the same, the engine asking for its metadata `retries` times', async () => {
    cluster = await embedded.start()
    const brokers = cluster.bootstrap.split(',')
    const retry = { retries: 2, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }
    const seen: Record<string, Awaited<ReturnType<typeof failingSend>>> = {}
    for (const [name, client] of Object.entries(clients))
      seen[name] = await failingSend(client, brokers, retry, (p) => p.connect() as Promise<unknown>, { idempotent: true })
    expect(seen.kafkajs.chain).toEqual([
      { name: 'KafkaJSNumberOfRetriesExceeded', retriable: false, retryCount: 2 },
      { name: 'KafkaJSProtocolError', retriable: true, type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3 },
    ])
    expect(seen['wafka/kafkajs'].chain).toEqual(seen.kafkajs.chain)
    // 100 + 200 ms of waiting (the engine's backoff is randomized ±20%).
    for (const { ms } of Object.values(seen)) {
      expect(ms).toBeGreaterThanOrEqual(200)
      expect(ms).toBeLessThan(300 + 2000)
    }
  }, 60_000)

  /** Each client's send after its cluster (of its own) stopped, and that cluster's port. */
  async function outage(retry: object, options: { idempotent?: boolean } = {}) {
    const seen: Record<string, Awaited<ReturnType<typeof failingSend>>> = {}
    const ports: Record<string, number> = {}
    for (const [name, client] of Object.entries(clients)) {
      cluster = await embedded.start()
      const running = cluster
      ports[name] = running.brokers[0].port
      const scenario = async (p: { connect(): Promise<void>; send(r: object): Promise<unknown> }, admin: () => Promise<void>) => {
        await admin()
        await p.connect()
        await p.send({ topic: 'present', messages: [{ value: 'before' }] })
        await running.stop()
      }
      seen[name] = await failingSend(client, running.bootstrap.split(','), retry, scenario, { topic: 'present', ...options })
    }
    return { seen, ports }
  }

  it('during a whole-cluster outage: KafkaJSNonRetriableError over KafkaJSConnectionError{broker, code} after `retries` retries', async () => {
    const retry = { retries: 3, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }
    const { seen, ports } = await outage(retry)
    const theirs = seen.kafkajs
    const ours = seen['wafka/kafkajs']
    // The broker that was lost, "host:port", as KafkaJS names it (each client ran on a cluster of its own).
    const broker = (name: string) => `127.0.0.1:${ports[name]}`
    expect(theirs.chain).toEqual([
      { name: 'KafkaJSNonRetriableError', retriable: false },
      { name: 'KafkaJSConnectionError', retriable: true, code: 'ECONNREFUSED', broker: broker('kafkajs') },
    ])
    expect(ours.chain).toEqual([theirs.chain[0], { ...theirs.chain[1], broker: broker('wafka/kafkajs') }])
    // 100 + 200 + 400 ms of waiting, as KafkaJS's reconnect (±20% in wafka's engine); not deliveryTimeoutMs.
    for (const { ms } of [theirs, ours]) {
      expect(ms).toBeGreaterThanOrEqual(560)
      expect(ms).toBeLessThan(840 + 3000)
    }
    // Each attempt is logged at ERROR once with its retry count, not once per record. (KafkaJS's entries
    // are its reconnect's, "Failed to connect to seed broker".)
    const counts = (r: typeof ours) => r.errors.filter((e) => e.retryCount !== undefined).map((e) => e.retryCount)
    expect(counts(theirs)).toEqual([0, 1, 2, 3])
    expect(counts(ours)).toEqual([0, 1, 2, 3])
    expect(ours.errors.every((e) => e.namespace === 'Producer' && e.message.startsWith('Failed to send messages: '))).toBe(true)
  }, 60_000)

  it('idempotent, during a whole-cluster outage: the same error after `retries` retries of the batch', async () => {
    const retry = { retries: 3, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }
    const { seen, ports } = await outage(retry, { idempotent: true })
    const theirs = seen.kafkajs
    const ours = seen['wafka/kafkajs']
    expect(theirs.chain).toEqual([
      { name: 'KafkaJSNonRetriableError', retriable: false },
      { name: 'KafkaJSConnectionError', retriable: true, code: 'ECONNREFUSED', broker: `127.0.0.1:${ports.kafkajs}` },
    ])
    expect(ours.chain).toEqual([theirs.chain[0], { ...theirs.chain[1], broker: `127.0.0.1:${ports['wafka/kafkajs']}` }])
    // 100 + 200 + 400 ms of waiting (the engine's backoff is randomized ±20%); not deliveryTimeoutMs.
    for (const { ms } of [theirs, ours]) {
      expect(ms).toBeGreaterThanOrEqual(500)
      expect(ms).toBeLessThan(700 + 3000)
    }
  }, 60_000)

  it('to a partition without a leader: KafkaJSNonRetriableError over LEADER_NOT_AVAILABLE after `retries` retries, and nothing written twice', async () => {
    const retry = { retries: 3, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }
    const seen: Record<string, { chain: object[]; ms: number; written: number[] }> = {}
    for (const [name, client] of Object.entries(clients)) {
      // Three brokers, each partition on one of them: stopping its broker leaves a partition without a leader.
      const running = await startCluster({ brokers: 3, topics: [{ name: 'single', partitions: 3, replicationFactor: 1 }] })
      leaderless = running
      const kafka = new client.Kafka({ brokers: running.bootstrapServers.split(','), retry, logLevel: client.logLevel.NOTHING })
      const admin = kafka.admin()
      await admin.connect()
      const { topics } = await admin.fetchTopicMetadata({ topics: ['single'] })
      await admin.disconnect()
      const producer = kafka.producer({ createPartitioner: client.Partitioners.DefaultPartitioner })
      await producer.connect()
      await producer.send({ topic: 'single', messages: [{ value: 'before', partition: 0 }] })
      // No other replica to elect.
      await running.stopBroker(topics[0].partitions.find((p) => p.partitionId === 0)!.leader)
      const began = Date.now()
      // One record for each partition: those with a leader may take theirs, once.
      const error = await producer.send({ topic: 'single', messages: [0, 1, 2].map((partition) => ({ value: 'after', partition })) }).then(
        () => undefined,
        (e: unknown) => e,
      )
      const ms = Date.now() - began
      const reader = new Kafka({ brokers: running.bootstrapServers.split(','), logLevel: 0 }).admin()
      const ends = await reader.listOffsets('single', [1, 2], -1n)
      await reader.disconnect()
      seen[name] = { chain: chain(error), ms, written: [...ends.values()].map(Number) }
      await producer.disconnect().catch(() => {})
      await running.stop()
      leaderless = undefined
    }
    expect(seen.kafkajs.chain).toEqual([
      { name: 'KafkaJSNonRetriableError', retriable: false },
      { name: 'KafkaJSProtocolError', retriable: true, type: 'LEADER_NOT_AVAILABLE', code: 5 },
    ])
    expect(seen['wafka/kafkajs'].chain).toEqual(seen.kafkajs.chain)
    // 100 + 200 + 400 ms of waiting (±20% in wafka's engine), not deliveryTimeoutMs.
    for (const { ms } of Object.values(seen)) {
      expect(ms).toBeGreaterThanOrEqual(560)
      expect(ms).toBeLessThan(840 + 3000)
    }
    // The two partitions with a leader took their record once, not once per retry (KafkaJS resends only to
    // the brokers that failed; wafka's engine only the batches that did).
    expect(seen.kafkajs.written).toEqual([1, 1])
    expect(seen['wafka/kafkajs'].written).toEqual([1, 1])
  }, 60_000)

  it('before connect(): the retriable KafkaJSError "The producer is disconnected", at once', async () => {
    const retry = { retries: 2, initialRetryTime: 100, maxRetryTime: 30_000, factor: 0, multiplier: 2 }
    const seen: Record<string, Awaited<ReturnType<typeof failingSend>>> = {}
    for (const [name, client] of Object.entries(clients)) seen[name] = await failingSend(client, ['localhost:1'], retry, async () => {})
    expect(seen.kafkajs.chain).toEqual([{ name: 'KafkaJSError', retriable: true }])
    expect(seen['wafka/kafkajs'].chain).toEqual(seen.kafkajs.chain)
    expect((seen['wafka/kafkajs'].error as Error).message).toBe((seen.kafkajs.error as Error).message)
    expect(seen['wafka/kafkajs'].ms).toBeLessThan(100)
  })
})
