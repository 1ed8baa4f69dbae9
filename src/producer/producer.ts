import { Compression, loadCodecs, loadZstd, codecId, type CompressionType } from '../codec/compression.js'
import { preloadBuiltins } from '../node-builtins.js'
import type { LeaderConnections } from '../cluster/client.js'
import { ConfigError, TimeoutError, WafkaError } from '../errors.js'
import { retryPolicy, withRetry } from '../cluster/retry.js'
import { backoffMs, sleep } from '../net/backoff.js'
import { Accumulator, recordSize, type SendCall } from './accumulator.js'
import { acksValue, type Acks, type ResolvedProducerConfig } from './config.js'
import { createPartitioner, type Partitioner } from './partitioners/index.js'
import { checkMessage } from './message-check.js'
import { ProducerIdentity } from './producer-identity.js'
import { Sender, type RetryListener } from './sender.js'
import { TransactionManager } from './transaction-manager.js'
import { checkOptions } from '../config/option.js'
import { describeError } from '../logger.js'
import { channels, type SendContext } from '../observe/channels.js'
import { announce, statisticsTimer, type ObservedBy, type ProducerStatistics } from '../observe/statistics.js'
import { EventEmitter } from 'node:events'
import {
  SEND_ALIASES,
  SEND_BATCH_OPTIONS,
  SEND_OPTIONS,
  TOPIC_MESSAGES_OPTIONS,
  type Message,
  type ProducerRecord,
  type SendBatch,
} from './send-options.js'

export type { Message, ProducerRecord, SendBatch } from './send-options.js'

/** What a send resolves to, per partition, as KafkaJS reports it. */
export interface RecordMetadata {
  topicName: string
  partition: number
  errorCode: number
  /** Offset of this send's first record in the partition; '-1' when unknown (acks=0). */
  baseOffset: string
  /** '-1' unless the topic uses LogAppendTime. */
  logAppendTime: string
  logStartOffset: string
}

export interface Transaction {
  send(record: ProducerRecord): Promise<RecordMetadata[]>
  sendBatch(batch: SendBatch): Promise<RecordMetadata[]>
  /**
   * Commits consumed offsets with the transaction (exactly-once consume-transform-produce).
   * `consumerGroupMetadata` (the consumer's groupMetadata(), Java's sendOffsetsToTransaction
   * with ConsumerGroupMetadata) lets the coordinator refuse them from a member no longer in
   * the group (KIP-447). A partition's `metadata` is committed with its offset (Java's
   * OffsetAndMetadata.metadata).
   */
  sendOffsets(offsets: {
    consumerGroupId: string
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string | number | bigint; metadata?: string | null }> }>
    consumerGroupMetadata?: { generationId: number; memberId: string; groupInstanceId: string | null }
  }): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
  isActive(): boolean
}

/**
 * A Kafka producer shaped like KafkaJS's, with the Java client's semantics
 * and defaults: records are batched per partition (batchSize, lingerMs),
 * one Produce request per broker carries every ready partition, retries keep
 * order (idempotence on by default), and send() resolves once the records
 * are acknowledged as `acks` asks.
 */
/** The producer's events (`producer.on(ProducerEvents.STATS, ...)`). */
export const ProducerEvents = {
  /** Every statisticsIntervalMs, the producer's statistics (src/observe/statistics.ts). */
  STATS: 'producer.stats',
} as const

export class Producer {
  readonly events = ProducerEvents
  readonly config: ResolvedProducerConfig
  private readonly accumulator: Accumulator
  private readonly identity: ProducerIdentity | null
  private readonly txn: TransactionManager | null
  private readonly sender: Sender
  private readonly partitioner: Partitioner
  private state: 'new' | 'connecting' | 'connected' | 'closed' = 'new'
  private connecting: Promise<void> | undefined
  /** Settles when the latest send() has appended its records: sends append in call order. */
  private appendTail: Promise<void> = Promise.resolve()
  /** How many times metadata for a send is asked again (limitRetries()); otherwise until maxBlockMs. */
  private retries = Infinity
  /** Told of each retry instead of the log (limitRetries()); the caller then says when a send fails, too. */
  private onRetry: RetryListener | undefined

  /** `config`: resolved by Kafka.producer(), which reads it first to size the connections. */
  private readonly emitter = new EventEmitter()
  /** Stops the statisticsIntervalMs timer. */
  private stopStatistics = () => {}

