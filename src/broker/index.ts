/**
 * wafka/broker: an embedded Kafka-compatible cluster for tests, demos and
 * laptops without Java. N virtual brokers in this process, each on its own
 * port, speaking the Kafka protocol with wafka's own codecs.
 */
import { loadCodecs } from '../codec/compression.js'
import { EmbeddedCluster, type BrokerOptions, type BrokerSaslOptions, type BrokerTlsOptions, type TopicSpec } from './cluster.js'
import type { CleanStats } from './log-cleaner.js'
export { DataDirLockedError } from './storage/dir-lock.js'
import type { MetadataRecord } from './metadata-records.js'
import type { SaslMechanismName } from './sasl/credentials.js'

export type { BrokerOptions, BrokerSaslOptions, BrokerTlsOptions, SaslMechanismName, TopicSpec, MetadataRecord, CleanStats }

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
  /** The cluster id every broker reports (Metadata, DescribeCluster). */
  readonly clusterId: string
  /** host:port of every broker, comma-separated, for a client's bootstrap list. */
  readonly bootstrapServers: string
  readonly brokers: BrokerInfo[]
  /** The cluster metadata log so far (read-only; replaying it rebuilds the metadata). */
  readonly metadataLog: readonly MetadataRecord[]
  /** Closes every listener and connection and clears every timer. */
  stop(): Promise<void>
  /**
   * Stops one broker: its port closes, it leaves every ISR, and each
   * partition it led elects a new leader from its ISR under a new leader
   * epoch (none when no in-sync replica is left: no unclean election).
   */
  stopBroker(id: number): Promise<void>
  /**
   * Starts a stopped broker again on the same port: its replicas truncate
   * to their leaders' epoch boundaries (OffsetForLeaderEpoch), catch up and
   * rejoin the ISR; it leads again the partitions left without a leader.
   */
  startBroker(id: number): Promise<void>
  /**
   * Makes `broker` the partition's leader under a new leader epoch: an
   * in-sync replica is elected; a broker outside the replica set takes the
   * current leader's place with its data (a reassignment). A replica out of
   * the ISR is refused.
   */
  moveLeader(topic: string, partition: number, broker: number): void
  /**
   * Pauses (or with false resumes) a broker's fetching as a follower: it
   * keeps serving clients, but its replicas fall behind while their leaders
   * take writes, and leave the ISR after replicaLagTimeMaxMs; resumed, they
   * catch up and rejoin.
   */
  pauseFollower(broker: number, paused?: boolean): void
  /** Answers the next `count` requests of `apiKey` with error `code` (in each of the response's error fields). */
  injectError(apiKey: number, code: number, count?: number): void
  /** Delays every response by `ms` (0 to stop). */
  addLatency(ms: number): void
  /**
   * Runs the log cleaner on a compacted partition now (on every replica),
   * whatever its dirty ratio: the cleanable range (below the newest batch
   * and the last stable offset) keeps the newest record per key, tombstones
   * until delete.retention.ms after their first cleaning. Returns the
   * leader's stats.
   */
  compact(topic: string, partition?: number): CleanStats
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
    get clusterId() {
      return cluster.controller.clusterId
    },
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
    pauseFollower: (broker, paused = true) => cluster.pauseFollower(broker, paused),
    injectError: (apiKey, code, count = 1) => cluster.faults.inject(apiKey, code, count),
    compact: (topic, partition = 0) => cluster.cleaner.compact(topic, partition),
    addLatency: (ms) => {
      if (!(ms >= 0)) throw new RangeError(`addLatency: ms must be >= 0, not ${ms}`)
      cluster.faults.latencyMs = ms
    },
  }
}
