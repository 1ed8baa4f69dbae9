import { ErrorCodes } from '../../protocol/error-codes.js'
import type { EmbeddedCluster } from '../cluster.js'
import { CoordinatorPartitions, type Written } from '../coordinator-partitions.js'
import { offsetsPartitionFor } from '../offsets-topic.js'
import { OFFSETS_TOPIC } from '../topic-names.js'
import type { ClassicGroupImage, GroupChanges, OffsetEntry, TxnWriter } from './group-offsets.js'
import { groupRecord, offsetRecord, readGroupRecord, type GroupRecord, type GroupRecordBytes } from './group-records.js'
import { shareGroupRecords } from './share-group-records.js'
import { consumerGroupRecords } from './consumer-group-records.js'
import { streamsGroupRecords, type StreamsGroupSnapshot } from './streams-group-records.js'
import type { ConsumerGroupSnapshot } from './consumer-group.js'
import type { ShareGroupSnapshot } from './share-group.js'

/** A record read back from a partition (with its transaction's producer, or null), or a transaction's marker. */
export type LoggedGroupRecord = { record: GroupRecord; producerId: bigint | null } | { marker: boolean; producerId: bigint }

/**
 * The group coordinator's records in __consumer_offsets, as Kafka's
 * coordinator runtime keeps them: each change to a group is a record batch
 * (OffsetCommit and GroupMetadata records in Kafka's format) appended to
 * the leader of the group's partition, and acknowledged once the ISR holds
 * it (`written`, acks=all within offsets.commit.timeout.ms). The
 * partitions are read back (`read`) when the broker starts and when a
 * partition's leadership moves. A write that fails, or a wait that ends
 * without the ISR, is answered with the error Kafka's coordinator gives
 * for it (GroupCoordinatorService.normalizeException).
 */
export class CoordinatorLog implements GroupChanges {
  /** Per group: its last write, or the error it failed with (what `written` waits for, or reports). */
  private readonly last = new Map<string, Written | number>()
  /**
   * group.coordinator.append.linger.ms > 0: per partition, when its open
   * batch is flushed; per group, the flush its last write waits for. Kafka's
   * coordinator holds a batch that long for more writes and answers each
   * write once its batch is flushed and committed; here the records are
   * appended at once and the answer waits out the linger.
   */
  private readonly batchFlush = new Map<number, Promise<void>>()
  private readonly flushOf = new Map<string, Promise<void>>()
  /** Set while the partitions are replayed into the groups: what replays is not written again. */
  replaying = false
  private readonly partitions: CoordinatorPartitions

  constructor(private readonly cluster: EmbeddedCluster) {
    this.partitions = new CoordinatorPartitions(cluster, OFFSETS_TOPIC, normalized)
  }

  offsets(group: string, entries: readonly OffsetEntry[], txn?: TxnWriter): boolean {
    const { topics } = this.cluster.controller
    return this.write(
      group,
      entries.map(({ topic, partition, c }) => offsetRecord(group, topic, partition, topics.get(topic)?.id, c)),
      txn,
    )
  }

  generation(g: ClassicGroupImage): void {
    this.write(g.groupId, [groupRecord(g.groupId, g, Date.now())])
  }

  /**
   * A deleted group: tombstones for its offsets and its metadata
   * (compaction then removes it, as Kafka's DeleteGroups): a classic
   * group's GroupMetadata, a consumer group's ConsumerGroup* records or a streams group's StreamsGroup* ones
   * (`kept`: what the log holds of it, whose members' records go too).
   */
  deleted(
    group: string,
    offsets: readonly (readonly [string, number])[],
    kind:
      | { type: 'classic' }
      | { type: 'consumer'; kept: ConsumerGroupSnapshot | null }
      | { type: 'streams'; kept: StreamsGroupSnapshot | null },
  ): void {
    const metadata =
      kind.type === 'classic'
        ? [groupRecord(group, null, 0)]
        : kind.type === 'consumer'
          ? consumerGroupRecords(group, kind.kept, null)
          : streamsGroupRecords(group, kind.kept, null)
    this.write(group, [...offsets.map(([topic, partition]) => offsetRecord(group, topic, partition, undefined, null)), ...metadata])
  }

  /** A streams group's change from `prev` to `next` (null: gone), as Kafka's StreamsGroup* records; whether it was appended. */
  streamsGroup(group: string, prev: StreamsGroupSnapshot | null, next: StreamsGroupSnapshot | null): boolean {
    const records = streamsGroupRecords(group, prev, next)
    return records.length === 0 || this.write(group, records)
  }

