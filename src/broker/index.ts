/**
 * wafka/broker: an embedded Kafka-compatible cluster for tests, demos and
 * laptops without Java. N virtual brokers in this process, each on its own
 * port, speaking the Kafka protocol with wafka's own codecs.
 */
import { loadCodecs } from '../codec/compression.js'
import { EmbeddedCluster, type BrokerOptions, type TopicSpec } from './cluster.js'
import type { MetadataRecord } from './metadata-records.js'

export type { BrokerOptions, TopicSpec, MetadataRecord }

export interface StartClusterOptions extends BrokerOptions {
  topics?: TopicSpec[]
}

export interface BrokerInfo {
  id: number
  host: string
  port: number
  running: boolean
}

export interface RunningCluster {
  /** host:port of every broker, comma-separated, for a client's bootstrap list. */
  readonly bootstrapServers: string
  readonly brokers: BrokerInfo[]
  /** The cluster metadata log so far (read-only; replaying it rebuilds the metadata). */
  readonly metadataLog: readonly MetadataRecord[]
  /** Closes every listener and connection and clears every timer. */
  stop(): Promise<void>
  /** Stops one broker (its port closes; its partitions lose their leader, as no other replica is in sync). */
  stopBroker(id: number): Promise<void>
  /** Starts a stopped broker again on the same port; it leads its partitions again. */
  startBroker(id: number): Promise<void>
  /** Moves a partition (with its data) to `broker` and makes it the leader, under a new leader epoch. */
  moveLeader(topic: string, partition: number, broker: number): void
  /** Answers the next `count` requests of `apiKey` with error `code` (in each of the response's error fields). */
  injectError(apiKey: number, code: number, count?: number): void
  /** Delays every response by `ms` (0 to stop). */
  addLatency(ms: number): void
}

/** Starts an embedded cluster; resolves once every broker is listening. */
export async function startCluster(options: StartClusterOptions = {}): Promise<RunningCluster> {
  await loadCodecs()
  const cluster = new EmbeddedCluster(options)
  try {
    await cluster.start(options.topics)
  } catch (err) {
    await cluster.stop()
    throw err
  }
  let stopped: Promise<void> | null = null
  return {
    get bootstrapServers() {
      return cluster.bootstrapServers
    },
    get brokers() {
      return [...cluster.brokers.values()].map((b) => ({ id: b.id, host: b.host, port: b.port, running: b.running }))
    },
    get metadataLog() {
      return cluster.controller.log
    },
    stop: () => (stopped ??= cluster.stop()),
    stopBroker: (id) => cluster.stopBroker(id),
    startBroker: (id) => cluster.startBroker(id),
    moveLeader: (topic, partition, broker) => cluster.moveLeader(topic, partition, broker),
    injectError: (apiKey, code, count = 1) => cluster.faults.inject(apiKey, code, count),
    addLatency: (ms) => {
      if (!(ms >= 0)) throw new RangeError(`addLatency: ms must be >= 0, not ${ms}`)
      cluster.faults.latencyMs = ms
    },
  }
}
