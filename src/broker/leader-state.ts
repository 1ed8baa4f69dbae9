/** What a partition's leader knows of one follower, from its fetches (Kafka's Replica state). */
export interface FollowerState {
  /** The follower's log end: the offset of its last fetch (-1 until it fetches from this leader). */
  logEnd: number
  /** The last time the follower was caught up with the leader's log end. */
  lastCaughtUpMs: number
  lastFetchMs: number
  /** The leader's log end when the follower last fetched. */
  lastFetchLeaderLogEnd: number
}

/**
 * The leader side of one partition, for one leader epoch: each follower's
 * log end and when it was last caught up, from which the ISR shrinks
 * (replica.lag.time.max.ms) and grows, and the high watermark follows.
 */
export class LeaderState {
  readonly followers = new Map<number, FollowerState>()

  constructor(
    readonly epoch: number,
    readonly self: number,
    replicas: readonly number[],
    now: number,
  ) {
    this.track(replicas, now)
  }

  /** Starts tracking replicas not yet known (a new leader counts every follower caught up now, as Kafka does). */
  track(replicas: readonly number[], now: number): void {
    for (const r of replicas) {
      if (r !== this.self && !this.followers.has(r))
        this.followers.set(r, { logEnd: -1, lastCaughtUpMs: now, lastFetchMs: 0, lastFetchLeaderLogEnd: -1 })
    }
  }

  /**
   * A follower fetched from `fetchOffset` while the leader's log ended at `leaderLogEnd` (Kafka's updateFetchState);
   * returns whether its log end moved (only then can the high watermark).
   */
  recordFetch(id: number, fetchOffset: number, leaderLogEnd: number, now: number): boolean {
    const f = this.followers.get(id)
    if (!f) return false
    if (fetchOffset >= leaderLogEnd) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, now)
    else if (fetchOffset >= f.lastFetchLeaderLogEnd) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, f.lastFetchMs)
    const moved = f.logEnd !== fetchOffset
    f.logEnd = fetchOffset
    f.lastFetchLeaderLogEnd = leaderLogEnd
    f.lastFetchMs = now
    return moved
  }

  /** The smallest log end among the ISR's followers (Infinity when the leader is the whole ISR). */
  isrLogEnd(isr: readonly number[]): number {
    let end = Infinity
    for (const r of isr) {
      if (r === this.self) continue
      end = Math.min(end, this.followers.get(r)?.logEnd ?? -1)
    }
    return end
  }

  /** ISR followers behind the leader's log end and not caught up within `lagMs`: they leave the ISR. */
  outOfSync(isr: readonly number[], leaderLogEnd: number, now: number, lagMs: number): number[] {
    return isr.filter((r) => {
      if (r === this.self) return false
      const f = this.followers.get(r)
      return !f || (f.logEnd !== leaderLogEnd && now - f.lastCaughtUpMs > lagMs)
    })
  }
}
