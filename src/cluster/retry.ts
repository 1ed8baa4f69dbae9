import { WafkaError } from '../errors.js'
import { abortable, backoffMs, sleep } from '../net/backoff.js'

export interface RetryPolicy {
  /** Java: retry.backoff.ms (100) and retry.backoff.max.ms (1000). */
  backoffMs: number
  backoffMaxMs: number
  /** Give up at this time (ms since the epoch): Java's delivery/default.api timeout. */
  deadline: number
  /** Aborted when the client disconnects: the call ends at once with its reason. */
  signal?: AbortSignal
}

export function isRetriable(err: unknown): boolean {
  return err instanceof WafkaError && err.retriable
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retriable error, or the
 * deadline passes (then the last error is thrown). `beforeRetry` refreshes
 * whatever the error says is stale (metadata, coordinators) before trying again.
 * When the policy's signal aborts (disconnect()), it ends at once with the
 * signal's reason, whatever it was waiting on.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  beforeRetry?: (err: unknown) => Promise<void> | void,
): Promise<T> {
  const { signal } = policy
  for (let n = 0; ; n++) {
    if (signal?.aborted) throw signal.reason
    try {
      return await abortable(attempt(n), signal)
    } catch (err) {
      if (signal?.aborted) throw signal.reason
      if (!isRetriable(err)) throw err
      const wait = backoffMs(n, policy.backoffMs, policy.backoffMaxMs)
      if (Date.now() + wait >= policy.deadline) throw err
      await sleep(wait, signal)
      await abortable(Promise.resolve(beforeRetry?.(err)), signal)
    }
  }
}
