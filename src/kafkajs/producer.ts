import {
  limitRetries,
  type Producer as EngineProducer,
  type Message as EngineMessage,
  type Transaction as EngineTransaction,
} from '../producer/producer.js'
import type { Logger as EngineLogger } from '../logger.js'
import { kafkajsLogger, type Logger } from './logger.js'
import { TimeoutError, WafkaError } from '../errors.js'
import {
  KafkaJSConnectionError,
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  toKafkaJSError,
} from './errors.js'
import { lastRetryTime, RETRY_DEFAULTS, type RetryOptions } from './retry.js'
import { Instrumentation, ProducerEvents, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js'
import { engineProducerConfig, type KafkaConfig, type ProducerConfig } from './options.js'
import type { Connector } from './kafka.js'
import type { CompressionTypes } from './compression.js'
import type { IHeaders } from './messages.js'

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Message. */
export interface Message {
  key?: Buffer | string | null
  value: Buffer | string | null
  partition?: number
  headers?: IHeaders
  timestamp?: string
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s ProducerRecord. */
export interface ProducerRecord {
  topic: string
  messages: Message[]
  acks?: number
  /** KafkaJS's broker-side wait for acks; the engine uses the producer's request timeout. */
  timeout?: number
  compression?: CompressionTypes
}

export interface TopicMessages {
  topic: string
  messages: Message[]
}

export interface ProducerBatch {
  acks?: number
  timeout?: number
  compression?: CompressionTypes
  topicMessages?: TopicMessages[]
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s RecordMetadata. */
export interface RecordMetadata {
  topicName: string
  partition: number
  errorCode: number
  offset?: string
  timestamp?: string
  baseOffset?: string
  logAppendTime?: string
  logStartOffset?: string
}

export interface TopicOffsets {
  topic: string
  partitions: Array<{ partition: number; offset: string }>
}

export interface Offsets {
  topics: TopicOffsets[]
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Transaction. */
export interface Transaction {
  send(record: ProducerRecord): Promise<RecordMetadata[]>
  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]>
  sendOffsets(offsets: Offsets & { consumerGroupId: string }): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
  isActive(): boolean
}

/** KafkaJS's producer over wafka's: KafkaJS's defaults (no idempotence unless asked), events and errors. */
export class Producer {
  readonly events = ProducerEvents
  private readonly instrumentation = new Instrumentation('producer', ProducerEvents)
  private inner: EngineProducer | undefined
  private readonly retries: number
  /** The wait before the last retry, as KafkaJS reports it (retryTime) when its retries are spent. */
  private readonly lastRetryTime: number

  constructor(
    private readonly connector: Connector,
    private readonly config: ProducerConfig,
    private readonly kafka: KafkaConfig,
    private readonly log: EngineLogger,
  ) {
    // Refuse a bad option now, as KafkaJS does at producer().
    engineProducerConfig(config, kafka)
    const retry = sendRetry(config, kafka)
    if (config.idempotent === true && retry.retries !== undefined) {
      if (retry.retries < 1)
        throw new KafkaJSNonRetriableError('Idempotent producer must allow retries to protect against transient errors')
      if (retry.retries < Number.MAX_SAFE_INTEGER)
        this.logger().warn('Limiting retries for the idempotent producer may invalidate EoS guarantees')
    }
    this.retries = retry.retries ?? RETRY_DEFAULTS.retries
    this.lastRetryTime = lastRetryTime(retry)
  }

  async connect(): Promise<void> {
    await this.connector.connect(async () => {
      const engine = (await this.connector.engine(this.instrumentation.requests(ProducerEvents), this.config.metadataMaxAge)).producer(
        engineProducerConfig(this.config, this.kafka),
      )
      // KafkaJS retries a send `retries` times: the engine retries what failed of it (and only that, so
      // nothing is written twice) as many times, and each retry is logged as KafkaJS logs it.
      limitRetries(engine, this.retries, (err, retryCount, retryTime) => this.failedAttempt(err, retryCount, retryTime))
      try {
        await engine.connect()
      } catch (err) {
        await engine.disconnect().catch(() => {})
        throw err
      }
      const previous = this.inner
      this.inner = engine
      await previous?.disconnect().catch(() => {})
    })
    this.instrumentation.emit(ProducerEvents.CONNECT)
  }

  async disconnect(): Promise<void> {
    const inner = this.inner
    this.inner = undefined
    if (inner) await inner.disconnect().catch((err) => Promise.reject(toKafkaJSError(err)))
    this.instrumentation.emit(ProducerEvents.DISCONNECT)
  }

  isIdempotent(): boolean {
    return this.config.idempotent === true || this.config.transactionalId !== undefined
  }

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const checked = engineRecord(record)
    return this.sending((p) => p.send(checked))
  }

  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return this.sending((p) =>
      p.sendBatch({
        topicMessages: (batch.topicMessages ?? []).map((t) => ({ topic: t.topic, messages: t.messages as EngineMessage[] })),
        acks: acks(batch.acks),
        compression: batch.compression,
      }),
    )
  }

  async transaction(): Promise<Transaction> {
    if (this.config.transactionalId === undefined)
      throw new KafkaJSNonRetriableError('Must provide transactional id for transactional producer')
    const txn: EngineTransaction = await this.call((p) => p.transaction())
    const call = <T>(fn: () => Promise<T>) => this.call(() => fn())
    return {
      send: (record) => this.call(() => txn.send(engineRecord(record)), true),
      sendBatch: (batch) =>
        this.call(
          () =>
            txn.sendBatch({
              topicMessages: (batch.topicMessages ?? []).map((t) => ({ topic: t.topic, messages: t.messages as EngineMessage[] })),
              acks: acks(batch.acks),
              compression: batch.compression,
            }),
          true,
        ),
      sendOffsets: (offsets) => call(() => txn.sendOffsets(offsets)),
      commit: () => call(() => txn.commit()),
      abort: () => call(() => txn.abort()),
      isActive: () => txn.isActive(),
    }
  }

  on(eventName: string, listener: (event: InstrumentationEvent) => void): RemoveInstrumentationEventListener {
    return this.instrumentation.on(eventName, listener)
  }

  logger(): Logger {
    return kafkajsLogger(this.log.namespace('Producer'))
  }

  /**
   * A send as KafkaJS's: a send before connect() is KafkaJS's retriable "The
   * producer is disconnected"; the engine retries under KafkaJS's count
   * (limitRetries()), then it ends as KafkaJSNumberOfRetriesExceeded, or,
   * for what KafkaJS retries inside its cluster (a lost cluster, a partition
   * without a leader), as KafkaJSNonRetriableError; the last failure is the
   * cause either way, and is logged as each retry was.
   */
  private async sending<T>(fn: (p: EngineProducer) => Promise<T>): Promise<T> {
    if (!this.inner) throw new KafkaJSError('The producer is disconnected')
    return this.call(fn, true)
  }

  /** KafkaJS's entry for a failed attempt: "Failed to send messages" where its send retries after a refresh. */
  private failedAttempt(raw: unknown, retryCount: number, retryTime: number): void {
    const e = toKafkaJSError(raw) as KafkaJSError
    const staleOrLost =
      e instanceof KafkaJSConnectionError || (e.name === 'KafkaJSProtocolError' && e.retriable) || e.name === 'KafkaJSMetadataNotLoaded'
    this.logger().error(staleOrLost ? `Failed to send messages: ${e.message}` : e.message, { retryCount, retryTime })
  }

  /**
   * A call on the engine, with KafkaJS's errors. A retriable failure the
   * engine kept retrying until its count or deadline was spent ends as
   * KafkaJS's ends once its retriers are spent: a send's as
   * KafkaJSNumberOfRetriesExceeded (but for what KafkaJS retries inside its
   * cluster, see sending()), others as KafkaJSNonRetriableError, the last
   * failure as cause.
   */
  private async call<T>(fn: (p: EngineProducer) => Promise<T>, send = false): Promise<T> {
    const inner = this.inner
    if (!inner) throw new KafkaJSError('The producer is disconnected')
    try {
      return await fn(inner)
    } catch (err) {
      const last = spentOn(err)
      if (last) {
        const cause = toKafkaJSError(last) as Error
        if (send) this.failedAttempt(last, this.retries, this.lastRetryTime)
        if (send && !retriedByCluster(cause))
          throw new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: this.retries, retryTime: this.lastRetryTime, cause })
        throw new KafkaJSNonRetriableError(cause, { cause })
      }
      throw toKafkaJSError(err)
    }
  }
}

