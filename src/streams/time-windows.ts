// Java's TimeWindows: fixed-size windows of sizeMs, each starting at a
// multiple of advanceMs (tumbling when advance = size, hopping when it is
// less), closing graceMs after their end in stream time. A record belongs to
// every window [start, start + size) that holds its timestamp; windows start
// at 0 or later, as Java's do.
import { ConfigError } from '../errors.js'
import type { Window } from './windowed-serdes.js'

function checkMs(what: string, ms: number, min: number): void {
  if (!Number.isSafeInteger(ms) || ms < min)
    throw new ConfigError(`TimeWindows: ${what} must be an integer of milliseconds >= ${min}, got ${ms}`)
}

export class TimeWindows {
  /** @internal (ofSizeAndGrace, ofSizeWithNoGrace and advanceBy make them, checked) */
  constructor(
    readonly sizeMs: number,
    readonly advanceMs: number,
    readonly graceMs: number,
  ) {}

  // The class's name is not used in its body: the bundler would rename the class (_TimeWindows) to keep it.

  /** Tumbling windows of `sizeMs` that take records up to `graceMs` late (past their end, in stream time). */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    return timeWindows(sizeMs, sizeMs, graceMs)
  }

  /** Tumbling windows of `sizeMs` that close at their end. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return timeWindows(sizeMs, sizeMs, 0)
  }

  /** Hopping windows: one starting every `advanceMs` (at most the size). */
  advanceBy(advanceMs: number): TimeWindows {
    return timeWindows(this.sizeMs, advanceMs, this.graceMs)
  }

  /** The windows holding `timestamp`, earliest first. */
  windowsFor(timestamp: number): Window[] {
    const out: Window[] = []
    let start = Math.floor(Math.max(0, timestamp - this.sizeMs + this.advanceMs) / this.advanceMs) * this.advanceMs
    for (; start <= timestamp; start += this.advanceMs) out.push({ start, end: start + this.sizeMs })
    return out
  }
}

function timeWindows(sizeMs: number, advanceMs: number, graceMs: number): TimeWindows {
  checkMs('the size', sizeMs, 1)
  checkMs('the grace', graceMs, 0)
  checkMs('the advance', advanceMs, 1)
  if (advanceMs > sizeMs) throw new ConfigError(`TimeWindows: the advance (${advanceMs} ms) must not exceed the size (${sizeMs} ms)`)
  return new TimeWindows(sizeMs, advanceMs, graceMs)
}
