import { definedOnly } from '../defined-only.js'
import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, kafkajsCause, toKafkaJSError } from './errors.js'

/** KafkaJS's `retry` option. */
export interface RetryOptions {
  maxRetryTime?: number
  initialRetryTime?: number
  factor?: number
  multiplier?: number
  retries?: number
  restartOnFailure?: (e: Error) => Promise<boolean>
}

export const RETRY_DEFAULTS = { maxRetryTime: 30_000, initialRetryTime: 300, factor: 0.2, multiplier: 2, retries: 5 }

const UNRECOVERABLE = new Set(['RangeError', 'ReferenceError', 'SyntaxError', 'TypeError'])

/** A retry time randomized by ±factor, as KafkaJS does. */
const jittered = (factor: number, time: number) => Math.ceil(time - factor * time + Math.random() * 2 * factor * time)

/**
 * KafkaJS's retry policy: up to `retries` retries of a retriable failure,
 * waiting from `initialRetryTime` (±factor) growing by `multiplier` up to
 * `maxRetryTime`; then KafkaJSNumberOfRetriesExceeded. A failure that is not
 * retriable ends it at once as KafkaJSNonRetriableError. `fn` gets KafkaJS's
 * `bail(error)`, the retry count and the current retry time.
 */
export function createRetrier(options: RetryOptions = {}) {
  const { maxRetryTime, initialRetryTime, factor, multiplier, retries } = { ...RETRY_DEFAULTS, ...definedOnly(options) }
  return <T>(fn: (bail: (e?: Error) => void, retryCount: number, retryTime: number) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let bailed = false
      const bail = (e?: Error) => {
        bailed = true
        reject(e ?? new Error('Aborted'))
      }
      const attempt = (retryTime: number, retryCount: number) => {
        if (bailed) return
        fn(bail, retryCount, retryTime).then(resolve, (raw) => {
          if (bailed) return
          const e = toKafkaJSError(raw) as Error & { retriable?: boolean; cause?: unknown }
          const retriable = e.retriable !== false && !UNRECOVERABLE.has(e.name)
          if (!retriable) return reject(new KafkaJSNonRetriableError(e, { cause: kafkajsCause(e) }))
          if (retryCount >= retries) return reject(new KafkaJSNumberOfRetriesExceeded(e, { retryCount, retryTime, cause: kafkajsCause(e) }))
          const next = Math.min(jittered(factor, retryTime) * multiplier, maxRetryTime)
          setTimeout(() => attempt(next, retryCount + 1), retryTime)
        })
      }
      attempt(jittered(factor, initialRetryTime), 0)
    })
}

/** The most time the policy spends waiting between attempts: a deadline for the engine's own retries. */
export function retryBudgetMs(options: RetryOptions = {}): number {
  const { maxRetryTime, initialRetryTime, factor, multiplier, retries } = { ...RETRY_DEFAULTS, ...definedOnly(options) }
  let total = 0
  let time = initialRetryTime * (1 + factor)
  for (let i = 0; i < retries; i++) {
    total += time
    time = Math.min(time * multiplier * (1 + factor), maxRetryTime)
  }
  return Math.ceil(total)
}

/** The retry time of the last retry, without the randomization (`retryTime` of KafkaJSNumberOfRetriesExceeded). */
export function lastRetryTime(options: RetryOptions = {}): number {
  const { maxRetryTime, initialRetryTime, multiplier, retries } = { ...RETRY_DEFAULTS, ...definedOnly(options) }
  return Math.min(initialRetryTime * multiplier ** Math.min(retries, 64), maxRetryTime)
}
