import type { Channel } from 'node:diagnostics_channel'
import { optionalBuiltin } from '../node-builtins.js'
import { clientChannelName } from './channel-names.js'

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

export interface ConsumerStatistics {
  type: 'consumer'
  groupId: string | null
  partitions: PartitionStatistics[]
}

export interface ProducerStatistics {
  type: 'producer'
  /** Bytes of records waiting to be sent or acknowledged (what bufferMemory limits). */
  bufferedBytes: number
  bufferMemory: number
  /** Batches waiting to be sent, and sent but not yet acknowledged. */
  queuedBatches: number
  inFlightBatches: number
}

export type ClientStatistics = ConsumerStatistics | ProducerStatistics

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
