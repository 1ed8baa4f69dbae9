// Java's KStreamSlidingWindowAggregate, the processor of a sliding-window
// aggregation. A record at t (key and value not null) lands in:
// - its left window [t - d, t] (d the time difference), made from the
//   aggregate of the latest earlier window whose records it still covers,
//   or from the initializer;
// - every existing window of its key holding t (updated);
// - its right window [t + 1, t + 1 + d], made (without this record) when a
//   later record of the key is within d, from the aggregate of the window
//   that holds those later records;
// - the right window of the record before it, when that window is new and
//   reaches t.
// Records before d (the "early" ones) share one window [0, d] instead of a
// left window. Stream time is the latest timestamp the processor has seen;
// a window ending before stream time - grace is closed: a record whose own
// window [t, t + d] is closed is dropped, and a closed window is not updated
// (both with a warning). Each window changed is forwarded with its timestamp
// (the latest of its records'): at once with the cache off, else once per
// flush of the store's cache (record-cache.ts), as Java's.
import type { NodeRuntime } from './nodes.js'
import type { SlidingWindows } from './sliding-windows.js'
import { StreamsError } from './streams-error.js'
import type { StreamRecord } from './topology.js'
import type { Window } from './windowed-serdes.js'

/** A window's aggregate (null: the reduce initializer's, before any value) and the latest timestamp in it. */
interface Agg<VA> {
  value: VA | null
  timestamp: number
}

export interface SlidingAggregation<K, V, VA> {
  initializer: () => VA | null
  aggregator: (key: K, value: V, aggregate: VA | null) => VA
}

