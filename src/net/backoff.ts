/**
 * Exponential backoff with jitter, as the Java client does it for reconnects
 * and retries: base * 2^attempt, capped, then +/-20% so that many clients
 * that failed together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30))
  return Math.max(0, Math.round(exp * (0.8 + 0.4 * random())))
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
