import { ErrorCodes } from '../protocol/error-codes.js'
import { type BatchHeader } from './record-batch.js'
import { INT32_MAX } from '../int32.js'
import { BrokerError } from './broker-error.js'

/** Kafka keeps the last five batches of each producer per partition: max.in.flight for idempotence. */
const CACHED_BATCHES = 5

interface CachedBatch {
  firstSeq: number
  lastSeq: number
  baseOffset: number
}

interface ProducerEntry {
  epoch: number
  batches: CachedBatch[]
}

/**
 * Idempotence for one partition, as Kafka's ProducerStateManager checks it:
 * per producer id the epoch and the last five batches' sequence ranges. A
 * batch that repeats one of those is a duplicate (answered with the offset
 * it got the first time); one that does not follow the last sequence is out
 * of order; an older epoch is refused; a newer epoch must start at 0. A
 * producer with no state here may start anywhere (since KIP-360 Kafka no
 * longer answers UNKNOWN_PRODUCER_ID for that).
 */
export class ProducerState {
  private readonly producers = new Map<bigint, ProducerEntry>()

  /**
   * Checks a batch before it is appended: the base offset of the batch it
   * duplicates, or null when it is new. Throws BrokerError when it is out of
   * sequence or fenced.
   */
  check(h: BatchHeader): number | null {
    if (h.producerId < 0n) return null
    const entry = this.producers.get(h.producerId)
    if (!entry) return null
    const firstSeq = h.baseSequence
    const lastSeq = lastSequence(h)
    if (h.producerEpoch < entry.epoch) {
      throw new BrokerError(
        ErrorCodes.INVALID_PRODUCER_EPOCH,
        `producer ${h.producerId} epoch ${h.producerEpoch} is older than the current epoch ${entry.epoch}`,
      )
    }
    if (h.producerEpoch > entry.epoch) {
      if (firstSeq !== 0) {
        throw new BrokerError(
          ErrorCodes.OUT_OF_ORDER_SEQUENCE_NUMBER,
          `invalid sequence number for new epoch of producer ${h.producerId}: ${h.producerEpoch} (request epoch), ${firstSeq} (seq. number), ${entry.epoch} (current epoch)`,
        )
      }
      return null
    }
    const dup = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === lastSeq)
    if (dup) return dup.baseOffset
    const last = entry.batches.at(-1)
    if (last && !inSequence(last.lastSeq, firstSeq)) {
      throw new BrokerError(
        ErrorCodes.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `out of order sequence number for producer ${h.producerId}: ${firstSeq} (incoming seq. number), ${last.lastSeq} (current end sequence number)`,
      )
    }
    return null
  }

  /** A transaction marker written with `epoch`: a newer epoch fences the producer's older one here. */
  endTransaction(producerId: bigint, epoch: number): void {
    const entry = this.producers.get(producerId)
    if (!entry || epoch > entry.epoch) this.producers.set(producerId, { epoch, batches: [] })
  }

  /** The producer's current epoch here, or -1 when it has none. */
  epochOf(producerId: bigint): number {
    return this.producers.get(producerId)?.epoch ?? -1
  }

  /** Records an appended batch. */
  update(h: BatchHeader, baseOffset: number): void {
    if (h.producerId < 0n) return
    let entry = this.producers.get(h.producerId)
    if (!entry || h.producerEpoch > entry.epoch) {
      entry = { epoch: h.producerEpoch, batches: [] }
      this.producers.set(h.producerId, entry)
    }
    entry.batches.push({ firstSeq: h.baseSequence, lastSeq: lastSequence(h), baseOffset })
    if (entry.batches.length > CACHED_BATCHES) entry.batches.shift()
  }
}

function lastSequence(h: BatchHeader): number {
  const s = h.baseSequence + h.lastOffsetDelta
  return s > INT32_MAX ? s - INT32_MAX - 1 : s
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX)
}
