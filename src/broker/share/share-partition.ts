import type { Buffer } from 'node:buffer'
import type { PartitionLog } from '../partition-log.js'
import type { StorageError } from '../storage/disk-io.js'
import { batchesBetween } from './log-batches.js'

const STATE_CODES: RecordState[] = ['AVAILABLE', 'ACQUIRED', 'ACKNOWLEDGED', 'ARCHIVED']

/** A share partition's state as kept on disk (see storage/share-state-store.ts). */
export interface ShareWindow {
  startOffset: number
  endOffset: number
  records: Array<[number, number, number]>
}

/** A record's state in a share partition (KIP-932). */
export type RecordState = 'AVAILABLE' | 'ACQUIRED' | 'ACKNOWLEDGED' | 'ARCHIVED'

interface InFlight {
  state: RecordState
  deliveryCount: number
  /** The member holding it while ACQUIRED. */
  memberId: string | null
  /** Which acquisition lock holds it (a lock that expires releases only what it still holds). */
  lock: number
}

/** AcknowledgeType on the wire. */
export const ACK_GAP = 0
export const ACK_ACCEPT = 1
export const ACK_RELEASE = 2
export const ACK_REJECT = 3
export const ACK_RENEW = 4

export interface AcquiredRange {
  firstOffset: number
  lastOffset: number
  deliveryCount: number
}

export interface SharePartitionLimits {
  /** share.record.lock.duration.ms of the group (read at each acquisition). */
  readonly lockDurationMs: number
  /** share.delivery.count.limit. */
  readonly deliveryCountLimit: number
  /** share.partition.max.record.locks: records in flight at once. */
  readonly maxRecordLocks: number
  /** share.isolation.level is read_committed: records up to the last stable offset, aborted transactions never. */
  readonly readCommitted: boolean
}

export interface AckBatch {
  firstOffset: number
  lastOffset: number
  acknowledgeTypes: number[]
}

/** Why an acknowledgement is refused: the error name as Kafka's. */
export type AckRefusal = 'INVALID_RECORD_STATE' | 'INVALID_REQUEST' | 'KAFKA_STORAGE_ERROR'

/** Whether a transactional batch belongs to a transaction its producer aborted. */
function aborted(log: PartitionLog, b: { baseOffset: number; lastOffset: number; producerId: bigint }): boolean {
  return log.abortedBetween(b.baseOffset, b.lastOffset + 1).some((a) => a.producerId === b.producerId && a.firstOffset <= b.baseOffset)
}

/**
 * One partition of a topic as one share group consumes it: the records
 * from the share-partition start offset (SPSO, below which every record is
 * done) to the end offset (the next never acquired) are in flight, each
 * AVAILABLE, ACQUIRED by a member under a time lock, ACKNOWLEDGED or
 * ARCHIVED. A member acquires available records (one more delivery each)
 * and then new ones from the log (read_committed: up to the last stable
 * offset, aborted transactions archived unseen); an acknowledgement
 * accepts, releases, rejects or renews (its lock starts again) what the
 * member holds; a lock that expires, or a release, makes a
 * record available again — or archives it once it has been delivered
 * share.delivery.count.limit times. The SPSO moves over finished records.
 */
export class SharePartition {
  private readonly records = new Map<number, InFlight>()
  private locks = 0
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(
    /** The SPSO. */
    public startOffset: number,
    private readonly limits: SharePartitionLimits,
    /** Records became available again: waiting fetches may go on. */
    private readonly onAvailable: () => void,
    /** Acknowledgements, releases or an expired lock changed the state: it is kept (false: the write failed). */
    private readonly onChange: () => boolean = () => true,
  ) {
    this.endOffset = startOffset
  }

