import { EventEmitter } from 'node:events'
import type { ConsumerCluster } from '../cluster/client.js'
import { ConfigError, kafkaError } from '../errors.js'
import type { Batch } from './batch.js'
import { ClassicMembership } from './classic-membership.js'
import { CommitScheduler, type AutoCommitOptions } from './commit-scheduler.js'
import { resolveConsumerConfig, type ConsumerConfig, type ResolvedConsumerConfig } from './config.js'
import { ConsumerGroupProtocol } from './consumer-group-protocol.js'
import { DeliveryRunner, type Handlers, type RunFailure, type RunHooks } from './delivery-runner.js'
import { ConsumerEvents } from './events.js'
import { ConsumerLog } from './consumer-log.js'
import { OutageWatch, type GiveUp } from './outage.js'
import { Fetcher } from './fetcher.js'
import { CoordinatorLink } from './coordinator-link.js'
import type { LeaveOptions, Membership, MembershipFactory, MembershipHooks } from './membership.js'
import { fetchCommitted, topicIdsFor } from './offsets.js'
import {
  announce,
  lagOf,
  statisticsTimer,
  type ObservedBy,
  type ConsumerStatistics,
  type PartitionStatistics,
} from '../observe/statistics.js'
import { OwnedPartitions, groupByTopic, partitionKey, type PartitionState, type TopicPartition } from './partition-state.js'
import { SubscriptionState, type SubscribeOptions } from './subscription-state.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { checkEntries, checkOptions } from '../config/option.js'
import {
  ASSIGN_OPTIONS,
  COMMIT_OFFSET_OPTIONS,
  DISCONNECT_OPTIONS,
  PAUSE_OPTIONS,
  RUN_OPTIONS,
  SEEK_OPTIONS,
  SUBSCRIBE_OPTIONS,
  type DisconnectOptions,
} from './call-options.js'

export { ConsumerEvents } from './events.js'
export type { EachBatchPayload, EachMessagePayload } from './delivery-runner.js'
export type { SubscribeOptions } from './subscription-state.js'
export type { DisconnectOptions } from './call-options.js'

export interface RunOptions extends Handlers, AutoCommitOptions {}

/**
 * A Kafka consumer, KafkaJS-shaped (`subscribe`, `run({ eachMessage | eachBatch })`,
 * pause/resume/seek, instrumentation events) with Java's semantics: group
 * membership (classic or KIP-848), offsets committed only for what user code
 * finished, committed before partitions are given up, and on stop.
 *
 * The facade over four parts, each owning its state: the subscription
 * (topics, pauses, pending seeks), the fetcher, the delivery runner (user
 * code) and the commit scheduler; the membership drives the assignment.
 */
export class Consumer {
  readonly events = ConsumerEvents
  private readonly config: ResolvedConsumerConfig
  private readonly assignment = new OwnedPartitions()
  private readonly subscription: SubscriptionState
  private readonly fetcher: Fetcher
  private readonly runner: DeliveryRunner
  private readonly commits: CommitScheduler
  private readonly emitter = new EventEmitter()
  private readonly coordinator: CoordinatorLink | null
  private membership: Membership | null = null
  private membershipFactory: MembershipFactory | null = null
  private revokeListener: ((partitions: TopicPartition[], lost: boolean) => Promise<void>) | null = null
  private manual: TopicPartition[] | null = null
  private started: Promise<void> | undefined
  private topicTimer: ReturnType<typeof setInterval> | undefined
  private eventId = 0
  private halting: Promise<void> | undefined
  /** The classic member id kept over a stop with the cluster unreachable (no LeaveGroup went out). */
  private rejoinAs = ''
  private readonly log: ConsumerLog
  private readonly outage: OutageWatch
  /** The handlers of the run in progress (kept until stop(), so a failed run can restart with them), and a restart's timer. */
  private lastRun: RunOptions | undefined
  private restartTimer: ReturnType<typeof setTimeout> | undefined

  /** Stops the statisticsIntervalMs timer. */
  private stopStatistics = () => {}

