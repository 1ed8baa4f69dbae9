import { EventEmitter } from 'node:events'
import type { ConsumerCluster } from '../../cluster/client.js'
import { ConfigError, WafkaError } from '../../errors.js'
import { ConsumerLog } from '../consumer-log.js'
import { CoordinatorLink } from '../coordinator-link.js'
import { ConsumerEvents } from '../events.js'
import type { TopicPartition } from '../partition-state.js'
import { PendingAcknowledgements, type AcknowledgeType } from './acknowledgements.js'
import { resolveShareConsumerConfig, type ResolvedShareConsumerConfig, type ShareConsumerConfig } from './config.js'
import { ShareFetcher, type AcknowledgementResult } from './share-fetcher.js'
import { ShareMembership } from './share-membership.js'
import type { ShareMessage } from './share-message.js'
import { ShareRunner, type ShareHandlers } from './share-runner.js'

export type { AcknowledgementResult } from './share-fetcher.js'
export type { ShareDelivery } from './share-message.js'
export type { ShareEachBatchPayload, ShareEachMessagePayload, ShareHandlers } from './share-runner.js'
export type { AcknowledgeType } from './acknowledgements.js'

/** The share consumer's events: the consumer's, and what became of acknowledgements. */
export const ShareConsumerEvents = {
  ...ConsumerEvents,
  /** Not in KafkaJS: acknowledgements the brokers answered for (Java's AcknowledgementCommitCallback), with the error if any. */
  ACKNOWLEDGED: 'consumer.share_acknowledged',
} as const

/**
 * Where the consumer stands; every change goes through `transition()`.
 * idle → connected → running (a run() or messages() in progress) → stopping → stopped; crashed: a run ended on an error.
 */
type ShareConsumerState = 'idle' | 'connected' | 'running' | 'stopping' | 'stopped' | 'crashed'

/**
 * A share-group consumer (KIP-932, Java's KafkaShareConsumer): members of a
 * share group read the same partitions together, each record acquired by
 * one member at a time and acknowledged on its own (accept, release for
 * redelivery, reject). `subscribe`, then `run({ eachMessage | eachBatch })`
 * or `for await (const message of consumer)`.
 *
 * The facade over its parts: the membership (ShareGroupHeartbeat: the
 * assignment comes from the broker), the fetcher (ShareFetch per leader
 * within a share session, acknowledgements carried along), and the runner
 * (user code and the acknowledgement modes).
 */
export class ShareConsumer {
  readonly events = ShareConsumerEvents
  private readonly config: ResolvedShareConsumerConfig
  private readonly emitter = new EventEmitter()
  private readonly coordinator: CoordinatorLink
  private readonly membership: ShareMembership
  private readonly pending = new PendingAcknowledgements()
  private readonly fetcher: ShareFetcher
  private readonly runner: ShareRunner
  private readonly log: ConsumerLog
  private topics: string[] = []
  private state: ShareConsumerState = 'idle'
  private joined: Promise<void> | undefined
  private running: Promise<void> | undefined
  private eventId = 0

  constructor(
    private readonly cluster: ConsumerCluster,
    config: ShareConsumerConfig,
  ) {
    this.config = resolveShareConsumerConfig(config)
    const emit = (type: string, payload: object) => this.emit(type, payload)
    this.log = new ConsumerLog(cluster.log('Consumer'), this.config.groupId)
    this.coordinator = new CoordinatorLink(cluster, this.config.groupId)
    this.membership = new ShareMembership(this.coordinator, this.config, {
      assigned: (partitions) => {
        this.log.joined({ memberId: this.membership.memberId, memberAssignment: partitions, groupProtocol: 'share' })
        this.runner.wake()
      },
      topics: () => this.topics,
      emit,
      fatal: (err) => this.crash(err),
    })
    this.fetcher = new ShareFetcher(
      cluster,
      this.config,
      () => this.membership.memberId,
      this.pending,
      (results) => this.acknowledged(results),
      (err) => this.crash(err),
      (topic, partition, offsets, ok) => this.runner.renewOutcome(topic, partition, offsets, ok),
    )
    this.runner = new ShareRunner(this.config, this.fetcher, this.pending, () => this.membership.partitions, this.log, emit)
    // Errors reach users as CRASH events (and the logger); an 'error' event nobody listens to must not throw.
    this.emitter.on('error', () => {})
  }

  private transition(to: ShareConsumerState, why: string): void {
    if (this.state === to) return
    this.cluster.log('Consumer').debug(`share consumer ${this.state} → ${to}: ${why}`, { groupId: this.config.groupId })
    this.state = to
  }

  get memberId(): string {
    return this.membership.memberId
  }

  /**
   * How long the broker lets this member hold a record it acquired (the
   * group's share.record.lock.duration.ms, as the last ShareFetch or
   * ShareAcknowledge said), to know when to renew; undefined until a broker
   * said. Java's acquisitionLockTimeoutMs().
   */
  acquisitionLockTimeoutMs(): number | undefined {
    return this.fetcher.lockTimeoutMs
  }

  /** The partitions the coordinator assigned this member (others may hold them too). */
  assignment(): TopicPartition[] {
    return [...this.membership.partitions]
  }

  async connect(): Promise<void> {
    if (this.state !== 'idle') return
    await this.cluster.connect()
    this.transition('connected', 'connected')
    this.emit(ConsumerEvents.CONNECT, {})
  }

