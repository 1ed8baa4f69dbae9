export interface CommittedOffset {
  offset: bigint
  leaderEpoch: number
  metadata: string | null
  commitTimestamp: number
}

/**
 * What every group keeps whatever protocol it speaks: its committed offsets,
 * and the offsets open transactions have pending for it.
 */
export class GroupOffsets {
  readonly offsets = new Map<string, Map<number, CommittedOffset>>()
  private pendingTxnOffsets = new Map<bigint, { topic: string; partition: number; c: CommittedOffset }[]>()

  commit(topic: string, partition: number, c: CommittedOffset): void {
    let t = this.offsets.get(topic)
    if (!t) this.offsets.set(topic, (t = new Map()))
    t.set(partition, c)
  }

  committed(topic: string, partition: number): CommittedOffset | undefined {
    return this.offsets.get(topic)?.get(partition)
  }

  /** An offset committed inside a transaction: pending until its transaction ends. */
  commitInTransaction(producerId: bigint, topic: string, partition: number, c: CommittedOffset): void {
    let pending = this.pendingTxnOffsets.get(producerId)
    if (!pending) this.pendingTxnOffsets.set(producerId, (pending = []))
    pending.push({ topic, partition, c })
  }

  /** The transaction of `producerId` ended: its offsets become committed, or are dropped. */
  completeTransaction(producerId: bigint, commit: boolean): void {
    const pending = this.pendingTxnOffsets.get(producerId)
    this.pendingTxnOffsets.delete(producerId)
    if (commit) for (const { topic, partition, c } of pending ?? []) this.commit(topic, partition, c)
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
  }
}
