/**
 * Faults a test asks for: an error code answered to the next N requests of
 * an API, and latency added before every response. Timers are tracked so
 * stopping the cluster leaves none behind.
 */
export class Faults {
  private readonly injected = new Map<number, { code: number; left: number }[]>()
  latencyMs = 0
  private readonly sleeps = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>()

  inject(apiKey: number, code: number, count: number): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`injectError count must be a positive integer, not ${count}`)
    const list = this.injected.get(apiKey) ?? []
    list.push({ code, left: count })
    this.injected.set(apiKey, list)
  }

  /** The error code to answer this request of `apiKey` with, or null; counts it. */
  take(apiKey: number): number | null {
    const list = this.injected.get(apiKey)
    const next = list?.[0]
    if (!next) return null
    if (--next.left === 0) list.shift()
    return next.code
  }

  /** Waits the added latency (at once when there is none, or the cluster stops). */
  delay(): Promise<void> | null {
    if (this.latencyMs <= 0) return null
    return new Promise((resolve) => {
      const sleep = { timer: setTimeout(() => (this.sleeps.delete(sleep), resolve()), this.latencyMs), resolve }
      this.sleeps.add(sleep)
    })
  }

  clear(): void {
    this.injected.clear()
    this.latencyMs = 0
    for (const s of this.sleeps) {
      clearTimeout(s.timer)
      s.resolve()
    }
    this.sleeps.clear()
  }
}