  /** The topics to read (names). Called again, it replaces them, as Java's subscribe(). */
  async subscribe(options: { topics: string[] }): Promise<void> {
    const topics = options?.topics
    if (!Array.isArray(topics) || topics.some((t) => typeof t !== 'string' || t === ''))
      throw new ConfigError('subscribe({ topics }) takes an array of topic names')
    this.topics = [...new Set(topics)].sort()
    this.cluster.use(this.topics)
    await this.cluster
      .refreshMetadata(this.topics)
      .catch(this.cluster.log('Consumer').caught('metadata for the subscription failed; retried'))
    this.membership.subscriptionChanged()
  }

  /** Starts consuming into the handlers; resolves once the member joined its group (the handlers run on in the background). */
  async run(handlers: ShareHandlers): Promise<void> {
    if (!handlers || (typeof handlers.eachMessage !== 'function' && typeof handlers.eachBatch !== 'function'))
      throw new ConfigError('run() needs eachMessage or eachBatch')
    await this.begin()
    this.running = this.runner.run(handlers).catch((err) => this.crash(err))
  }

  /**
   * The records one at a time. Implicit mode: a record is accepted when the
   * next one is asked for (or the loop ends); explicit mode: acknowledge()
   * each before asking for more records than the last fetch brought.
   */
  async *messages(): AsyncGenerator<ShareMessage, void, undefined> {
    await this.begin()
    try {
      while (!this.runner.isStopped) {
        for (const batch of await this.runner.next())
          for (const m of batch.messages) {
            if (this.runner.isStopped) return
            this.runner.delivered(m)
            yield m
            this.runner.processed(m)
          }
      }
    } finally {
      // Leaving the loop: what the body finished is done, what it never saw goes back.
      this.runner.settleRound(true)
      if (this.state === 'running') this.transition('connected', 'the iteration ended')
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<ShareMessage, void, undefined> {
    return this.messages()
  }

  /**
   * Explicit mode: what to do with a record handed out ('accept' by default);
   * sent with the next fetch or commit. 'renew' (KIP-1222, Java's
   * AcknowledgeType.RENEW) keeps the record: its acquisition lock starts
   * again, and the next round hands it out again to be acknowledged anew.
   */
  acknowledge(message: ShareMessage, type: AcknowledgeType = 'accept'): void {
    this.runner.acknowledge(message, type)
  }

  /** Sends the acknowledgements made so far now, and resolves with what the brokers said of each partition's. */
  async commitSync(): Promise<AcknowledgementResult[]> {
    return this.fetcher.commit()
  }

  /** Sends the acknowledgements made so far; their outcome comes as ACKNOWLEDGED events. */
  commitAsync(): void {
    this.fetcher.commit().catch(this.cluster.log('Consumer').caught('commitAsync failed', 'warn', { groupId: this.config.groupId }))
  }

  /**
   * Stops handing out records, sends the last acknowledgements (implicit
   * mode: what user code finished is accepted; anything not acknowledged is
   * released), closes the share sessions and leaves the group.
   */
  async disconnect(): Promise<void> {
    if (this.state === 'idle' || this.state === 'stopped') return
    this.transition('stopping', 'disconnect()')
    this.runner.stop()
    await this.running
    this.runner.settleRound(true)
    await this.fetcher
      .close()
      .catch(this.cluster.log('Consumer').caught('the closing acknowledgements failed', 'warn', { groupId: this.config.groupId }))
    await this.membership.leave()
    await this.cluster.disconnect()
    this.transition('stopped', 'disconnected')
    this.log.stopped()
    this.emit(ConsumerEvents.STOP, {})
    this.emit(ConsumerEvents.DISCONNECT, {})
  }

  /** Java's name for disconnect(). */
  close(): Promise<void> {
    return this.disconnect()
  }

  on(event: string, listener: (event: { id: number; type: string; timestamp: number; payload: any }) => void): () => void {
    this.emitter.on(event, listener)
    return () => this.emitter.off(event, listener)
  }

  private emit(type: string, payload: object): void {
    this.emitter.emit(type, { id: this.eventId++, type, timestamp: Date.now(), payload })
  }

  private acknowledged(results: AcknowledgementResult[]): void {
    for (const r of results)
      if (r.error)
        this.cluster.log('Consumer').warn('acknowledgements not applied', {
          groupId: this.config.groupId,
          topic: r.topic,
          partition: r.partition,
          count: r.count,
          error: r.error.message,
        })
    this.emit(ShareConsumerEvents.ACKNOWLEDGED, { results })
  }

  private async begin(): Promise<void> {
    if (this.state === 'running') throw new WafkaError('this share consumer is already running (one run() or messages() at a time)')
    if (this.state === 'stopping' || this.state === 'stopped' || this.state === 'crashed')
      throw new WafkaError(`this share consumer is ${this.state}: make a new one`)
    if (this.topics.length === 0) throw new ConfigError('subscribe({ topics }) before run() or messages()')
    await this.connect()
    this.transition('running', 'consuming')
    this.log.starting()
    this.joined ??= this.membership.start()
    await this.joined
  }

  private crash(err: unknown): void {
    if (this.state === 'crashed' || this.state === 'stopping' || this.state === 'stopped') return
    this.transition('crashed', (err as Error)?.message ?? String(err))
    this.log.crashed(err, false)
    this.emit(ConsumerEvents.CRASH, { error: err, groupId: this.config.groupId, restart: false })
    this.runner.stop()
    // What was acknowledged (or released by the crash) goes now, not when the locks expire.
    this.fetcher
      .commit()
      .catch(this.cluster.log('Consumer').caught('the acknowledgements after a crash failed', 'warn', { groupId: this.config.groupId }))
  }
}
