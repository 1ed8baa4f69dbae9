import { ErrorCodes } from '../protocol/error-codes.js'
import { type BatchHeader } from './record-batch.js'
import { INT32_MAX } from '../int32.js'
import { BrokerError } from './broker-error.js'
import type { ProducerSnapshotEntry } from './storage/producer-snapshot.js'

/** Kafka keeps the last five batches of each producer per partition: max.in.flight for idempotence. */
const CACHED_BATCHES = 5

interface CachedBatch {
  firstSeq: number
  lastSeq: number
  baseOffset: number
  /** The batch's offset delta (last offset - base offset) and max timestamp, as a snapshot keeps them. */
  offsetDelta: number
  timestamp: number
}

interface ProducerEntry {
  epoch: number
  batches: CachedBatch[]
  /** The newest batch's max timestamp, or its marker's (Kafka's lastTimestamp): what producer.id.expiration.ms counts from. */
  lastTimestamp: number
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

  /** A transaction marker written with `epoch` at `timestamp`: a newer epoch fences the producer's older one here. */
  endTransaction(producerId: bigint, epoch: number, timestamp: number): void {
    const entry = this.producers.get(producerId)
    if (!entry || epoch > entry.epoch) this.producers.set(producerId, { epoch, batches: [], lastTimestamp: timestamp })
    else entry.lastTimestamp = timestamp
  }

  /**
   * Forgets the producers not heard from for `expirationMs` (by their last
   * batch's or marker's timestamp, as Kafka's removeExpiredProducers), but
   * not one whose transaction is open here. Returns how many went.
   */
  removeExpired(now: number, expirationMs: number, openTransaction: (producerId: bigint) => boolean): number {
    let removed = 0
    for (const [producerId, entry] of this.producers)
      if (now - entry.lastTimestamp >= expirationMs && !openTransaction(producerId)) {
        this.producers.delete(producerId)
        removed++
      }
    return removed
  }

  /** The producer's current epoch here, or -1 when it has none. */
  epochOf(producerId: bigint): number {
    return this.producers.get(producerId)?.epoch ?? -1
  }

  /** Every producer's entry (for a snapshot). */
  all(): IterableIterator<[bigint, Readonly<ProducerEntry>]> {
    return this.producers.entries()
  }

  /** One entry of a snapshot, in file order: the producer at `epoch` last heard from at `timestamp`, with `batch` cached (the newest so far). */
  restore(producerId: bigint, epoch: number, timestamp: number, batch: CachedBatch | null): void {
    let entry = this.producers.get(producerId)
    if (!entry || entry.epoch !== epoch) this.producers.set(producerId, (entry = { epoch, batches: [], lastTimestamp: timestamp }))
    else entry.lastTimestamp = Math.max(entry.lastTimestamp, timestamp)
    if (!batch) return
    entry.batches.push(batch)
    if (entry.batches.length > CACHED_BATCHES) entry.batches.shift()
  }

  /** Records an appended batch. */
  update(h: BatchHeader, baseOffset: number): void {
    if (h.producerId < 0n) return
    let entry = this.producers.get(h.producerId)
    if (!entry || h.producerEpoch > entry.epoch) {
      entry = { epoch: h.producerEpoch, batches: [], lastTimestamp: h.maxTimestamp }
      this.producers.set(h.producerId, entry)
    }
    entry.lastTimestamp = h.maxTimestamp
    entry.batches.push({
      firstSeq: h.baseSequence,
      lastSeq: lastSequence(h),
      baseOffset,
      offsetDelta: h.lastOffsetDelta,
      timestamp: h.maxTimestamp,
    })
    if (entry.batches.length > CACHED_BATCHES) entry.batches.shift()
  }
}

/**
 * The state as a producer-state snapshot's entries (Kafka's .snapshot):
 * one entry per cached batch, oldest first, so every one of the last five
 * comes back (Kafka's own reader keeps the last entry of a producer id: the
 * newest batch, what it keeps itself); a producer with no batch (only a
 * marker) has one entry with no sequence. `txnFirstOffset` gives a
 * producer's open transaction's first offset (-1: none).
 */
export function snapshotEntries(state: ProducerState, txnFirstOffset: (producerId: bigint) => number): ProducerSnapshotEntry[] {
  const out: ProducerSnapshotEntry[] = []
  for (const [producerId, entry] of state.all()) {
    const currentTxnFirstOffset = txnFirstOffset(producerId)
    const base = { producerId, epoch: entry.epoch, coordinatorEpoch: -1, currentTxnFirstOffset }
    if (!entry.batches.length) out.push({ ...base, lastSequence: -1, lastOffset: -1, offsetDelta: 0, timestamp: entry.lastTimestamp })
    for (const b of entry.batches)
      out.push({
        ...base,
        lastSequence: b.lastSeq,
        lastOffset: b.baseOffset + b.offsetDelta,
        offsetDelta: b.offsetDelta,
        timestamp: b.timestamp,
      })
  }
  return out
}

/** The state a snapshot's entries hold (see snapshotEntries). */
export function stateFromSnapshot(entries: readonly ProducerSnapshotEntry[]): ProducerState {
  const state = new ProducerState()
  for (const e of entries) {
    const offsetDelta = e.offsetDelta
    const firstSeq = e.lastSequence - offsetDelta
    state.restore(
      e.producerId,
      e.epoch,
      e.timestamp,
      e.lastOffset < 0
        ? null
        : {
            firstSeq: firstSeq < 0 ? firstSeq + INT32_MAX + 1 : firstSeq,
            lastSeq: e.lastSequence,
            baseOffset: e.lastOffset - offsetDelta,
            offsetDelta,
            timestamp: e.timestamp,
          },
    )
  }
  return state
}

function lastSequence(h: BatchHeader): number {
  const s = h.baseSequence + h.lastOffsetDelta
  return s > INT32_MAX ? s - INT32_MAX - 1 : s
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX)
}
