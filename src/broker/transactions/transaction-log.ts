import { ErrorCodes } from '../../protocol/error-codes.js'
import { encodeRecordBatch } from '../../codec/batch-encoder.js'
import { decodeRecordSet } from '../../codec/batch-decoder.js'
import type { EmbeddedCluster } from '../cluster.js'
import { readBatchHeader } from '../record-batch.js'
import { transactionStatePartitionFor } from '../transaction-state-topic.js'
import { TRANSACTION_STATE_TOPIC } from '../topic-names.js'
import { StorageError } from '../storage/disk-io.js'
import { topicConfig } from '../topic-configs.js'
import { awaitIsr } from '../isr-wait.js'
import { readTxnRecord, txnRecord, type TxnRecord } from './transaction-records.js'

/** Where a transactional id's last write is: its partition's log end after it, in the leader epoch it was written at. */
interface Written {
  partition: number
  leaderEpoch: number
  end: number
}

/**
 * The transaction coordinator's records in __transaction_state, as Kafka's
 * TransactionStateManager keeps them: each state a transactional id moves
 * to is a record (TransactionLogKey, TransactionLogValue) appended to the
 * leader of the id's partition before the coordinator answers, and
 * acknowledged once the ISR holds it (`written`, acks=all within
 * transaction.state.log's min.insync.replicas, offsets.commit.timeout.ms
 * bounding the wait as the group coordinator's). The partitions are read
 * back (`read`) when the broker starts and when a partition's leader moves.
 */
export class TransactionLog {
  /** Per transactional id: its last write, until the ISR holds it. */
  private readonly last = new Map<string, Written>()

  constructor(private readonly cluster: EmbeddedCluster) {}

  /** Appends the id's state as one batch; the error code (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) when it is not. */
  write(transactionalId: string, r: TxnRecord): number {
    const { cluster } = this
    const t = cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
    const partition = transactionStatePartitionFor(cluster, transactionalId)
    const p = t?.partitions[partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker) return ErrorCodes.NOT_COORDINATOR
    const led = cluster.leaderReplica(broker, t, partition)
    if (typeof led === 'number') return normalized(led)
    // As Kafka's TransactionLog: value version 1 (flexible) once transaction.version is 1 or more.
    const valueVersion = (cluster.controller.features.get('transaction.version') ?? 0) >= 1 ? 1 : 0
    const { key, value } = txnRecord(transactionalId, r, valueVersion)
    const now = Date.now()
    const bytes = encodeRecordBatch([{ key, value, timestamp: now }], { defaultTimestamp: now })
    try {
      const base = led.replica.log.append(bytes, readBatchHeader(bytes), p.leaderEpoch)
      this.last.set(transactionalId, { partition, leaderEpoch: p.leaderEpoch, end: base + 1 })
      return ErrorCodes.NONE
    } catch (err) {
      if (!(err instanceof StorageError)) throw err
      cluster.problem(
        broker.id,
        `${TRANSACTION_STATE_TOPIC}-${partition}: transactional id ${transactionalId}'s state not written: ${err.message}`,
        'error',
      )
      return ErrorCodes.NOT_COORDINATOR
    }
  }

  /** Once the id's last write is held by the ISR: NONE, or the error Kafka's coordinator answers (the wait bounded). */
  async written(transactionalId: string): Promise<number> {
    const w = this.last.get(transactionalId)
    if (w === undefined) return ErrorCodes.NONE
    const { cluster } = this
    const t = cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
    const p = t?.partitions[w.partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker || p.leaderEpoch !== w.leaderEpoch) return ErrorCodes.NOT_COORDINATOR
    const led = cluster.leaderReplica(broker, t, w.partition)
    if (typeof led === 'number') return normalized(led)
    const minIsr = Number(topicConfig(t, 'min.insync.replicas'))
    const deadline = Date.now() + cluster.options.offsetsCommitTimeoutMs
    const code = await awaitIsr(broker, cluster, { t, p, log: led.replica.log, end: w.end, minIsr }, deadline)
    if (this.last.get(transactionalId) === w) this.last.delete(transactionalId)
    return normalized(code)
  }

  /**
   * The records of partition `partition` of __transaction_state, from its
   * leader's log, oldest first; null while it has no leader. A record that
   * cannot be read is said in the log and skipped.
   */
  read(partition: number): { transactionalId: string; record: TxnRecord | null }[] | null {
    const { cluster } = this
    const t = cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
    const p = t?.partitions[partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker) return null
    const led = cluster.leaderReplica(broker, t, partition)
    if (typeof led === 'number') return null
    const out: { transactionalId: string; record: TxnRecord | null }[] = []
    for (const stored of led.replica.log.allBatches())
      for (const batch of decodeRecordSet(stored.bytes).batches) {
        if (batch.isControl) continue
        for (const r of batch.records) {
          if (!r.key) continue
          try {
            out.push(readTxnRecord(r.key, r.value))
          } catch (err) {
            cluster.problem(
              broker.id,
              `${TRANSACTION_STATE_TOPIC}-${partition} in the batch at ${stored.baseOffset}: a record not read: ${(err as Error).message}`,
              'error',
            )
          }
        }
      }
    return out
  }

  close(): void {
    this.last.clear()
  }
}

/** Kafka's coordinator's answer for a write's error code (as TransactionStateManager maps append errors). */
function normalized(code: number): number {
  switch (code) {
    case ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCodes.NOT_ENOUGH_REPLICAS:
    case ErrorCodes.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCodes.REQUEST_TIMED_OUT:
      return ErrorCodes.COORDINATOR_NOT_AVAILABLE
    case ErrorCodes.NOT_LEADER_OR_FOLLOWER:
    case ErrorCodes.KAFKA_STORAGE_ERROR:
      return ErrorCodes.NOT_COORDINATOR
    default:
      return code
  }
}