/** The retriable failure behind an error that ended retries (a deadline spent on it), or the error itself when retriable. */
function spentOn(err: unknown): unknown {
  if (err instanceof WafkaError && err.retriable) return err
  if (err instanceof TimeoutError && !err.retriable && err.cause instanceof WafkaError && err.cause.retriable) return err.cause
  return undefined
}

const retriedByCluster = (e: unknown): boolean =>
  e instanceof KafkaJSConnectionError || (e instanceof KafkaJSProtocolError && e.type === 'LEADER_NOT_AVAILABLE')

/** A send's retry options as KafkaJS's Kafka.producer() gives them: the producer's over the Kafka object's. */
function sendRetry(config: ProducerConfig, kafka: KafkaConfig): RetryOptions {
  return { ...kafka.retry, ...config.retry }
}

function acks(value: number | undefined): -1 | 0 | 1 | undefined {
  return value as -1 | 0 | 1 | undefined
}

function engineRecord(record: ProducerRecord) {
  if (!record || typeof record.topic !== 'string' || record.topic === '') throw new KafkaJSNonRetriableError(`Invalid topic`)
  if (!Array.isArray(record.messages))
    throw new KafkaJSNonRetriableError(`Invalid messages array [${record.messages}] for topic "${record.topic}"`)
  return { topic: record.topic, messages: record.messages as EngineMessage[], acks: acks(record.acks), compression: record.compression }
}

/**
 * The producer's public face (its private state left out, so KafkaJS's Producer type fits where it is asked for).
 * Exported as Producer: KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Producer.
 */
export type PublicProducer = Pick<Producer, keyof Producer>
