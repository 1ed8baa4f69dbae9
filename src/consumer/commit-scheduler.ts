import type { ConsumerCluster } from '../cluster/client.js'
import { ConfigError } from '../errors.js'
import { INT32_MAX } from '../int32.js'
import type { ResolvedConsumerConfig } from './config.js'
import type { ConsumerLog } from './consumer-log.js'
import { ConsumerEvents, type Emit } from './events.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { Membership } from './membership.js'
import { CommitFailedError, commitOffsets, topicIdsFor, type OffsetToCommit } from './offsets.js'
import { groupByTopic, type OwnedPartitions, type PartitionState } from './partition-state.js'
import { channels, type CommitContext } from '../observe/channels.js'

/** How a run commits by itself: run()'s options, else the consumer's config. */
export interface AutoCommitOptions {
  /** Commit processed offsets automatically during this run (default: the consumer's autoCommit). */
  autoCommit?: boolean
  /** This run's automatic commit interval in ms (default: the consumer's autoCommitIntervalMs); null: none on a timer. */
  autoCommitInterval?: number | null
  /** Also commit once this many messages were processed since the last commit (default: none). */
  autoCommitThreshold?: number | null
}

interface AutoCommit {
  enabled: boolean
  intervalMs: number | null
  threshold: number | null
}

/**
 * When and what the consumer commits: processed offsets on a timer, after a
 * threshold of messages, before partitions are given up and on stop, and
 * the application's own commits — one at a time, in order, so a later
 * commit never lands before an earlier one (KafkaJS's offsetManager; Java's
 * auto-commit in the coordinator).
 */
export class CommitScheduler {
  private auto: AutoCommit
  private timer: ReturnType<typeof setInterval> | undefined
  private chain: Promise<void> = Promise.resolve()
  /** Messages processed since the last automatic commit (for autoCommitThreshold). */
  private sinceCommit = 0

  constructor(
    private readonly cluster: ConsumerCluster,
    private readonly config: ResolvedConsumerConfig,
    private readonly assignment: OwnedPartitions,
    private readonly coordinator: CoordinatorLink | null,
    private readonly membership: () => Membership | null,
    private readonly emit: Emit,
    private readonly log: ConsumerLog,
  ) {
    this.auto = this.configured()
  }

  /** Automatic commits are on (and there is a group to commit to). */
  get automatic(): boolean {
    return this.auto.enabled && this.coordinator !== null
  }

  /** This run's automatic commits: run()'s options over the consumer's (KafkaJS takes them there), or the consumer's alone. */
  configure(options?: AutoCommitOptions): void {
    this.auto = options ? this.fromRun(options) : this.configured()
  }