  constructor(
    private readonly cluster: ConsumerCluster,
    config: ConsumerConfig = {},
    /** Its client id and per-broker request figures (these when statisticsIntervalMs is on; Kafka.consumer() gathers them). */
    private readonly observed: ObservedBy = {},
  ) {
    this.config = resolveConsumerConfig(config)
    const emit = (type: string, payload: object) => this.emit(type, payload)
    this.log = new ConsumerLog(cluster.log('Consumer'), this.config.groupId)
    this.outage = new OutageWatch(cluster.log('Consumer'), this.config.groupId, (error, failures, ms) =>
      this.unreachable(error, failures, ms),
    )
    this.coordinator = this.config.groupId === null ? null : new CoordinatorLink(cluster, this.config.groupId)
    this.subscription = new SubscriptionState(this.assignment, this.config.autoOffsetReset)
    this.fetcher = new Fetcher(
      cluster,
      this.config,
      this.assignment,
      (topic) => this.subscription.resetPolicy(topic),
      (err) => this.crash(err, true),
      emit,
      this.outage,
    )
    this.commits = new CommitScheduler(cluster, this.config, this.assignment, this.coordinator, () => this.membership, emit, this.log)
    this.runner = new DeliveryRunner(
      this.config,
      this.assignment,
      this.fetcher,
      this.commits,
      (s) => this.pauseOne(s),
      emit,
      this.log,
      (f) => this.handlerGaveUp(f),
    )
    this.runner.clusterId = () => cluster.metadata.clusterId
    // Errors reach users as CRASH events (and the logger); an 'error' event nobody listens to must not throw.
    this.emitter.on('error', () => {})
  }

  async connect(): Promise<void> {
    // zstd's wasm build (Node < 22.15) is loaded by the fetcher with the first zstd batch.
    await this.cluster.connect()
    announce('connect', this)
    this.stopStatistics()
    this.stopStatistics = statisticsTimer(
      this.config.statisticsIntervalMs,
      () => ({ ...this.statistics(), brokers: this.observed.brokers?.() ?? [] }),
      (s) => this.emit(ConsumerEvents.STATS, s),
    )
    this.emit(ConsumerEvents.CONNECT, {})
  }

  async subscribe(options: SubscribeOptions): Promise<void> {
    checkOptions('subscribe()', options, SUBSCRIBE_OPTIONS)
    if (this.runner.running) throw new ConfigError('subscribe() before run(): the subscription is fixed while the consumer runs')
    if (this.config.groupId === null) throw new ConfigError('subscribe() needs a groupId; without one, assign() partitions')
    this.subscription.add(options)
  }

  /** Takes partitions directly, with no group (a consumer without groupId). Starts from the reset policy, or a seek. */
  assign(partitions: Array<{ topic: string; partitions: number[] }>): void {
    checkEntries('assign()', partitions, ASSIGN_OPTIONS)
    if (this.config.groupId !== null)
      throw new ConfigError('assign() is for a consumer without groupId; a group member gets its partitions from the group')
    this.manual = partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
    if (this.runner.running) void this.adoptManual()
  }

  async run(options: RunOptions = {}): Promise<void> {
    checkOptions('run()', options, RUN_OPTIONS)
    if (this.runner.running) throw new ConfigError('the consumer is already running')
    DeliveryRunner.check(options)
    this.lastRun = options
    this.commits.configure(options)
    await this.start()
    this.runner.run(options)
  }

  /**
   * Batches pulled one at a time (the alternative to run()). A batch counts
   * as processed when the next one is asked for; leaving the loop early
   * leaves the last batch unprocessed (it is fetched again after a restart).
   */
  async *batches(): AsyncGenerator<Batch> {
    if (this.runner.running) throw new ConfigError('the consumer is already running')
    this.commits.configure()
    await this.start()
    yield* this.runner.batches()
  }

  pause(list: Array<{ topic: string; partitions?: number[] }>): void {
    checkEntries('pause()', list, PAUSE_OPTIONS)
    this.subscription.pause(list)
  }

