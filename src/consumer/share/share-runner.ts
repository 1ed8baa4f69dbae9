import { WafkaError } from '../../errors.js'
import { backoffMs, sleep } from '../../net/backoff.js'
import type { ConsumerLog } from '../consumer-log.js'
import type { Emit } from '../events.js'
import type { TopicPartition } from '../partition-state.js'
import { ACKNOWLEDGE_TYPE_CODES, AcknowledgeTypes, type AcknowledgeType, type PendingAcknowledgements } from './acknowledgements.js'
import type { ResolvedShareConsumerConfig } from './config.js'
import { ShareFetcher } from './share-fetcher.js'
import type { ShareDelivery, ShareMessage } from './share-message.js'

export interface ShareEachMessagePayload {
  topic: string
  partition: number
  message: ShareMessage
}

export interface ShareEachBatchPayload {
  batch: ShareDelivery
}

export interface ShareHandlers {
  eachMessage?: (payload: ShareEachMessagePayload) => Promise<void> | void
  eachBatch?: (payload: ShareEachBatchPayload) => Promise<void> | void
}

/**
 * Where a record handed out by one fetch stands until its acknowledgement
 * is queued: fetched but not yet given to user code, or given to it.
 */
type Outstanding = 'fetched' | 'delivered'

/**
 * The share consumer's delivery side: asks the fetcher for records one
 * round at a time (as Java's poll() does: the next fetch goes out only when
 * user code asks for more, carrying what it acknowledged), hands them to
 * user code, and keeps every record it handed out until it is
 * acknowledged. The acknowledgement modes of Java's KafkaShareConsumer:
 * implicit, a record is accepted when its handler returns (a batch when
 * eachBatch returns, or when the next one is asked for); explicit, user code
 * calls acknowledge() for each, and asking for more with one left is an
 * error. A handler that throws releases the records it had not finished,
 * so they are delivered again (with one more delivery count).
 */
export class ShareRunner {
  private readonly outstanding = new Map<ShareMessage, Outstanding>()
  /** Records acknowledged RENEW whose renewal the broker has not answered yet, by topic, partition and offset. */
  private readonly renewing = new Map<string, ShareMessage>()
  /** Records whose locks were renewed: handed out again, before anything new is fetched. */
  private renewed: ShareMessage[] = []
  private failures = 0
  private stopped = false
  private waiting: (() => void) | undefined

  constructor(
    private readonly config: ResolvedShareConsumerConfig,
    private readonly fetcher: ShareFetcher,
    private readonly pending: PendingAcknowledgements,
    private readonly assignment: () => TopicPartition[],
    private readonly log: ConsumerLog,
    private readonly emit: Emit,
  ) {}

  /** The assignment changed, or the consumer stops: a round waiting for partitions goes on. */
  wake(): void {
    this.waiting?.()
  }

  stop(): void {
    this.stopped = true
    this.wake()
  }

  get isStopped(): boolean {
    return this.stopped
  }

  /** acknowledge(): explicit mode only, and only for a record handed out and not yet acknowledged. */
  acknowledge(message: ShareMessage, type: AcknowledgeType = 'accept'): void {
    if (this.config.acknowledgementMode !== 'explicit')
      throw new WafkaError("acknowledge() needs acknowledgementMode: 'explicit' (implicit mode accepts what handlers return from)")
    const code = ACKNOWLEDGE_TYPE_CODES[type]
    if (code === undefined)
      throw new WafkaError(`acknowledge type must be 'accept', 'release', 'reject' or 'renew', not ${JSON.stringify(type)}`)
    if (this.outstanding.get(message) !== 'delivered')
      throw new WafkaError(
        `${message.topic}-${message.partition} offset ${message.offset} was not handed out by this consumer, or is acknowledged already`,
      )
    this.settle(message, code)
    if (code === AcknowledgeTypes.RENEW) this.renewing.set(ShareRunner.key(message.topic, message.partition, message.offsetBigInt), message)
  }

  private static key(topic: string, partition: number, offset: bigint): string {
    return `${topic}\u0000${partition}\u0000${offset}`
  }

  /** The broker answered renewals: renewed records are handed out again (as Java's poll() returns them); refused ones are no longer this member's. */
  renewOutcome(topic: string, partition: number, offsets: bigint[], ok: boolean): void {
    for (const o of offsets) {
      const k = ShareRunner.key(topic, partition, o)
      const m = this.renewing.get(k)
      if (m === undefined) continue
      this.renewing.delete(k)
      if (ok) this.renewed.push(m)
    }
  }

  /** Implicit mode: user code is done with `message` (its handler returned). */
  processed(message: ShareMessage): void {
    if (this.config.acknowledgementMode === 'implicit' && this.outstanding.get(message) === 'delivered')
      this.settle(message, AcknowledgeTypes.ACCEPT)
  }

  /** Hands `message` to user code. */
  delivered(message: ShareMessage): void {
    if (this.outstanding.has(message)) this.outstanding.set(message, 'delivered')
  }

