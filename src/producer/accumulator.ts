import { RecordStage } from '../codec/record-stage.js'
import type { RecordInput } from '../codec/types.js'
import { TimeoutError } from '../errors.js'

/** One user send(): settles when every record of it is acknowledged, or on the first failure. */
export interface SendCall {
  pending: number
  /** Per partition: where this call's first record there was written. */
  offsets: Map<PartitionQueue, WrittenAt>
  resolve(): void
  reject(err: Error): void
  done: boolean
}

/**
 * Where a send's records in one partition were written: the base offset of
 * the batch holding the first of them (-1n: not known, with acks=0) and their
 * index in it, kept apart so that acknowledging a batch does no BigInt
 * arithmetic per send; send() adds them up once, for its result.
 */
export interface WrittenAt {
  batchBase: bigint
  index: number
  logAppendTime: bigint
  logStartOffset: bigint
}

/** Records bound for one partition, sent as one RecordBatch. */
export class ProducerBatch {
  readonly records: RecordInput[] = []
  /** The sends its records belong to, one entry per run of consecutive records of the same send (a send's records sit together). */
  readonly calls: SendCall[] = []
  /** How many records each entry of `calls` has. */
  readonly runs: number[] = []
  bytes = 0
  sealed = false
  inFlight = false
  attempts = 0
  retryAt = 0
  /** Why its last attempt failed: the cause when it expires waiting to be retried. */
  lastError: Error | undefined = undefined
  /** Encoded once, on first send; retries send the same bytes (same sequence). */
  encoded: Buffer | null = null
  /** The records' bytes, copied as they were appended; null once encoded, or when a record could not be staged (then the records are encoded). */
  stage: RecordStage | null = null
  baseSequence = -1
  producerEpoch = -1

  constructor(
    readonly queue: PartitionQueue,
    readonly codec: number,
    readonly acks: -1 | 0 | 1,
    readonly createdAt: number,
    readonly deadline: number,
  ) {}

  /** Adds a record of `call` (the record's bytes are staged by the accumulator). */
  add(record: RecordInput, call: SendCall): void {
    this.records.push(record)
    const last = this.calls.length - 1
    if (last >= 0 && this.calls[last] === call) this.runs[last]++
    else {
      this.calls.push(call)
      this.runs.push(1)
    }
  }

  /** The send record `i` belongs to. */
  callOf(i: number): SendCall {
    let r = 0
    for (let left = i; left >= this.runs[r]; r++) left -= this.runs[r]
    return this.calls[r]
  }

  /** Goes out in a Produce request: its queue has one more batch in flight. */
  launch(): void {
    this.inFlight = true
    this.queue.inFlight++
  }

  /** Its request came back (answered, failed, or to be retried): its queue has one fewer in flight. No-op when not in flight. */
  landed(): void {
    if (!this.inFlight) return
    this.inFlight = false
    this.queue.inFlight--
  }
}

/** A partition's batches in send order; the last may still be open. */
export class PartitionQueue {
  readonly batches: ProducerBatch[] = []
  inFlight = 0
  /** After a retriable failure, batches go one at a time until the queue catches up (keeps order with idempotence). */
  retrying = false
  nextSequence = 0
  readonly key: string

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {
    this.key = `${topic}\u0000${partition}`
  }
}

/** Rough size of a record in a batch: what batchSize and bufferMemory count. */
export function recordSize(r: RecordInput): number {
  let n = 24 + size(r.key) + size(r.value)
  const h = r.headers
  if (h) {
    if (Array.isArray(h)) for (const [k, v] of h) n += 4 + k.length + size(v)
    else for (const k in h) n += 4 + k.length + size((h as any)[k])
  }
  return n
}

function size(v: unknown): number {
  if (v === null || v === undefined) return 0
  if (typeof v === 'string') return v.length
  if (Array.isArray(v)) return v.reduce((a, x) => a + size(x), 0)
  return (v as Uint8Array).length ?? 0
}

/**
 * Open batches per partition and the memory they hold. Appending to a full
 * or differently-configured batch seals it and opens another; a record
 * larger than batchSize gets a batch of its own. Waiting for memory is
 * bounded by maxBlockMs.
 */
export class Accumulator {
  readonly queues = new Map<string, PartitionQueue>()
  private used = 0
  private readonly waiters: Array<{ bytes: number; wake(): void }> = []
  /** Stages of encoded batches, for the next batches: in the steady state appending allocates no buffer. */
  private readonly stages: RecordStage[] = []

