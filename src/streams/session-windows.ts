// Java's SessionWindows: a key's records within inactivityGapMs of one
// another (in either direction) form one session [first, last], both ends
// included; a record that comes within the gap of two sessions merges them.
// A session closes graceMs after its end plus the gap, in stream time.
import { ConfigError } from '../errors.js'

function checkMs(what: string, ms: number, min: number): void {
  if (!Number.isSafeInteger(ms) || ms < min)
    throw new ConfigError(`SessionWindows: ${what} must be an integer of milliseconds >= ${min}, got ${ms}`)
}

export class SessionWindows {
  /** @internal (ofInactivityGapWithNoGrace and ofInactivityGapAndGrace make them, checked) */
  constructor(
    readonly inactivityGapMs: number,
    readonly graceMs: number,
  ) {}

  /** Sessions ending after `inactivityGapMs` without a record, closed as soon as that gap has passed in stream time. */
  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return sessionWindows(inactivityGapMs, 0)
  }

  /** Sessions that also take records up to `graceMs` late (past their end plus the gap, in stream time). */
  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    return sessionWindows(inactivityGapMs, graceMs)
  }
}

function sessionWindows(gapMs: number, graceMs: number): SessionWindows {
  checkMs('the inactivity gap', gapMs, 1)
  checkMs('the grace', graceMs, 0)
  return new SessionWindows(gapMs, graceMs)
}
