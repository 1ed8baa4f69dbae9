import { ConfigError } from '../errors.js'
import { Batch } from './batch.js'
import type { CommitScheduler } from './commit-scheduler.js'
import type { ResolvedConsumerConfig } from './config.js'
import type { ConsumerLog } from './consumer-log.js'
import { ConsumerEvents, type Emit } from './events.js'
import type { Delivery, Fetcher } from './fetcher.js'
import type { KafkaMessage } from './message.js'
import type { OwnedPartitions, PartitionState } from './partition-state.js'
import { channels } from '../observe/channels.js'

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
  /**
   * Marks `offset` processed: a commit writes offset + 1, with `metadata`
   * when given (Java's OffsetAndMetadata.metadata; a wafka addition to
   * KafkaJS's signature), until a later resolve replaces it.
   */
  resolveOffset(offset: string | bigint | number, metadata?: string | null): void
  heartbeat(): Promise<void>
  /** Commits the processed offsets now if autoCommit is due (or `force`). */
  commitOffsetsIfNecessary(): Promise<void>
  uncommittedOffsets(): Array<{ topic: string; partition: number; offset: string }>
  isRunning(): boolean
  /** True when the partition was revoked, sought or reset since this batch was fetched: stop processing it. */
  isStale(): boolean
  pause(): () => void
}

export interface Handlers {
  eachMessage?: (payload: EachMessagePayload) => Promise<void>
  eachBatch?: (payload: EachBatchPayload) => Promise<void>
  /** How many partitions' batches user code may process at once (each partition stays in order). Default 1. */
  partitionsConsumedConcurrently?: number
  /** eachBatch: mark the whole batch processed when it returns. Default true. */
  eachBatchAutoResolve?: boolean
}

/**
 * What runs when user code returned from a batch (not when it threw):
 * `stale` when the partition was sought, reset or revoked meanwhile.
 */
export type BatchEnd = (done: { stale: boolean; commitOffsetsIfNecessary(): Promise<void> }) => Promise<void>

/**
 * Where a run differs for the KafkaJS drop-in (wafka/kafkajs), which keeps
 * this runner's loop and retry but does what KafkaJS does around them. The
 * engine's own runs set none.
 * @internal
 */
export interface RunHooks {
  /** A batch reaches user code; the BatchEnd it returns runs before the batch counts as handled (a throw is the handler's). */
  batchStarted?(batch: Batch): BatchEnd | undefined
  /** User code threw: reported here instead of the engine's log line. */
  handlerFailed?(handler: 'eachMessage' | 'eachBatch', topic: string, partition: number, offset: string, error: unknown): void
  /** eachMessage resolves only the messages it handled, not the markers or aborted records a fetch ended with. */
  resolveMessagesOnly?: boolean
  /** Failures in a row of one partition's handler that are retried; one more ends the run (default: retried until it succeeds). */
  handlerRetries?: number
  /**
   * A failure ended the run (a handler past handlerRetries, or a crash the
   * consumer does not recover from by itself): the error to report for it
   * (logged, and in the CRASH event), and in how many ms the consumer runs
   * again with the same handlers (null: it stays stopped).
   */
  runFailed?(failure: RunFailure): Promise<{ error: unknown; restartInMs: number | null }>
}

/** What ended a run: the error, and for a handler that kept failing or a cluster that stopped answering, how often it was retried. */
export interface RunFailure {
  error: unknown
  topic?: string
  partition?: number
  retriesExceeded?: { retryCount: number; elapsedMs?: number }
}

/**
 * Hands fetched batches to user code (KafkaJS's runner): workers that each
 * take one partition's batch at a time, call eachMessage or eachBatch, and
 * record what was processed; a handler that throws sends its partition back
 * to the last processed offset, retried after a backoff.
 */
export class DeliveryRunner {
  private active = false
  private workers: Promise<void>[] = []
  private readonly processingSince = new Set<{ since: number }>()
  private idleWaiters: Array<() => void> = []
  /** @internal see RunHooks */
  hooks: RunHooks = {}
  /** The cluster's id, for the tracing channels' contexts (set by the consumer). */
  clusterId: () => string | null = () => null

  constructor(
    private readonly config: ResolvedConsumerConfig,
    private readonly assignment: OwnedPartitions,
    private readonly fetcher: Fetcher,
    private readonly commits: CommitScheduler,
    /** Pauses one partition; returns a function that resumes it. */
    private readonly pauseOne: (s: PartitionState) => () => void,
    private readonly emit: Emit,
    private readonly log: ConsumerLog,
    /** A handler failed past hooks.handlerRetries: the consumer ends the run. */
    private readonly gaveUp: (failure: RunFailure) => void,
  ) {}

