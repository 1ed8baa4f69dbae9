import { WafkaError } from '../errors.js'
import { backoffMs, sleep } from '../net/backoff.js'

export interface RetryPolicy {
  /** Java: retry.backoff.ms (100) and retry.backoff.max.ms (1000). */
  backoffMs: number
  backoffMaxMs: number
  /** Give up at this time (ms since the epoch): Java's delivery/default.api timeout. */
  deadline: number
}

export function isRetriable(err: unknown): boolean {
  return err instanceof WafkaError && err.retriable
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retriable error, or the
 * deadline passes (then the last error is thrown). `beforeRetry` refreshes
 * whatever the error says is stale (metadata, coordinators) before trying again.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  beforeRetry?: (err: unknown) => Promise<void> | void,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n)
    } catch (err) {
      if (!isRetriable(err)) throw err
      const wait = backoffMs(n, policy.backoffMs, policy.backoffMaxMs)
      if (Date.now() + wait >= policy.deadline) throw err
      await sleep(wait)
      await beforeRetry?.(err)
    }
  }
}