  resume(list: Array<{ topic: string; partitions?: number[] }>): void {
    checkEntries('resume()', list, PAUSE_OPTIONS)
    this.subscription.resume(list)
    this.fetcher.wakeAll() // data kept while paused can go to user code now
    this.fetcher.pump()
  }

  paused(): Array<{ topic: string; partitions: number[] }> {
    return groupByTopic([...this.assignment.values()].filter((s) => s.paused))
  }

  /** Moves a partition's consumption to `offset` (now if assigned, else when it is). */
  seek(options: { topic: string; partition: number; offset: string | number | bigint }): void {
    const { topic, partition, offset } = checkOptions('seek()', options, SEEK_OPTIONS)
    const at = toOffset(offset)
    if (at < 0n) throw new ConfigError(`seek to ${offset}: an offset is >= 0`)
    const s = this.assignment.get(topic, partition)
    if (s) {
      s.seek(at)
      this.fetcher.pump()
    } else this.subscription.seekLater(topic, partition, at)
  }

  /** Where each owned partition stands: positions, the high watermark, lag, queued responses (src/observe/statistics.ts). */
  statistics(): ConsumerStatistics {
    const partitions: PartitionStatistics[] = []
    for (const s of this.assignment.values()) {
      const position = s.processed ?? s.fetchPosition
      const hw = s.highWatermark
      partitions.push({
        topic: s.topic,
        partition: s.partition,
        fetchPosition: s.fetchPosition?.toString() ?? null,
        position: s.processed?.toString() ?? null,
        committed: s.committed?.toString() ?? null,
        highWatermark: hw >= 0n ? hw.toString() : null,
        lag: lagOf(hw, position),
        queued: s.queued,
        paused: s.paused,
      })
    }
    return { type: 'consumer', clientId: this.observed.clientId ?? null, time: Date.now(), groupId: this.config.groupId, partitions }
  }

  /** The partitions this consumer owns now. */
  assignmentList(): TopicPartition[] {
    return this.assignment.list()
  }

  /**
   * Java's groupMetadata(): the group, and this member's generation and id as
   * the coordinator knows them now (-1 and '' outside a generation), for a
   * transactional producer's sendOffsets (KIP-447 fencing).
   */
  groupMetadata(): { groupId: string | null; generationId: number; memberId: string; groupInstanceId: string | null } {
    const id = this.membership?.commitIdentity()
    return {
      groupId: this.config.groupId,
      generationId: id?.generationIdOrMemberEpoch ?? -1,
      memberId: id?.memberId ?? '',
      groupInstanceId: id?.groupInstanceId ?? null,
    }
  }

  /**
   * Java's ConsumerRebalanceListener.onPartitionsRevoked/onPartitionsLost:
   * `listener` runs, and is awaited, once the handlers of the partitions
   * going away have finished and before the group moves on (before the
   * consumer's own commit of them). Kafka Streams ends its transaction there.
   * @internal
   */
  beforeRevoke(listener: ((partitions: TopicPartition[], lost: boolean) => Promise<void>) | null): void {
    this.revokeListener = listener
  }

  /**
   * The group membership this consumer runs instead of its groupProtocol's
   * (Kafka Streams' streams group, KIP-1071): it decides the assignment, and
   * commits carry its member id and epoch. Set before run().
   * @internal
   */
  useMembership(factory: MembershipFactory | null): void {
    if (this.runner.running) throw new ConfigError('useMembership() before run()')
    this.membershipFactory = factory
  }

  /**
   * Java's KafkaConsumer.enforceRebalance: the member rejoins the group now
   * (Kafka Streams sends a shutdown request in its next subscription).
   * Nothing happens without a group membership.
   * @internal
   */
  enforceRebalance(reason: string): void {
    this.membership?.rejoin(reason)
  }

  /** Commits these offsets (each the next offset to consume) for the group. */
  async commitOffsets(
    offsets: Array<{ topic: string; partition: number; offset: string | number | bigint; metadata?: string | null }>,
  ): Promise<void> {
    checkEntries('commitOffsets()', offsets, COMMIT_OFFSET_OPTIONS)
    await this.commits.commitOffsets(offsets)
  }

