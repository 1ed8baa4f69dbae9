import type { Buffer } from 'node:buffer'
export interface CommittedOffset {
  offset: bigint
  leaderEpoch: number
  metadata: string | null
  commitTimestamp: number
}

/** What a classic group's record (GroupMetadataValue) holds of it. */
export interface ClassicGroupImage {
  groupId: string
  generationId: number
  protocolType: string | null
  protocolName: string | null
  leaderId: string | null
  members: ReadonlyMap<
    string,
    {
      memberId: string
      groupInstanceId: string | null
      clientId: string
      clientHost: string
      rebalanceTimeoutMs: number
      sessionTimeoutMs: number
      protocols: readonly { name: string; metadata: Buffer }[]
      assignment: Buffer
    }
  >
}

/** One partition's committed offset (null: deleted). */
export interface OffsetEntry {
  topic: string
  partition: number
  c: CommittedOffset | null
}

/** The producer a transactional offset commit writes as (TxnOffsetCommit's producer id and epoch). */
export interface TxnWriter {
  producerId: bigint
  producerEpoch: number
}

/**
 * Where a group's changes go: records appended to the group's partition of
 * __consumer_offsets (src/broker/groups/coordinator-log.ts), and the wait
 * for the ISR to hold them before the change is acknowledged.
 */
export interface GroupChanges {
  /** Offsets committed, or deleted (null), as one write; inside a transaction (`txn`): transactional records, which its marker resolves. */
  /** False when the write failed at once (its error is what `written` reports): the caller takes the change back. */
  offsets(group: string, entries: readonly OffsetEntry[], txn?: TxnWriter): boolean
  generation(g: ClassicGroupImage): void
  /** The error code once what was written for `group` is committed (NONE), or why it is not. */
  written(group: string): Promise<number>
}

/**
 * What every group keeps whatever protocol it speaks: its committed offsets,
 * and the offsets open transactions have pending for it.
 */
export abstract class GroupOffsets {
  abstract readonly groupId: string
  readonly offsets = new Map<string, Map<number, CommittedOffset>>()
  private pendingTxnOffsets = new Map<bigint, { topic: string; partition: number; c: CommittedOffset }[]>()
  changes: GroupChanges | null = null

  commit(topic: string, partition: number, c: CommittedOffset): void {
    this.commitAll([{ topic, partition, c }])
  }

  /** Offsets committed together (one OffsetCommit): one write. */
  commitAll(entries: readonly { topic: string; partition: number; c: CommittedOffset }[]): void {
    if (entries.length === 0) return
    const before = entries.map(({ topic, partition }) => this.committed(topic, partition))
    for (const { topic, partition, c } of entries) this.set(topic, partition, c)
    if (this.changes && !this.changes.offsets(this.groupId, entries))
      // Not written: taken back, as Kafka's coordinator reverts a failed write.
      entries.forEach(({ topic, partition }, i) => {
        const was = before[i]
        if (was) this.set(topic, partition, was)
        else this.offsets.get(topic)?.delete(partition)
      })
  }

  private set(topic: string, partition: number, c: CommittedOffset): void {
    let t = this.offsets.get(topic)
    if (!t) this.offsets.set(topic, (t = new Map()))
    t.set(partition, c)
  }

  deleteOffset(topic: string, partition: number): void {
    if (this.offsets.get(topic)?.delete(partition)) this.changes?.offsets(this.groupId, [{ topic, partition, c: null }])
  }

  committed(topic: string, partition: number): CommittedOffset | undefined {
    return this.offsets.get(topic)?.get(partition)
  }

  /** An offset committed inside a transaction: a transactional record, pending until its transaction's marker. */
  commitInTransaction(txn: TxnWriter, entries: readonly { topic: string; partition: number; c: CommittedOffset }[]): void {
    if (entries.length === 0 || (this.changes && !this.changes.offsets(this.groupId, entries, txn))) return
    let pending = this.pendingTxnOffsets.get(txn.producerId)
    if (!pending) this.pendingTxnOffsets.set(txn.producerId, (pending = []))
    pending.push(...entries)
  }

  /** The transaction of `producerId` ended (its marker is the record): its offsets become committed, or are dropped. */
  completeTransaction(producerId: bigint, commit: boolean): void {
    const pending = this.pendingTxnOffsets.get(producerId)
    this.pendingTxnOffsets.delete(producerId)
    if (commit) for (const { topic, partition, c } of pending ?? []) this.set(topic, partition, c)
  }

  /** Whether an open transaction has an offset pending for this partition (OffsetFetch with requireStable waits for it). */
  hasPendingOffset(topic: string, partition: number): boolean {
    for (const list of this.pendingTxnOffsets.values()) if (list.some((x) => x.topic === topic && x.partition === partition)) return true
    return false
  }

  /** An empty group of one type becomes one of the other (the group id is reused): the offsets stay. */
  takeOffsetsFrom(other: GroupOffsets): void {
    for (const [topic, partitions] of other.offsets) this.offsets.set(topic, partitions)
    this.pendingTxnOffsets = other.pendingTxnOffsets
    this.changes = other.changes
  }
}
