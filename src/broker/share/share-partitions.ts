import type { EmbeddedCluster } from '../cluster.js'
import { groupConfig } from '../dynamic-configs.js'
import type { PartitionLog } from '../partition-log.js'
import { parseShareAutoOffsetReset } from './auto-offset-reset.js'
import { SharePartition } from './share-partition.js'
import { shareKey, type SharePartitionSnapshot, type ShareStateStore } from '../storage/share-state-store.js'
import { type ShareSession, ShareSessions } from './share-sessions.js'

/**
 * Where a new share partition starts: earliest, latest, or by_duration the
 * first record no older than the duration (none: latest, as Kafka).
 */
function startOffset(reset: string, log: PartitionLog): number {
  const r = parseShareAutoOffsetReset(reset)
  if (typeof r === 'string' || r.kind === 'latest') return log.highWatermark
  if (r.kind === 'earliest') return log.logStartOffset
  return log.offsetForTimestamp(Date.now() - r.ms)?.offset ?? log.highWatermark
}

/** A share partition in memory, and the leader epoch of its topic partition it was taken up at. */
interface LiveSharePartition {
  groupId: string
  topicId: string
  index: number
  partition: SharePartition
  leaderEpoch: number
}

/**
 * The share partitions of every share group, with the share sessions that
 * fetch them (Kafka's SharePartitionManager and ShareSessionCache): a share
 * partition starts at share.auto.offset.reset when first fetched, and what a
 * member holds is released when its session closes or it leaves the group.
 */
export class SharePartitions {
  private readonly partitions = new Map<string, LiveSharePartition>()
  readonly sessions = new ShareSessions()
  private readonly waiters = new Set<() => void>()
  /** The share-state log in dataDir; null in memory. */
  store: ShareStateStore | null = null
  /** Share partitions as the log kept them, taken up when first fetched. */
  restored = new Map<string, SharePartitionSnapshot>()
  /**
   * Each share partition's state as last written: what Kafka's share
   * coordinator holds and DescribeShareGroupOffsets reads (none for a
   * partition only fetched, nothing acknowledged or set in it yet).
   */
  private readonly written = new Map<string, SharePartitionSnapshot>()

  constructor(private readonly cluster: EmbeddedCluster) {}

  private static key(groupId: string, topicId: string, partition: number): string {
    return shareKey(groupId, topicId, partition)
  }

  /** The group's share partition, created at share.auto.offset.reset of the group. */
  partition(groupId: string, topicId: string, partition: number, log: PartitionLog): SharePartition {
    const key = SharePartitions.key(groupId, topicId, partition)
    const known = this.partitions.get(key)
    if (known) return this.led(known)
    const created = this.create(
      groupId,
      topicId,
      partition,
      startOffset(groupConfig(this.cluster, groupId, 'share.auto.offset.reset'), log),
    )
    const kept = this.restored.get(key)
    if (kept) {
      this.written.set(key, kept)
      created.restore(kept)
      this.restored.delete(key)
    }
    this.partitions.set(key, { groupId, topicId, index: partition, partition: created, leaderEpoch: this.leaderEpoch(topicId, partition) })
    return created
  }

  private leaderEpoch(topicId: string, partition: number): number {
    return this.cluster.controller.topicsById.get(topicId)?.partitions[partition]?.leaderEpoch ?? -1
  }

  /**
   * The share partition as its current leader has it. Kafka's share state
   * lives with the partition's leader: a new leader takes it up from what
   * was persisted, so what members held at the old one is theirs no more
   * (available again, its delivery not counted: window()), whatever they
   * say to the old leader after.
   */
  private led(live: LiveSharePartition): SharePartition {
    const epoch = this.leaderEpoch(live.topicId, live.index)
    if (epoch === live.leaderEpoch) return live.partition
    const kept = live.partition.window()
    live.partition.close()
    live.partition = this.create(live.groupId, live.topicId, live.index, kept.startOffset)
    live.partition.restore(kept)
    live.leaderEpoch = epoch
    this.cluster.problem(
      null,
      `share group ${live.groupId}: partition ${live.index} of topic ${live.topicId} taken up at leader epoch ${epoch} from its kept state (what members held at the old leader is available again)`,
      'info',
    )
    return live.partition
  }

  private create(groupId: string, topicId: string, partition: number, start: number): SharePartition {
    const cluster = this.cluster
    const created: SharePartition = new SharePartition(
      start,
      {
        get lockDurationMs() {
          return Number(groupConfig(cluster, groupId, 'share.record.lock.duration.ms'))
        },
        get deliveryCountLimit() {
          return Number(groupConfig(cluster, groupId, 'share.delivery.count.limit'))
        },
        get maxRecordLocks() {
          return Number(groupConfig(cluster, groupId, 'share.partition.max.record.locks'))
        },
        get readCommitted() {
          return groupConfig(cluster, groupId, 'share.isolation.level') === 'read_committed'
        },
      },
      () => this.wake(),
      (): boolean => {
        const snapshot = { group: groupId, topicId, partition, ...created.window() }
        this.written.set(SharePartitions.key(groupId, topicId, partition), snapshot)
        return this.keep(snapshot)
      },
    )
    return created
  }