  /** Stops fetching and processing, commits what was processed and leaves the group. */
  stop(): Promise<void> {
    return this.end({})
  }

  /** stop() or disconnect(): no run restarts after it. */
  private async end(how: LeaveOptions): Promise<void> {
    this.lastRun = undefined
    clearTimeout(this.restartTimer)
    await this.halt(how)
  }

  /** stop(), leaving the group as `how` says (`unreachable`: no broker answers, so nothing is committed and no leave request is sent). One at a time. */
  private halt(how: LeaveOptions = {}): Promise<void> {
    const unreachable = how.unreachable === true
    if (!this.runner.running && !this.started) return this.halting ?? Promise.resolve()
    this.halting ??= (async () => {
      this.commits.stop()
      clearInterval(this.topicTimer)
      const wasRunning = this.runner.running
      const stopping = this.runner.stop()
      this.fetcher.stop()
      await stopping
      if (wasRunning) this.log.exiting(this.membership?.memberId)
      if (this.membership) {
        await this.membership.leave(how)
        if (unreachable && this.membership instanceof ClassicMembership) this.rejoinAs = this.membership.memberId
      } else if (this.commits.automatic && !unreachable)
        await this.commits.commitFinal().catch(
          this.cluster.log('Consumer').caught('the final commit failed: those offsets are read again by the next consumer', 'warn', {
            groupId: this.config.groupId,
          }),
        )
      for (const s of [...this.assignment.values()]) this.assignment.remove(s.topic, s.partition)
      this.membership = null
      this.started = undefined
      this.log.stopped()
      this.emit(ConsumerEvents.STOP, {})
    })().finally(() => (this.halting = undefined))
    return this.halting
  }

  /**
   * Stops (committing what was processed) and closes the connections.
   * `leaveGroup: false` sends no leave request: the group keeps this member
   * until its session times out, so a restart within it causes no rebalance
   * (Java's `close(CloseOptions.groupMembershipOperation(REMAIN_IN_GROUP))`).
   */
  async disconnect(options: DisconnectOptions = {}): Promise<void> {
    const { leaveGroup = true } = checkOptions('disconnect()', options, DISCONNECT_OPTIONS)
    await this.end({ remain: !leaveGroup })
    this.stopStatistics()
    announce('disconnect', this)
    await this.cluster.disconnect()
    this.emit(ConsumerEvents.DISCONNECT, {})
  }

  /**
   * For the KafkaJS drop-in (KafkaJS's retry budget): stop trying to reach
   * an unreachable cluster after `limit` — a CRASH event (restart: false,
   * with `retriesExceeded`) and the consumer stops, its partitions lost.
   * null (the default) keeps trying, as Java's consumer does.
   * @internal
   */
  giveUpWhenUnreachable(limit: GiveUp | null): void {
    this.outage.giveUpAfter(limit)
  }

  /**
   * For the KafkaJS drop-in: what its runs do around this consumer's
   * delivery loop (KafkaJS's batch events and commits, its handler logs).
   * @internal
   */
  useRunHooks(hooks: RunHooks): void {
    this.runner.hooks = hooks
  }

  /** Listens to an instrumentation event; returns a function that stops listening. */
  on(event: string, listener: (event: { id: number; type: string; timestamp: number; payload: any }) => void): () => void {
    this.emitter.on(event, listener)
    return () => this.emitter.off(event, listener)
  }

  // ---- internals ----

