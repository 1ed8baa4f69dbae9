/**
 * A rate over `samples` windows of `windowMs` each, as Kafka's Rate over a
 * SampledStat measures a quota: the sum of the live samples divided by the
 * time they span, never less than samples - 1 full windows (so a burst just
 * after a quiet spell is not measured over a few milliseconds). A sample
 * older than all the windows together no longer counts.
 */
export class SampledRate {
  /** Each sample's window start and its sum; grown up to `samples`, then reused in turn. */
  private readonly starts: number[] = []
  private readonly sums: number[] = []
  private current = 0
  /** When a value was last recorded (an idle rate can be dropped). */
  lastRecordMs = 0

  constructor(
    private readonly samples: number,
    private readonly windowMs: number,
    /** Kafka's SimpleRate (replication quotas): measured over the time the samples span, at least one window, not samples - 1. */
    private readonly simple = false,
  ) {}

  /** Adds `value` (negative: takes back one recorded before) at `now`. */
  record(value: number, now: number): void {
    this.lastRecordMs = now
    if (!this.starts.length) {
      this.starts.push(now)
      this.sums.push(0)
    } else if (now - this.starts[this.current] >= this.windowMs) {
      // The next window starts on the grid of the last one, as Kafka's does, unless it has long passed.
      const end = this.starts[this.current] + this.windowMs
      const start = now - ((now - end) % this.windowMs)
      this.current = (this.current + 1) % this.samples
      if (this.current >= this.starts.length) {
        this.starts.push(start)
        this.sums.push(0)
      } else {
        this.starts[this.current] = start
        this.sums[this.current] = 0
      }
    }
    this.sums[this.current] += value
  }

  /** The rate at `now`, per second. */
  measure(now: number): number {
    if (!this.starts.length) return 0
    const expired = this.samples * this.windowMs
    let total = 0
    for (let i = 0; i < this.starts.length; i++) {
      if (now - this.starts[i] >= expired) {
        this.starts[i] = now
        this.sums[i] = 0
      }
      total += this.sums[i]
    }
    return total / (Math.max(this.windowSize(now), 1) / 1000)
  }

  /** The time the live samples span, at least samples - 1 full windows (Kafka's Rate.windowSize). */
  windowSize(now: number): number {
    let oldest = now
    for (const s of this.starts) oldest = Math.min(oldest, s)
    let elapsed = now - oldest
    if (this.simple) return Math.max(elapsed, this.windowMs)
    const full = Math.floor(elapsed / this.windowMs)
    if (full < this.samples - 1) elapsed += (this.samples - 1 - full) * this.windowMs
    return elapsed
  }
}
