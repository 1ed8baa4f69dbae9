import type { Buffer } from 'node:buffer'
import type { KafkaConfig } from '../../kafka.js'
import type { ProducerConfig } from '../../producer/config.js'
import type { ProducerStatistics } from '../../observe/statistics.js'
import { MESSAGE_POOL } from './data.js'
import { windowed } from './windowed.js'

/** The producer benchmark's workload (bench/producer.ts and `wafka bench produce`). */
export const PRODUCE_WORKLOAD = {
  partitions: 48,
  /** Messages per send(). */
  chunk: 1000,
  lingerMs: 5,
  batchSize: 16_384,
  /** send() calls outstanding. */
  inflight: 64,
} as const

/** Untimed messages first (a tenth of the timed, in whole send() calls, at most 50,000): JIT, connections and metadata warm. */
export function warmupFor(messages: number): number {
  return Math.min(50_000, Math.round(messages / 10 / PRODUCE_WORKLOAD.chunk) * PRODUCE_WORKLOAD.chunk)
}

/** What a producer benchmark drives: connect, send a range of the message pool until acknowledged, close. */
export interface ProduceDriver {
  connect(): Promise<void>
  /** Sends messages [from, to) and resolves once every one is acknowledged. */
  produce(from: number, to: number): Promise<void>
  close(): Promise<void>
  /** The producer's statistics now (its batches since it connected; no per-broker part). */
  statistics(): ProducerStatistics
}

export interface ProduceWindow {
  topic: string
  /** send() calls outstanding at once. */
  inflight: number
  /** Messages per send(). */
  chunk: number
  /** Told of each send()'s messages once they are acknowledged (a progress bar, a throughput timeline). */
  onAcked?: (messages: number) => void
  /** Told of each statisticsIntervalMs snapshot (the producer's `stats` event). */
  onStats?: (statistics: ProducerStatistics) => void
}

/**
 * wafka's producer as bench/producer.ts and `wafka bench produce` drive it:
 * send() calls of `chunk` pool messages (message i is pair i mod the pool),
 * `inflight` of them outstanding. Loads wafka when called, so that a peer's
 * benchmark child that never calls it never instantiates wafka's WebAssembly.
 */
export async function wafkaProducer(
  kafka: KafkaConfig,
  options: ProducerConfig,
  window: ProduceWindow,
  keys: Buffer[],
  values: Buffer[],
): Promise<ProduceDriver> {
  const { Kafka } = await import('../../kafka.js')
  const producer = new Kafka(kafka).producer(options)
  const mask = MESSAGE_POOL - 1
  const { topic, onAcked, onStats } = window
  if (onStats) producer.on(producer.events.STATS, (e) => onStats(e.payload))
  return {
    connect: () => producer.connect(),
    produce: (from, to) =>
      windowed(from, to, window.inflight, window.chunk, async (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
        await producer.send({ topic, messages })
        onAcked?.(b - a)
      }),
    close: () => producer.disconnect(),
    statistics: () => producer.statistics(),
  }
}