  private start(): Promise<void> {
    this.runner.activate()
    if (!this.started) this.log.starting()
    this.started ??= (async () => {
      if (this.coordinator) {
        if (this.subscription.empty) throw new ConfigError('subscribe() before run()')
        await this.subscription.resolveTopics(this.cluster, this.config.allowAutoTopicCreation)
        this.membership = this.membershipFactory
          ? this.membershipFactory(this.coordinator, this.config, this.hooks())
          : this.config.groupProtocol === 'consumer'
            ? new ConsumerGroupProtocol(this.coordinator, this.config, this.hooks())
            : new ClassicMembership(this.coordinator, this.config, this.hooks(), this.rejoinAs)
        this.rejoinAs = ''
        if (this.subscription.hasPattern) {
          this.topicTimer = setInterval(() => void this.refreshPattern(), this.config.metadataMaxAgeMs)
          this.topicTimer.unref?.()
        }
        this.fetcher.start()
        await this.membership.start()
        this.commits.start()
      } else {
        if (this.manual === null) throw new ConfigError('a consumer without groupId needs assign() before run()')
        this.fetcher.start()
        await this.adoptManual()
      }
    })().catch((err) => {
      this.runner.deactivate()
      this.started = undefined
      this.fetcher.stop()
      throw err
    })
    return this.started
  }

  private hooks(): MembershipHooks {
    return {
      assigned: (partitions) => this.onAssigned(partitions),
      revoked: (partitions) => this.onRevoked(partitions, true),
      lost: (partitions) => this.onRevoked(partitions, false),
      topics: () => this.subscription.topics,
      processingFor: () => this.runner.processingFor(),
      emit: (event, payload) => {
        if (event === ConsumerEvents.REBALANCING) this.log.rebalancing(payload)
        else if (event === ConsumerEvents.GROUP_JOIN) this.log.joined(payload as Parameters<ConsumerLog['joined']>[0])
        this.emit(event, payload)
      },
      fatal: (error) => {
        this.crash(error, false)
        void this.halt()
      },
    }
  }

  private async adoptManual(): Promise<void> {
    const wanted = new Set(this.manual!.map((p) => partitionKey(p.topic, p.partition)))
    const gone = this.assignment.list().filter((p) => !wanted.has(partitionKey(p.topic, p.partition)))
    for (const p of gone) this.assignment.remove(p.topic, p.partition)
    await this.cluster
      .refreshMetadata([...new Set(this.manual!.map((p) => p.topic))])
      .catch(this.cluster.log('Consumer').caught('metadata refresh for assigned topics failed; the fetcher retries'))
    await this.onAssigned(this.manual!.filter((p) => !this.assignment.has(p.topic, p.partition)))
  }

  /** New partitions start at a pending seek, else the committed offset, else the reset policy. */
  private async onAssigned(partitions: TopicPartition[]): Promise<void> {
    const states = partitions.map((p) => this.assignment.add(p.topic, p.partition))
    for (const s of states) s.setPaused(this.subscription.isPaused(s.topic, s.partition))
    this.emit(ConsumerEvents.PARTITIONS_ASSIGNED, { partitions: groupByTopic(partitions) })
    const committed = this.coordinator
      ? await fetchCommitted(
          this.coordinator,
          partitions,
          this.cluster.options.defaultApiTimeoutMs,
          this.config,
          topicIdsFor(this.cluster, this.config.groupProtocol),
        )
      : new Map()
    for (const s of states) {
      const sought = this.subscription.takeSeek(s.key)
      const c = committed.get(s.key)
      if (sought !== undefined) s.seek(sought)
      else if (c) s.startAt(c.offset)
      else {
        const policy = this.subscription.resetPolicy(s.topic)
        if (policy === 'none') {
          this.crash(
            kafkaError(ErrorCodes.OFFSET_OUT_OF_RANGE, {
              detail: `${s.topic}-${s.partition} has no committed offset and autoOffsetReset is 'none'`,
            }),
            false,
          )
          continue
        }
        s.reset(policy)
      }
    }
    this.fetcher.pump()
  }

