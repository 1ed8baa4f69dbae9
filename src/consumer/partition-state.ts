import { WafkaError } from '../errors.js'
import { backoffMs } from '../net/backoff.js'

/** Responses buffered per partition ahead of user code: one being fetched while one waits. */
export const MAX_QUEUED = 2

/**
 * Where one assigned partition stands: what to fetch next, what was
 * processed, what was committed. Its flags are read freely and written only
 * through the transitions below, so each move is named and an impossible
 * one (taking a partition user code already holds, fetching one twice)
 * fails loudly instead of corrupting the position.
 */
export class PartitionState {
  /** Next offset to fetch; null until the committed offset or a reset decides it. */
  get fetchPosition(): bigint | null {
    return this._fetchPosition
  }
  /** The offset after the last record user code finished: what a commit writes. */
  get processed(): bigint | null {
    return this._processed
  }
  /** The metadata the commit of `processed` carries (resolveOffset's), null for none. */
  get processedMetadata(): string | null {
    return this._processedMetadata
  }
  /** Last offset this consumer committed (or found committed) for the group. */
  get committed(): bigint | null {
    return this._committed
  }
  /**
   * `processed` as of the last commit, automatic or the application's own:
   * an automatic commit is due only once processing moved past it, so it
   * never overwrites a manual commit of another offset.
   */
  get commitMark(): bigint | null {
    return this._commitMark
  }
  /** The leader epoch of the last fetched batch (-1: unknown), sent back as lastFetchedEpoch and with commits. */
  get lastFetchedEpoch(): number {
    return this._lastFetchedEpoch
  }
  /** The leader epoch this position was last known good for; a newer leader epoch asks for validation (KIP-320). */
  get validatedEpoch(): number {
    return this._validatedEpoch
  }
  /** An OffsetForLeaderEpoch check of the position is in flight. */
  get validating(): boolean {
    return this._validating
  }
  /** A reset the partition waits for (no committed offset, or out of range). */
  get resetTo(): 'earliest' | 'latest' | null {
    return this._resetTo
  }
  get paused(): boolean {
    return this._paused
  }
  /** KIP-392: the replica the leader named to fetch from (-1: the leader itself). */
  get readReplica(): number {
    return this._readReplica
  }
  /** A fetch (or a reset's ListOffsets) for its current position is in flight. */
  get fetching(): boolean {
    return this._fetching && this._fetchVersion === this._version
  }

  /** Fetched responses waiting to be handed to user code (of this version). */
  get queued(): number {
    return this._queued
  }
  /** User code is processing one of its batches (batches of a partition never run concurrently). */
  get busy(): boolean {
    return this._busy
  }
  /** Being revoked: user code stops after the message in hand, so its offset can be committed. */
  get revoking(): boolean {
    return this._revoking
  }
  /** Not before this time (ms): a fetch error asked for a backoff. */
  get retryAt(): number {
    return this._retryAt
  }
  /**
   * Stopped by an error user code must act on (a corrupt batch, an offset
   * out of range under 'none', a partition error that retrying will not
   * fix): no fetch, no timer, until seek() moves it.
   */
  get halted(): boolean {
    return this._halted
  }
  /** partitionMaxBytes for its next fetch when larger than the configured one: a batch bigger than that (KIP-74). 0: the configured one. */
  get fetchBytes(): number {
    return this._fetchBytes
  }
  get highWatermark(): bigint {
    return this._highWatermark
  }
  /** Bumped by seek, reset and revocation: data fetched for an older version is dropped. */
  get version(): number {
    return this._version
  }

  private _fetchPosition: bigint | null = null
  private _processed: bigint | null = null
  private _processedMetadata: string | null = null
  private _committed: bigint | null = null
  private _commitMark: bigint | null = null
  private _lastFetchedEpoch = -1
  private _validatedEpoch = -1
  private _validating = false
  private _resetTo: 'earliest' | 'latest' | null = null
  private _paused = false
  private _readReplica = -1
  private _readReplicaUntil = 0
  private _fetching = false
  /** The version the newest fetch in flight asked for: one for a position since left does not hold the partition back. */
  private _fetchVersion = -1
  private _queued = 0
  private _busy = false
  private _revoking = false
  /** User code failed on this partition this many times in a row (the retry backs off). */
  private handlerFailures = 0
  private _retryAt = 0
  private _halted = false
  private _fetchBytes = 0
  private _highWatermark = -1n
  private _version = 0

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get key(): string {
    return partitionKey(this.topic, this.partition)
  }

  get fetchable(): boolean {
    return (
      !this._halted &&
      !this._paused &&
      !this._revoking &&
      !this._validating &&
      !this.fetching &&
      this._queued < MAX_QUEUED &&
      this._fetchPosition !== null &&
      this._resetTo === null &&
      Date.now() >= this._retryAt
    )
  }

  // ---- position ----

  /** Moves consumption to `offset`: anything fetched from elsewhere is dropped. */
  /** The node to fetch from now: the preferred read replica until it expires, else `leader`. */
  fetchNode(leader: number, now: number): number {
    if (this._readReplica >= 0 && now < this._readReplicaUntil) return this._readReplica
    this._readReplica = -1
    return leader
  }