  /** Starts the interval timer, when this run commits on one. */
  start(): void {
    if (this.auto.enabled && this.auto.intervalMs !== null) {
      this.timer = setInterval(() => this.commitAutomatically(), this.auto.intervalMs)
      this.timer.unref?.()
    }
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** Counts processed messages toward autoCommitThreshold, committing when it is reached. */
  countProcessed(n: number): void {
    const { enabled, threshold } = this.auto
    if (!enabled || threshold === null || !this.coordinator) return
    this.sinceCommit += n
    if (this.sinceCommit >= threshold) {
      this.sinceCommit = 0
      this.commitAutomatically()
    }
  }

  /** eachBatch's commitOffsetsIfNecessary(): the processed offsets, now, in order. */
  commitIfNecessary(): Promise<void> {
    return this.serialized(() => this.commitProcessed())
  }

  /** Before partitions are given up: their processed offsets (a failure is reported, not thrown). */
  async commitRevoked(states: PartitionState[]): Promise<void> {
    if (!this.automatic) return
    await this.serialized(() => this.commitProcessed(states)).catch((error) => this.failed(error))
  }

  /** On stop without a group membership to leave: what was processed. */
  commitFinal(): Promise<void> {
    return this.commitProcessed()
  }

  /** The application's commitOffsets(): each offset the next one to consume. */
  async commitOffsets(
    offsets: Array<{ topic: string; partition: number; offset: string | number | bigint; metadata?: string | null }>,
  ): Promise<void> {
    const coordinator = this.requireGroup('commitOffsets()')
    // What was processed when the application chose these offsets: automatic commits wait for more.
    const marks = offsets.map(
      (o) => [this.assignment.get(o.topic, o.partition), this.assignment.get(o.topic, o.partition)?.processed ?? null] as const,
    )
    const list: OffsetToCommit[] = offsets.map((o) => ({
      topic: o.topic,
      partition: o.partition,
      offset: BigInt(o.offset),
      leaderEpoch: this.assignment.get(o.topic, o.partition)?.lastFetchedEpoch ?? -1,
      metadata: o.metadata ?? null,
    }))
    await this.serialized(() => this.commit(coordinator, list))
    for (const [s, mark] of marks) if (s) s.markCommit(mark)
  }

  /** The processed offsets not yet committed. */
  uncommitted(): Array<{ topic: string; partition: number; offset: string }> {
    return [...this.assignment.values()]
      .filter((s) => s.processed !== null && s.processed !== s.committed)
      .map((s) => ({ topic: s.topic, partition: s.partition, offset: String(s.processed) }))
  }

  private commitAutomatically(): void {
    void this.serialized(() => this.commitProcessed()).catch((error) => this.failed(error))
  }

  /** Commits the processed offsets that moved since the last commit (not back over a manual one). */
  private async commitProcessed(states: PartitionState[] = [...this.assignment.values()]): Promise<void> {
    if (!this.coordinator) return
    const due = states.filter((s) => s.processed !== null && s.processed !== s.committed && s.processed !== s.commitMark)
    if (due.length === 0) return
    await this.commit(
      this.coordinator,
      due.map((s) => ({
        topic: s.topic,
        partition: s.partition,
        offset: s.processed!,
        leaderEpoch: s.lastFetchedEpoch,
        metadata: s.processedMetadata,
      })),
    )
  }

  /** Every commit goes through here: traced on `wafka:consumer:commit` when it has subscribers. */
  private commit(coordinator: CoordinatorLink, offsets: OffsetToCommit[]): Promise<void> {
    if (!channels.commit.active) return this.commitNow(coordinator, offsets)
    const context: CommitContext = {
      groupId: coordinator.groupId,
      memberId: this.membership()?.memberId,
      offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })),
    }
    return channels.commit.trace(() => this.commitNow(coordinator, offsets), context)
  }

  private async commitNow(coordinator: CoordinatorLink, offsets: OffsetToCommit[]): Promise<void> {
    try {
      await commitOffsets(
        coordinator,
        () => this.membership()?.commitIdentity() ?? null,
        offsets,
        this.cluster.options.defaultApiTimeoutMs,
        this.config,
        topicIdsFor(this.cluster, this.config.groupProtocol),
      )
    } catch (error) {
      // Refused by the group (a rebalance, a newer generation): never silent, whoever asked for the commit.
      if (error instanceof CommitFailedError) this.log.commitRefused(this.membership()?.memberId, groupByTopic(offsets), error)
      throw error
    }
    for (const o of offsets) this.assignment.get(o.topic, o.partition)?.committedAt(o.offset)
    this.emit(ConsumerEvents.COMMIT_OFFSETS, {
      groupId: this.config.groupId,
      memberId: this.membership()?.memberId,
      topics: groupByTopic(offsets).map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => ({
          partition: p,
          offset: String(offsets.find((o) => o.topic === t.topic && o.partition === p)!.offset),
        })),
      })),
    })
  }

  /**
   * An automatic commit that failed: one refused by the group (a rebalance
   * or a newer generation) is expected and leaves the offsets to the next
   * owner's committed position, as in Java; anything else is reported.
   */
  private failed(error: unknown): void {
    if (error instanceof CommitFailedError)
      this.emit(ConsumerEvents.COMMIT_OFFSETS, { groupId: this.config.groupId, memberId: this.membership()?.memberId, error })
    else {
      this.log.crashed(error, true)
      this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, restart: true })
    }
  }

  /** Commits run one at a time, in order: a later commit never lands before an earlier one. */
  private serialized(fn: () => Promise<void>): Promise<void> {
    const run = this.chain.then(fn, fn)
    // The caller of this commit gets its error; the chain only orders the next one after it.
    this.chain = run.catch(() => {})
    return run
  }

  private requireGroup(what: string): CoordinatorLink {
    if (!this.coordinator) throw new ConfigError(`${what} needs a groupId`)
    return this.coordinator
  }

  private configured(): AutoCommit {
    return { enabled: this.config.autoCommit, intervalMs: this.config.autoCommitIntervalMs, threshold: null }
  }

  private fromRun(options: AutoCommitOptions): AutoCommit {
    const configured = this.configured()
    const enabled = options.autoCommit ?? configured.enabled
    if (typeof enabled !== 'boolean') throw new ConfigError(`autoCommit must be true or false, not ${JSON.stringify(enabled)}`)
    if (enabled && this.config.groupId === null && options.autoCommit === true) throw new ConfigError('autoCommit needs a groupId')
    const ms = (name: string, v: number | null | undefined, fallback: number | null, integer = false) => {
      if (v === undefined) return fallback
      if (v === null) return null
      if (typeof v !== 'number' || !(v >= 1) || v > INT32_MAX || (integer && !Number.isInteger(v)))
        throw new ConfigError(
          `${name} must be ${integer ? 'an integer' : 'a number'} from 1 to ${INT32_MAX}, or null, not ${JSON.stringify(v)}`,
        )
      return v
    }
    return {
      enabled,
      intervalMs: ms('autoCommitInterval', options.autoCommitInterval, configured.intervalMs),
      threshold: ms('autoCommitThreshold', options.autoCommitThreshold, null, true),
    }
  }
}