  /** The topic partitions of the group that have share state (Kafka's initialized share partitions): topic id → partitions. */
  initialized(groupId: string): Map<string, number[]> {
    const out = new Map<string, number[]>()
    const add = (topicId: string, partition: number) => {
      const ps = out.get(topicId) ?? []
      if (!ps.includes(partition)) ps.push(partition)
      out.set(topicId, ps)
    }
    for (const s of this.restored.values()) if (s.group === groupId) add(s.topicId, s.partition)
    for (const p of this.partitions.values()) if (p.groupId === groupId) add(p.topicId, p.index)
    for (const ps of out.values()) ps.sort((a, b) => a - b)
    return out
  }

  /**
   * A share partition's SPSO and how many records past it are done
   * (acknowledged or archived), as last written; undefined without share
   * state, or before anything was acknowledged or set in it (Kafka's share
   * coordinator has no SPSO for a partition that was only fetched).
   */
  summary(groupId: string, topicId: string, partition: number): { startOffset: number; deliveryComplete: number } | undefined {
    const key = SharePartitions.key(groupId, topicId, partition)
    const s = this.written.get(key) ?? this.restored.get(key)
    if (!s) return undefined
    return { startOffset: s.startOffset, deliveryComplete: s.records.filter(([, state]) => state === 2 || state === 3).length }
  }

  /**
   * The share partition starts again at `startOffset` with nothing in flight
   * (AlterShareGroupOffsets on an empty group: Kafka's share coordinator
   * initializes its state anew), and is kept.
   */
  startAt(groupId: string, topicId: string, partition: number, startOffset: number): void {
    const key = SharePartitions.key(groupId, topicId, partition)
    this.partitions.get(key)?.partition.close()
    this.restored.delete(key)
    const created = this.create(groupId, topicId, partition, startOffset)
    this.partitions.set(key, { groupId, topicId, index: partition, partition: created, leaderEpoch: this.leaderEpoch(topicId, partition) })
    const snapshot = { group: groupId, topicId, partition, ...created.window() }
    this.written.set(key, snapshot)
    this.keep(snapshot)
  }

  /** The group's share state of a topic goes (DeleteShareGroupOffsets): a later fetch starts at share.auto.offset.reset. */
  dropTopic(groupId: string, topicId: string): void {
    for (const [k, s] of this.restored) if (s.group === groupId && s.topicId === topicId) this.restored.delete(k)
    this.store?.topicDeleted(groupId, topicId)
    for (const [k, p] of this.partitions)
      if (p.groupId === groupId && p.topicId === topicId) {
        p.partition.close()
        this.partitions.delete(k)
        this.written.delete(k)
      }
  }

  /**
   * A changed share partition written to the share-state log. A failed write
   * is logged and returns false: an acknowledgement is then answered
   * KAFKA_STORAGE_ERROR (an expired lock's change has no request to fail).
   */
  private keep(s: SharePartitionSnapshot): boolean {
    try {
      this.store?.written(s)
      return true
    } catch (err) {
      this.cluster.problem(null, `share-state log: ${(err as Error).message}`, 'error')
      return false
    }
  }

  existing(groupId: string, topicId: string, partition: number): SharePartition | undefined {
    const live = this.partitions.get(SharePartitions.key(groupId, topicId, partition))
    return live && this.led(live)
  }

  /** A session ends (final epoch): what its member holds in its partitions is released. */
  closeSession(session: ShareSession): void {
    this.sessions.delete(session)
    for (const p of session.partitions.values()) this.existing(session.groupId, p.topicId, p.partition)?.releaseAll(session.memberId)
  }

  /** A member left its group or was timed out: its sessions go, and everything it holds is released. */
  memberGone(groupId: string, memberId: string): void {
    this.sessions.deleteMember(groupId, memberId)
    for (const p of this.partitions.values()) if (p.groupId === groupId) this.led(p).releaseAll(memberId)
  }

  /** A group deleted: its share partitions go. */
  dropGroup(groupId: string): void {
    for (const [k, s] of this.restored) if (s.group === groupId) this.restored.delete(k)
    this.store?.deleted(groupId)
    for (const [k, p] of this.partitions)
      if (p.groupId === groupId) {
        p.partition.close()
        this.partitions.delete(k)
        this.written.delete(k)
      }
  }

  /** `wake` is called when records become available again (released, or a lock expired); returns how to stop. */
  onAvailable(wake: () => void): () => void {
    this.waiters.add(wake)
    return () => this.waiters.delete(wake)
  }

  private wake(): void {
    for (const w of [...this.waiters]) w()
  }

  close(): void {
    for (const p of this.partitions.values()) p.partition.close()
    this.partitions.clear()
    this.written.clear()
    this.sessions.clear()
    this.waiters.clear()
    this.store?.close()
    this.store = null
  }
}
