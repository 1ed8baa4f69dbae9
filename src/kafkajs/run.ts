import type {
  EachBatchPayload as EngineBatchPayload,
  EachMessagePayload as EngineMessagePayload,
  RunOptions as EngineRunOptions,
} from '../consumer/consumer.js'
import type { Batch as EngineBatch } from '../consumer/batch.js'
import type { RunHooks } from '../consumer/delivery-runner.js'
import { translated } from './errors.js'
import { ConsumerEvents } from './events.js'
import { byTopic, plainBatch, plainMessage, type Batch, type KafkaMessage } from './messages.js'

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s EachMessagePayload: the same but for the message's shape. */
export interface EachMessagePayload extends Omit<EngineMessagePayload, 'message'> {
  message: KafkaMessage
}

export interface OffsetsByTopicPartition {
  topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s EachBatchPayload. */
export interface EachBatchPayload {
  batch: Batch
  resolveOffset(offset: string): void
  heartbeat(): Promise<void>
  pause(): () => void
  commitOffsetsIfNecessary(offsets?: OffsetsByTopicPartition): Promise<void>
  uncommittedOffsets(): OffsetsByTopicPartition
  isRunning(): boolean
  isStale(): boolean
}

export type EachMessageHandler = (payload: EachMessagePayload) => Promise<void>
export type EachBatchHandler = (payload: EachBatchPayload) => Promise<void>

export interface ConsumerRunConfig {
  autoCommit?: boolean
  autoCommitInterval?: number | null
  autoCommitThreshold?: number | null
  eachBatchAutoResolve?: boolean
  partitionsConsumedConcurrently?: number
  eachBatch?: EachBatchHandler
  eachMessage?: EachMessageHandler
}

/** What a run needs of its consumer. */
export interface RunSeam {
  emit(type: string, payload: unknown): void
  commitOffsets(offsets: Array<{ topic: string; partition: number; offset: string }>): Promise<void>
  seek(tp: { topic: string; partition: number; offset: string }): void
}

/**
 * KafkaJS's run() on the engine's: the engine's loop hands the batches
 * over; KafkaJS's payload shapes, batch events and commit after each batch
 * come through its hooks, and what an eachBatch left unresolved is fetched again.
 */
export function kafkajsRun(options: ConsumerRunConfig, seam: RunSeam): { run: EngineRunOptions; hooks: RunHooks } {
  const { eachMessage, eachBatch } = options
  const autoCommit = options.autoCommit ?? true
  const autoResolve = eachMessage ? false : (options.eachBatchAutoResolve ?? true)
  const hooks: RunHooks = {
    batchStarted: (batch: EngineBatch) => {
      const started = Date.now()
      const event = {
        topic: batch.topic,
        partition: batch.partition,
        highWatermark: batch.highWatermark,
        offsetLag: batch.offsetLag(),
        offsetLagLow: batch.offsetLagLow(),
        batchSize: batch.messages.length,
        firstOffset: batch.firstOffset(),
        lastOffset: batch.lastOffset(),
      }
      seam.emit(ConsumerEvents.START_BATCH_PROCESS, event)
      return async ({ stale, commitOffsetsIfNecessary }) => {
        // KafkaJS commits what was resolved after every batch.
        if (autoCommit && !stale) await translated(commitOffsetsIfNecessary)
        seam.emit(ConsumerEvents.END_BATCH_PROCESS, { ...event, duration: Date.now() - started })
      }
    },
    // KafkaJS resolves each message it handled: a fetch's trailing markers are committed only with the next messages.
    resolveMessagesOnly: true,
  }
  const run: EngineRunOptions = {
    eachBatchAutoResolve: autoResolve,
    autoCommit,
    autoCommitInterval: options.autoCommitInterval ?? null,
    autoCommitThreshold: options.autoCommitThreshold ?? null,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
  }
  if (eachMessage)
    run.eachMessage = ({ topic, partition, message, heartbeat, pause }) =>
      eachMessage({ topic, partition, message: plainMessage(message), heartbeat, pause })
  else run.eachBatch = (p) => eachBatchOf(p, eachBatch!, autoResolve, autoCommit, seam)
  return { run, hooks }
}

/** KafkaJS's eachBatch payload over the engine's; what the handler left unresolved is fetched again, as KafkaJS does. */
async function eachBatchOf(
  p: EngineBatchPayload,
  eachBatch: EachBatchHandler,
  autoResolve: boolean,
  autoCommit: boolean,
  seam: RunSeam,
): Promise<void> {
  const batch = plainBatch(p.batch)
  let resolved: bigint | null = null
  await eachBatch({
    batch,
    resolveOffset: (offset) => {
      p.resolveOffset(offset)
      if (resolved === null || BigInt(offset) > resolved) resolved = BigInt(offset)
    },
    heartbeat: () => p.heartbeat(),
    pause: () => p.pause(),
    commitOffsetsIfNecessary: async (offsets) => {
      if (offsets) await seam.commitOffsets(offsets.topics.flatMap((t) => t.partitions.map((x) => ({ topic: t.topic, ...x }))))
      else if (autoCommit) await translated(() => p.commitOffsetsIfNecessary())
    },
    uncommittedOffsets: () => byTopic(p.uncommittedOffsets()),
    isRunning: () => p.isRunning(),
    isStale: () => p.isStale(),
  })
  // Resolved even when stale: the engine ignores it for a sought partition, and one being revoked commits it.
  if (autoResolve) p.resolveOffset(batch.lastOffset())
  else if (!p.isStale() && batch.messages.length > 0 && (resolved ?? -1n) < BigInt(batch.lastOffset())) {
    // KafkaJS fetches from the last resolved offset: what the handler left unresolved comes again.
    const from = resolved === null ? batch.messages[0].offset : String(resolved + 1n)
    seam.seek({ topic: batch.topic, partition: batch.partition, offset: from })
  }
}

/** KafkaJS's aliases, kept for @types/kafkajs compatibility. */
export type ConsumerEachMessagePayload = EachMessagePayload
export type ConsumerEachBatchPayload = EachBatchPayload