  /** The leader named `node` as this partition's preferred read replica, for fetches until `until` (ms). */
  preferReplica(node: number, until: number): void {
    this._readReplica = node
    this._readReplicaUntil = until
  }

  /** Back to the leader: the preferred replica failed or answered with an error. */
  forgetReadReplica(): void {
    this._readReplica = -1
  }

  seek(offset: bigint): void {
    this._fetchPosition = offset
    this._processed = offset
    this._processedMetadata = null
    this._resetTo = null
    this._halted = false
    this._fetchBytes = 0
    this._queued = 0
    this._version++
  }

  /** Starts from the group's committed offset. */
  startAt(committed: bigint): void {
    this.seek(committed)
    this._committed = committed
  }

  /** Waits for a reset to the earliest or latest offset (the next seek() ends the wait). */
  reset(to: 'earliest' | 'latest'): void {
    this._resetTo = to
  }

  /** Stops until seek() moves it; at `offset`, dropping what was fetched after it, when given. */
  halt(offset?: bigint): void {
    if (offset !== undefined) this.seek(offset)
    this._halted = true
  }

  /** No fetch (or reset) before `ms` from now. */
  backoff(ms: number): void {
    this._retryAt = Date.now() + ms
  }

  /** Invalidates what is fetched or queued for it (a revocation): it is dropped when it arrives or is taken. */
  invalidate(): void {
    this._version++
  }

  // ---- fetching ----

  /** A fetch or reset for it goes out. */
  startFetch(): void {
    if (this.fetching) throw this.illegal('startFetch()', 'a fetch is already in flight')
    this._fetching = true
    this._fetchVersion = this._version
  }

  /** The fetch that asked at `version` is done (one for an older position ending later changes nothing). */
  endFetch(version = this._fetchVersion): void {
    if (version === this._fetchVersion) this._fetching = false
  }

  /** A response's records, queued for user code, move the fetch position to `nextOffset`. */
  fetched(nextOffset: bigint, lastEpoch: number): void {
    if (this._fetchPosition === null || nextOffset <= this._fetchPosition)
      throw this.illegal('fetched()', `the position would not move forward (${this._fetchPosition} to ${nextOffset})`)
    this._fetchBytes = 0
    this._fetchPosition = nextOffset
    if (lastEpoch >= 0) this._lastFetchedEpoch = lastEpoch
    this._queued++
  }

  /** One queued response left the queue (to user code, or dropped). */
  dequeued(): void {
    if (this._queued === 0) throw this.illegal('dequeued()', 'nothing is queued')
    this._queued--
  }

  /** Its next fetch asks for `bytes` of it: a batch larger than the configured partitionMaxBytes (KIP-74). */
  askFor(bytes: number): void {
    this._fetchBytes = bytes
  }

  sawHighWatermark(offset: bigint): void {
    if (offset >= 0n) this._highWatermark = offset
  }

  // ---- leader epoch validation (KIP-320) ----

  startValidating(): void {
    if (this._validating) throw this.illegal('startValidating()', 'a validation is already in flight')
    this._validating = true
  }

  endValidating(): void {
    this._validating = false
  }

  /** The position holds for this leader epoch. */
  validated(leaderEpoch: number): void {
    this._validatedEpoch = leaderEpoch
  }

  // ---- user code ----

  /** User code takes one of its batches. */
  take(): void {
    if (this._busy) throw this.illegal('take()', 'user code already holds a batch of it')
    this._busy = true
  }

  /** User code is done with the batch it took. */
  release(): void {
    if (!this._busy) throw this.illegal('release()', 'user code holds no batch of it')
    this._busy = false
  }

  setPaused(paused: boolean): void {
    this._paused = paused
  }

  /** Being given up: user code stops after the message in hand. */
  revoke(): void {
    this._revoking = true
  }

  /** User code finished everything before `offset`; its commit carries `metadata`. */
  processedTo(offset: bigint, metadata: string | null = null): void {
    this._processed = offset
    this._processedMetadata = metadata
  }

  /** User code failed on it: it retries after a backoff that grows with each failure in a row. */
  handlerFailed(backoffBaseMs: number, backoffMaxMs: number): void {
    this._retryAt = Date.now() + backoffMs(this.handlerFailures++, backoffBaseMs, backoffMaxMs)
  }

  /** Failures of user code on it in a row, before the one being handled. */
  get failuresInARow(): number {
    return this.handlerFailures
  }

  handlerSucceeded(): void {
    this.handlerFailures = 0
  }

  // ---- commits ----

  /** `offset` is committed for the group. */
  committedAt(offset: bigint): void {
    this._committed = this._commitMark = offset
  }

  /** The application committed offsets of its own while `processed` was `mark`: automatic commits wait for more. */
  markCommit(mark: bigint | null): void {
    this._commitMark = mark
  }

  private illegal(transition: string, why: string): WafkaError {
    return new WafkaError(`${this.topic}-${this.partition}: ${transition} refused: ${why}`, { retriable: false })
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
export class OwnedPartitions {
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
      state.invalidate()
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
