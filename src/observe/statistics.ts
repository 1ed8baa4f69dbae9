import type { Channel } from 'node:diagnostics_channel'
import { optionalBuiltin } from '../node-builtins.js'
import { clientChannelName, statsChannelName } from './channel-names.js'

/** One broker's requests, as a client's statistics show them. Rates and averages cover the window since the last snapshot. */
export interface BrokerStatistics {
  /** host:port */
  broker: string
  /** Answered requests since the client connected, and per second over the window. */
  requests: number
  requestRate: number
  /** Requests that timed out, since the client connected. */
  timeouts: number
  /** Bytes of responses over the window. */
  responseBytes: number
  /** From writing a request to its answer, over the window (0 when none was answered). */
  latencyAvgMs: number
  latencyMaxMs: number
  /** The broker's throttle_time_ms (quotas, KIP-219) over the window. */
  throttleTimeAvgMs: number
  throttleTimeMaxMs: number
  /** Requests written and waiting for their answer, and queued behind maxInFlight, now. */
  inFlight: number
  waiting: number
}

/** One assigned partition, as a consumer's statistics show it. Offsets are decimal strings (int64). */
export interface PartitionStatistics {
  topic: string
  partition: number
  /** Next offset to fetch; null until the committed offset or a reset decided it. */
  fetchPosition: string | null
  /** The offset after the last record user code finished (what a commit writes); null before the first. */
  position: string | null
  /** The last offset committed (or found committed) for the group. */
  committed: string | null
  /** The high watermark of the last fetch response; null before the first. */
  highWatermark: string | null
  /** Records behind the high watermark: highWatermark minus position (fetchPosition before anything was processed). */
  lag: number | null
  /** Fetched responses waiting for user code. */
  queued: number
  paused: boolean
}

/** What every client's statistics have: when, and per broker its requests (empty without statisticsIntervalMs). */
export interface CommonStatistics {
  /** The client's clientId. */
  clientId: string | null
  /** Epoch ms of the snapshot. */
  time: number
  /** Per broker: requests, latency, throttle, in flight; only in the statisticsIntervalMs snapshots (each closes a window). */
  brokers?: BrokerStatistics[]
}

export interface ConsumerStatistics extends CommonStatistics {
  type: 'consumer'
  groupId: string | null
  partitions: PartitionStatistics[]
}

/** A producer's batches since it connected: how full they were and how long they lingered before going out. */
export interface BatchStatistics {
  batches: number
  records: number
  bytes: number
  recordsPerBatchAvg: number
  bytesPerBatchAvg: number
  bytesPerBatchMax: number
  /** From a batch's first record until it was sent. */
  lingerAvgMs: number
  lingerMaxMs: number
}

export interface ProducerStatistics extends CommonStatistics {
  type: 'producer'
  batches: BatchStatistics
  /** Bytes of records waiting to be sent or acknowledged (what bufferMemory limits). */
  bufferedBytes: number
  bufferMemory: number
  /** Batches waiting to be sent, and sent but not yet acknowledged. */
  queuedBatches: number
  inFlightBatches: number
}

export type ClientStatistics = ConsumerStatistics | ProducerStatistics

/** What Kafka.producer()/consumer() hand a client for its statistics: its clientId, and per-broker figures when statisticsIntervalMs is on. */
export interface ObservedBy {
  clientId?: string | null
  brokers?: () => BrokerStatistics[]
}

/** A connected producer or consumer, as `wafka:client` announces it: its figures read on demand. */
export interface StatisticsSource {
  statistics(): ClientStatistics
}

/** `wafka:client` (a plain channel): a producer or consumer connected or disconnected. */
export interface ClientAnnouncement {
  event: 'connect' | 'disconnect'
  source: StatisticsSource
}

let channel: Channel | null | undefined
let statsChannel: Channel | null | undefined

/** Publishes a statisticsIntervalMs snapshot on `wafka:stats` (as the client's `stats` event gives it); nothing when nobody subscribes. */
export function publishStatistics(statistics: ClientStatistics): void {
  if (statsChannel === undefined) {
    const dc = optionalBuiltin('node:diagnostics_channel')
    if (dc === undefined) return
    statsChannel = dc?.channel(statsChannelName) ?? null
  }
  if (statsChannel?.hasSubscribers) statsChannel.publish(statistics)
}

/**
 * Tells `wafka:client`'s subscribers (wafka/otel's observable gauges) that a
 * client connected or disconnected; nothing when nobody subscribes.
 */
export function announce(event: ClientAnnouncement['event'], source: StatisticsSource): void {
  if (channel === undefined) {
    const dc = optionalBuiltin('node:diagnostics_channel')
    if (dc === undefined) return // not loaded yet: asked again next time
    channel = dc?.channel(clientChannelName) ?? null
  }
  if (channel?.hasSubscribers) channel.publish({ event, source } satisfies ClientAnnouncement)
}

/** A partition's lag: the high watermark minus where this consumer stands; null until both are known. */
export function lagOf(highWatermark: bigint, position: bigint | null): number | null {
  if (highWatermark < 0n || position === null) return null
  const lag = highWatermark - position
  return lag > 0n ? Number(lag) : 0
}

/**
 * Takes a snapshot every `intervalMs` (statisticsIntervalMs; 0: never),
 * hands it to the client's `stats` event and publishes it on `wafka:stats`.
 * Returns what stops it. The timer does not keep the process alive.
 */
export function statisticsTimer<S extends ClientStatistics>(intervalMs: number, take: () => S, tell: (s: S) => void): () => void {
  if (intervalMs <= 0) return () => {}
  const timer = setInterval(() => {
    const s = take()
    tell(s)
    publishStatistics(s)
  }, intervalMs)
  ;(timer as { unref?(): void }).unref?.()
  return () => clearInterval(timer)
}
