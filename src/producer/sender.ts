import { BatchTally } from './batch-statistics.js'
import { restampBatch } from '../codec/batch-restamp.js'
import type { CompressionType } from '../codec/compression.js'
import { encodeRecordBatch, encodeStagedRecords } from '../codec/batch-encoder.js'
import { releaseBatch } from '../codec/batch-slabs.js'
import type { LeaderConnections } from '../cluster/client.js'
import { KafkaError, ProtocolError, UnsupportedApiError, WafkaError, kafkaError, TimeoutError } from '../errors.js'
import { backoffMs } from '../net/backoff.js'
import { ZERO_UUID } from '../protocol/api.js'
import { Produce } from '../protocol/messages/index.js'
import { TRANSACTION_V1_MAX } from '../protocol/versions-in-use.js'
import { ProducerBatch, type Accumulator, type PartitionQueue } from './accumulator.js'
import type { ResolvedProducerConfig } from './config.js'
import type { ProducerIdentity } from './producer-identity.js'
import type { TransactionManager } from './transaction-manager.js'
import { SEQUENCE_LOST } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { describeError } from '../logger.js'
import { channels, type ProduceContext } from '../observe/channels.js'

const { DUPLICATE_SEQUENCE_NUMBER, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, PRODUCER_FENCED, MESSAGE_TOO_LARGE } = ErrorCodes
const ZSTD = 4

/** Told of a failed attempt that will be retried: the error, how many retries came before, the wait. */
export type RetryListener = (err: Error, retryCount: number, retryMs: number) => void

/**
 * Moves ready batches to their leaders: one Produce request per broker
 * carries at most one batch per partition, up to maxInFlight requests per
 * broker. Retriable failures go back in the queue in sequence order, and
 * while a partition catches up its batches go one at a time, so retries keep
 * order with idempotence. Failures that break the sequence (a batch given up
 * on, UNKNOWN_PRODUCER_ID, an unexplained OUT_OF_ORDER_SEQUENCE_NUMBER) bump
 * the epoch and re-sequence what is unsent, as the Java client does.
 */
export class Sender {
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Infinity
  private immediate = false
  private readonly inFlightByNode = new Map<number, number>()
  /** Batch sizes and linger, for the producer's statistics. */
  readonly tally = new BatchTally()
  private readonly idleWaiters: Array<() => void> = []
  private flushing = 0
  private needsBump = false
  private bumping: Promise<void> | undefined
  private closed = false
  /** How many times a failed batch is sent again (deliveryTimeoutMs bounds it too): limitRetries(). */
  retries = Infinity
  /** Told of each retried request instead of the WARN: limitRetries(). */
  onRetry: RetryListener | undefined

  constructor(
    private readonly cluster: LeaderConnections,
    private readonly accumulator: Accumulator,
    private readonly config: ResolvedProducerConfig,
    private readonly identity: ProducerIdentity | null,
    private readonly txn: TransactionManager | null,
  ) {}

  /** Runs a drain soon (coalesced). */
  wakeup(): void {
    if (this.immediate || this.closed) return
    this.immediate = true
    setImmediate(() => {
      this.immediate = false
      this.drain()
    })
  }

