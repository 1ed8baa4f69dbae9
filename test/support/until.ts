// The bounded wait every test suite polls with: a probe retried until what
// it returns is acceptable, failing after a deadline with a message naming
// what was awaited and the last value seen.

export interface UntilOptions {
  /** How long between probes (200 ms unless said). */
  pollMs?: number
  /** A probe that throws: 'retry' (not yet: its message is the last value; the default) or 'throw' (the wait fails with it). */
  onError?: 'retry' | 'throw'
}

/**
 * Polls `probe` until `ok` holds of its value, and returns that value;
 * after `timeoutMs` throws `timed out after <timeoutMs> ms: <what>`, with the
 * last value seen unless it was a boolean (a condition: it says nothing).
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
  { pollMs = 200, onError = 'retry' }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await probe()
      if (ok(v)) return v
      last = v
    } catch (e) {
      if (onError === 'throw') throw e
      last = (e as Error).message
    }
    if (Date.now() > deadline) {
      const said = `timed out after ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`
      throw new Error(typeof last === 'boolean' ? said : `${said}; still ${JSON.stringify(last)}`)
    }
    await new Promise((r) => setTimeout(r, pollMs))
  }
}

/**
 * The boolean form: polls `done()` (every 25 ms unless said) until it holds;
 * after `timeoutMs` throws `timed out after <timeoutMs> ms: <what()>`. A
 * `done()` that throws fails the wait at once.
 */
export async function untilTrue(done: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string, pollMs = 25): Promise<void> {
  await until(what, done, Boolean, timeoutMs, { pollMs, onError: 'throw' })
}
