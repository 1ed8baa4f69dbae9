import { WafkaError } from '../errors.js'
import { describeError, type Logger } from '../logger.js'
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

/** The options a policy's backoff comes from (the Kafka object's, or a producer's or consumer's own). */
export interface RetryBackoff {
  retryBackoffMs: number
  retryBackoffMaxMs: number
}

/**
 * The one way a retry policy is made: the client's backoff options, a
 * deadline, and the signal disconnect() aborts. The cluster's retry() and
 * the calls with their own loop around the seam (a send's metadata, a
 * group's commits and committed offsets) all build theirs here.
 */
export function retryPolicy(backoff: RetryBackoff, deadline: number, signal?: AbortSignal): RetryPolicy {
  return { backoffMs: backoff.retryBackoffMs, backoffMaxMs: backoff.retryBackoffMaxMs, deadline, signal }
}

const answers = new WeakSet<object>()

/**
 * Marks an error as the call's answer: no retry layer tries again, though
 * `retriable` stays what its code says, for the caller to judge. Java's admin
 * treats per-resource errors so (describeTopics or deleteTopics of a topic
 * that does not exist fails at once with the retriable
 * UnknownTopicOrPartitionException), where retrying would only wait out the
 * timeout.
 */
export function asAnswer<E extends WafkaError>(err: E): E {
  answers.add(err)
  return err
}

export function isRetriable(err: unknown): boolean {
  return err instanceof WafkaError && err.retriable && !answers.has(err)
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
  log?: Logger,
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
      if (Date.now() + wait >= policy.deadline) {
        log?.debug('giving up: the next retry would pass the deadline', { attempt: n + 1, ...describeError(err) })
        throw err
      }
      log?.debug('retrying', { attempt: n + 1, backoffMs: wait, ...describeError(err) })
      await sleep(wait, signal)
      await abortable(Promise.resolve(beforeRetry?.(err)), signal)
    }
  }
}