  /** Runs a drain at `at` (ms since the epoch) unless one is due sooner. */
  schedule(at: number): void {
    if (at >= this.timerAt || this.closed) return
    clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => {
        this.timerAt = Infinity
        this.drain()
      },
      Math.max(0, at - Date.now()),
    )
  }

  /** Sends everything buffered now, ignoring lingerMs, and waits until it is acknowledged or failed. */
  async flush(): Promise<void> {
    this.flushing++
    try {
      while (!this.accumulator.empty) {
        const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve))
        this.wakeup()
        await idle
      }
    } finally {
      this.flushing--
    }
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
  }

  private notifyProgress(): void {
    for (const w of this.idleWaiters.splice(0)) w()
  }

  private drain(): void {
    if (this.closed) return
    const now = Date.now()
    if (this.needsBump) {
      this.bumpEpochWhenIdle()
      return
    }
    const { lingerMs, maxInFlight } = this.config
    let nextWake = Infinity
    const byNode = new Map<number, PartitionQueue[]>()
    for (const q of this.accumulator.queues.values()) {
      if (q.batches.length === 0) continue
      this.expire(q, now)
      const batch = q.batches.find((b) => !b.inFlight)
      if (!batch) continue
      nextWake = Math.min(nextWake, batch.deadline)
      const last = q.batches[q.batches.length - 1]
      if (!(batch.sealed || this.flushing > 0 || batch !== last || now - batch.createdAt >= lingerMs)) {
        nextWake = Math.min(nextWake, batch.createdAt + lingerMs)
        continue
      }
      if (batch.retryAt > now) {
        nextWake = Math.min(nextWake, batch.retryAt)
        continue
      }
      if ((q.retrying && q.inFlight > 0) || q.inFlight >= maxInFlight) continue
      if (this.txn && !this.txn.added(q)) {
        this.txn.add(q).then(
          () => this.wakeup(),
          (err) => this.failQueue(q, err),
        )
        continue
      }
      const info = this.cluster.metadata.partition(q.topic, q.partition)
      if (!info || info.leader < 0) {
        // Under a retry count (limitRetries()) no leader is a failed attempt, so it does not wait for deliveryTimeoutMs.
        if (info && this.retries !== Infinity) {
          const err = kafkaError(ErrorCodes.LEADER_NOT_AVAILABLE, { api: 'Metadata', detail: `${q.topic}-${q.partition}` })
          const retried = q.batches.filter((b) => !b.inFlight && this.retryOrFail(b, err))
          this.warnRetrying(info.leader, retried, err)
          continue
        }
        this.cluster.refreshMetadata([q.topic]).then(
          () => this.wakeup(),
          () => this.schedule(Date.now() + this.config.retryBackoffMs),
        )
        continue
      }
      const list = byNode.get(info.leader)
      if (list) list.push(q)
      else byNode.set(info.leader, [q])
    }
    for (const [node, queues] of byNode) this.sendTo(node, queues)
    if (nextWake < Infinity) this.schedule(nextWake)
    // A batch that expired above may have left a sequence gap.
    if (this.needsBump) this.bumpEpochWhenIdle()
  }

  /**
   * Fails batches that have waited past deliveryTimeoutMs. Those in flight
   * are not failed here: their request times out by the first one's
   * deadline (the request's timeout is capped at it), and then they fail.
   */
  private expire(q: PartitionQueue, now: number): void {
    // Oldest first: when the head is within its deadline, so is the rest.
    if (now < q.batches[0].deadline) return
    for (const batch of [...q.batches]) {
      // settleFailed: a batch sent before (waiting to be retried) leaves a gap in its sequence, so the epoch is bumped.
      if (!batch.inFlight && now >= batch.deadline) this.settleFailed(batch, this.expired(batch, batch.lastError))
    }
  }

  private sendTo(node: number, queues: PartitionQueue[]): void {
    let inFlight = this.inFlightByNode.get(node) ?? 0
    while (inFlight < this.config.maxInFlight) {
      const batches: ProducerBatch[] = []
      let size = 0
      let acks: number | undefined
      for (const q of queues) {
        if ((q.retrying && q.inFlight > 0) || q.inFlight >= this.config.maxInFlight) continue
        const batch = q.batches.find((b) => !b.inFlight)
        if (!batch || batch.retryAt > Date.now()) continue
        const last = q.batches[q.batches.length - 1]
        if (
          batches.length > 0 &&
          !(batch.sealed || this.flushing > 0 || batch !== last || Date.now() - batch.createdAt >= this.config.lingerMs)
        )
          continue
        if (acks !== undefined && batch.acks !== acks) continue
        const first = batch.encoded === null
        const bytes = this.encode(batch)
        if (first) this.tally.sent(batch.records.length, bytes.length, Date.now() - batch.createdAt)
        if (batches.length > 0 && size + bytes.length > this.config.maxRequestSize) continue
        acks = batch.acks
        batch.launch()
        batches.push(batch)
        size += bytes.length
      }
      if (batches.length === 0) break
      inFlight++
      this.inFlightByNode.set(node, inFlight)
      const sent = channels.produce.active
        ? this.traceProduce(node, batches, acks as -1 | 0 | 1)
        : this.produce(node, batches, acks as -1 | 0 | 1)
      sent.finally(() => {
        this.inFlightByNode.set(node, (this.inFlightByNode.get(node) ?? 1) - 1)
        this.notifyProgress()
        this.wakeup()
      })
    }
  }

  /** The batch's bytes, encoded (and sequenced) on its first send and reused by retries. */
  private encode(batch: ProducerBatch): Buffer {
    if (batch.encoded) return batch.encoded
    const q = batch.queue
    const id = this.identity
    if (id) {
      batch.baseSequence = q.nextSequence
      batch.producerEpoch = id.producerEpoch
      q.nextSequence = (q.nextSequence + batch.records.length) % 0x8000_0000
    }
    batch.sealed = true
    const options = {
      compression: batch.codec as CompressionType,
      compressionLevel: this.config.compressionLevel,
      producerId: id ? id.producerId : -1n,
      producerEpoch: id ? id.producerEpoch : -1,
      baseSequence: id ? batch.baseSequence : -1,
      transactional: this.txn !== null,
      defaultTimestamp: batch.createdAt,
    }
    const stage = batch.stage
    if (stage !== null) {
      batch.stage = null
      try {
        batch.encoded = encodeStagedRecords(stage, options)
      } finally {
        this.accumulator.recycle(stage)
      }
    } else {
      batch.encoded = encodeRecordBatch(batch.records, options)
    }
    return batch.encoded
  }

  /** One Produce request traced on `wafka:producer:produce`: its failure, already handled, is thrown only for the channel's `error`. */
  private traceProduce(node: number, batches: ProducerBatch[], acks: -1 | 0 | 1): Promise<void> {
    const context: ProduceContext = {
      nodeId: node,
      acks,
      batches: batches.map((b) => ({
        topic: b.queue.topic,
        partition: b.queue.partition,
        records: b.records.length,
        bytes: b.encoded!.length,
      })),
    }
    return channels.produce
      .trace(async () => {
        const failure = await this.produce(node, batches, acks)
        if (failure) throw failure
      }, context)
      .catch(() => {})
  }

  /** Sends one Produce request and settles its batches; resolves to the request's failure or the first partition's error, if any. */
  private async produce(node: number, batches: ProducerBatch[], acks: -1 | 0 | 1): Promise<Error | undefined> {
    let res
    let ids: Map<string, string> | null = null
    try {
      // Until it is open nothing is sent: if the partitions' leader moves meanwhile, they go there instead.
      const conn = await this.cluster.connection(
        node,
        'data',
        batches.map((b) => b.queue),
      )
      const topics = new Map<string, ProducerBatch[]>()
      for (const b of batches) topics.set(b.queue.topic, [...(topics.get(b.queue.topic) ?? []), b])
      ids = this.topicIds(topics.keys())
      // v13 names topics by id; without an id for each (an old broker's metadata) v12 names them.
      const version = conn.versionFor(Produce, Math.min(this.txn ? TRANSACTION_V1_MAX.Produce : Infinity, ids ? Infinity : 12))
      if (version < 3)
        throw new UnsupportedApiError(
          `${conn.name} speaks Produce up to v${version}: wafka needs v3+ (Kafka 0.11 or later) for record batches`,
        )
      if (version < 7) {
        for (const b of batches.filter((x) => x.codec === ZSTD)) {
          this.settleFailed(
            b,
            new UnsupportedApiError(`zstd needs Produce v7+ (Kafka 2.1); ${conn.name} speaks v${version}: use another compression`),
          )
        }
        batches = batches.filter((x) => x.codec !== ZSTD)
        if (batches.length === 0) return undefined
      }
      res = await conn.request(
        Produce,
        {
          transactionalId: this.txn ? this.identity!.transactionalId : null,
          acks,
          timeoutMs: this.config.requestTimeoutMs,
          topicData: [...topics].map(([name, list]) => ({
            name,
            topicId: ids?.get(name),
            partitionData: list.map((b) => ({ index: b.queue.partition, records: b.encoded! })),
          })),
        },
        // Not past the first batch's delivery deadline: a send's outcome is known by deliveryTimeoutMs, in flight or not.
        {
          version,
          expectResponse: acks !== 0,
          timeoutMs: Math.max(1, Math.min(this.config.requestTimeoutMs, Math.min(...batches.map((b) => b.deadline)) - Date.now())),
        },
      )
      if (acks === 0) {
        for (const b of batches) this.complete(b, -1n, -1n, -1n)
        return undefined
      }
    } catch (err) {
      const retried = batches.filter((b) => b.inFlight && this.retryOrFail(b, err as Error))
      this.warnRetrying(node, retried, err as Error)
      return err as Error
    }
    let failure: Error | undefined
    const answered = new Set<ProducerBatch>()
    const retried: ProducerBatch[] = []
    let retriedFor: Error | undefined
    const byId = new Map<string, string>()
    for (const [name, id] of ids ?? []) byId.set(id, name)
    for (const t of res!.responses) {
      const topic = t.name || byId.get(t.topicId)
      for (const p of t.partitionResponses) {
        const batch = batches.find((b) => b.queue.topic === topic && b.queue.partition === p.index)
        if (!batch || answered.has(batch)) continue
        answered.add(batch)
        if (p.errorCode !== ErrorCodes.NONE)
          failure ??= kafkaError(p.errorCode, { api: 'Produce', broker: `broker ${node}`, detail: `${topic}-${p.index}` })
        const err = this.onPartitionAnswer(batch, p.errorCode, p.baseOffset, p.logAppendTimeMs, p.logStartOffset, p.errorMessage, node)
        if (err) {
          retried.push(batch)
          retriedFor ??= err
        }
      }
    }
    if (retriedFor) this.warnRetrying(node, retried, retriedFor)
    for (const b of batches) {
      if (!answered.has(b) && b.inFlight)
        this.retryOrFail(
          b,
          new ProtocolError(`broker ${node} did not answer for ${b.queue.topic}-${b.queue.partition} in its Produce response`, {
            retriable: true,
          }),
        )
    }
    return failure
  }

  /** The topic id of each topic from the metadata, or null when one is unknown. */
  private topicIds(topics: Iterable<string>): Map<string, string> | null {
    const ids = new Map<string, string>()
    for (const name of topics) {
      const id = this.cluster.metadata.topics.get(name)?.topicId
      if (id === undefined || id === ZERO_UUID) return null
      ids.set(name, id)
    }
    return ids
  }

  private onPartitionAnswer(
    batch: ProducerBatch,
    code: number,
    baseOffset: bigint,
    logAppendTime: bigint,
    logStartOffset: bigint,
    message: string | null,
    node: number,
  ): Error | undefined {
    if (code === ErrorCodes.NONE) return void this.complete(batch, baseOffset, logAppendTime, logStartOffset)
    // Written before: a retry of a batch whose first answer was lost.
    if (code === DUPLICATE_SEQUENCE_NUMBER && this.identity) return void this.complete(batch, -1n, -1n, -1n)
    const q = batch.queue
    const err = kafkaError(code, {
      api: 'Produce',
      broker: `broker ${node}`,
      detail: `${q.topic}-${q.partition}${message ? `: ${message}` : ''}`,
    })
    // Past the broker's max.message.bytes: resend the records one a batch, so only a record too large fails.
    if (code === MESSAGE_TOO_LARGE && batch.records.length > 1) return void this.split(batch)
    if (this.identity) {
      const fenced = code === PRODUCER_FENCED || (this.txn !== null && code === INVALID_PRODUCER_EPOCH)
      if (fenced) {
        this.txn?.fatal(err)
        return void this.settleFailed(batch, err)
      }
      // An earlier batch failed and is being retried: this one follows it. (Not when this is the earliest
      // unacknowledged batch: then the broker's sequence is ahead of it, e.g. it wrote a later batch first.)
      if (code === OUT_OF_ORDER_SEQUENCE_NUMBER && q.retrying && q.batches[0] !== batch)
        return void this.retryOrFail(batch, new KafkaError(err.message, { code, type: err.type, retriable: true }))
      if (SEQUENCE_LOST.has(code)) {
        if (this.txn) {
          this.txn.fatal(err)
          return void this.settleFailed(batch, err)
        }
        // The broker lost or never had our sequence: start over under a new epoch.
        batch.landed()
        this.needsBump = true
        return
      }
    }
    // Retried (a leader that moved, a replica set short of in-sync replicas): the request's WARN says so.
    return this.retryOrFail(batch, err) ? err : undefined
  }

  /**
   * Replaces a rejected batch by one batch per record, in its place and with
   * its sequence numbers (the broker wrote none of them), as Java does.
   */
  private split(batch: ProducerBatch): void {
    const q = batch.queue
    batch.landed()
    const singles = batch.records.map((record, i) => {
      const single = new ProducerBatch(q, batch.codec, batch.acks, batch.createdAt, batch.deadline)
      single.add(record, batch.callOf(i))
      single.bytes =
        i === 0
          ? batch.bytes - (batch.records.length - 1) * Math.floor(batch.bytes / batch.records.length)
          : Math.floor(batch.bytes / batch.records.length)
      single.sealed = true
      if (this.identity) {
        single.baseSequence = (batch.baseSequence + i) % 0x8000_0000
        single.producerEpoch = batch.producerEpoch
      }
      single.encoded = encodeRecordBatch([record], {
        compression: batch.codec as CompressionType,
        compressionLevel: this.config.compressionLevel,
        producerId: this.identity ? this.identity.producerId : -1n,
        producerEpoch: this.identity ? batch.producerEpoch : -1,
        baseSequence: this.identity ? single.baseSequence : -1,
        transactional: this.txn !== null,
        defaultTimestamp: batch.createdAt,
      })
      return single
    })
    q.batches.splice(q.batches.indexOf(batch), 1, ...singles)
    this.wakeup()
  }

  /** Puts a failed batch back in its queue, or fails it; true when it will be retried. */
  private retryOrFail(batch: ProducerBatch, err: Error): boolean {
    const q = batch.queue
    const retriable = err instanceof WafkaError && err.retriable
    if (retriable && Date.now() < batch.deadline && !this.closed && batch.attempts < this.retries) {
      batch.landed()
      batch.attempts++
      batch.lastError = err
      batch.retryAt = Date.now() + backoffMs(batch.attempts - 1, this.config.retryBackoffMs, this.config.retryBackoffMaxMs)
      if (this.identity) q.retrying = true
      this.cluster.log('Producer').debug('retrying a batch', {
        topic: q.topic,
        partition: q.partition,
        attempt: batch.attempts,
        backoffMs: batch.retryAt - Date.now(),
        ...describeError(err),
      })
      this.cluster.afterError(err).finally(() => this.schedule(batch.retryAt))
      return true
    }
    this.settleFailed(batch, retriable && Date.now() >= batch.deadline ? this.expired(batch, err) : err)
    return false
  }

  /**
   * One WARN for a Produce request's failures that will be retried (a lost
   * broker, a leader that moved), however many batches and records it carried.
   */
  private warnRetrying(node: number, retried: ProducerBatch[], err: Error): void {
    if (retried.length === 0) return
    if (this.onRetry) return this.onRetry(err, retried[0].attempts - 1, Math.max(0, retried[0].retryAt - Date.now()))
    const records = retried.reduce((n, b) => n + b.records.length, 0)
    this.cluster.log('Producer').warn(`Produce to broker ${node} failed: retrying ${retried.length} batch(es)`, {
      broker: node,
      batches: retried.length,
      records,
      partitions: retried.slice(0, 10).map((b) => `${b.queue.topic}-${b.queue.partition}`),
      ...describeError(err),
    })
  }

  private expired(batch: ProducerBatch, cause?: Error): TimeoutError {
    const q = batch.queue
    const why = cause ? `: ${cause.message}` : ''
    return new TimeoutError(
      `${batch.records.length} record(s) for ${q.topic}-${q.partition} were not acknowledged within deliveryTimeoutMs (${this.config.deliveryTimeoutMs} ms)${why}`,
      { retriable: false, cause },
    )
  }

  /** Gives up on an in-flight batch; with idempotence its sequence is now a gap, so the epoch is bumped. */
  private settleFailed(batch: ProducerBatch, err: Error): void {
    batch.landed()
    if (this.identity && !this.txn && batch.encoded) this.needsBump = true
    this.fail(batch, err)
  }

  private fail(batch: ProducerBatch, err: Error): void {
    const q = batch.queue
    const at = q.batches.indexOf(batch)
    if (at >= 0) q.batches.splice(at, 1)
    for (const call of batch.calls) {
      if (call.done) continue
      call.done = true
      call.reject(err)
    }
    this.accumulator.release(batch.bytes)
    if (!q.batches.some((b) => b.attempts > 0)) q.retrying = false
    this.notifyProgress()
  }

  private failQueue(q: PartitionQueue, err: Error): void {
    for (const b of [...q.batches]) if (!b.inFlight) this.fail(b, err)
  }

  private complete(batch: ProducerBatch, baseOffset: bigint, logAppendTime: bigint, logStartOffset: bigint): void {
    const q = batch.queue
    batch.landed()
    const at = q.batches.indexOf(batch)
    if (at >= 0) q.batches.splice(at, 1)
    // Sent once and answered: no socket still holds its bytes, so its slab space can be used again.
    if (batch.attempts === 0 && batch.encoded !== null) releaseBatch(batch.encoded)
    batch.encoded = null
    // A send's records sit next to each other in a batch: each run of them is settled at once.
    const { calls, runs } = batch
    for (let r = 0, first = 0; r < calls.length; first += runs[r++]) {
      const call = calls[r]
      if (call.done) continue
      const seen = call.offsets.get(q)
      // A send's records in a partition sit together in each batch: the batch with the lower base holds the first.
      if (seen === undefined) call.offsets.set(q, { batchBase: baseOffset, index: first, logAppendTime, logStartOffset })
      else if (baseOffset >= 0n && baseOffset < seen.batchBase) {
        seen.batchBase = baseOffset
        seen.index = first
        seen.logAppendTime = logAppendTime
        seen.logStartOffset = logStartOffset
      }
      call.pending -= runs[r]
      if (call.pending === 0) {
        call.done = true
        call.resolve()
      }
    }
    this.accumulator.release(batch.bytes)
    if (q.retrying && !q.batches.some((b) => b.attempts > 0 && b.encoded)) q.retrying = false
  }

  /** Waits for nothing to be in flight, then bumps the epoch and re-sequences every unsent batch from 0. */
  private bumpEpochWhenIdle(): void {
    if (this.bumping) return
    for (const q of this.accumulator.queues.values()) if (q.inFlight > 0) return // their answers wake us
    this.bumping = this.identity!.init(true)
      .then(() => {
        this.needsBump = false
        const id = this.identity!
        for (const q of this.accumulator.queues.values()) {
          q.nextSequence = 0
          q.retrying = false
          for (const b of q.batches) {
            if (!b.encoded) continue
            b.baseSequence = q.nextSequence
            b.producerEpoch = id.producerEpoch
            q.nextSequence = (q.nextSequence + b.records.length) % 0x8000_0000
            restampBatch(b.encoded, id.producerId, id.producerEpoch, b.baseSequence)
          }
        }
      })
      .catch((err) => {
        this.cluster.log('Producer').error('taking a new producer epoch failed: failing what is queued', describeError(err))
        for (const q of this.accumulator.queues.values()) this.failQueue(q, err)
        this.needsBump = false
      })
      .finally(() => {
        this.bumping = undefined
        this.wakeup()
      })
  }
}