  constructor(
    private readonly batchSize: number,
    private readonly bufferMemory: number,
    private readonly deliveryTimeoutMs: number,
  ) {}

  /** The same queues by topic, then partition: the per-record lookup builds no key string. */
  private readonly byTopic = new Map<string, PartitionQueue[]>()

  /** The topic's queues by partition (a hole where none was made yet): looked up once per send, not per record. */
  queuesOf(topic: string): PartitionQueue[] {
    let list = this.byTopic.get(topic)
    if (list === undefined) {
      list = []
      this.byTopic.set(topic, list)
    }
    return list
  }

  queue(topic: string, partition: number): PartitionQueue {
    const list = this.queuesOf(topic)
    let q = list[partition]
    if (q === undefined) {
      q = new PartitionQueue(topic, partition)
      list[partition] = q
      this.queues.set(q.key, q)
    }
    return q
  }

  /** Appends a record; true when it sealed the partition's open batch (the sticky partitioner moves on). */
  append(q: PartitionQueue, record: RecordInput, bytes: number, codec: number, acks: -1 | 0 | 1, call: SendCall, now: number): boolean {
    let batch = q.batches[q.batches.length - 1]
    let sealed = false
    if (
      !batch ||
      batch.sealed ||
      batch.inFlight ||
      batch.encoded ||
      batch.codec !== codec ||
      batch.acks !== acks ||
      (batch.bytes > 0 && batch.bytes + bytes > this.batchSize)
    ) {
      if (batch && !batch.sealed) {
        batch.sealed = true
        sealed = true
      }
      batch = new ProducerBatch(q, codec, acks, now, now + this.deliveryTimeoutMs)
      batch.stage = this.stages.pop() ?? new RecordStage(this.batchSize + (this.batchSize >> 2))
      q.batches.push(batch)
    }
    const stage = batch.stage
    if (stage !== null && !stage.add(record)) {
      this.recycle(stage)
      batch.stage = null
    }
    batch.add(record, call)
    batch.bytes += bytes
    if (batch.bytes >= this.batchSize) {
      batch.sealed = true
      sealed = true
    }
    return sealed
  }

  /**
   * Takes `bytes` of bufferMemory for a record about to be appended, waiting
   * (in arrival order) until `blockUntil` (a Date.now() time: send()'s
   * maxBlockMs) for batches to complete and free it.
   */
  reserve(bytes: number, blockUntil: number, maxBlockMs: number): Promise<void> | undefined {
    // Synchronous when there is room: no promise, no microtask, no clock read per record.
    if (this.waiters.length === 0 && (this.used + bytes <= this.bufferMemory || this.used === 0)) {
      this.used += bytes
      return undefined
    }
    const waitMs = Math.max(0, blockUntil - Date.now())
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        bytes,
        wake: () => {
          clearTimeout(timer)
          this.used += bytes
          resolve()
        },
      }
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        reject(
          new TimeoutError(
            `send() waited ${maxBlockMs} ms (maxBlockMs) for buffer space: ${this.used} of bufferMemory ${this.bufferMemory} bytes are waiting to be sent`,
            { retriable: false },
          ),
        )
      }, waitMs)
      this.waiters.push(waiter)
    })
  }

  /** Takes back a stage its batch no longer needs. One grown far past the batch size (a large record) is left to the GC. */
  recycle(stage: RecordStage): void {
    if (this.stages.length >= 64 || stage.data.length > 4 * this.batchSize + 1024) return
    stage.reset()
    this.stages.push(stage)
  }

  /** Gives back memory (a completed batch's, or a reservation not used), waking waiters in order. */
  release(bytes: number): void {
    this.used -= bytes
    while (this.waiters.length > 0 && (this.used + this.waiters[0].bytes <= this.bufferMemory || this.used === 0)) {
      this.waiters.shift()!.wake()
    }
  }

  /** True when no record is waiting or in flight. */
  /** Its figures for the producer's statistics: bufferMemory in use, batches held (in flight among them). */
  usage(): { bufferedBytes: number; bufferMemory: number; batches: number; inFlight: number } {
    let batches = 0
    let inFlight = 0
    for (const q of this.queues.values()) {
      batches += q.batches.length
      inFlight += q.inFlight
    }
    return { bufferedBytes: this.used, bufferMemory: this.bufferMemory, batches, inFlight }
  }

  get empty(): boolean {
    for (const q of this.queues.values()) if (q.batches.length > 0) return false
    return true
  }
}
