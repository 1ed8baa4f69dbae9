/** One partition of a fetch session, as the client last described it, and what it was last told. */
export interface SessionPartition {
  topic: string
  topicId: string
  partition: number
  fetchOffset: bigint
  currentLeaderEpoch: number
  lastFetchedEpoch: number
  logStartOffset: bigint
  partitionMaxBytes: number
  /** What the last response said (or would have): a partition is sent again when one of these changes. */
  sent: { highWatermark: bigint; lastStableOffset: bigint; logStartOffset: bigint } | null
}

export interface FetchSession {
  id: number
  /** The epoch the next incremental request must carry. */
  epoch: number
  /** By `${topicId or name}\0${partition}`, in the order the client added them. */
  partitions: Map<string, SessionPartition>
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
      if (oldest) this.sessions.delete(oldest.id)
    }
    while (this.nextId === 0 || this.sessions.has(this.nextId)) this.nextId = (this.nextId + 1) & 0x7fffffff
    const s: FetchSession = { id: this.nextId, epoch: 1, partitions: new Map(), lastUsed: Date.now() }
    this.nextId = (this.nextId + 1) & 0x7fffffff
    this.sessions.set(s.id, s)
    return s
  }

  remove(id: number): void {
    this.sessions.delete(id)
  }

  clear(): void {
    this.sessions.clear()
  }
}
