import { INT32_MAX } from '../int32.js'

/**
 * Exponential backoff with jitter, as the Java client does it for reconnects
 * and retries: base * 2^attempt, capped, then +/-20% so that many clients
 * that failed together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30))
  return Math.max(0, Math.round(exp * (0.8 + 0.4 * random())))
}

/** Waits `ms` (at most INT32_MAX, the longest delay a timer takes: Node clamps anything longer to 1 ms); with a signal, rejects with its reason as soon as it aborts, leaving no timer. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      },
      Math.min(Math.max(0, ms), INT32_MAX),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** `promise`, or its signal's reason as soon as it aborts (the promise's own outcome is then ignored). */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    // Its outcome no longer matters (the caller got the abort); only an unhandled rejection is avoided.
    promise.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      // As above: the caller has the abort reason; this outcome is moot.
      promise.catch(() => {})
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}