  /** User code failed on these: whatever of them is not acknowledged yet goes back to be delivered again. */
  release(messages: Iterable<ShareMessage>): void {
    for (const m of messages) if (this.outstanding.has(m)) this.settle(m, AcknowledgeTypes.RELEASE)
  }

  private settle(m: ShareMessage, type: number): void {
    this.outstanding.delete(m)
    this.pending.add(m.topic, m.partition, m.nodeId, m.offsetBigInt, type)
  }

  /**
   * Before the next round (or a close): records fetched but never handed
   * out are released; records handed out are accepted in implicit mode,
   * and in explicit mode are an error (Java's poll() throws the same).
   */
  settleRound(closing = false): void {
    const unacknowledged: ShareMessage[] = []
    for (const [m, state] of this.outstanding) {
      if (state === 'fetched') this.settle(m, AcknowledgeTypes.RELEASE)
      else if (this.config.acknowledgementMode === 'implicit') this.settle(m, AcknowledgeTypes.ACCEPT)
      else unacknowledged.push(m)
    }
    if (unacknowledged.length === 0) return
    // Released either way, so they are not held until their locks expire.
    this.release(unacknowledged)
    if (!closing)
      throw new WafkaError(
        `explicit acknowledgement: ${unacknowledged.length} record(s) handed out were not acknowledged before more were asked for ` +
          `(first: ${unacknowledged[0].topic}-${unacknowledged[0].partition} offset ${unacknowledged[0].offset}); they were released`,
      )
  }

  /** The next round's records, after settling the last round's; waits (bounded by maxWaitTimeInMs) while nothing is assigned. */
  async next(): Promise<ShareDelivery[]> {
    this.settleRound()
    // Renewals go out first (by ShareAcknowledge) and the renewed records come back to user code before anything new.
    if (this.renewing.size > 0) await this.fetcher.commit()
    if (this.renewed.length > 0 && !this.stopped) return this.redeliver()
    while (!this.stopped) {
      const partitions = this.assignment()
      if (partitions.length === 0 && this.pending.size === 0) {
        await new Promise<void>((resolve) => {
          this.waiting = resolve
          setTimeout(resolve, this.config.maxWaitTimeInMs).unref?.()
        })
        this.waiting = undefined
        continue
      }
      let deliveries: ShareDelivery[]
      try {
        this.emit('consumer.fetch_start', {})
        deliveries = await this.fetcher.fetch(partitions)
        this.failures = 0
      } catch (err) {
        if (!ShareFetcher.retriable(err)) throw err
        await sleep(backoffMs(this.failures++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs))
        continue
      }
      if (this.stopped) {
        for (const d of deliveries) this.release(d.messages.map((m) => (this.outstanding.set(m, 'fetched'), m)))
        return []
      }
      for (const d of deliveries) for (const m of d.messages) this.outstanding.set(m, 'fetched')
      if (deliveries.length > 0) {
        this.emit('consumer.fetch', { numberOfBatches: deliveries.length })
        return deliveries
      }
    }
    return []
  }

  /** The renewed records as this round's deliveries, one per partition, in offset order. */
  private redeliver(): ShareDelivery[] {
    const byPartition = new Map<string, ShareDelivery>()
    for (const m of this.renewed.splice(0)) {
      this.outstanding.set(m, 'fetched')
      const k = `${m.topic}\u0000${m.partition}`
      let d = byPartition.get(k)
      if (d === undefined) byPartition.set(k, (d = { topic: m.topic, partition: m.partition, messages: [] }))
      d.messages.push(m)
    }
    for (const d of byPartition.values()) d.messages.sort((a, b) => (a.offsetBigInt < b.offsetBigInt ? -1 : 1))
    this.emit('consumer.fetch', { numberOfBatches: byPartition.size })
    return [...byPartition.values()]
  }

  /** Runs handlers over every round until stop(); a handler that throws is logged and its unfinished records released. */
  async run(handlers: ShareHandlers): Promise<void> {
    while (!this.stopped) {
      const deliveries = await this.next()
      for (const batch of deliveries) {
        if (this.stopped) break
        const first = batch.messages[0]
        this.emit('consumer.start_batch_process', { topic: batch.topic, partition: batch.partition, batchSize: batch.messages.length })
        if (handlers.eachBatch) {
          for (const m of batch.messages) this.delivered(m)
          try {
            await handlers.eachBatch({ batch })
            for (const m of batch.messages) this.processed(m)
          } catch (err) {
            this.log.handlerFailed('eachBatch', batch.topic, batch.partition, first.offsetBigInt, err)
            this.release(batch.messages)
          }
        } else if (handlers.eachMessage) {
          for (let i = 0; i < batch.messages.length; i++) {
            const message = batch.messages[i]
            if (this.stopped) break
            this.delivered(message)
            try {
              await handlers.eachMessage({ topic: batch.topic, partition: batch.partition, message })
              this.processed(message)
            } catch (err) {
              this.log.handlerFailed('eachMessage', batch.topic, batch.partition, message.offsetBigInt, err)
              this.release(batch.messages.slice(i))
              break
            }
          }
        }
        this.emit('consumer.end_batch_process', { topic: batch.topic, partition: batch.partition, batchSize: batch.messages.length })
      }
    }
  }
}
