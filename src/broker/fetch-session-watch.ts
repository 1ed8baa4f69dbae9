import type { LogWatcher, PartitionLog } from './partition-log.js'

/** A partition a SessionWatch watches: what the watch needs of a session partition. */
export interface WatchedPartition extends LogWatcher {
  /** The log it watches (the one its last read went to), or none. */
  log: PartitionLog | null
  /** Its place in the session: partitions are read and answered in this order. */
  readonly order: number
}

/**
 * Which of a fetch session's partitions (KIP-227) changed since they were
 * last read: their logs tell (appends, high watermark, truncation, log
 * start, leadership), so that a woken long poll, or the session's next
 * request, reads only those instead of every partition of the session.
 * Partitions that must be read again without news (an answer with records
 * or an error, a throttled one) stay in `dirty` until they read clean.
 * A watch ends with its session: release() lets go of every log.
 */
export class SessionWatch {
  /** The partitions to read at the next pass. */
  readonly dirty = new Set<WatchedPartition>()
  /** How many partitions have a log to wait on (none: a long poll would wait for nothing). */
  watching = 0
  /** The controller's image version and the request's shape the partitions were read under: either moved, all are read. */
  imageVersion = -1
  shape = ''
  /** Whether the waiting fetch is a follower's (woken by appends) or a consumer's (by the high watermark). */
  follower = false
  /** The waiting long poll, if any. */
  private wake: (() => void) | null = null

  changed(p: WatchedPartition, wakeFollower: boolean, wakeConsumer: boolean): void {
    this.dirty.add(p)
    if (this.wake && (this.follower ? wakeFollower : wakeConsumer)) this.wake()
  }

  /**
   * Calls `wake` at the next change that wakes this fetch (see changed); returns the cancel. One long poll waits per
   * session (a client sends its next fetch once answered): one that comes while another waits wakes that one.
   */
  onWake(wake: () => void): () => void {
    const before = this.wake
    this.wake = wake
    before?.()
    return () => {
      if (this.wake === wake) this.wake = null
    }
  }

  /** `p` watches `log` from now on (or nothing, when its read found none). */
  watch(p: WatchedPartition, log: PartitionLog | null): void {
    if (p.log === log) return
    if (p.log) {
      p.log.unwatch(p)
      this.watching--
    }
    p.log = log
    if (log) {
      log.watch(p)
      this.watching++
    }
  }

  /** The log of `p` is gone: it is read again (and finds its error) at the next pass. */
  gone(p: WatchedPartition): void {
    if (p.log) this.watching--
    p.log = null
    this.dirty.add(p)
  }

  /** `p` leaves the session. */
  forget(p: WatchedPartition): void {
    this.watch(p, null)
    this.dirty.delete(p)
  }

  /** The session ends (or is evicted): every log let go, and a long poll still waiting on them answered now. */
  release(partitions: Iterable<WatchedPartition>): void {
    for (const p of partitions) this.forget(p)
    const waiting = this.wake
    this.wake = null
    waiting?.()
  }

  /** Every partition to be read at the next pass. */
  markAll(partitions: Iterable<WatchedPartition>): void {
    for (const p of partitions) this.dirty.add(p)
  }

  /** The dirty partitions in session order, taken out of the set (the caller puts back the ones that must be read again). */
  take(): WatchedPartition[] {
    const out = [...this.dirty]
    this.dirty.clear()
    if (out.length > 1) out.sort((a, b) => a.order - b.order)
    return out
  }
}