  get running(): boolean {
    return this.active
  }

  /** Deliveries may flow (before the group is joined: the first assignment starts them). */
  activate(): void {
    this.active = true
  }

  /** Checks run()'s handlers before anything starts. */
  static check(handlers: Handlers): number {
    if (!handlers.eachMessage === !handlers.eachBatch) throw new ConfigError('run() needs exactly one of eachMessage or eachBatch')
    const concurrency = handlers.partitionsConsumedConcurrently ?? 1
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError('partitionsConsumedConcurrently must be an integer >= 1')
    return concurrency
  }

  /** Starts the workers that call `handlers`. */
  run(handlers: Handlers): void {
    const concurrency = DeliveryRunner.check(handlers)
    const { eachMessage, eachBatch } = handlers
    const handle = (d: Delivery) =>
      eachBatch ? this.processBatch(d, eachBatch, handlers.eachBatchAutoResolve ?? true) : this.processMessages(d, eachMessage!)
    this.workers = Array.from({ length: concurrency }, () => this.work(handle))
  }

  /** No more deliveries (a start that failed; stop() also waits for the workers). */
  deactivate(): void {
    this.active = false
  }

  /** Stops delivering: the workers finish the message or batch in hand. */
  async stop(): Promise<void> {
    this.deactivate()
    await Promise.allSettled(this.workers)
    this.workers = []
  }

