// A task's scheduled punctuations of one type, as Java's PunctuationQueue:
// due ones run in order of their time, each once however many intervals were
// missed, and then wait for the next interval boundary after `now`.
import type { Cancellable, Punctuator } from './processor.js'

interface Schedule {
  next: number
  readonly intervalMs: number
  readonly punctuator: Punctuator
  cancelled: boolean
  /** Order among schedules due at the same time: the earlier scheduled first. */
  readonly seq: number
}

export class PunctuationQueue {
  private schedules: Schedule[] = []
  private seq = 0

  add(first: number, intervalMs: number, punctuator: Punctuator): Cancellable {
    const s: Schedule = { next: first, intervalMs, punctuator, cancelled: false, seq: this.seq++ }
    this.schedules.push(s)
    return {
      cancel: () => {
        s.cancelled = true
        this.schedules = this.schedules.filter((x) => x !== s)
      },
    }
  }

  /** Runs every punctuator due at `now` through `run`; returns whether any ran. */
  punctuate(now: number, run: (punctuator: Punctuator, timestamp: number) => void): boolean {
    let any = false
    for (;;) {
      const due = this.schedules.filter((s) => s.next <= now).sort((a, b) => a.next - b.next || a.seq - b.seq)[0]
      if (!due) return any
      any = true
      // Java's PunctuationSchedule.next: the next boundary after `now`, missed ones skipped.
      const missed = Math.floor((now - due.next) / due.intervalMs)
      due.next += (missed + 1) * due.intervalMs
      run(due.punctuator, now)
    }
  }

  clear(): void {
    for (const s of this.schedules) s.cancelled = true
    this.schedules = []
  }
}