  constructor(
    private readonly cluster: LeaderConnections,
    config: ResolvedProducerConfig,
    /** Its client id and per-broker request figures (these when statisticsIntervalMs is on; Kafka.producer() gathers them). */
    private readonly observed: ObservedBy = {},
  ) {
    this.config = config
    this.partitioner = createPartitioner(this.config.partitioner as any)
    this.accumulator = new Accumulator(this.config.batchSize, this.config.bufferMemory, this.config.deliveryTimeoutMs)
    this.identity = this.config.idempotent
      ? new ProducerIdentity(cluster, this.config.transactionalId, this.config.transactionTimeoutMs)
      : null
    this.txn = this.config.transactionalId !== null ? new TransactionManager(cluster, this.identity!) : null
    this.sender = new Sender(cluster, this.accumulator, this.config, this.identity, this.txn)
  }

  /** Bootstraps, loads the codecs it needs, and gets a producer id (idempotent or transactional). */
  connect(): Promise<void> {
    if (this.state === 'closed') return Promise.reject(new WafkaError('the producer was disconnected: create a new one'))
    this.connecting ??= (async () => {
      this.state = 'connecting'
      // zstd's wasm build (where node:zlib lacks zstd) is ~20 ms of CPU to load: only when this producer compresses with it.
      await Promise.all([this.cluster.connect(), this.config.codec === Compression.zstd ? loadCodecs() : preloadBuiltins()])
      await this.identity?.init()
      this.state = 'connected'
      announce('connect', this)
      this.stopStatistics = statisticsTimer(
        this.config.statisticsIntervalMs,
        () => ({ ...this.statistics(), brokers: this.observed.brokers?.() ?? [] }),
        (s) => this.emitter.emit(ProducerEvents.STATS, { type: ProducerEvents.STATS, timestamp: s.time, payload: s }),
      )
    })()
    return this.connecting
  }

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    if (this.txn) return Promise.reject(new WafkaError('this producer is transactional: send through producer.transaction()'))
    try {
      checkRecord(record)
    } catch (err) {
      return Promise.reject(err)
    }
    return this.enqueue([{ topic: record.topic, messages: record.messages }], record.acks, record.compression)
  }

  sendBatch(batch: SendBatch): Promise<RecordMetadata[]> {
    if (this.txn) return Promise.reject(new WafkaError('this producer is transactional: send through producer.transaction()'))
    try {
      checkBatch(batch)
    } catch (err) {
      return Promise.reject(err)
    }
    return this.enqueue(batch.topicMessages, batch.acks, batch.compression)
  }

  /** Listens to a producer event (ProducerEvents.STATS); returns a function that stops listening. */
  on(event: string, listener: (event: { type: string; timestamp: number; payload: any }) => void): () => void {
    this.emitter.on(event, listener)
    return () => this.emitter.off(event, listener)
  }

  /** Its buffer now: bytes of bufferMemory taken, batches held and in flight (src/observe/statistics.ts). */
  statistics(): ProducerStatistics {
    const u = this.accumulator.usage()
    return {
      type: 'producer',
      clientId: this.observed.clientId ?? null,
      time: Date.now(),
      batches: this.sender.tally.snapshot(),
      bufferedBytes: u.bufferedBytes,
      bufferMemory: u.bufferMemory,
      queuedBatches: u.batches - u.inFlight,
      inFlightBatches: u.inFlight,
    }
  }

  /** Sends what is buffered now and waits until it is acknowledged (or has failed). */
  flush(): Promise<void> {
    return this.sender.flush()
  }

  /** Flushes, then closes the producer: nothing is sent after. */
  async disconnect(): Promise<void> {
    if (this.state === 'closed') return
    try {
      if (this.state === 'connected') await this.flush()
    } finally {
      this.state = 'closed'
      this.sender.close()
      this.stopStatistics()
      announce('disconnect', this)
      await this.cluster.disconnect()
    }
  }

  /** Begins a transaction (a transactionalId is required). */
  async transaction(): Promise<Transaction> {
    if (!this.txn) throw new ConfigError('transactions need a transactionalId in the producer config')
    if (this.state !== 'connected') await this.connect()
    const txn = this.txn
    txn.begin()
    let active = true
    const ensureActive = () => {
      if (!active) throw new WafkaError('this transaction has ended: start another with producer.transaction()')
    }
    const end = async (commit: boolean) => {
      ensureActive()
      try {
        await this.flush()
      } catch (err) {
        if (commit) throw err
        // Aborting: the failed sends already rejected their callers; the abort goes on regardless.
        this.cluster.log('Producer').caught('a send failed before the abort', 'debug')(err)
      }
      await txn.end(commit)
      active = false
    }
    return {
      send: async (record) => {
        ensureActive()
        checkRecord(record)
        txn.requireOpen()
        return this.enqueue([{ topic: record.topic, messages: record.messages }], record.acks, record.compression)
      },
      sendBatch: async (batch) => {
        ensureActive()
        checkBatch(batch)
        txn.requireOpen()
        return this.enqueue(batch.topicMessages, batch.acks, batch.compression)
      },
      sendOffsets: async ({ consumerGroupId, topics, consumerGroupMetadata }) => {
        ensureActive()
        await txn.sendOffsets(consumerGroupId, topics, consumerGroupMetadata)
      },
      commit: () => end(true),
      abort: () => end(false),
      isActive: () => active,
    }
  }

  /** A send, traced on `wafka:producer:send` when it has subscribers (its `start` runs before the messages are read). */
  private enqueue(
    topicMessages: Array<{ topic: string; messages: Message[] }>,
    acksOverride?: Acks,
    compression?: CompressionType,
  ): Promise<RecordMetadata[]> {
    if (!channels.send.active) return this.deliver(topicMessages, acksOverride, compression)
    const context: SendContext = { topicMessages, transactionalId: this.config.transactionalId, clusterId: this.cluster.metadata.clusterId }
    return channels.send.trace(() => this.deliver(topicMessages, acksOverride, compression), context)
  }

  private async deliver(
    topicMessages: Array<{ topic: string; messages: Message[] }>,
    acksOverride?: Acks,
    compression?: CompressionType,
  ): Promise<RecordMetadata[]> {
    if (this.state === 'closed') throw new WafkaError('the producer was disconnected: create a new one')
    // Take this send's place now, synchronously: its records are appended
    // after those of every send called before it, however long that one
    // waits for metadata or buffer space (maxBlockMs counts from here).
    const previous = this.appendTail
    let appended!: () => void
    this.appendTail = new Promise<void>((resolve) => (appended = resolve))
    const blockUntil = Date.now() + this.config.maxBlockMs
    let done: Promise<void>
    let call: SendCall
    try {
      try {
        await previous
        ;({ done, call } = await this.append(topicMessages, acksOverride, compression, blockUntil))
      } finally {
        appended()
      }
      await done
    } catch (err) {
      this.failed(topicMessages, err)
      throw err
    }
    return [...call.offsets].map(([q, o]) => ({
      topicName: q.topic,
      partition: q.partition,
      errorCode: 0,
      baseOffset: o.batchBase < 0n ? '-1' : String(o.batchBase + BigInt(o.index)),
      logAppendTime: String(o.logAppendTime),
      logStartOffset: String(o.logStartOffset),
    }))
  }

  /**
   * One ERROR for a send that failed for good (not per record or batch); not
   * for a caller's mistake (a ConfigError, thrown as it is), nor when the
   * caller retries the send itself (it says so), nor after disconnect().
   */
  private failed(topicMessages: Array<{ topic: string; messages: Message[] }>, err: unknown): void {
    if (this.onRetry || err instanceof ConfigError || this.state === 'closed') return
    const records = topicMessages.reduce((n, t) => n + (Array.isArray(t.messages) ? t.messages.length : 0), 0)
    const topics = [...new Set(topicMessages.map((t) => t.topic))]
    this.cluster.log('Producer').error(`a send of ${records} record(s) to ${topics.join(', ')} failed`, {
      topics,
      records,
      ...describeError(err),
    })
  }

  /**
   * Metadata for a send's topics, retried (Java's waitOnMetadata) while
   * brokers are unreachable or a topic is still being created, until maxBlockMs.
   */
  private async waitOnMetadata(topics: string[], blockUntil: number) {
    const options = { allowAutoTopicCreation: this.config.allowAutoTopicCreation }
    const policy = retryPolicy(this.config, blockUntil, this.cluster.signal)
    if (this.retries !== Infinity) {
      for (let n = 0; ; n++) {
        try {
          return await this.cluster.topicMetadata(topics, options)
        } catch (err) {
          if (!(err instanceof WafkaError && err.retriable) || this.cluster.signal.aborted) throw err
          if (n >= this.retries || Date.now() >= blockUntil) throw err
          const wait = backoffMs(n, policy.backoffMs, policy.backoffMaxMs)
          this.onRetry?.(err, n, wait)
          await sleep(wait, this.cluster.signal)
          await this.cluster.afterError(err)
        }
      }
    }
    try {
      return await withRetry(
        policy,
        () => this.cluster.topicMetadata(topics, options),
        (err) => this.cluster.afterError(err),
      )
    } catch (err) {
      if (!(err instanceof WafkaError) || !err.retriable || this.cluster.signal.aborted) throw err
      throw new TimeoutError(
        `send() waited ${this.config.maxBlockMs} ms (maxBlockMs) for metadata of ${topics.join(', ')}: ${err.message}`,
        { retriable: false, cause: err },
      )
    }
  }

  /** Appends a send's records to their partitions' batches; `done` settles when they are acknowledged. */
  private async append(
    topicMessages: Array<{ topic: string; messages: Message[] }>,
    acksOverride: Acks | undefined,
    compression: CompressionType | undefined,
    blockUntil: number,
  ): Promise<{ done: Promise<void>; call: SendCall }> {
    if (this.state !== 'connected') await this.connect()
    const acks = acksValue(acksOverride, this.config.acks)
    if (this.identity && acks !== -1)
      throw new ConfigError(`an idempotent producer sends with acks='all': this send asked for acks=${acksOverride}`)
    const codec = compression === undefined ? this.config.codec : codecId(compression)
    if (codec === Compression.zstd) await loadZstd()
    const now = Date.now()
    const { maxRequestSize } = this.config
    let total = 0
    const sizes: number[][] = []
    for (const { topic, messages } of topicMessages) {
      if (typeof topic !== 'string' || topic === '') throw new ConfigError('send() needs a topic name')
      if (!Array.isArray(messages)) throw new ConfigError(`send() to ${topic} needs messages: [...]`)
      const s = new Array<number>(messages.length)
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i]
        checkMessage(topic, i, m)
        const size = recordSize(m)
        if (size > maxRequestSize) {
          throw new ConfigError(
            `a record for ${topic} is ${size} bytes, more than maxRequestSize (${maxRequestSize}); nothing of this send was sent`,
          )
        }
        s[i] = size
      }
      sizes.push(s)
      total += messages.length
    }
    const infos = await this.waitOnMetadata(
      topicMessages.map((t) => t.topic),
      blockUntil,
    )

    let resolveCall!: () => void
    let rejectCall!: (err: Error) => void
    const done = new Promise<void>((resolve, reject) => {
      resolveCall = resolve
      rejectCall = reject
    })
    const call: SendCall = { pending: total, offsets: new Map(), resolve: resolveCall, reject: rejectCall, done: total === 0 }
    if (total === 0) {
      resolveCall()
      return { done, call }
    }
    let sealed = false
    for (let t = 0; t < topicMessages.length; t++) {
      const { topic, messages } = topicMessages[t]
      const info = infos[t]
      const count = info.partitions.length
      const available = info.partitions.filter((p) => p.leader >= 0).map((p) => p.partition)
      const queues = this.accumulator.queuesOf(topic)
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i]
        const bytes = sizes[t][i]
        const reserved = this.accumulator.reserve(bytes, blockUntil, this.config.maxBlockMs)
        if (reserved) {
          try {
            await reserved
          } catch (err) {
            // Records already appended still go out; their outcome no longer reaches this rejected call.
            call.done = true
            throw err
          }
        }
        let partition: number
        try {
          partition = m.partition ?? this.partitioner.partition(topic, m.key ?? null, count, available, m, info.partitions)
          if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
            throw new ConfigError(`partition ${partition} is not one of ${topic}'s ${count} partitions (0-${count - 1})`)
          }
        } catch (err) {
          this.accumulator.release(bytes)
          // Records already appended stay: they will be sent; the caller learns of the failure.
          call.done = true
          rejectCall(err as Error)
          break
        }
        if (this.accumulator.append(queues[partition] ?? this.accumulator.queue(topic, partition), m, bytes, codec, acks, call, now)) {
          this.partitioner.onBatchFull?.(topic, partition)
          sealed = true
        }
      }
    }
    if (sealed || this.config.lingerMs === 0) this.sender.wakeup()
    else this.sender.schedule(now + this.config.lingerMs)
    return { done, call }
  }
}

