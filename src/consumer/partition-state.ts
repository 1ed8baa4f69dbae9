/** Responses buffered per partition ahead of user code: one being fetched while one waits. */
export const MAX_QUEUED = 2

/** Where one assigned partition stands: what to fetch next, what was processed, what was committed. */
export class PartitionState {
  /** Next offset to fetch; null until the committed offset or a reset decides it. */
  fetchPosition: bigint | null = null
  /** The offset after the last record user code finished: what a commit writes. */
  processed: bigint | null = null
  /** Last offset this consumer committed (or found committed) for the group. */
  committed: bigint | null = null
  /**
   * `processed` as of the last commit, automatic or the application's own:
   * an automatic commit is due only once processing moved past it, so it
   * never overwrites a manual commit of another offset.
   */
  commitMark: bigint | null = null
  /** The leader epoch of the last fetched batch (-1: unknown), sent back as lastFetchedEpoch and with commits. */
  lastFetchedEpoch = -1
  /** The leader epoch this position was last known good for; a newer leader epoch asks for validation (KIP-320). */
  validatedEpoch = -1
  /** An OffsetForLeaderEpoch check of the position is in flight. */
  validating = false
  /** A reset the partition waits for (no committed offset, or out of range). */
  resetTo: 'earliest' | 'latest' | null = null
  paused = false
  /** A fetch for it is in flight. */
  fetching = false
  /** Fetched responses waiting to be handed to user code (of this version). */
  queued = 0
  /** User code is processing one of its batches (batches of a partition never run concurrently). */
  busy = false
  /** Being revoked: user code stops after the message in hand, so its offset can be committed. */
  revoking = false
  /** User code failed on this partition this many times in a row (the retry backs off). */
  handlerFailures = 0
  /** Not before this time (ms): a fetch error asked for a backoff. */
  retryAt = 0
  /**
   * Stopped by an error user code must act on (a corrupt batch, an offset
   * out of range under 'none', a partition error that retrying will not
   * fix): no fetch, no timer, until seek() moves it.
   */
  halted = false
  /** partitionMaxBytes for its next fetch when larger than the configured one: a batch bigger than that (KIP-74). 0: the configured one. */
  fetchBytes = 0
  highWatermark = -1n
  /** Bumped by seek, reset and revocation: data fetched for an older version is dropped. */
  version = 0

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get key(): string {
    return partitionKey(this.topic, this.partition)
  }

  /** Moves consumption to `offset`: anything fetched from elsewhere is dropped. */
  seek(offset: bigint): void {
    this.fetchPosition = offset
    this.processed = offset
    this.resetTo = null
    this.halted = false
    this.fetchBytes = 0
    this.queued = 0
    this.version++
  }

  get fetchable(): boolean {
    return (
      !this.halted &&
      !this.paused &&
      !this.revoking &&
      !this.validating &&
      !this.fetching &&
      this.queued < MAX_QUEUED &&
      this.fetchPosition !== null &&
      this.resetTo === null &&
      Date.now() >= this.retryAt
    )
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`
}

export interface TopicPartition {
  topic: string
  partition: number
}

/** The partitions this consumer owns now, by topic and partition. */
export class Assignment {
  private readonly byKey = new Map<string, PartitionState>()

  get size(): number {
    return this.byKey.size
  }

  get(topic: string, partition: number): PartitionState | undefined {
    return this.byKey.get(partitionKey(topic, partition))
  }

  has(topic: string, partition: number): boolean {
    return this.byKey.has(partitionKey(topic, partition))
  }

  add(topic: string, partition: number): PartitionState {
    const key = partitionKey(topic, partition)
    let state = this.byKey.get(key)
    if (!state) this.byKey.set(key, (state = new PartitionState(topic, partition)))
    return state
  }

  remove(topic: string, partition: number): PartitionState | undefined {
    const key = partitionKey(topic, partition)
    const state = this.byKey.get(key)
    if (state) {
      state.version++
      this.byKey.delete(key)
    }
    return state
  }

  values(): IterableIterator<PartitionState> {
    return this.byKey.values()
  }

  list(): TopicPartition[] {
    return [...this.byKey.values()].map((s) => ({ topic: s.topic, partition: s.partition }))
  }
}

/** [{ topic, partitions: [...] }] grouped from a flat list, topics and partitions sorted. */
export function groupByTopic(list: Iterable<TopicPartition>): Array<{ topic: string; partitions: number[] }> {
  const byTopic = new Map<string, number[]>()
  for (const { topic, partition } of list) {
    const ps = byTopic.get(topic)
    if (ps) ps.push(partition)
    else byTopic.set(topic, [partition])
  }
  return [...byTopic.keys()].sort().map((topic) => ({ topic, partitions: byTopic.get(topic)!.sort((a, b) => a - b) }))
}
