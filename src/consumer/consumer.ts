import { EventEmitter } from 'node:events'
import { loadCodecs } from '../codec/compression.js'
import { backoffMs, MAX_TIMER_MS } from '../net/backoff.js'
import type { Cluster } from '../cluster/cluster.js'
import { ConfigError, kafkaError } from '../errors.js'
import { Batch } from './batch.js'
import { ClassicGroup } from './classic-group.js'
import { resolveConsumerConfig, type ConsumerConfig, type ResolvedConsumerConfig } from './config.js'
import { ConsumerGroupProtocol } from './consumer-group-protocol.js'
import { Fetcher, type Delivery } from './fetcher.js'
import { GroupCoordinator } from './group-coordinator.js'
import type { Membership, MembershipHooks } from './membership.js'
import type { KafkaMessage } from './message.js'
import { CommitFailedError, commitOffsets, fetchCommitted, type OffsetToCommit } from './offsets.js'
import { Assignment, groupByTopic, partitionKey, type PartitionState, type TopicPartition } from './partition-state.js'
import { ErrorCodes } from '../protocol/error-codes.js'

/** KafkaJS's instrumentation event names. */
export const ConsumerEvents = {
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH_START: 'consumer.fetch_start',
  FETCH: 'consumer.fetch',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CONNECT: 'consumer.connect',
  DISCONNECT: 'consumer.disconnect',
  STOP: 'consumer.stop',
  CRASH: 'consumer.crash',
  REBALANCING: 'consumer.rebalancing',
  /** Not in KafkaJS: the partitions a rebalance gave this member, and those it gave up (lost: without a commit). */
  PARTITIONS_ASSIGNED: 'consumer.partitions_assigned',
  PARTITIONS_REVOKED: 'consumer.partitions_revoked',
} as const

export interface EachMessagePayload {
  topic: string
  partition: number
  message: KafkaMessage
  heartbeat(): Promise<void>
  /** Pauses this partition; returns a function that resumes it. */
  pause(): () => void
}

export interface EachBatchPayload {
  batch: Batch
  /** Marks `offset` processed: a commit writes offset + 1. */
  resolveOffset(offset: string | bigint | number): void
  heartbeat(): Promise<void>
  /** Commits the processed offsets now if autoCommit is due (or `force`). */
  commitOffsetsIfNecessary(): Promise<void>
  uncommittedOffsets(): Array<{ topic: string; partition: number; offset: string }>
  isRunning(): boolean
  /** True when the partition was revoked, sought or reset since this batch was fetched: stop processing it. */
  isStale(): boolean
  pause(): () => void
}

export interface RunOptions {
  eachMessage?: (payload: EachMessagePayload) => Promise<void>
  eachBatch?: (payload: EachBatchPayload) => Promise<void>
  /** How many partitions' batches user code may process at once (each partition stays in order). Default 1. */
  partitionsConsumedConcurrently?: number
  /** eachBatch: mark the whole batch processed when it returns. Default true. */
  eachBatchAutoResolve?: boolean
  /** Commit processed offsets automatically during this run (default: the consumer's autoCommit). */
  autoCommit?: boolean
  /** This run's automatic commit interval in ms (default: the consumer's autoCommitIntervalMs); null: none on a timer. */
  autoCommitInterval?: number | null
  /** Also commit once this many messages were processed since the last commit (default: none). */
  autoCommitThreshold?: number | null
}

/** How this run commits by itself: run()'s options, else the consumer's config. */
interface AutoCommit {
  enabled: boolean
  intervalMs: number | null
  threshold: number | null
}

export interface SubscribeOptions {
  topics?: Array<string | RegExp>
  topic?: string | RegExp
  /** Where to start when the group has no committed offset: true 'earliest', false 'latest' (default: autoOffsetReset). */
  fromBeginning?: boolean
}

interface Subscription {
  matches(topic: string): boolean
  name: string | null
  reset: 'earliest' | 'latest' | 'none'
}

