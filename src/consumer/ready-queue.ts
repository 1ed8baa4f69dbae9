import type { Buffer } from 'node:buffer'
import { decodeRecordSet } from '../codec/batch-decoder.js'
import { CorruptRecordError, WafkaError } from '../errors.js'
import type { ResolvedConsumerConfig } from './config.js'
import { messagesFrom, type KafkaMessage } from './message.js'
import type { OwnedPartitions, PartitionState } from './partition-state.js'
import { committedBatches, dataBatches, type AbortedRange } from './read-committed.js'

/** A partition's fetched records, handed to user code as one batch. */
export interface Delivery {
  state: PartitionState
  messages: KafkaMessage[]
  /** Where the partition's next fetch starts: past every batch fetched, control batches included. */
  nextOffset: bigint
  highWatermark: bigint
}

/** What a Fetch response left for one partition, decoded only when taken. */
export interface Fetched {
  state: PartitionState
  version: number
  fetchOffset: bigint
  /** Where the next fetch of the partition started: past every whole entry of `records`. */
  nextOffset: bigint
  records: Buffer
  aborted: AbortedRange[] | null
  highWatermark: bigint
}

/**
 * The fetcher's hand-off to user code: fetched record sets (and fetch
 * errors) in arrival order, decoded in wasm only when taken, and whoever
 * waits for them. The network side (fetcher.ts) pushes; the delivery loop
 * takes.
 */
export class ReadyQueue {
  private readonly items: Array<Fetched | { error: Error }> = []
  private queuedBytes = 0
  private readonly waiters: Array<() => void> = []

  constructor(
    private readonly config: Pick<ResolvedConsumerConfig, 'checkCrcs' | 'isolationLevel'>,
    private readonly assignment: OwnedPartitions,
  ) {}

  /** Bytes of fetched records waiting for user code. */
  get bytes(): number {
    return this.queuedBytes
  }

  /** True when fetched data (or an error) is waiting. */
  get hasReady(): boolean {
    return this.items.some((f) => 'error' in f || (!f.state.busy && !f.state.paused))
  }

  /** Resolves when data or an error is ready, or on wakeAll(). */
  wait(): Promise<void> {
    if (this.hasReady) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Wakes whoever waits for data (to stop, rebalance, or look again). */
  wakeAll(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  push(item: Fetched | { error: Error }): void {
    if ('records' in item) this.queuedBytes += item.records.length
    this.items.push(item)
    this.wakeAll()
  }

  /** Drops everything queued (the fetcher stopped). */
  clear(): void {
    this.items.length = 0
    this.queuedBytes = 0
  }

  /**
   * The next partition's records, decoded, marking the partition busy (the
   * caller clears it when done), or undefined when none waits. Data fetched
   * before a seek, reset or revocation is dropped here. `dequeued` runs as
   * each current record set leaves the queue (room for the next fetch).
   */
  take(dequeued: () => void): Delivery | undefined {
    for (let i = 0; i < this.items.length; i++) {
      const f = this.items[i]
      if ('error' in f) {
        this.items.splice(i, 1)
        throw f.error
      }
      // A partition in user code or paused keeps its data queued, in order, for later.
      if (f.state.busy || f.state.paused) continue
      this.items.splice(i--, 1)
      this.queuedBytes -= f.records.length
      const s = f.state
      if (f.version !== s.version) continue
      s.dequeued()
      dequeued()
      if (s.revoking || !this.assignment.has(s.topic, s.partition)) continue
      const delivery = this.decode(f)
      if (delivery.messages.length === 0 && delivery.nextOffset === f.fetchOffset) continue
      s.take()
      return delivery
    }
    return undefined
  }

  private decode(f: Fetched): Delivery {
    let set
    try {
      set = decodeRecordSet(f.records, { verifyCrc: this.config.checkCrcs })
    } catch (err) {
      // Nothing is skipped: the partition goes back to this offset (dropping what was fetched after it) and stops.
      const message = `${f.state.topic}-${f.state.partition} at offset ${f.fetchOffset}: ${(err as Error).message}`
      f.state.halt(f.fetchOffset)
      throw err instanceof CorruptRecordError
        ? new CorruptRecordError(err.reason, message, { cause: err })
        : new WafkaError(message, { retriable: false, cause: err })
    }
    const { batches } = set
    if (batches.length === 0) {
      // The fetcher lets through only record sets with a whole entry: this one's headers lied.
      f.state.halt(f.fetchOffset)
      throw new CorruptRecordError(
        'truncated',
        `${f.state.topic}-${f.state.partition} at offset ${f.fetchOffset}: no whole record batch in ${f.records.length} bytes`,
      )
    }
    const visible = this.config.isolationLevel === 1 ? committedBatches(batches, f.aborted) : dataBatches(batches)
    return { state: f.state, messages: messagesFrom(visible, f.fetchOffset), nextOffset: f.nextOffset, highWatermark: f.highWatermark }
  }
}
