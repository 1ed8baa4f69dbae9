import { RecordView, type RecordBatch } from '../codec/record.js'

/**
 * A consumed message, KafkaJS-shaped: offset and timestamp as strings. Key,
 * value and headers are read in place from the fetched bytes on first access.
 */
export class KafkaMessage extends RecordView {
  get offset(): string {
    return String(this.offsetBigInt)
  }

  get timestamp(): string {
    return String(this.timestampMs)
  }

  /** The batch's attributes (codec, timestamp type, transactional). */
  get attributes(): number {
    return this.batch.attributes
  }

  toJSON(): object {
    return { offset: this.offset, timestamp: this.timestamp, key: this.key, value: this.value, headers: this.headers }
  }
}

/** Every message of `batches` at or after `from` (a compressed or legacy batch may start before it). */
export function messagesFrom(batches: RecordBatch[], from: bigint): KafkaMessage[] {
  let total = 0
  for (const b of batches) total += b.count
  const out = new Array<KafkaMessage>(total)
  let n = 0
  for (const b of batches) {
    const skip = b.baseOffset < from
    for (let i = 0; i < b.count; i++) {
      const m = new KafkaMessage(b, i)
      if (skip && m.offsetBigInt < from) continue
      out[n++] = m
    }
  }
  out.length = n
  return out
}
