// Java's StreamsProducer under exactly_once_v2: one transactional producer per
// stream thread (transactional id `<applicationId>-<processId>-<thread>`, as
// KIP-447 names it), a transaction begun on the first output or offset of a
// commit interval, and ended by commit() (the consumed offsets go in it with the
// consumer's group metadata, so the coordinator fences a member no longer in
// the generation) or abort() (nothing of it becomes visible to read_committed).
import type { Kafka } from '../kafka.js'
import { RecordCollector } from './record-collector.js'
import { KafkaError } from '../errors.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { Producer, RecordMetadata, SendBatch, Transaction } from '../producer/producer.js'

/** Java StreamsConfig's producer settings under EOS: a transaction left open by a dead instance ends within 10 s. */
export const EOS_TRANSACTION_TIMEOUT_MS = 10_000

/** Per source partition, the offset to commit and its metadata (the task's partition time). */
export type ConsumedOffsets = Map<string, { topic: string; partition: number; offset: bigint; metadata: string | null }>

/**
 * The errors that mean this instance no longer owns its tasks (Java's
 * TaskMigratedException): its producer was fenced by a newer epoch, or the
 * group moved on without it, so the offsets of its transaction are refused.
 */
export function isTaskMigrated(err: unknown): boolean {
  // The error may come wrapped (a send's failure, a StreamsError naming the task): its causes are looked at too.
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (migratedCode(e)) return true
  return false
}

function migratedCode(err: Error): boolean {
  const code = err instanceof KafkaError ? err.code : undefined
  return (
    code === ErrorCodes.PRODUCER_FENCED ||
    code === ErrorCodes.INVALID_PRODUCER_EPOCH ||
    code === ErrorCodes.ILLEGAL_GENERATION ||
    code === ErrorCodes.UNKNOWN_MEMBER_ID ||
    code === ErrorCodes.FENCED_INSTANCE_ID
  )
}

export class StreamsProducer {
  private txn: Transaction | undefined
  private openedAt = 0

  private constructor(
    readonly producer: Producer,
    readonly transactionalId: string,
  ) {}

  /** Connects, which runs initTransactions: any transaction a previous incarnation of this id left open is aborted first. */
  static async start(kafka: Kafka, transactionalId: string): Promise<StreamsProducer> {
    const producer = kafka.producer({
      partitioner: RecordCollector.partitioner(),
      transactionalId,
      idempotent: true,
      transactionTimeoutMs: EOS_TRANSACTION_TIMEOUT_MS,
      // Java: delivery.timeout.ms Integer.MAX_VALUE under EOS; the transaction timeout bounds it.
      deliveryTimeoutMs: 2_147_483_647,
    })
    await producer.connect()
    return new StreamsProducer(producer, transactionalId)
  }

  /** A transaction is open (something was sent or consumed since the last commit). */
  get open(): boolean {
    return this.txn !== undefined
  }

  /** ms since the open transaction began (0 when none is open). */
  age(now = Date.now()): number {
    return this.txn ? now - this.openedAt : 0
  }

  /** Opens the transaction when none is open. */
  async begin(): Promise<Transaction> {
    if (!this.txn) {
      this.txn = await this.producer.transaction()
      this.openedAt = Date.now()
    }
    return this.txn
  }

  async sendBatch(batch: SendBatch): Promise<RecordMetadata[]> {
    return (await this.begin()).sendBatch(batch)
  }

  /** Commits the open transaction with `offsets` (each the next offset to consume) for `groupId`. */
  async commit(
    groupId: string,
    offsets: ConsumedOffsets,
    metadata: { generationId: number; memberId: string; groupInstanceId: string | null },
  ): Promise<void> {
    const txn = this.txn
    if (!txn) return
    if (offsets.size > 0) {
      const topics = new Map<string, Array<{ partition: number; offset: bigint; metadata: string | null }>>()
      for (const o of offsets.values())
        topics.set(o.topic, [...(topics.get(o.topic) ?? []), { partition: o.partition, offset: o.offset, metadata: o.metadata }])
      await txn.sendOffsets({
        consumerGroupId: groupId,
        topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
        consumerGroupMetadata: metadata,
      })
    }
    await txn.commit()
    this.txn = undefined
  }

  /** Aborts the open transaction: its records stay invisible to read_committed, its offsets are not committed. */
  async abort(): Promise<void> {
    const txn = this.txn
    this.txn = undefined
    if (txn?.isActive()) await txn.abort()
  }

  async close(): Promise<void> {
    this.txn = undefined
    await this.producer.disconnect()
  }
}