  /**
   * The state to keep, as Kafka's share-partition leader persists it: an
   * acquisition is not kept until it is acknowledged, released or its lock
   * expires, so an acquired record is kept available with the delivery count
   * it had before (a new leader, or the broker restarted, delivers it again
   * as if this delivery never happened — Kafka 4.4 does, shown on a leader
   * change by test/kafka/share-leader-change.test.ts).
   */
  window(): ShareWindow {
    const records: Array<[number, number, number]> = []
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const r = this.records.get(o)
      if (r && r.state === 'ACQUIRED') records.push([o, STATE_CODES.indexOf('AVAILABLE'), r.deliveryCount - 1])
      else if (r) records.push([o, STATE_CODES.indexOf(r.state), r.deliveryCount])
    }
    return { startOffset: this.startOffset, endOffset: this.endOffset, records }
  }

  /** A share partition as it was kept (what an earlier version kept as acquired is available again, with its delivery count). */
  restore(w: ShareWindow): void {
    this.startOffset = w.startOffset
    this.endOffset = w.endOffset
    this.records.clear()
    for (const [offset, code, deliveryCount] of w.records) {
      const state = STATE_CODES[code] ?? 'AVAILABLE'
      this.records.set(offset, { state: state === 'ACQUIRED' ? 'AVAILABLE' : state, deliveryCount, memberId: null, lock: 0 })
    }
    this.advance()
  }

  /** The end offset: every offset below it has been acquired (or skipped) once. */
  endOffset: number

  /**
   * Acquires for `memberId` up to `maxRecords` records: available ones
   * first, then new ones below the high watermark. With `wholeBatches`
   * (batch_optimized) the last new batch is taken whole, past maxRecords.
   * Returns the acquired ranges and the log batches holding them, and a
   * read refused past them (StorageError: a corrupt batch); one refused
   * before any throws, nothing acquired.
   */
  acquire(
    memberId: string,
    log: PartitionLog,
    maxRecords: number,
    wholeBatches: boolean,
    maxBytes: number,
  ): { acquired: AcquiredRange[]; chunks: Buffer[]; refused?: StorageError } {
    this.skipTo(log.logStartOffset)
    const taken: number[] = []
    for (let o = this.startOffset; o < this.endOffset && taken.length < maxRecords; o++)
      if (this.records.get(o)?.state === 'AVAILABLE') taken.push(o)
    const readCommitted = this.limits.readCommitted
    const hw = readCommitted ? log.lastStableOffset : log.highWatermark
    // The reads come before any change: one refused (StorageError, a corrupt batch) throws with nothing acquired nor locked.
    const fresh: number[] = []
    // A read refused past what it served: those served, the refusal told (said once; the next acquire meets it first).
    let refused: StorageError | undefined
    let end = this.endOffset
    if (taken.length < maxRecords && this.endOffset < hw && this.endOffset - this.startOffset < this.limits.maxRecordLocks) {
      for (const b of batchesBetween(log, end, hw, maxBytes, (err) => (refused = err))) {
        if (taken.length + fresh.length >= maxRecords || end - this.startOffset >= this.limits.maxRecordLocks) break
        const first = Math.max(b.baseOffset, end)
        if (first > b.lastOffset) continue
        // Control records are no one's to consume, nor (read_committed) aborted ones: they leave the window done, as Kafka archives them.
        if (b.control || (readCommitted && b.transactional && aborted(log, b))) {
          end = b.lastOffset + 1
          continue
        }
        let last = b.lastOffset
        if (!wholeBatches) last = Math.min(last, first + (maxRecords - taken.length - fresh.length) - 1)
        for (let o = first; o <= last; o++) fresh.push(o)
        end = last + 1
      }
    }
    const wanted = taken.concat(fresh)
    // The batches holding the wanted offsets, in order, each once. An offset in a gap (compacted away) is acquired
    // without one (the member acknowledges it as a gap); one past a refused read's end is not acquired.
    const chunks: Buffer[] = []
    let held = wanted
    if (wanted.length > 0) {
      let i = 0
      let readTo = -1
      let cut = false
      for (const b of batchesBetween(log, wanted[0], wanted[wanted.length - 1] + 1, Infinity, (err) => {
        cut = true
        refused = err
      })) {
        while (i < wanted.length && wanted[i] < b.baseOffset) i++
        if (i < wanted.length && wanted[i] <= b.lastOffset) chunks.push(b.bytes)
        readTo = b.lastOffset
      }
      if (cut) held = wanted.filter((o) => o <= readTo)
    }
    for (const o of fresh) this.records.set(o, { state: 'AVAILABLE', deliveryCount: 0, memberId: null, lock: 0 })
    this.endOffset = end
    const acquired: AcquiredRange[] = []
    if (held.length > 0) {
      const lock = this.lock(memberId, held)
      for (const o of held) {
        const r = this.records.get(o)!
        r.state = 'ACQUIRED'
        r.deliveryCount++
        r.memberId = memberId
        r.lock = lock
        const prev = acquired[acquired.length - 1]
        if (prev && prev.lastOffset === o - 1 && prev.deliveryCount === r.deliveryCount) prev.lastOffset = o
        else acquired.push({ firstOffset: o, lastOffset: o, deliveryCount: r.deliveryCount })
      }
    }
    this.advance()
    return { acquired, chunks: held.length > 0 ? chunks : [], refused }
  }

  /**
   * Applies a member's acknowledgements, all or none: every offset must be
   * one it holds (ACQUIRED by it), else INVALID_RECORD_STATE.
   */
  acknowledge(memberId: string, batches: AckBatch[]): AckRefusal | null {
    for (const b of batches) {
      if (b.lastOffset < b.firstOffset) return 'INVALID_REQUEST'
      const n = b.lastOffset - b.firstOffset + 1
      if (b.acknowledgeTypes.length !== 1 && b.acknowledgeTypes.length !== n) return 'INVALID_REQUEST'
      if (b.acknowledgeTypes.some((t) => t < ACK_GAP || t > ACK_RENEW)) return 'INVALID_REQUEST'
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const r = this.records.get(o)
        if (!r || r.state !== 'ACQUIRED' || r.memberId !== memberId) return 'INVALID_RECORD_STATE'
      }
    }
    let released = false
    for (const b of batches) {
      const renewed: number[] = []
      for (let o = b.firstOffset; o <= b.lastOffset; o++) {
        const type = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0] : b.acknowledgeTypes[o - b.firstOffset]
        const r = this.records.get(o)!
        if (type === ACK_ACCEPT) this.finish(r, 'ACKNOWLEDGED')
        else if (type === ACK_REJECT || type === ACK_GAP) this.finish(r, 'ARCHIVED')
        else if (type === ACK_RELEASE) released = this.release(r) || released
        else renewed.push(o)
      }
      if (renewed.length > 0) {
        const lock = this.lock(memberId, renewed)
        for (const o of renewed) this.records.get(o)!.lock = lock
      }
    }
    // Kept before the SPSO moves over what is now done, as Kafka's share partition writes its state and then
    // updates its cached offsets: the kept SPSO is the one before, with the done records past it.
    // Applied here but not kept: the member is told (a restart would hand the records out again, never lose them).
    const kept = this.onChange()
    this.advance()
    if (released) this.onAvailable()
    return kept ? null : 'KAFKA_STORAGE_ERROR'
  }

  /** Everything `memberId` holds goes back (its session closed, or it left the group). */
  releaseAll(memberId: string): void {
    let changed = false
    let released = false
    for (const r of this.records.values())
      if (r.state === 'ACQUIRED' && r.memberId === memberId) {
        changed = true
        released = this.release(r) || released
      }
    if (!changed) return
    this.onChange()
    this.advance()
    if (released) this.onAvailable()
  }

  /** How many records are in flight (between the SPSO and the end offset, not done). */
  get inFlight(): number {
    let n = 0
    for (const r of this.records.values()) if (r.state === 'AVAILABLE' || r.state === 'ACQUIRED') n++
    return n
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  /** A lock on `offsets` for share.record.lock.duration.ms: when it expires, what it still holds is released. */
  private lock(memberId: string, offsets: number[]): number {
    const id = ++this.locks
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      let changed = false
      let released = false
      for (const o of offsets) {
        const r = this.records.get(o)
        if (r && r.state === 'ACQUIRED' && r.memberId === memberId && r.lock === id) {
          changed = true
          released = this.release(r) || released
        }
      }
      if (!changed) return
      this.onChange()
      this.advance()
      if (released) this.onAvailable()
    }, this.limits.lockDurationMs)
    timer.unref?.()
    this.timers.add(timer)
    return id
  }

  /** Back to AVAILABLE, or ARCHIVED at the delivery-count limit; true when available. */
  private release(r: InFlight): boolean {
    if (r.deliveryCount >= this.limits.deliveryCountLimit) {
      this.finish(r, 'ARCHIVED')
      return false
    }
    r.state = 'AVAILABLE'
    r.memberId = null
    r.lock = 0
    return true
  }

  private finish(r: InFlight, state: 'ACKNOWLEDGED' | 'ARCHIVED'): void {
    r.state = state
    r.memberId = null
    r.lock = 0
  }

  /** The SPSO moves over done records (and offsets no batch holds). */
  private advance(): void {
    while (this.startOffset < this.endOffset) {
      const r = this.records.get(this.startOffset)
      if (r && (r.state === 'AVAILABLE' || r.state === 'ACQUIRED')) break
      this.records.delete(this.startOffset)
      this.startOffset++
    }
  }

  /** Records deleted from the log (retention, DeleteRecords) leave the window. */
  private skipTo(logStart: number): void {
    if (this.startOffset >= logStart) return
    for (let o = this.startOffset; o < Math.min(logStart, this.endOffset); o++) this.records.delete(o)
    this.startOffset = logStart
    this.endOffset = Math.max(this.endOffset, logStart)
  }
}
