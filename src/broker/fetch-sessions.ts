import type { PartitionLog } from './partition-log.js'
import { SessionWatch, type WatchedPartition } from './fetch-session-watch.js'

/** What a fetch names of a partition (a request's entry). */
export interface FetchPosition {
  fetchOffset: bigint
  currentLeaderEpoch: number
  lastFetchedEpoch: number
  logStartOffset: bigint
  partitionMaxBytes: number
}

/** One partition of a fetch session, as the client last described it, and what it was last told. */
export class SessionPartition implements WatchedPartition {
  fetchOffset: bigint
  currentLeaderEpoch: number
  lastFetchedEpoch: number
  logStartOffset: bigint
  partitionMaxBytes: number
  /** What the last response said (or would have): a partition is sent again when one of these changes. */
  sent: { highWatermark: bigint; lastStableOffset: bigint; logStartOffset: bigint } | null = null
  log: PartitionLog | null = null

  constructor(
    readonly topic: string,
    readonly topicId: string,
    readonly partition: number,
    at: FetchPosition,
    private readonly watch: SessionWatch,
    readonly order: number,
  ) {
    this.fetchOffset = at.fetchOffset
    this.currentLeaderEpoch = at.currentLeaderEpoch
    this.lastFetchedEpoch = at.lastFetchedEpoch
    this.logStartOffset = at.logStartOffset
    this.partitionMaxBytes = at.partitionMaxBytes
  }

  /** An incremental request named it again: its new position, read at the next pass. */
  moveTo(at: FetchPosition): void {
    this.fetchOffset = at.fetchOffset
    this.currentLeaderEpoch = at.currentLeaderEpoch
    this.lastFetchedEpoch = at.lastFetchedEpoch
    this.logStartOffset = at.logStartOffset
    this.partitionMaxBytes = at.partitionMaxBytes
    this.watch.dirty.add(this)
  }

  logChanged(wakeFollower: boolean, wakeConsumer: boolean): void {
    this.watch.changed(this, wakeFollower, wakeConsumer)
  }

  logGone(): void {
    this.watch.gone(this)
  }
}

/** A fetch's partitions (a session's, or a sessionless request's own) and which of them changed. */
export class FetchPartitions {
  /** By `${topicId or name}\0${partition}`, in the order the client added them. */
  readonly partitions = new Map<string, SessionPartition>()
  readonly watch = new SessionWatch()
  private nextOrder = 0

  /** Adds (read at the next pass) or moves a partition the request names. */
  set(key: string, topic: string, topicId: string, partition: number, at: FetchPosition): void {
    const before = this.partitions.get(key)
    if (before) return before.moveTo(at)
    const p = new SessionPartition(topic, topicId, partition, at, this.watch, this.nextOrder++)
    this.partitions.set(key, p)
    this.watch.dirty.add(p)
  }

  forget(key: string): void {
    const p = this.partitions.get(key)
    if (!p) return
    this.partitions.delete(key)
    this.watch.forget(p)
  }

  /** The logs let go (the session or the request ends). */
  release(): void {
    this.watch.release(this.partitions.values())
  }
}

export interface FetchSession extends FetchPartitions {
  id: number
  /** The epoch the next incremental request must carry. */
  epoch: number
  lastUsed: number
}

/** Kafka's max.incremental.fetch.session.cache.slots. */
const MAX_SESSIONS = 1000

export const sessionKey = (topic: string, topicId: string, partition: number, byId: boolean): string =>
  `${byId ? topicId : topic}\u0000${partition}`

/**
 * A broker's incremental fetch sessions (KIP-227): the partitions each
 * client fetches, so that its next requests name only what changed and its
 * responses carry only partitions with news. Bounded: the least recently
 * used session goes first when the cache is full.
 */
export class FetchSessions {
  private readonly sessions = new Map<number, FetchSession>()
  private nextId = 1

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id)
  }

  create(): FetchSession {
    if (this.sessions.size >= MAX_SESSIONS) {
      let oldest: FetchSession | undefined
      for (const s of this.sessions.values()) if (!oldest || s.lastUsed < oldest.lastUsed) oldest = s
      if (oldest) this.remove(oldest.id)
    }
    while (this.nextId === 0 || this.sessions.has(this.nextId)) this.nextId = (this.nextId + 1) & 0x7fffffff
    const s = Object.assign(new FetchPartitions(), { id: this.nextId, epoch: 1, lastUsed: Date.now() })
    this.nextId = (this.nextId + 1) & 0x7fffffff
    this.sessions.set(s.id, s)
    return s
  }

  remove(id: number): void {
    this.sessions.get(id)?.release()
    this.sessions.delete(id)
  }

  clear(): void {
    for (const s of this.sessions.values()) s.release()
    this.sessions.clear()
  }
}
