// The partitions of a coordinator's internal topic (__consumer_offsets for
// groups, __transaction_state for transactions), as Kafka's coordinators use
// theirs: a change is a record batch appended to the leader of the key's
// partition, acknowledged once the ISR holds it (acks=all within the topic's
// min.insync.replicas, offsets.commit.timeout.ms bounding the wait), and the
// partition is read back when a broker takes up its leadership. Both
// coordinators write and read through this one mechanism; what differs is
// their records and how each maps a write's error to its answer.
import { encodeRecordBatch } from '../codec/batch-encoder.js'
import { decodeRecordSet, type RecordSet } from '../codec/batch-decoder.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { EmbeddedCluster } from './cluster.js'
import { awaitIsr } from './isr-wait.js'
import { readBatchHeader } from './record-batch.js'
import { StorageError } from './storage/disk-io.js'
import { topicConfig } from './topic-configs.js'

/** Where a write is: its partition's log end after it, in the leader epoch it was written at. */
export interface Written {
  partition: number
  leaderEpoch: number
  end: number
}

/** A transactional batch's producer (its sequence unset, as a coordinator writes one). */
export interface BatchProducer {
  producerId: bigint
  producerEpoch: number
}

type Batch = RecordSet['batches'][number]

export class CoordinatorPartitions {
  constructor(
    private readonly cluster: EmbeddedCluster,
    readonly topic: string,
    /** The coordinator's answer for a write's error code (Kafka's normalizeException of each coordinator). */
    private readonly normalized: (code: number) => number,
  ) {}

  /**
   * Appends `records` as one batch to the leader of `partition`: where it
   * ends, or the code to answer (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE).
   * `what` names the change in the ERROR a failed disk write logs.
   */
  append(
    partition: number,
    records: readonly { key: Buffer; value: Buffer | null }[],
    what: string,
    producer?: BatchProducer,
  ): Written | number {
    const { cluster } = this
    const t = cluster.controller.topics.get(this.topic)
    const p = t?.partitions[partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker) return ErrorCodes.NOT_COORDINATOR
    const led = cluster.leaderReplica(broker, t, partition)
    if (typeof led === 'number') return this.normalized(led)
    const now = Date.now()
    const bytes = encodeRecordBatch(
      records.map((r) => ({ key: r.key, value: r.value, timestamp: now })),
      producer ? { defaultTimestamp: now, transactional: true, ...producer, baseSequence: -1 } : { defaultTimestamp: now },
    )
    try {
      const base = led.replica.log.append(bytes, readBatchHeader(bytes), p.leaderEpoch)
      return { partition, leaderEpoch: p.leaderEpoch, end: base + records.length }
    } catch (err) {
      if (!(err instanceof StorageError)) throw err
      cluster.problem(broker.id, `${this.topic}-${partition}: ${what} not written: ${err.message}`, 'error')
      return ErrorCodes.NOT_COORDINATOR
    }
  }

  /** Once the ISR holds `w`: NONE, or the error to answer (the leadership moved, the wait ran out). */
  async held(w: Written): Promise<number> {
    const { cluster } = this
    const t = cluster.controller.topics.get(this.topic)
    const p = t?.partitions[w.partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker || p.leaderEpoch !== w.leaderEpoch) return ErrorCodes.NOT_COORDINATOR
    const led = cluster.leaderReplica(broker, t, w.partition)
    if (typeof led === 'number') return this.normalized(led)
    const minIsr = Number(topicConfig(t, 'min.insync.replicas'))
    const deadline = Date.now() + cluster.options.offsetsCommitTimeoutMs
    return this.normalized(await awaitIsr(broker, cluster, { t, p, log: led.replica.log, end: w.end, minIsr }, deadline))
  }

  /**
   * The batches of `partition` in its leader's log, oldest first: each to
   * `onBatch`, and each record of a data batch to `onRecord`; false while
   * the partition has no leader. A record `onRecord` cannot read (it throws)
   * is logged as an ERROR naming its batch and skipped.
   */
  read(partition: number, onBatch: (batch: Batch) => void, onRecord: (record: Batch['records'][number], batch: Batch) => void): boolean {
    const { cluster } = this
    const t = cluster.controller.topics.get(this.topic)
    const p = t?.partitions[partition]
    const broker = p && cluster.brokers.get(p.leader)
    if (!t || !p || !broker) return false
    const led = cluster.leaderReplica(broker, t, partition)
    if (typeof led === 'number') return false
    for (const stored of led.replica.log.allBatches())
      for (const batch of decodeRecordSet(stored.bytes).batches) {
        onBatch(batch)
        if (batch.isControl) continue
        for (const r of batch.records) {
          try {
            onRecord(r, batch)
          } catch (err) {
            cluster.problem(
              broker.id,
              `${this.topic}-${partition} in the batch at ${stored.baseOffset}: a record not read: ${(err as Error).message}`,
              'error',
            )
          }
        }
      }
    return true
  }
}