  /** Stops processing the partitions after the message in hand, commits them (when revoked, not lost), and drops them. */
  private async onRevoked(partitions: TopicPartition[], commit: boolean): Promise<void> {
    const states = partitions.map((p) => this.assignment.get(p.topic, p.partition)).filter((s): s is PartitionState => s !== undefined)
    for (const s of states) s.revoke()
    this.fetcher.wakeAll()
    // The handler in hand finishes first, so its message is in the commit; past the rebalance timeout the
    // coordinator has moved on without this member, so waiting longer gains nothing.
    const waitMs = this.config.rebalanceTimeoutMs
    if (!(await this.runner.idle(states, waitMs)))
      this.cluster.log('Consumer').warn('a handler still runs after rebalanceTimeoutMs: giving its partitions up without it', {
        groupId: this.config.groupId,
        rebalanceTimeoutMs: waitMs,
        partitions: groupByTopic(states.filter((s) => s.busy)),
      })
    if (this.revokeListener)
      await this.revokeListener(partitions, !commit).catch(
        this.cluster.log('Consumer').caught('the revocation listener failed', 'warn', { groupId: this.config.groupId }),
      )
    if (commit) await this.commits.commitRevoked(states)
    else this.log.lost(groupByTopic(partitions))
    for (const s of states) this.assignment.remove(s.topic, s.partition)
    this.emit(ConsumerEvents.PARTITIONS_REVOKED, { partitions: groupByTopic(partitions), lost: !commit })
  }

  private pauseOne(s: PartitionState): () => void {
    this.pause([{ topic: s.topic, partitions: [s.partition] }])
    return () => this.resume([{ topic: s.topic, partitions: [s.partition] }])
  }

  private async refreshPattern(): Promise<void> {
    try {
      if (await this.subscription.resolveTopics(this.cluster, this.config.allowAutoTopicCreation))
        this.membership?.rejoin('topics matching the subscription changed')
    } catch (err) {
      this.cluster.log('Consumer').caught('looking for topics matching the subscription failed; the next interval tries again', 'info')(err)
    }
  }

  /** No broker answered for the whole retry budget: crash, and stop without commits or a leave request (nothing would answer). */
  private unreachable(error: Error, failures: number, ms: number): void {
    if (!this.runner.running) return
    this.crash(error, false, { retriesExceeded: { retryCount: failures - 1, elapsedMs: ms } })
    void this.halt({ unreachable: true }).catch(this.cluster.log('Consumer').caught('stopping after the cluster became unreachable failed'))
  }

  /** A handler failed past its retries (hooks.handlerRetries): the run stops, then ends as a crash. */
  private handlerGaveUp({ error, ...failure }: RunFailure): void {
    void this.halt()
      .catch(this.cluster.log('Consumer').caught('stopping after a handler kept failing failed'))
      .then(() => this.crash(error, false, failure))
  }

  /**
   * A failure that stops consumption (or, with restart, that the consumer
   * recovers from by itself): logged, and a CRASH event. One that ends a
   * run goes to the run's hooks first (the KafkaJS drop-in's restart policy).
   */
  private crash(error: unknown, restart: boolean, failure: Omit<RunFailure, 'error'> = {}): void {
    const run = this.lastRun
    const runFailed = this.runner.hooks.runFailed
    if (restart || !run || !runFailed) return this.crashed(error, restart, failure)
    void runFailed({ ...failure, error }).then(
      ({ error: reported, restartInMs }) => {
        this.crashed(reported, restartInMs !== null, failure)
        if (restartInMs !== null && this.lastRun === run) this.restartTimer = setTimeout(() => void this.restart(run), restartInMs)
      },
      (err) => this.crashed(err, false, failure),
    )
  }

  private crashed(error: unknown, restart: boolean, failure: Omit<RunFailure, 'error'>): void {
    this.log.crashed(error, restart)
    this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, restart, ...failure })
  }

  /** Runs `run` again after a failure ended it, unless stop() came first. */
  private async restart(run: RunOptions): Promise<void> {
    try {
      await this.halt()
      if (this.lastRun === run) await this.run(run)
    } catch (err) {
      this.crash(err, false)
    }
  }

  private emit(type: string, payload: object): void {
    if (this.emitter.listenerCount(type) === 0) return
    this.emitter.emit(type, { id: this.eventId++, type, timestamp: Date.now(), payload })
  }
}

function toOffset(offset: string | number | bigint): bigint {
  try {
    return BigInt(offset)
  } catch {
    throw new ConfigError(`seek() option offset must be an offset (an integer >= 0), not ${JSON.stringify(String(offset))}`)
  }
}
