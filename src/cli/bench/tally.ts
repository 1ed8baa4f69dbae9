import type { ChildMeter, ChildResult } from './meter.js'

export interface ConsumerResult extends ChildResult {
  /** From subscribing (or starting to consume) to the first message: group join and first fetch, the start of the timed part. */
  firstMessageMs: number
}

export type Bytes = { length: number } | null | undefined

/**
 * Counts what the client delivers: messages per partition, key and value
 * bytes. The timer starts just before subscribing and stops at the
 * `messages`th message.
 */
export class Tally {
  received = 0
  keyBytes = 0
  valueBytes = 0
  readonly perPartition: number[]
  private subscribedAt = 0
  private firstAt = 0
  private timed: ChildResult | undefined
  private settle!: { resolve: () => void; reject: (err: unknown) => void }
  /** Resolves when `messages` are in; rejects on the client's error or when the child gives up. */
  readonly done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }))

  constructor(
    private readonly target: number,
    partitions: number,
    private readonly meter: ChildMeter,
  ) {
    this.perPartition = new Array(partitions).fill(0)
  }

  /** Starts the timer: just before the client is told to subscribe (or to start consuming). */
  subscribing(): void {
    this.subscribedAt = performance.now()
    this.meter.start()
  }

  get finished(): boolean {
    return this.timed !== undefined
  }

  fail = (err: unknown): void => this.settle.reject(err)

  /** A batch of one partition's messages (KafkaJS's eachBatch shape). */
  batch(partition: number, messages: ArrayLike<{ key?: Bytes; value?: Bytes }>): void {
    if (this.received === 0) this.begin()
    let keyBytes = 0
    let valueBytes = 0
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]
      keyBytes += m.key?.length ?? 0
      valueBytes += m.value?.length ?? 0
    }
    this.add(partition, messages.length, keyBytes, valueBytes)
  }

  message(partition: number, key: Bytes, value: Bytes): void {
    if (this.received === 0) this.begin()
    this.add(partition, 1, key?.length ?? 0, value?.length ?? 0)
  }

  private begin(): void {
    this.firstAt = performance.now()
  }

  private add(partition: number, count: number, keyBytes: number, valueBytes: number): void {
    if (this.timed) return
    this.perPartition[partition] += count
    this.received += count
    this.keyBytes += keyBytes
    this.valueBytes += valueBytes
    if (this.received >= this.target) {
      this.timed = this.meter.stop()
      this.settle.resolve()
    }
  }

  result(): ConsumerResult {
    return { ...this.timed!, firstMessageMs: this.firstAt - this.subscribedAt }
  }
}
