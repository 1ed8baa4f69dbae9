import type { EachBatchPayload as EngineBatchPayload, RunOptions as EngineRunOptions } from '../consumer/consumer.js'
import { translated } from './errors.js'
import { ConsumerEvents } from './events.js'
import { byTopic, plainBatch, type Batch, type KafkaMessage } from './messages.js'

export interface EachMessagePayload {
  topic: string
  partition: number
  message: KafkaMessage
  heartbeat(): Promise<void>
  pause(): () => void
}

export interface OffsetsByTopicPartition {
  topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>
}

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
  /** Whether the partition is paused now. */
  paused(topic: string, partition: number): boolean
  /** A pause was asked for (only then does eachMessage look for one between messages). */
  pausing(): void
  /** A batch's handler returned: the partition's run of handler failures ends. */
  handled(topic: string, partition: number): void
  /** eachMessage threw on this message (logged here: the engine sees only the batch). */
  messageFailed(topic: string, partition: number, offset: string, error: unknown): void
}

/**
 * KafkaJS's run() on the engine's: batches go to user code as KafkaJS
 * shapes them, with its batch events, committed after each, and what a
 * handler left unresolved fetched again.
 */
export function kafkajsRun(options: ConsumerRunConfig, seam: RunSeam): EngineRunOptions {
  const { eachMessage, eachBatch } = options
  const autoCommit = options.autoCommit ?? true
  const autoResolve = eachMessage ? false : (options.eachBatchAutoResolve ?? true)
  const handle = async (p: EngineBatchPayload) => {
    const batch = plainBatch(p.batch)
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
    let resolved: bigint | null = null
    if (eachMessage) await eachMessageOf(p, batch, eachMessage, seam)
    else
      await eachBatch!({
        batch,
        resolveOffset: (offset) => {
          p.resolveOffset(offset)
          if (resolved === null || BigInt(offset) > resolved) resolved = BigInt(offset)
        },
        heartbeat: () => p.heartbeat(),
        pause: () => {
          seam.pausing()
          return p.pause()
        },
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
    else if (eachBatch && !p.isStale() && batch.messages.length > 0 && (resolved ?? -1n) < BigInt(batch.lastOffset())) {
      // KafkaJS fetches from the last resolved offset: what the handler left unresolved comes again.
      const from = resolved === null ? batch.messages[0].offset : String(resolved + 1n)
      seam.seek({ topic: batch.topic, partition: batch.partition, offset: from })
    }
    seam.handled(batch.topic, batch.partition)
    // KafkaJS commits what was resolved after every batch.
    if (autoCommit && !p.isStale()) await translated(() => p.commitOffsetsIfNecessary())
    seam.emit(ConsumerEvents.END_BATCH_PROCESS, { ...event, duration: Date.now() - started })
  }
  return {
    eachBatch: handle,
    eachBatchAutoResolve: autoResolve,
    autoCommit,
    autoCommitInterval: options.autoCommitInterval ?? null,
    autoCommitThreshold: options.autoCommitThreshold ?? null,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
  }
}

/** One message at a time, each resolved when its handler returns; a pause stops the batch where it is. */
async function eachMessageOf(p: EngineBatchPayload, batch: Batch, eachMessage: EachMessageHandler, seam: RunSeam): Promise<void> {
  const { topic, partition } = batch
  const pause = () => {
    seam.pausing()
    return p.pause()
  }
  const payload = { topic, partition, heartbeat: () => p.heartbeat(), pause }
  for (const message of batch.messages) {
    if (!p.isRunning() || p.isStale()) return
    if (seam.paused(topic, partition)) {
      // The rest of the batch is fetched again once the partition resumes.
      seam.seek({ topic, partition, offset: message.offset })
      return
    }
    try {
      await eachMessage({ ...payload, message })
    } catch (error) {
      seam.messageFailed(topic, partition, message.offset, error)
      throw error
    }
    p.resolveOffset(message.offset)
  }
}

/** KafkaJS's aliases, kept for @types/kafkajs compatibility. */
export type ConsumerEachMessagePayload = EachMessagePayload
export type ConsumerEachBatchPayload = EachBatchPayload