/**
 * A Kafka consumer, KafkaJS-shaped (`subscribe`, `run({ eachMessage | eachBatch })`,
 * pause/resume/seek, instrumentation events) with Java's semantics: group
 * membership (classic or KIP-848), offsets committed only for what user code
 * finished, committed before partitions are given up, and on stop.
 */
export class Consumer {
  readonly events = ConsumerEvents
  private readonly config: ResolvedConsumerConfig
  private readonly assignment = new Assignment()
  private readonly fetcher: Fetcher
  private readonly emitter = new EventEmitter()
  private readonly coordinator: GroupCoordinator | null
  private membership: Membership | null = null
  private subscriptions: Subscription[] = []
  private topics: string[] = []
  private manual: TopicPartition[] | null = null
  private running = false
  private started: Promise<void> | undefined
  private workers: Promise<void>[] = []
  private readonly processingSince = new Set<{ since: number }>()
  private readonly pausedTopics = new Map<string, Set<number> | 'all'>()
  private readonly pendingSeeks = new Map<string, bigint>()
  private autoCommitTimer: ReturnType<typeof setInterval> | undefined
  private topicTimer: ReturnType<typeof setInterval> | undefined
  private commitChain: Promise<void> = Promise.resolve()
  private autoCommit: AutoCommit
  /** Messages processed since the last automatic commit (for autoCommitThreshold). */
  private sinceCommit = 0
  private idleWaiters: Array<() => void> = []
  private eventId = 0

  constructor(
    private readonly cluster: Cluster,
    config: ConsumerConfig = {},
  ) {
    this.config = resolveConsumerConfig(config)
    this.autoCommit = this.configuredAutoCommit()
    this.coordinator = this.config.groupId === null ? null : new GroupCoordinator(cluster, this.config.groupId)
    this.fetcher = new Fetcher(
      cluster,
      this.config,
      this.assignment,
      (topic) => this.resetPolicy(topic),
      (err) => this.emit(ConsumerEvents.CRASH, { error: err, groupId: this.config.groupId, restart: true }),
      (event, payload) => this.emit(event, payload),
    )
    // Errors reach users as CRASH events (and the logger); an 'error' event nobody listens to must not throw.
    this.emitter.on('error', () => {})
  }

  async connect(): Promise<void> {
    // zstd may need an async wasm load (Node 20): done here, not mid-fetch.
    await Promise.all([this.cluster.connect(), loadCodecs()])
    this.emit(ConsumerEvents.CONNECT, {})
  }

  async subscribe(options: SubscribeOptions): Promise<void> {
    if (this.running) throw new ConfigError('subscribe() before run(): the subscription is fixed while the consumer runs')
    if (this.config.groupId === null) throw new ConfigError('subscribe() needs a groupId; without one, assign() partitions')
    const list = options.topics ?? (options.topic !== undefined ? [options.topic] : [])
    if (list.length === 0) throw new ConfigError('subscribe() needs topics: [...]')
    const reset = options.fromBeginning === undefined ? this.config.autoOffsetReset : options.fromBeginning ? 'earliest' : 'latest'
    for (const t of list) {
      if (typeof t === 'string' && t !== '') this.subscriptions.push({ matches: (x) => x === t, name: t, reset })
      else if (t instanceof RegExp) this.subscriptions.push({ matches: (x) => t.test(x), name: null, reset })
      else throw new ConfigError(`a topic is a non-empty string or a RegExp, not ${JSON.stringify(t)}`)
    }
  }

  /** Takes partitions directly, with no group (a consumer without groupId). Starts from the reset policy, or a seek. */
  assign(partitions: Array<{ topic: string; partitions: number[] }>): void {
    if (this.config.groupId !== null)
      throw new ConfigError('assign() is for a consumer without groupId; a group member gets its partitions from the group')
    this.manual = partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
    if (this.running) void this.adoptManual()
  }