/**
 * Bounds how many times `producer` asks again for a send's metadata and sends
 * a failed batch again, a partition without a leader counting as a failure
 * (Java's `retries`; maxBlockMs and deliveryTimeoutMs bound them too), and
 * tells `onRetry` of each retry instead of logging it: the KafkaJS drop-in,
 * whose sends KafkaJS retries `retries` times and logs as it does. Only the
 * batches that failed are sent again, so a send is never written twice.
 */
export function limitRetries(producer: Producer, retries: number, onRetry?: RetryListener): void {
  producer['retries'] = retries
  producer['onRetry'] = onRetry
  producer['sender'].retries = retries
  producer['sender'].onRetry = onRetry
}

/** send()'s options: known keys, values of the right kind (the messages themselves are checked as they are appended). */
function checkRecord(record: ProducerRecord): void {
  checkOptions('send()', record, SEND_OPTIONS, SEND_ALIASES)
}

function checkBatch(batch: SendBatch): void {
  checkOptions('sendBatch()', batch, SEND_BATCH_OPTIONS, SEND_ALIASES)
  if (Array.isArray(batch?.topicMessages))
    for (const t of batch.topicMessages) checkOptions('sendBatch() topicMessages entry', t, TOPIC_MESSAGES_OPTIONS)
}