  /**
   * Batches pulled one at a time (the alternative to run()). A batch counts
   * as processed when the next one is asked for; leaving the loop early
   * leaves the last batch unprocessed (it is fetched again after a restart).
   */
  async *batches(): AsyncGenerator<Batch> {
    let current: Delivery | undefined
    const token = { since: 0 }
    try {
      while (this.active) {
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

  /** ms that user code has been inside its oldest handler call (0 when idle). */
  processingFor(): number {
    let oldest = Infinity
    for (const p of this.processingSince) oldest = Math.min(oldest, p.since)
    return oldest === Infinity ? 0 : Date.now() - oldest
  }

  /** Resolves true once user code holds no batch of these partitions, false when `timeoutMs` passes first. */
  async idle(states: PartitionState[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    while (states.some((s) => s.busy)) {
      const left = deadline - Date.now()
      if (left <= 0) return false
      let timer: ReturnType<typeof setTimeout> | undefined
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve)
        timer = setTimeout(resolve, left)
      })
      clearTimeout(timer)
    }
    return true
  }

  private async work(handle: (d: Delivery) => Promise<void>): Promise<void> {
    const token = { since: 0 }
    while (this.active) {
      let d: Delivery | undefined
      try {
        d = await this.nextDelivery()
      } catch (error) {
        this.log.crashed(error, true)
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
    while (this.active) {
      const d = this.fetcher.take()
      if (!d) await this.fetcher.waitForData()
      else if (d.messages.length === 0) this.finish(d, d.nextOffset)
      else return d
    }
    return undefined
  }

  private async processBatch(d: Delivery, eachBatch: NonNullable<Handlers['eachBatch']>, autoResolve: boolean): Promise<void> {
    const s = d.state
    const version = s.version
    // Sought, reset or dropped since the fetch: what the handler resolves is about a position that is gone.
    const superseded = () => s.version !== version || !this.assignment.has(s.topic, s.partition)
    // Being revoked too: user code should stop, but what it finished still counts (the commit on revoke waits for it).
    const stale = () => superseded() || s.revoking
    const batch = new Batch(s.topic, s.partition, String(d.highWatermark), d.messages)
    this.emit(ConsumerEvents.START_BATCH_PROCESS, { topic: s.topic, partition: s.partition, batchSize: d.messages.length })
    const end = this.hooks.batchStarted?.(batch)
    try {
      const payload: EachBatchPayload = {
        batch,
        resolveOffset: (offset, metadata) => {
          if (!superseded()) s.processedTo(BigInt(offset) + 1n, metadata ?? null)
        },
        heartbeat: async () => {},
        commitOffsetsIfNecessary: () => this.commits.commitIfNecessary(),
        uncommittedOffsets: () => this.commits.uncommitted(),
        isRunning: () => this.active,
        isStale: stale,
        pause: () => this.pauseOne(s),
      }
      if (!channels.batch.active) await eachBatch(payload)
      else {
        const { groupId } = this.config
        const context = {
          groupId,
          clusterId: this.clusterId(),
          topic: s.topic,
          partition: s.partition,
          highWatermark: batch.highWatermark,
          messages: batch.messages,
        }
        await channels.batch.trace(async () => eachBatch(payload), context)
      }
      await end?.({ stale: stale(), commitOffsetsIfNecessary: () => this.commits.commitIfNecessary() })
    } catch (err) {
      this.reportFailure('eachBatch', s, d.messages[0].offsetBigInt, err)
      this.handlerFailed(s, version, err)
      return
    }
    if (autoResolve && !superseded()) s.processedTo(d.nextOffset)
    s.handlerSucceeded()
    this.commits.countProcessed(d.messages.length)
    this.emit(ConsumerEvents.END_BATCH_PROCESS, { topic: s.topic, partition: s.partition, batchSize: d.messages.length })
  }

  private async processMessages(d: Delivery, eachMessage: NonNullable<Handlers['eachMessage']>): Promise<void> {
    const s = d.state
    const version = s.version
    const pause = () => this.pauseOne(s)
    const heartbeat = async () => {}
    const messages = d.messages
    const first = messages.length > 0 ? messages[0].offsetBigInt : d.nextOffset
    const end = this.hooks.batchStarted?.(new Batch(s.topic, s.partition, String(d.highWatermark), messages))
    let whole = true
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]
      // Dropped once handed over: a message and the key and value Buffers it made die young, not with the whole batch.
      messages[i] = undefined as unknown as KafkaMessage
      if (s.version !== version || s.revoking || !this.active) {
        whole = false
        break
      }
      if (s.paused) {
        // Paused mid-batch: the rest is fetched again after resume (the fetch position has moved past it).
        if (s.processed !== null) s.seek(s.processed)
        whole = false
        break
      }
      try {
        const payload = { topic: s.topic, partition: s.partition, message, heartbeat, pause }
        if (!channels.process.active) await eachMessage(payload)
        else {
          const context = { groupId: this.config.groupId, clusterId: this.clusterId(), topic: s.topic, partition: s.partition, message }
          await channels.process.trace(async () => eachMessage(payload), context)
        }
      } catch (err) {
        this.reportFailure('eachMessage', s, message.offsetBigInt, err)
        this.handlerFailed(s, version, err)
        return
      }
      if (s.version === version) s.processedTo(message.offsetBigInt + 1n)
      this.commits.countProcessed(1)
    }
    if (whole) {
      // Past any control batches or filtered records that ended the fetch.
      if (s.version === version && !s.revoking && !this.hooks.resolveMessagesOnly) s.processedTo(d.nextOffset)
      s.handlerSucceeded()
    }
    if (!end) return
    try {
      const stale = s.version !== version || s.revoking || !this.assignment.has(s.topic, s.partition)
      await end({ stale, commitOffsetsIfNecessary: () => this.commits.commitIfNecessary() })
    } catch (err) {
      this.reportFailure('eachMessage', s, first, err)
      this.handlerFailed(s, version, err)
    }
  }

  private reportFailure(handler: 'eachMessage' | 'eachBatch', s: PartitionState, offset: bigint, error: unknown): void {
    if (this.hooks.handlerFailed) this.hooks.handlerFailed(handler, s.topic, s.partition, String(offset), error)
    else this.log.handlerFailed(handler, s.topic, s.partition, offset, error)
  }

  /**
   * A handler threw: nothing after the last processed message counts as
   * consumed; the partition goes back there and is retried after a backoff.
   */
  private handlerFailed(s: PartitionState, version: number, error: unknown): void {
    const retries = this.hooks.handlerRetries
    const retryCount = s.failuresInARow
    const givingUp = retries !== undefined && retryCount >= retries && this.active
    if (!givingUp)
      this.emit(ConsumerEvents.CRASH, { error, groupId: this.config.groupId, topic: s.topic, partition: s.partition, restart: true })
    if (s.version === version && this.assignment.has(s.topic, s.partition)) {
      if (s.processed !== null) s.seek(s.processed)
      s.handlerFailed(this.config.retryBackoffMs, this.config.retryBackoffMaxMs)
      this.fetcher.pump() // schedules the retry
    }
    if (givingUp) this.gaveUp({ error, topic: s.topic, partition: s.partition, retriesExceeded: { retryCount } })
  }

  /** Marks a delivery done (processed up to `processedTo`) and lets its partition fetch again. */
  private finish(d: Delivery, processedTo: bigint): void {
    const s = d.state
    if (!s.revoking && this.assignment.has(s.topic, s.partition)) s.processedTo(processedTo)
    this.release(d)
  }

  private release(d: Delivery): void {
    d.state.release()
    for (const w of this.idleWaiters.splice(0)) w()
    // Its queued data may go to another worker now (take() already sent the next fetch).
    this.fetcher.wakeAll()
  }
}