  async run(options: RunOptions = {}): Promise<void> {
    if (this.running) throw new ConfigError('the consumer is already running')
    const { eachMessage, eachBatch } = options
    if (!eachMessage === !eachBatch) throw new ConfigError('run() needs exactly one of eachMessage or eachBatch')
    const concurrency = options.partitionsConsumedConcurrently ?? 1
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError('partitionsConsumedConcurrently must be an integer >= 1')
    this.autoCommit = this.runAutoCommit(options)
    await this.start()
    const handle = (d: Delivery) =>
      eachBatch ? this.processBatch(d, eachBatch, options.eachBatchAutoResolve ?? true) : this.processMessages(d, eachMessage!)
    this.workers = Array.from({ length: concurrency }, () => this.work(handle))
  }

  /**
   * Batches pulled one at a time (the alternative to run()). A batch counts
   * as processed when the next one is asked for; leaving the loop early
   * leaves the last batch unprocessed (it is fetched again after a restart).
   */
  async *batches(): AsyncGenerator<Batch> {
    if (this.running) throw new ConfigError('the consumer is already running')
    this.autoCommit = this.configuredAutoCommit()
    await this.start()
    let current: Delivery | undefined
    const token = { since: 0 }
    try {
      while (this.running) {
        if (current) {
          this.finish(current, current.nextOffset)
          current = undefined
          this.processingSince.delete(token)
        }
        const d = await this.nextDelivery()
        if (!d) break
        current = d
        token.since = Date.now()
        this.processingSince.add(token)
        yield new Batch(d.state.topic, d.state.partition, String(d.highWatermark), d.messages)
      }
    } finally {
      this.processingSince.delete(token)
      if (current) {
        // Left unprocessed: its partition goes back to it (the fetch position has moved on).
        const s = current.state
        if (s.processed !== null && !s.revoking && this.assignment.has(s.topic, s.partition)) s.seek(s.processed)
        this.release(current)
      }
    }
  }

  pause(list: Array<{ topic: string; partitions?: number[] }>): void {
    for (const { topic, partitions } of list) {
      if (partitions === undefined) this.pausedTopics.set(topic, 'all')
      else {
        const prev = this.pausedTopics.get(topic)
        if (prev !== 'all') this.pausedTopics.set(topic, new Set([...(prev ?? []), ...partitions]))
      }
      for (const s of this.assignment.values())
        if (s.topic === topic && (partitions === undefined || partitions.includes(s.partition))) s.paused = true
    }
  }

  resume(list: Array<{ topic: string; partitions?: number[] }>): void {
    for (const { topic, partitions } of list) {
      const prev = this.pausedTopics.get(topic)
      if (partitions === undefined || prev === 'all') this.pausedTopics.delete(topic)
      else if (prev) for (const p of partitions) prev.delete(p)
      for (const s of this.assignment.values())
        if (s.topic === topic && (partitions === undefined || partitions.includes(s.partition)))
          s.paused = this.isPaused(topic, s.partition)
    }
    this.fetcher.wakeAll() // data kept while paused can go to user code now
    this.fetcher.pump()
  }

  paused(): Array<{ topic: string; partitions: number[] }> {
    return groupByTopic([...this.assignment.values()].filter((s) => s.paused))
  }

  /** Moves a partition's consumption to `offset` (now if assigned, else when it is). */
  seek({ topic, partition, offset }: { topic: string; partition: number; offset: string | number | bigint }): void {
    const at = BigInt(offset)
    if (at < 0n) throw new ConfigError(`seek to ${offset}: an offset is >= 0`)
    const s = this.assignment.get(topic, partition)
    if (s) {
      s.seek(at)
      this.fetcher.pump()
    } else this.pendingSeeks.set(partitionKey(topic, partition), at)
  }

  /** The partitions this consumer owns now. */
  assignmentList(): TopicPartition[] {
    return this.assignment.list()
  }