  /** A consumer group's change from `prev` to `next` (null: gone), as Kafka's ConsumerGroup* records; whether it was appended. */
  consumerGroup(group: string, prev: ConsumerGroupSnapshot | null, next: ConsumerGroupSnapshot | null): boolean {
    const records = consumerGroupRecords(group, prev, next)
    return records.length === 0 || this.write(group, records)
  }

  /** A share group's change from `prev` to `next` (null: deleted), as Kafka's ShareGroup* records; whether it was appended. */
  shareGroup(group: string, prev: ShareGroupSnapshot | null, next: ShareGroupSnapshot | null): boolean {
    const records = shareGroupRecords(group, prev, next, Date.now())
    return records.length === 0 || this.write(group, records)
  }

  /**
   * Appends `records` as one batch; a transactional one (its producer's,
   * sequence unset, as Kafka's coordinator writes it) with `txn`. Returns
   * whether it was appended.
   */
  private write(group: string, records: GroupRecordBytes[], txn?: TxnWriter): boolean {
    if (this.replaying) return true
    const partition = offsetsPartitionFor(this.cluster, group)
    const producer = txn && { producerId: txn.producerId, producerEpoch: txn.producerEpoch }
    const w = this.partitions.append(partition, records, `group ${group}'s records`, producer)
    if (typeof w === 'number') {
      this.last.set(group, w)
      return false
    }
    if (typeof this.last.get(group) !== 'number') this.last.set(group, w)
    // Transactional writes are not held, as Kafka's coordinator flushes them at once.
    if (!txn) this.lingerFor(group, partition)
    return true
  }

  private lingerFor(group: string, partition: number): void {
    const linger = this.cluster.options.groupCoordinatorAppendLingerMs
    if (linger <= 0) return
    let flush = this.batchFlush.get(partition)
    if (!flush) {
      flush = new Promise<void>((resolve) => setTimeout(resolve, linger).unref())
      this.batchFlush.set(partition, flush)
      void flush.then(() => this.batchFlush.delete(partition))
    }
    this.flushOf.set(group, flush)
    void flush.then(() => {
      if (this.flushOf.get(group) === flush) this.flushOf.delete(group)
    })
  }

  async written(group: string): Promise<number> {
    // Until its batch has lingered (group.coordinator.append.linger.ms); the entry goes when it has.
    await this.flushOf.get(group)
    const w = this.last.get(group)
    if (w === undefined) return ErrorCodes.NONE
    if (typeof w === 'number') {
      this.last.delete(group)
      return w
    }
    const code = await this.partitions.held(w)
    if (this.last.get(group) === w) this.last.delete(group)
    return code
  }

  /**
   * The records of partition `partition` of __consumer_offsets, from its
   * leader's log, oldest first, each with the producer of its transaction
   * (null outside one), and the transaction markers between them; null
   * while it has no leader.
   */
  read(partition: number): LoggedGroupRecord[] | null {
    const out: LoggedGroupRecord[] = []
    const producerOf = (batch: { isTransactional: boolean; producerId: bigint }) => (batch.isTransactional ? batch.producerId : null)
    const led = this.partitions.read(
      partition,
      (batch) => {
        const producerId = producerOf(batch)
        const type = batch.controlType
        if (batch.isControl && producerId !== null && (type === 'COMMIT' || type === 'ABORT'))
          out.push({ marker: type === 'COMMIT', producerId })
      },
      (r, batch) => {
        if (r.key && r.key.length >= 2) out.push({ record: readGroupRecord(r.key, r.value), producerId: producerOf(batch) })
      },
    )
    return led ? out : null
  }

  close(): void {
    this.last.clear()
  }
}

/** Kafka's GroupCoordinatorService.normalizeException, on a write's error code. */
function normalized(code: number): number {
  switch (code) {
    case ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCodes.NOT_ENOUGH_REPLICAS:
    case ErrorCodes.REQUEST_TIMED_OUT:
      return ErrorCodes.COORDINATOR_NOT_AVAILABLE
    case ErrorCodes.NOT_LEADER_OR_FOLLOWER:
    case ErrorCodes.KAFKA_STORAGE_ERROR:
      return ErrorCodes.NOT_COORDINATOR
    default:
      return code
  }
}