/** The record handler of one task's sliding-window aggregation into store `storeName`. */
export function slidingWindowAggregate<K, V, VA>(
  rt: NodeRuntime,
  storeName: string,
  windows: SlidingWindows,
  { initializer, aggregator }: SlidingAggregation<K, V, VA>,
): (r: StreamRecord<K, V>) => void {
  const store = rt.windowStore<K, VA>(storeName)
  const d = windows.timeDifferenceMs
  // Caching: the store's flushes forward each changed window, with the value flushed before it.
  const cached = store.setFlushListener((key, start, value, oldValue, timestamp, context) =>
    rt.inContext(context, () =>
      rt.forward({ key: { key, window: { start, end: start + d } }, value, timestamp, oldValue } as StreamRecord),
    ),
  )
  let observedStreamTime = -1
  const where = () => {
    const c = rt.context()
    return { topic: c.topic, partition: c.partition, offset: String(c.offset) }
  }
  const fresh = (timestamp: number): Agg<VA> => ({ value: initializer(), timestamp })

  const skipExpired = (r: StreamRecord<K, V>, window: string, closeTime: number) =>
    rt.log.warn('Skipping record for expired window', {
      ...where(),
      recordTimestamp: r.timestamp,
      window,
      expiration: closeTime,
      streamTime: observedStreamTime,
    })

  /** Adds the record to `window` (whose aggregate was `old`) unless the window has closed. */
  const update = (r: StreamRecord<K, V>, window: Window, old: Agg<VA>, closeTime: number) => {
    if (window.end < closeTime) return skipExpired(r, `[${window.start},${window.end}]`, closeTime)
    const value = aggregator(r.key, r.value, old.value)
    const timestamp = old.value === null ? r.timestamp : Math.max(r.timestamp, old.timestamp)
    store.put(r.key, value, window.start, timestamp)
    // The aggregate replaced goes along (Java's Change old value: suppress buffers it).
    if (!cached) rt.forward({ key: { key: r.key, window }, value, timestamp, oldValue: old.value } as StreamRecord)
  }

  /** The record's right window, holding the later records `rightAgg` has (not the record itself): no close check, as Java's. */
  const createRightWindow = (r: StreamRecord<K, V>, rightAgg: Agg<VA>) => {
    const window = { start: r.timestamp + 1, end: r.timestamp + 1 + d }
    store.put(r.key, rightAgg.value, window.start, rightAgg.timestamp)
    if (!cached)
      rt.forward({ key: { key: r.key, window }, value: rightAgg.value, timestamp: rightAgg.timestamp, oldValue: null } as StreamRecord)
  }

  const windowFrom = (start: number): Window => ({ start, end: start + d })

  const unexpected = (start: number, t: number) =>
    new StreamsError(`Unexpected window with start ${start} found when processing record at ${t} in store ${storeName} (sliding windows)`)

  /** A record at t >= d: the key's windows starting in [t - 2d, t + 1], latest first (Java's reverse iteration). */
  function processReverse(r: StreamRecord<K, V>, closeTime: number): void {
    const t = r.timestamp
    const starts = new Set<number>()
    let leftAgg: Agg<VA> | null = null
    let rightAgg: Agg<VA> | null = null
    let leftCreated = false
    let rightCreated = false
    let previousTimestamp: number | null = null
    const found = store.fetchWindows(r.key, Math.max(0, t - 2 * d), t + 1).reverse()
    for (const w of found) {
      starts.add(w.windowStart)
      const end = w.windowStart + d
      const old = { value: w.value, timestamp: w.timestamp }
      if (w.windowStart === t + 1) rightCreated = true
      else if (end > t) {
        rightAgg ??= old
        update(r, windowFrom(w.windowStart), old, closeTime)
      } else if (end === t) {
        leftCreated = true
        update(r, windowFrom(w.windowStart), old, closeTime)
        // A record already at t: its windows (left and right) exist and were just updated.
        if (w.timestamp >= t) return
        previousTimestamp = w.timestamp
      } else {
        leftAgg = old
        previousTimestamp = w.timestamp
        break
      }
    }
    if (previousTimestamp !== null) {
      const start = previousTimestamp + 1
      if (!starts.has(start) && start + d >= t) update(r, windowFrom(start), fresh(t), closeTime)
    }
    if (!leftCreated) {
      const covered = previousTimestamp !== null && t - d <= previousTimestamp
      update(r, { start: t - d, end: t }, covered ? { value: leftAgg!.value, timestamp: t } : fresh(t), closeTime)
    }
    if (!rightCreated && rightAgg !== null && rightAgg.timestamp > t) createRightWindow(r, rightAgg)
  }

  /** A record at 0 <= t < d: its left window would start before 0, so the key's early records share [0, d]. */
  function processEarly(r: StreamRecord<K, V>, closeTime: number): void {
    const t = r.timestamp
    if (t < 0) throw new StreamsError(`sliding windows take no record with a negative timestamp (${t}), as Java's (store ${storeName})`)
    let combined: Agg<VA> | null = null
    let rightAgg: Agg<VA> | null = null
    let rightCreated = false
    const starts = new Set<number>()
    let previousTimestamp: number | null = null
    for (const w of store.fetchWindows(r.key, 0, t + 1)) {
      starts.add(w.windowStart)
      const old = { value: w.value, timestamp: w.timestamp }
      if (w.windowStart === 0) {
        combined = old
        if (w.timestamp < t) previousTimestamp = w.timestamp
      } else if (w.windowStart <= t) {
        rightAgg = old
        update(r, windowFrom(w.windowStart), old, closeTime)
      } else if (w.windowStart === t + 1) rightCreated = true
      else throw unexpected(w.windowStart, t)
    }
    if (rightAgg === null && combined !== null && combined.timestamp > t) rightAgg = combined
    if (!rightCreated && rightAgg !== null && rightAgg.timestamp > t) createRightWindow(r, rightAgg)
    if (previousTimestamp !== null && !starts.has(previousTimestamp + 1)) update(r, windowFrom(previousTimestamp + 1), fresh(t), closeTime)
    update(r, windowFrom(0), combined ?? fresh(t), closeTime)
  }

  return (r) => {
    if (r.key === null || r.key === undefined || r.value === null || r.value === undefined) {
      rt.log.warn('Skipping record due to null key or value', where())
      return
    }
    observedStreamTime = Math.max(observedStreamTime, r.timestamp)
    const closeTime = observedStreamTime - windows.graceMs
    if (r.timestamp + d < closeTime) return skipExpired(r, `[${r.timestamp},${r.timestamp + d}]`, closeTime)
    if (r.timestamp < d) processEarly(r, closeTime)
    else processReverse(r, closeTime)
  }
}
