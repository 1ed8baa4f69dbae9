import type { RequestEvent, RequestListener } from '../net/connection-options.js'
import type { BrokerStatistics } from '../observe/statistics.js'

interface Window {
  requests: number
  timeouts: number
  answered: number
  bytes: number
  latencySum: number
  latencyMax: number
  throttleSum: number
  throttleMax: number
}

const fresh = (): Window => ({
  requests: 0,
  timeouts: 0,
  answered: 0,
  bytes: 0,
  latencySum: 0,
  latencyMax: 0,
  throttleSum: 0,
  throttleMax: 0,
})

/**
 * Per-broker request figures for statisticsIntervalMs, gathered from the
 * connections' request events (the onRequest listener, composed with the
 * user's): totals since connecting, and a window each snapshot() closes.
 */
export class RequestStatistics {
  private readonly totals = new Map<string, { requests: number; timeouts: number }>()
  private window = new Map<string, Window>()
  private windowStart = Date.now()

  readonly listen: RequestListener = (event: RequestEvent) => {
    if (event.type === 'queueSize') return
    let w = this.window.get(event.broker)
    if (!w) this.window.set(event.broker, (w = fresh()))
    let t = this.totals.get(event.broker)
    if (!t) this.totals.set(event.broker, (t = { requests: 0, timeouts: 0 }))
    if (event.type === 'timeout') {
      w.timeouts++
      t.timeouts++
      return
    }
    w.answered++
    t.requests++
    w.bytes += event.size
    w.latencySum += event.duration
    if (event.duration > w.latencyMax) w.latencyMax = event.duration
    w.throttleSum += event.throttleTimeMs
    if (event.throttleTimeMs > w.throttleMax) w.throttleMax = event.throttleTimeMs
  }

  /** The figures per broker, the window closed now; `load`: each open connection's in-flight and queued requests. */
  snapshot(load: ReadonlyArray<{ broker: string; inFlight: number; waiting: number }>): BrokerStatistics[] {
    const now = Date.now()
    const seconds = Math.max(now - this.windowStart, 1) / 1000
    const window = this.window
    this.window = new Map()
    this.windowStart = now
    const brokers = new Set([...this.totals.keys(), ...load.map((l) => l.broker)])
    return [...brokers].sort().map((broker) => {
      const w = window.get(broker) ?? fresh()
      const t = this.totals.get(broker) ?? { requests: 0, timeouts: 0 }
      let inFlight = 0
      let waiting = 0
      for (const l of load)
        if (l.broker === broker) {
          inFlight += l.inFlight
          waiting += l.waiting
        }
      return {
        broker,
        requests: t.requests,
        requestRate: w.answered / seconds,
        timeouts: t.timeouts,
        responseBytes: w.bytes,
        latencyAvgMs: w.answered > 0 ? w.latencySum / w.answered : 0,
        latencyMaxMs: w.latencyMax,
        throttleTimeAvgMs: w.answered > 0 ? w.throttleSum / w.answered : 0,
        throttleTimeMaxMs: w.throttleMax,
        inFlight,
        waiting,
      }
    })
  }
}

/** The user's onRequest and the statistics' listener, both told (the user's first). */
export function composeListeners(user: RequestListener | undefined, stats: RequestListener): RequestListener {
  if (!user) return stats
  return (event) => {
    try {
      user(event)
    } finally {
      stats(event)
    }
  }
}
