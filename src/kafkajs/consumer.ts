import type { Admin as EngineAdmin } from '../admin/admin.js'
import type { Consumer as EngineConsumer } from '../consumer/consumer.js'
import type { RunFailure } from '../consumer/delivery-runner.js'
import { ConsumerEvents as EngineEvents } from '../consumer/consumer.js'
import { describeError, type Logger as EngineLogger } from '../logger.js'
import { kafkajsLogger, type Logger } from './logger.js'
import {
  isKafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  toKafkaJSError,
  translated,
} from './errors.js'
import { ConsumerEvents, Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js'
import { engineConsumerConfig, type ConsumerConfig, type KafkaConfig } from './options.js'
import { RETRY_DEFAULTS, type RetryOptions } from './retry.js'
import type { Connector } from './kafka.js'
import { kafkajsRun, type ConsumerRunConfig } from './run.js'
import type { TopicPartitionOffsetAndMetadata, TopicPartitions } from './cluster-types.js'
import type { GroupDescription } from './admin-types.js'
import { describedGroup } from './groups.js'

export interface ConsumerSubscribeTopics {
  topics: Array<string | RegExp>
  fromBeginning?: boolean
}

/** @deprecated in KafkaJS too: `{ topic }`. */
export interface ConsumerSubscribeTopic {
  topic: string | RegExp
  fromBeginning?: boolean
}

/** The engine's events that reach KafkaJS's listeners as they are; the batch, join, commit and crash events are reshaped. */
const OWN = new Set<string>([
  EngineEvents.START_BATCH_PROCESS,
  EngineEvents.END_BATCH_PROCESS,
  EngineEvents.CRASH,
  EngineEvents.GROUP_JOIN,
  EngineEvents.COMMIT_OFFSETS,
])
const FORWARDED = Object.values(EngineEvents).filter((t) => !OWN.has(t) && (Object.values(ConsumerEvents) as string[]).includes(t))

/**
 * KafkaJS's consumer over wafka's: KafkaJS's defaults (read_committed,
 * round robin, 5 s fetch wait, 10 MB fetches, no poll deadline), plain
 * message objects, KafkaJS's batch and commit behaviour (a commit after each
 * batch, plus autoCommitInterval / autoCommitThreshold), events and errors.
 */
export class Consumer {
  readonly events = ConsumerEvents
  private readonly instrumentation = new Instrumentation('consumer', ConsumerEvents)
  private inner: EngineConsumer | undefined
  private admin: EngineAdmin | undefined
  private readonly groupId: string
  private readonly retry: RetryOptions
  private runOptions: ConsumerRunConfig | undefined
  /** Every subscribe() so far, before connect() or after: each engine connect() makes gets them all. */
  private readonly subscriptions: Array<{ topics: Array<string | RegExp>; fromBeginning: boolean }> = []
  /** The generation of the last join (KafkaJS's commit events carry it), and when the consumer began (re)joining. */
  private generationId = -1
  private joinStarted = Date.now()

  constructor(
    private readonly connector: Connector,
    private readonly config: ConsumerConfig,
    private readonly kafka: KafkaConfig,
    private readonly log: EngineLogger,
  ) {
    engineConsumerConfig(config, kafka, log)
    this.groupId = config.groupId
    this.retry = { ...connector.retry, ...config.retry }
  }

  async connect(): Promise<void> {
    await this.connector.connect(async () => {
      const kafka = await this.connector.engine(this.instrumentation.requests(ConsumerEvents))
      const engine = kafka.consumer(engineConsumerConfig(this.config, this.kafka, this.log))
      const admin = kafka.admin()
      try {
        await Promise.all([engine.connect(), admin.connect()])
      } catch (err) {
        await Promise.allSettled([engine.disconnect(), admin.disconnect()])
        throw err
      }
      // KafkaJS's retry budget: a cluster that does not answer for that long crashes the consumer (restartOnFailure decides).
      engine.giveUpWhenUnreachable({ afterMs: nominalBudgetMs(this.retry), failures: this.retry.retries ?? RETRY_DEFAULTS.retries })
      for (const type of FORWARDED) engine.on(type, (e) => this.instrumentation.emit(type, e.payload, e.timestamp))
      engine.on(EngineEvents.CRASH, (e) => {
        const { error, restart, topic, retriesExceeded } = e.payload
        // A handler failure the engine retries: KafkaJS reports none.
        if (topic !== undefined && restart && !retriesExceeded) return
        this.instrumentation.emit(ConsumerEvents.CRASH, { error: toKafkaJSError(error), groupId: this.groupId, restart }, e.timestamp)
      })
      engine.on(EngineEvents.GROUP_JOIN, (e) => {
        // KafkaJS: the join's duration, no generation (its commits carry that).
        const { generationId, ...rest } = e.payload
        this.generationId = generationId
        this.instrumentation.emit(ConsumerEvents.GROUP_JOIN, { duration: e.timestamp - this.joinStarted, ...rest }, e.timestamp)
        this.joinStarted = e.timestamp
      })
      engine.on(EngineEvents.COMMIT_OFFSETS, (e) => {
        if (e.payload.error) return // a commit refused by a rebalance: KafkaJS reports none
        const { groupId, memberId, topics } = e.payload
        this.instrumentation.emit(
          ConsumerEvents.COMMIT_OFFSETS,
          { groupId, memberId, groupGenerationId: this.generationId, topics },
          e.timestamp,
        )
      })
      this.inner = engine
      this.admin = admin
      try {
        for (const wanted of this.subscriptions) await this.apply(engine, wanted)
      } catch (err) {
        this.inner = this.admin = undefined
        await Promise.allSettled([engine.disconnect(), admin.disconnect()])
        throw err
      }
    })
    this.instrumentation.emit(ConsumerEvents.CONNECT)
  }

  async disconnect(): Promise<void> {
    const inner = this.inner
    const admin = this.admin
    this.inner = this.admin = undefined
    this.runOptions = undefined
    await translated(async () => {
      await Promise.all([inner?.disconnect(), admin?.disconnect()])
    })
    this.instrumentation.emit(ConsumerEvents.DISCONNECT)
  }

  async subscribe(subscription: ConsumerSubscribeTopics | ConsumerSubscribeTopic): Promise<void> {
    if (this.runOptions) throw new KafkaJSNonRetriableError('Cannot subscribe to topic while consumer is running')
    const given = subscription as Partial<ConsumerSubscribeTopics & ConsumerSubscribeTopic>
    const topics = given.topics ?? (given.topic !== undefined ? [given.topic] : undefined)
    if (!topics) throw new KafkaJSNonRetriableError('Missing required argument "topics"')
    if (!Array.isArray(topics)) throw new KafkaJSNonRetriableError('Argument "topics" must be an array')
    for (const t of topics)
      if (!(t instanceof RegExp) && (typeof t !== 'string' || t === ''))
        throw new KafkaJSNonRetriableError(`Invalid topic ${t} (${typeof t}), the topic name has to be a String or a RegExp`)
    const wanted = { topics, fromBeginning: given.fromBeginning ?? false }
    // KafkaJS takes a subscription before connect() too (it applies at run()): kept, and given to each engine connect() makes.
    if (this.inner) await this.apply(this.inner, wanted)
    this.subscriptions.push(wanted)
  }

  /** One subscription to the engine. KafkaJS loads the topics' metadata: a topic that does not exist fails unless the broker may create it. */
  private async apply(inner: EngineConsumer, wanted: { topics: Array<string | RegExp>; fromBeginning: boolean }): Promise<void> {
    const { topics } = wanted
    const names = topics.filter((t): t is string => typeof t === 'string')
    if (names.length > 0 && this.config.allowAutoTopicCreation === false) {
      const existing = new Set(await translated(() => this.admin!.listTopics()))
      const missing = names.find((t) => !existing.has(t))
      if (missing !== undefined)
        throw new KafkaJSProtocolError({
          message: 'This server does not host this topic-partition',
          type: 'UNKNOWN_TOPIC_OR_PARTITION',
          code: 3,
          retriable: true,
        })
    }
    await translated(() => inner.subscribe(wanted))
  }

  async run(options: ConsumerRunConfig = {}): Promise<void> {
    const inner = this.connected()
    if (this.runOptions) {
      this.log.namespace('Consumer').warn('consumer#run was called, but the consumer is already running', { groupId: this.groupId })
      return
    }
    this.runOptions = options
    this.joinStarted = Date.now()
    await translated(() => this.runOn(inner, options))
  }

  async stop(): Promise<void> {
    this.runOptions = undefined
    await translated(async () => this.inner?.stop())
  }

  async commitOffsets(offsets: TopicPartitionOffsetAndMetadata[]): Promise<void> {
    const inner = this.connected()
    await translated(() => inner.commitOffsets(offsets))
  }

  seek({ topic, partition, offset }: { topic: string; partition: number; offset: string }): void {
    const inner = this.connected()
    if (offset === undefined || offset === null || !/^-?\d+$/.test(String(offset)))
      throw new KafkaJSNonRetriableError(`Offset must not be a negative number`)
    try {
      inner.seek({ topic, partition, offset })
    } catch (err) {
      throw toKafkaJSError(err)
    }
  }

  async describeGroup(): Promise<GroupDescription> {
    this.connected()
    const { groups } = await translated(() => this.admin!.describeGroups([this.groupId]))
    return describedGroup(groups[0])
  }

  pause(topics: Array<{ topic: string; partitions?: number[] }>): void {
    this.connected().pause(topics)
  }

  paused(): TopicPartitions[] {
    return this.inner?.paused() ?? []
  }

  resume(topics: Array<{ topic: string; partitions?: number[] }>): void {
    this.connected().resume(topics)
  }

  on(eventName: string, listener: (event: InstrumentationEvent) => void): RemoveInstrumentationEventListener {
    return this.instrumentation.on(eventName, listener)
  }

  logger(): Logger {
    return kafkajsLogger(this.log.namespace('Consumer'))
  }

  /** KafkaJS's run() on the engine's, through what the batches need of this consumer; KafkaJS's logs, retries and restarts. */
  private runOn(inner: EngineConsumer, options: ConsumerRunConfig): Promise<void> {
    const { run, hooks } = kafkajsRun(options, {
      emit: (type, payload) => this.instrumentation.emit(type, payload),
      commitOffsets: (offsets) => this.commitOffsets(offsets),
      seek: (tp) => this.inner?.seek(tp),
    })
    inner.useRunHooks({
      ...hooks,
      handlerFailed: (handler, topic, partition, offset, error) => {
        // KafkaJS logs what user code threw, not its own errors passing through.
        if (isKafkaJSError(error)) return
        this.log.namespace('Runner').error(`Error when calling ${handler}`, {
          groupId: this.groupId,
          topic,
          partition,
          offset,
          ...describeError(error),
          stack: (error as { stack?: string } | null)?.stack,
        })
      },
      handlerRetries: this.retry.retries ?? RETRY_DEFAULTS.retries,
      runFailed: (failure) => this.runFailed(failure),
    })
    return inner.run(run)
  }

  private connected(): EngineConsumer {
    if (!this.inner) throw new KafkaJSNonRetriableError('The consumer is not connected: call consumer.connect() first')
    return this.inner
  }

  /**
   * KafkaJS's restart policy for a failure that ended the run: the error as
   * KafkaJS's class (KafkaJSNumberOfRetriesExceeded when retries ran out, a
   * handler's or the cluster's); restarted after initialRetryTime when it is
   * retriable and retry.restartOnFailure agrees. Not restarted after retries
   * ran out, the consumer disconnects, as KafkaJS's does.
   */
  private async runFailed({ error, retriesExceeded }: RunFailure): Promise<{ error: unknown; restartInMs: number | null }> {
    const retryTime = this.retry.initialRetryTime ?? RETRY_DEFAULTS.initialRetryTime
    let reported = toKafkaJSError(error) as Error
    if (retriesExceeded)
      reported = new KafkaJSNumberOfRetriesExceeded(reported, { retryCount: retriesExceeded.retryCount, retryTime, cause: reported })
    const retriable = reported.name === 'KafkaJSNumberOfRetriesExceeded' || rootCause(reported).retriable === true
    if (retriable && (await this.shouldRestart(reported))) {
      this.logger().error(`Restarting the consumer in ${retryTime}ms`, { groupId: this.groupId, retryTime })
      return { error: reported, restartInMs: retryTime }
    }
    if (retriesExceeded && this.inner)
      await this.disconnect().catch(this.log.namespace('Consumer').caught('disconnecting after a crash failed'))
    return { error: reported, restartInMs: null }
  }

  private async shouldRestart(error: Error): Promise<boolean> {
    if (!this.retry.restartOnFailure) return true
    try {
      return await this.retry.restartOnFailure(error)
    } catch (e) {
      this.logger().error('Caught error when invoking user-provided "restartOnFailure" callback. Defaulting to restarting.', {
        groupId: this.groupId,
        error: (e as Error)?.message ?? String(e),
        cause: error.message,
      })
      return true
    }
  }
}

/** KafkaJS's retry budget without its jitter: the waits between `retries` retries, each `multiplier` times the last, capped at maxRetryTime. */
function nominalBudgetMs(retry: RetryOptions): number {
  const initialRetryTime = retry.initialRetryTime ?? RETRY_DEFAULTS.initialRetryTime
  const multiplier = retry.multiplier ?? RETRY_DEFAULTS.multiplier
  const maxRetryTime = retry.maxRetryTime ?? RETRY_DEFAULTS.maxRetryTime
  const retries = retry.retries ?? RETRY_DEFAULTS.retries
  let total = 0
  for (let i = 0, wait = initialRetryTime; i < retries; i++, wait = Math.min(wait * multiplier, maxRetryTime)) total += wait
  return total
}

function rootCause(e: unknown): { retriable?: boolean } {
  let c = e as { cause?: unknown; retriable?: boolean }
  while (c && c.cause) c = c.cause as typeof c
  return c ?? {}
}

/**
 * The consumer's public face (its private state left out, so KafkaJS's Consumer type fits where it is asked for).
 * Exported as Consumer: KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Consumer.
 */
export type PublicConsumer = Pick<Consumer, keyof Consumer>
