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

/**
 * Where a group's changes go: records appended to the group's partition of
 * __consumer_offsets (src/broker/groups/coordinator-log.ts), and the wait
 * for the ISR to hold them before the change is acknowledged.
 */
export interface GroupChanges {
  offset(group: string, topic: string, partition: number, c: CommittedOffset | null): void
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
    let t = this.offsets.get(topic)
    if (!t) this.offsets.set(topic, (t = new Map()))
    t.set(partition, c)
    this.changes?.offset(this.groupId, topic, partition, c)
  }

  deleteOffset(topic: string, partition: number): void {
    if (this.offsets.get(topic)?.delete(partition)) this.changes?.offset(this.groupId, topic, partition, null)
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
    this.changes = other.changes
  }
}
