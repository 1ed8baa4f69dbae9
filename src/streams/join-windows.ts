// Java's JoinWindows: how far apart in time two records of a stream-stream
// join may be (beforeMs: the other side's record that much earlier, afterMs:
// that much later), and how long after that the windows stay open to late
// records (graceMs, in stream time). As Java's: before + after must not be
// negative (one of them may be); the join's window stores keep records for
// size (before + after) + grace.
import { ConfigError } from '../errors.js'

function checkMs(what: string, ms: number, min: number): void {
  if (!Number.isSafeInteger(ms) || ms < min)
    throw new ConfigError(`JoinWindows: ${what} must be an integer of milliseconds >= ${min}, got ${ms}`)
}

export class JoinWindows {
  /** @internal (ofTimeDifferenceAndGrace, ofTimeDifferenceWithNoGrace, before and after make them, checked) */
  constructor(
    readonly beforeMs: number,
    readonly afterMs: number,
    readonly graceMs: number,
  ) {}

  /** Records at most `timeDifferenceMs` apart join; windows take records up to `graceMs` late. */
  // The class's name is not used in its body: the bundler would rename the class (_JoinWindows) to keep it.

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    return ofTimeDifference(timeDifferenceMs, graceMs)
  }

  /** Records at most `timeDifferenceMs` apart join; windows close at their end. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return ofTimeDifference(timeDifferenceMs, 0)
  }

  /** The other side's record may be up to `ms` earlier (negative: must be that much later). */
  before(ms: number): JoinWindows {
    return joinWindows(ms, this.afterMs, this.graceMs)
  }

  /** The other side's record may be up to `ms` later (negative: must be that much earlier). */
  after(ms: number): JoinWindows {
    return joinWindows(this.beforeMs, ms, this.graceMs)
  }

  /** before + after, Java's size(). */
  get sizeMs(): number {
    return this.beforeMs + this.afterMs
  }
}

function ofTimeDifference(timeDifferenceMs: number, graceMs: number): JoinWindows {
  checkMs('the time difference', timeDifferenceMs, 0)
  return joinWindows(timeDifferenceMs, timeDifferenceMs, graceMs)
}

function joinWindows(beforeMs: number, afterMs: number, graceMs: number): JoinWindows {
  checkMs('before', beforeMs, Number.MIN_SAFE_INTEGER)
  checkMs('after', afterMs, Number.MIN_SAFE_INTEGER)
  checkMs('the grace', graceMs, 0)
  if (beforeMs + afterMs < 0)
    throw new ConfigError(`JoinWindows: the window interval (before ${beforeMs} + after ${afterMs} ms) must not be negative`)
  return new JoinWindows(beforeMs, afterMs, graceMs)
}
