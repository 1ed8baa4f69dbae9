import { ErrorCodes } from '../../protocol/error-codes.js'
import type { EmbeddedCluster } from '../cluster.js'
import { CoordinatorPartitions, type Written } from '../coordinator-partitions.js'
import { transactionStatePartitionFor } from '../transaction-state-topic.js'
import { TRANSACTION_STATE_TOPIC } from '../topic-names.js'
import { readTxnRecord, txnKey, txnRecord, type TxnRecord } from './transaction-records.js'

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
  private readonly partitions: CoordinatorPartitions

  constructor(private readonly cluster: EmbeddedCluster) {
    this.partitions = new CoordinatorPartitions(cluster, TRANSACTION_STATE_TOPIC, normalized)
  }

  /** Appends the id's state as one batch; the error code (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE) when it is not. */
  write(transactionalId: string, r: TxnRecord): number {
    // As Kafka's TransactionLog: value version 1 (flexible) once transaction.version is 1 or more.
    const valueVersion = (this.cluster.controller.features.get('transaction.version') ?? 0) >= 1 ? 1 : 0
    const partition = transactionStatePartitionFor(this.cluster, transactionalId)
    const w = this.partitions.append(
      partition,
      [txnRecord(transactionalId, r, valueVersion)],
      `transactional id ${transactionalId}'s state`,
    )
    if (typeof w === 'number') return w
    this.last.set(transactionalId, w)
    return ErrorCodes.NONE
  }

  /** A tombstone for the id (it expired): NONE, or the error code when it could not be written. */
  remove(transactionalId: string): number {
    const partition = transactionStatePartitionFor(this.cluster, transactionalId)
    const w = this.partitions.append(
      partition,
      [{ key: txnKey(transactionalId), value: null }],
      `transactional id ${transactionalId}'s tombstone`,
    )
    if (typeof w === 'number') return w
    this.last.delete(transactionalId)
    return ErrorCodes.NONE
  }

  /** Once the id's last write is held by the ISR: NONE, or the error Kafka's coordinator answers (the wait bounded). */
  async written(transactionalId: string): Promise<number> {
    const w = this.last.get(transactionalId)
    if (w === undefined) return ErrorCodes.NONE
    const code = await this.partitions.held(w)
    if (this.last.get(transactionalId) === w) this.last.delete(transactionalId)
    return code
  }

  /**
   * The records of partition `partition` of __transaction_state, from its
   * leader's log, oldest first; null while it has no leader. A record that
   * cannot be read is said in the log and skipped.
   */
  read(partition: number): { transactionalId: string; record: TxnRecord | null }[] | null {
    const out: { transactionalId: string; record: TxnRecord | null }[] = []
    const led = this.partitions.read(
      partition,
      () => {},
      (r) => {
        if (r.key) out.push(readTxnRecord(r.key, r.value))
      },
    )
    return led ? out : null
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
