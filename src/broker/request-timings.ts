import { readFileSync, writeFileSync } from 'node:fs'
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'

/**
 * A debug counter for load runs: every client request's time from its frame
 * read off the socket to its response written, by API key, as a histogram
 * of milliseconds. On only when WAFKA_BROKER_REQUEST_TIMINGS names a file (%p: the process id),
 * which gets the percentiles as JSON when the process exits (how
 * bench/results/broker-load.md measured the embedded broker under
 * franz-go's suite); off, recording is one branch.
 */
const file = typeof process !== 'undefined' ? process.env.WAFKA_BROKER_REQUEST_TIMINGS?.replace('%p', String(process.pid)) : undefined

/** Per API key: counts by whole millisecond (the last bucket: 60 s and more). */
const buckets = new Map<number, Uint32Array>()
const TOP_MS = 60_000

export const requestTimingsOn = !!file

/** The event loop's delay while on (what a new connection waits to be accepted, a timer to fire). */
let loopDelay: IntervalHistogram | null = null
if (file) {
  loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
}

export function recordRequestTime(apiKey: number, ms: number): void {
  let b = buckets.get(apiKey)
  if (!b) buckets.set(apiKey, (b = new Uint32Array(TOP_MS + 1)))
  b[Math.min(TOP_MS, Math.max(0, Math.round(ms)))]++
}

/** Count, p50, p99, p99.9 and max per API key (milliseconds). */
export function requestTimingSummary(): Record<number, { count: number; p50: number; p99: number; p999: number; max: number }> {
  const out: Record<number, { count: number; p50: number; p99: number; p999: number; max: number }> = {}
  for (const [key, b] of [...buckets].sort((x, y) => x[0] - y[0])) {
    let count = 0
    let max = 0
    for (let i = 0; i < b.length; i++) if (b[i]) ((count += b[i]), (max = i))
    const at = (q: number) => {
      let seen = 0
      for (let i = 0; i < b.length; i++) if ((seen += b[i]) >= q * count) return i
      return max
    }
    out[key] = { count, p50: at(0.5), p99: at(0.99), p999: at(0.999), max }
  }
  return out
}

/** Linux: the resident bytes of the process's [heap] mapping (glibc malloc's main arena, where array buffers are allocated), else -1. */
function mallocHeapRss(): number {
  try {
    const smaps = readFileSync('/proc/self/smaps', 'utf8')
    const at = smaps.indexOf(' [heap]\n')
    if (at < 0) return 0
    const rss = /\nRss:\s+(\d+) kB/.exec(smaps.slice(at))
    return rss ? Number(rss[1]) * 1024 : -1
  } catch {
    return -1
  }
}

if (file)
  process.on('exit', () => {
    const d = loopDelay!
    const ms = (ns: number) => Math.round(ns / 1e6)
    const eventLoopDelay = { p50: ms(d.percentile(50)), p99: ms(d.percentile(99)), p999: ms(d.percentile(99.9)), max: ms(d.max) }
    // What the process holds at its end (every topic deleted by then, in a suite run), after a full GC when node runs with --expose-gc.
    ;(globalThis as { gc?: () => void }).gc?.()
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage()
    // heapTotal: what V8 holds for its heap (used or not); the rest of rss beyond it and the array buffers is native
    // memory the allocator (glibc malloc, which array buffers come from) keeps after they were freed.
    const memoryAtExit = { rss, heapTotal, heapUsed, external, arrayBuffers, mallocHeapRss: mallocHeapRss() }
    writeFileSync(file, JSON.stringify({ ...requestTimingSummary(), eventLoopDelay, memoryAtExit }, null, 2))
  })
