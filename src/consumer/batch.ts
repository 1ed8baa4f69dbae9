import type { KafkaMessage } from './message.js'

/** The messages of one partition handed to user code at once, KafkaJS-shaped (offsets as strings). */
export class Batch {
  constructor(
    readonly topic: string,
    readonly partition: number,
    /** The partition's high watermark when fetched. */
    readonly highWatermark: string,
    readonly messages: KafkaMessage[],
  ) {}

  isEmpty(): boolean {
    return this.messages.length === 0
  }

  firstOffset(): string | null {
    return this.messages.length === 0 ? null : this.messages[0].offset
  }

  lastOffset(): string {
    return this.messages.length === 0 ? String(BigInt(this.highWatermark) - 1n) : this.messages[this.messages.length - 1].offset
  }

  /** Messages behind the high watermark after this batch. */
  offsetLag(): string {
    const lag = BigInt(this.highWatermark) - 1n - BigInt(this.lastOffset())
    return String(lag < 0n ? 0n : lag)
  }

  /** Messages behind the high watermark from this batch's first message. */
  offsetLagLow(): string {
    if (this.messages.length === 0) return '0'
    const lag = BigInt(this.highWatermark) - 1n - BigInt(this.messages[0].offset)
    return String(lag < 0n ? 0n : lag)
  }
}
