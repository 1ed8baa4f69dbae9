// Java's SlidingWindows: windows of timeDifferenceMs + 1 ms, both ends
// included ([start, start + timeDifference]), made where records are rather
// than on a grid: each record's own window ends at its timestamp, and one
// starts just after it when a later record of its key is within the time
// difference. A window closes graceMs after its end, in stream time.
import { ConfigError } from '../errors.js'

function checkMs(what: string, ms: number, min: number): void {
  if (!Number.isSafeInteger(ms) || ms < min)
    throw new ConfigError(`SlidingWindows: ${what} must be an integer of milliseconds >= ${min}, got ${ms}`)
}

export class SlidingWindows {
  /** @internal (ofTimeDifferenceWithNoGrace and ofTimeDifferenceAndGrace make them, checked) */
  constructor(
    readonly timeDifferenceMs: number,
    readonly graceMs: number,
  ) {}

  /** Windows holding records at most `timeDifferenceMs` apart, closed as soon as their end has passed in stream time. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return slidingWindows(timeDifferenceMs, 0)
  }

  /** Windows that also take records up to `graceMs` late (past their end, in stream time). */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    return slidingWindows(timeDifferenceMs, graceMs)
  }
}

function slidingWindows(timeDifferenceMs: number, graceMs: number): SlidingWindows {
  // Java takes 0 here but then fails on the first record (its TimeWindow refuses start == end): refused up front.
  checkMs('the time difference', timeDifferenceMs, 1)
  checkMs('the grace', graceMs, 0)
  return new SlidingWindows(timeDifferenceMs, graceMs)
}