  /** Commits these offsets (each the next offset to consume) for the group. */
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
    for (const [s, mark] of marks) if (s) s.commitMark = mark
  }

  /** Stops fetching and processing, commits what was processed and leaves the group. */
  async stop(): Promise<void> {
    if (!this.running && !this.started) return
    this.running = false
    clearInterval(this.autoCommitTimer)
    clearInterval(this.topicTimer)
    this.fetcher.stop()
    await Promise.allSettled(this.workers)
    this.workers = []
    if (this.membership) await this.membership.leave()
    else if (this.autoCommit.enabled && this.coordinator)
      await this.commitProcessed().catch(
        this.cluster
          .log('Consumer')
          .caught('the final commit failed: those offsets are read again by the next consumer', 'warn', { groupId: this.config.groupId }),
      )
    for (const s of [...this.assignment.values()]) this.assignment.remove(s.topic, s.partition)
    this.membership = null
    this.started = undefined
    this.emit(ConsumerEvents.STOP, {})
  }

  async disconnect(): Promise<void> {
    await this.stop()
    await this.cluster.disconnect()
    this.emit(ConsumerEvents.DISCONNECT, {})
  }

  /** Listens to an instrumentation event; returns a function that stops listening. */
  on(event: string, listener: (event: { id: number; type: string; timestamp: number; payload: any }) => void): () => void {
    this.emitter.on(event, listener)
    return () => this.emitter.off(event, listener)
  }

  // ---- internals ----

  private start(): Promise<void> {
    this.running = true
    this.started ??= (async () => {
      await loadCodecs()
      if (this.coordinator) {
        if (this.subscriptions.length === 0) throw new ConfigError('subscribe() before run()')
        await this.resolveTopics()
        this.membership =
          this.config.groupProtocol === 'consumer'
            ? new ConsumerGroupProtocol(this.coordinator, this.config, this.hooks())
            : new ClassicGroup(this.coordinator, this.config, this.hooks())
        if (this.subscriptions.some((s) => s.name === null)) {
          this.topicTimer = setInterval(() => void this.refreshPattern(), this.config.metadataMaxAgeMs)
          this.topicTimer.unref?.()
        }
        this.fetcher.start()
        await this.membership.start()
        if (this.autoCommit.enabled && this.autoCommit.intervalMs !== null) {
          this.autoCommitTimer = setInterval(() => this.commitAutomatically(), this.autoCommit.intervalMs)
          this.autoCommitTimer.unref?.()
        }
      } else {
        if (this.manual === null) throw new ConfigError('a consumer without groupId needs assign() before run()')
        this.fetcher.start()
        await this.adoptManual()
      }
    })().catch((err) => {
      this.running = false
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
      topics: () => this.topics,
      processingFor: () => {
        let oldest = Infinity
        for (const p of this.processingSince) oldest = Math.min(oldest, p.since)
        return oldest === Infinity ? 0 : Date.now() - oldest
      },
      emit: (event, payload) => this.emit(event, payload),
      fatal: (error) => {
        this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, restart: false })
        void this.stop()
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

  private async onAssigned(partitions: TopicPartition[]): Promise<void> {
    const states = partitions.map((p) => this.assignment.add(p.topic, p.partition))
    for (const s of states) s.paused = this.isPaused(s.topic, s.partition)
    this.emit(ConsumerEvents.PARTITIONS_ASSIGNED, { partitions: groupByTopic(partitions) })
    const committed = this.coordinator
      ? await fetchCommitted(this.coordinator, partitions, this.cluster.options.defaultApiTimeoutMs, this.backoff())
      : new Map()
    for (const s of states) {
      const sought = this.pendingSeeks.get(s.key)
      const c = committed.get(s.key)
      if (sought !== undefined) {
        this.pendingSeeks.delete(s.key)
        s.seek(sought)
      } else if (c) {
        s.seek(c.offset)
        s.committed = c.offset
      } else {
        const policy = this.resetPolicy(s.topic)
        if (policy === 'none') {
          this.emit(ConsumerEvents.CRASH, {
            error: kafkaError(ErrorCodes.OFFSET_OUT_OF_RANGE, {
              detail: `${s.topic}-${s.partition} has no committed offset and autoOffsetReset is 'none'`,
            }),
            groupId: this.config.groupId,
            restart: false,
          })
          continue
        }
        s.resetTo = policy
      }
    }
    this.fetcher.pump()
  }

  /** Stops processing the partitions after the message in hand, commits them (when revoked, not lost), and drops them. */
  private async onRevoked(partitions: TopicPartition[], commit: boolean): Promise<void> {
    const states = partitions.map((p) => this.assignment.get(p.topic, p.partition)).filter((s): s is PartitionState => s !== undefined)
    for (const s of states) s.revoking = true
    this.fetcher.wakeAll()
    while (states.some((s) => s.busy)) await new Promise<void>((resolve) => this.idleWaiters.push(resolve))

    if (commit && this.autoCommit.enabled && this.coordinator) {
      await this.serialized(() => this.commitProcessed(states)).catch((error) => this.commitFailed(error))
    }
    for (const s of states) this.assignment.remove(s.topic, s.partition)
    this.emit(ConsumerEvents.PARTITIONS_REVOKED, { partitions: groupByTopic(partitions), lost: !commit })
  }

  private async work(handle: (d: Delivery) => Promise<void>): Promise<void> {
    const token = { since: 0 }
    while (this.running) {
      let d: Delivery | undefined
      try {
        d = await this.nextDelivery()
      } catch (error) {
        this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, restart: true })
        continue
      }
      if (!d) break
      token.since = Date.now()
      this.processingSince.add(token)
      try {
        await handle(d)
      } finally {
        this.processingSince.delete(token)
        this.release(d)
      }
    }
  }

  /**
   * The next partition's records for user code, waiting for some; undefined
   * once the consumer stops. Deliveries of only markers or aborted records
   * never reach user code: they just move the partition past them.
   */
  private async nextDelivery(): Promise<Delivery | undefined> {
    while (this.running) {
      const d = this.fetcher.take()
      if (!d) await this.fetcher.waitForData()
      else if (d.messages.length === 0) this.finish(d, d.nextOffset)
      else return d
    }
    return undefined
  }

  private async processBatch(d: Delivery, eachBatch: NonNullable<RunOptions['eachBatch']>, autoResolve: boolean): Promise<void> {
    const s = d.state
    const version = s.version
    const stale = () => s.version !== version || s.revoking || !this.assignment.has(s.topic, s.partition)
    const batch = new Batch(s.topic, s.partition, String(d.highWatermark), d.messages)
    this.emit(ConsumerEvents.START_BATCH_PROCESS, { topic: s.topic, partition: s.partition, batchSize: d.messages.length })
    try {
      await eachBatch({
        batch,
        resolveOffset: (offset) => {
          if (!stale()) s.processed = BigInt(offset) + 1n
        },
        heartbeat: async () => {},
        commitOffsetsIfNecessary: () => this.serialized(() => this.commitProcessed()),
        uncommittedOffsets: () => this.uncommitted(),
        isRunning: () => this.running,
        isStale: stale,
        pause: () => this.pauseOne(s),
      })
    } catch (err) {
      this.handlerFailed(s, version, err)
      return
    }
    if (autoResolve && !stale()) s.processed = d.nextOffset
    s.handlerFailures = 0
    this.countProcessed(d.messages.length)
    this.emit(ConsumerEvents.END_BATCH_PROCESS, { topic: s.topic, partition: s.partition, batchSize: d.messages.length })
  }

  private async processMessages(d: Delivery, eachMessage: NonNullable<RunOptions['eachMessage']>): Promise<void> {
    const s = d.state
    const version = s.version
    const pause = () => this.pauseOne(s)
    const heartbeat = async () => {}
    for (const message of d.messages) {
      if (s.version !== version || s.revoking || !this.running) return
      if (s.paused) {
        // Paused mid-batch: the rest is fetched again after resume (the fetch position has moved past it).
        if (s.processed !== null) s.seek(s.processed)
        return
      }
      try {
        await eachMessage({ topic: s.topic, partition: s.partition, message, heartbeat, pause })
      } catch (err) {
        this.handlerFailed(s, version, err)
        return
      }
      if (s.version === version) s.processed = message.offsetBigInt + 1n
      this.countProcessed(1)
    }
    // Past any control batches or filtered records that ended the fetch.
    if (s.version === version && !s.revoking) s.processed = d.nextOffset
    s.handlerFailures = 0
  }

  /**
   * A handler threw: nothing after the last processed message counts as
   * consumed; the partition goes back there and is retried after a backoff.
   */
  private handlerFailed(s: PartitionState, version: number, error: unknown): void {
    this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, topic: s.topic, partition: s.partition, restart: true })
    if (s.version !== version || !this.assignment.has(s.topic, s.partition)) return
    if (s.processed !== null) s.seek(s.processed)
    s.retryAt = Date.now() + backoffMs(s.handlerFailures++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs)
    this.fetcher.pump() // schedules the retry
  }

  /** Marks a delivery done (processed up to `processedTo` when given) and lets its partition fetch again. */
  private finish(d: Delivery, processedTo: bigint): void {
    const s = d.state
    if (!s.revoking && this.assignment.has(s.topic, s.partition)) s.processed = processedTo
    this.release(d)
  }

  private release(d: Delivery): void {
    d.state.busy = false
    for (const w of this.idleWaiters.splice(0)) w()
    // Its queued data may go to another worker now (take() already sent the next fetch).
    this.fetcher.wakeAll()
  }

  private pauseOne(s: PartitionState): () => void {
    this.pause([{ topic: s.topic, partitions: [s.partition] }])
    return () => this.resume([{ topic: s.topic, partitions: [s.partition] }])
  }

  private isPaused(topic: string, partition: number): boolean {
    const p = this.pausedTopics.get(topic)
    return p === 'all' || (p !== undefined && p.has(partition))
  }

  private resetPolicy(topic: string): 'earliest' | 'latest' | 'none' {
    for (const s of this.subscriptions) if (s.matches(topic)) return s.reset
    return this.config.autoOffsetReset
  }

  private uncommitted(): Array<{ topic: string; partition: number; offset: string }> {
    return [...this.assignment.values()]
      .filter((s) => s.processed !== null && s.processed !== s.committed)
      .map((s) => ({ topic: s.topic, partition: s.partition, offset: String(s.processed) }))
  }

  private configuredAutoCommit(): AutoCommit {
    return { enabled: this.config.autoCommit, intervalMs: this.config.autoCommitIntervalMs, threshold: null }
  }

  /** run()'s autoCommit options over the consumer's (KafkaJS takes them there). */
  private runAutoCommit(options: RunOptions): AutoCommit {
    const configured = this.configuredAutoCommit()
    const enabled = options.autoCommit ?? configured.enabled
    if (typeof enabled !== 'boolean') throw new ConfigError(`autoCommit must be true or false, not ${JSON.stringify(enabled)}`)
    if (enabled && this.config.groupId === null && options.autoCommit === true) throw new ConfigError('autoCommit needs a groupId')
    const ms = (name: string, v: number | null | undefined, fallback: number | null, integer = false) => {
      if (v === undefined) return fallback
      if (v === null) return null
      if (typeof v !== 'number' || !(v >= 1) || v > MAX_TIMER_MS || (integer && !Number.isInteger(v)))
        throw new ConfigError(
          `${name} must be ${integer ? 'an integer' : 'a number'} from 1 to ${MAX_TIMER_MS}, or null, not ${JSON.stringify(v)}`,
        )
      return v
    }
    return {
      enabled,
      intervalMs: ms('autoCommitInterval', options.autoCommitInterval, configured.intervalMs),
      threshold: ms('autoCommitThreshold', options.autoCommitThreshold, null, true),
    }
  }

  /** Counts processed messages toward autoCommitThreshold, committing when it is reached. */
  private countProcessed(n: number): void {
    const { enabled, threshold } = this.autoCommit
    if (!enabled || threshold === null || !this.coordinator) return
    this.sinceCommit += n
    if (this.sinceCommit >= threshold) {
      this.sinceCommit = 0
      this.commitAutomatically()
    }
  }

  private commitAutomatically(): void {
    void this.serialized(() => this.commitProcessed()).catch((error) => this.commitFailed(error))
  }

  /** Commits the processed offsets that moved since the last commit (not back over a manual one). */
  private async commitProcessed(states: PartitionState[] = [...this.assignment.values()]): Promise<void> {
    if (!this.coordinator) return
    const due = states.filter((s) => s.processed !== null && s.processed !== s.committed && s.processed !== s.commitMark)
    if (due.length === 0) return
    await this.commit(
      this.coordinator,
      due.map((s) => ({ topic: s.topic, partition: s.partition, offset: s.processed!, leaderEpoch: s.lastFetchedEpoch })),
    )
  }

  private async commit(coordinator: GroupCoordinator, offsets: OffsetToCommit[]): Promise<void> {
    await commitOffsets(
      coordinator,
      () => this.membership?.commitIdentity() ?? null,
      offsets,
      this.cluster.options.defaultApiTimeoutMs,
      this.backoff(),
    )
    for (const o of offsets) {
      const s = this.assignment.get(o.topic, o.partition)
      if (s) s.committed = s.commitMark = o.offset
    }
    this.emit(ConsumerEvents.COMMIT_OFFSETS, {
      groupId: this.config.groupId,
      memberId: this.membership?.memberId,
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
  private commitFailed(error: unknown): void {
    if (error instanceof CommitFailedError)
      this.emit(ConsumerEvents.COMMIT_OFFSETS, { groupId: this.config.groupId, memberId: this.membership?.memberId, error })
    else this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, restart: true })
  }

  /** Commits run one at a time, in order: a later commit never lands before an earlier one. */
  private serialized(fn: () => Promise<void>): Promise<void> {
    const run = this.commitChain.then(fn, fn)
    // The caller of this commit gets its error; the chain only orders the next one after it.
    this.commitChain = run.catch(() => {})
    return run
  }

  private async resolveTopics(): Promise<boolean> {
    const names = new Set(this.subscriptions.flatMap((s) => (s.name !== null ? [s.name] : [])))
    if (this.subscriptions.some((s) => s.name === null)) {
      await this.cluster.refreshMetadata('all')
      for (const t of this.cluster.metadata.topics.values()) {
        if (!t.isInternal && t.errorCode === 0 && this.subscriptions.some((s) => s.name === null && s.matches(t.name))) names.add(t.name)
      }
    }
    const topics = [...names].sort()
    const changed = topics.join('\u0000') !== this.topics.join('\u0000')
    this.topics = topics
    this.cluster.use(topics)
    await this.cluster
      .refreshMetadata(topics, { allowAutoTopicCreation: this.config.allowAutoTopicCreation })
      .catch(this.cluster.log('Consumer').caught('metadata refresh for subscribed topics failed; the next refresh tries again'))
    return changed
  }

  private async refreshPattern(): Promise<void> {
    try {
      if (await this.resolveTopics()) this.membership?.rejoin('topics matching the subscription changed')
    } catch (err) {
      this.cluster.log('Consumer').caught('looking for topics matching the subscription failed; the next interval tries again', 'info')(err)
    }
  }

  private requireGroup(what: string): GroupCoordinator {
    if (!this.coordinator) throw new ConfigError(`${what} needs a groupId`)
    return this.coordinator
  }

  private backoff() {
    return { backoffMs: this.config.retryBackoffMs, backoffMaxMs: this.config.retryBackoffMaxMs }
  }

  private emit(type: string, payload: object): void {
    if (this.emitter.listenerCount(type) === 0) return
    this.emitter.emit(type, { id: this.eventId++, type, timestamp: Date.now(), payload })
  }
}
