import type { KafkaConfig } from '../../kafka.js'
import type { ConsumerConfig } from '../../consumer/config.js'
import type { ConsumerStatistics } from '../../observe/statistics.js'
import type { Tally } from './tally.js'

/** The consumer benchmark's workload (bench/consumer.ts and `wafka bench consume`). */
export const CONSUME_WORKLOAD = {
  /**
   * Enough partitions that 1,000,000 messages fit the mock's retention: it
   * keeps about 5 MiB a partition (~2.7 MB each here), dropping its oldest
   * batches beyond that; bench/consumer.ts checks nothing was dropped.
   */
  partitions: 48,
  /**
   * The data is written by wafka's producer in batches of up to this many
   * bytes. The mock answers a Fetch with at most ONE batch per partition (a
   * real broker fills the partition's byte limit), so this sets how much a
   * fetch brings: 16 partitions a broker × 64 KiB ≈ 1 MiB a response.
   */
  dataBatchBytes: 64 * 1024,
  /** Long enough that batches fill up to dataBatchBytes while the data is produced. */
  dataLingerMs: 100,
  /** Messages per send() while producing the data, and send() calls in flight. */
  dataChunk: 1000,
  dataInflight: 64,
} as const

/** What a consumer benchmark drives: connect (untimed), deliver to the tally, close. */
export interface ConsumeDriver {
  connect(): Promise<void>
  /** Subscribes and starts delivering messages to the tally; resolves once started. */
  consume(tally: Tally): Promise<void>
  close(): Promise<void>
  /** The consumer's statistics now (its partitions' positions and lag; no per-broker part). */
  statistics(): ConsumerStatistics
}

/**
 * wafka's consumer as bench/consumer.ts and `wafka bench consume` drive it: a
 * fresh group reads the topic from the beginning through eachBatch. Loads
 * wafka when called (see wafkaProducer).
 */
export async function wafkaConsumer(
  kafka: KafkaConfig,
  topic: string,
  groupId: string,
  options: Omit<ConsumerConfig, 'groupId'> = {},
  onStats?: (statistics: ConsumerStatistics) => void,
): Promise<ConsumeDriver> {
  const { Kafka } = await import('../../kafka.js')
  const consumer = new Kafka(kafka).consumer({ ...options, groupId })
  if (onStats) consumer.on(consumer.events.STATS, (e) => onStats(e.payload))
  return {
    connect: () => consumer.connect(),
    consume: async (tally) => {
      await consumer.subscribe({ topics: [topic], fromBeginning: true })
      consumer.run({ eachBatch: async ({ batch }) => tally.batch(batch.partition, batch.messages) }).catch(tally.fail)
    },
    close: () => consumer.disconnect(),
    statistics: () => consumer.statistics(),
  }
}
