// Java's SessionWindowedKStream: count, reduce and aggregate per key and
// session into a KTable<Windowed<K>, V> backed by a session store (logged to
// its changelog, sessions kept for gap + grace). As Java's
// KStreamSessionWindowAggregate: a null key is skipped; stream time is the
// latest timestamp the task's processor has seen; a record at t takes in
// every session of its key ending at or after t - gap and starting at or
// before t + gap (their aggregates merged into the initializer's, by end),
// the merged session spanning them all and t. If that session ends before
// stream time - grace - gap the record is dropped with a warning; otherwise
// each session it took in is removed and forwarded as a deletion, then the
// merged session is put and forwarded, each at its session's end (Java's
// output timestamp): at once with the cache off, else each changed session
// once per flush of the store's cache (record-cache.ts), as Java's.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import type { Materialized } from './kgrouped-stream.js'
import { persistentOf } from './nodes.js'
import { repartition } from './repartition.js'
import { fromDefaultSerde, Serdes, type Serde } from './serdes.js'
import type { SessionWindows } from './session-windows.js'
import type { StreamRecord } from './topology.js'
import { WindowedSerdes, type Window, type Windowed } from './windowed-serdes.js'

/** Java's Merger: combines the aggregates of two sessions a record bridges. */
export type Merger<K, VA> = (key: K, aggregate1: VA, aggregate2: VA) => VA

export class SessionWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    private readonly repartitionName: string | undefined,
    private readonly windows: SessionWindows,
  ) {}

  /** Records per key and session, as a Long (bigint) table; merged sessions add up. */
  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    // Java's count(Materialized) without a store name spends one index more (SessionWindowedKStreamImpl.count).
    if (materialized && materialized.storeName === undefined) this.b.newStoreName('KSTREAM-AGGREGATE-')
    return this.aggregation<bigint>(
      'KSTREAM-AGGREGATE-',
      { valueSerde: Serdes.Long(), ...materialized },
      () => 0n,
      (_k, _v, agg) => agg + 1n,
      (_k, a, b) => a + b,
    )
  }

  /** Combines each key's values per session: the first value as it is, then reducer(aggregate, value); merged sessions by reducer too. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    // As Java's: the aggregate starts as null; merging is the aggregator with the sessions' aggregates as value and aggregate.
    const aggregator = (_k: K, value: V, agg: V | null) => (agg === null ? value : reducer(agg, value))
    return this.aggregation<V | null>(
      'KSTREAM-REDUCE-',
      { valueSerde: this.up.valueSerde, ...materialized } as Materialized<K, V | null>,
      () => null,
      aggregator,
      (k, a, b) => aggregator(k, b as V, a),
    ) as KTable<Windowed<K>, V>
  }

  /** Aggregates each key's values per session; `merger` combines two sessions' aggregates when a record bridges them. */
  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    merger: Merger<K, VA>,
    materialized: Materialized<K, VA> = {},
  ): KTable<Windowed<K>, VA> {
    if (typeof merger !== 'function') throw new TypeError('aggregate() on session windows takes a merger (Java: sessionMerger)')
    return this.aggregation<VA>('KSTREAM-AGGREGATE-', materialized, initializer, aggregator, merger)
  }

  private aggregation<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    merger: Merger<K, VA>,
  ): KTable<Windowed<K>, VA> {
    const storeName = materialized.storeName ?? this.b.newStoreName(prefix)
    const name = this.b.newProcessorName(prefix)
    const keySerde = materialized.keySerde ?? this.up.keySerde
    const { inactivityGapMs: gapMs, graceMs } = this.windows
    let parent = this.up.node
    if (this.up.repartitionRequired) parent = repartition(this.b, this.up, this.repartitionName ?? storeName)
    this.b.topology.addStore({
      name: storeName,
      keySerde,
      valueSerde: materialized.valueSerde,
      session: { retentionMs: gapMs + graceMs },
      persistent: persistentOf(materialized.storeType),
      caching: materialized.cachingEnabled ?? true,
    })
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: [storeName],
      // A session closes gap + grace after its end (Java's SessionWindowedKStreamImpl grace for suppress).
      graceMs: gapMs + graceMs,
      make: (rt) => {
        const store = rt.sessionStore<K, VA>(storeName)
        // Caching: the store's flushes forward each changed session (a removed one as null) at its end, with the aggregate flushed before.
        const cached = store.setFlushListener((key, window, value, oldValue, context) =>
          rt.inContext(context, () => rt.forward({ key: { key, window }, value, timestamp: window.end, oldValue } as StreamRecord)),
        )
        let observedStreamTime = -Infinity
        return (r: StreamRecord<K, V>) => {
          const c = rt.context()
          if (r.key === null || r.key === undefined) {
            rt.log.warn('Skipping record due to null key', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
            return
          }
          const t = r.timestamp
          observedStreamTime = Math.max(observedStreamTime, t)
          const closeTime = observedStreamTime - graceMs - gapMs
          const merged = store.findSessions(r.key, t - gapMs, t + gapMs)
          let window: Window = { start: t, end: t }
          let agg = initializer()
          for (const s of merged) {
            agg = merger(r.key, agg, s.value)
            window = { start: Math.min(window.start, s.window.start), end: Math.max(window.end, s.window.end) }
          }
          if (window.end < closeTime) {
            rt.log.warn('Skipping record for expired window', {
              topic: c.topic,
              partition: c.partition,
              offset: String(c.offset),
              recordTimestamp: t,
              window: `[${window.start},${window.end}]`,
              expiration: closeTime,
              streamTime: observedStreamTime,
            })
            return
          }
          // A record on an existing single-point session [t, t] leaves it in place (Java compares the windows).
          if (window.start !== t || window.end !== t)
            for (const s of merged) {
              store.remove(r.key, s.window, t)
              // The value replaced goes along (Java's sendOldValues): a suppression buffer keeps it.
              if (!cached)
                rt.forward({
                  key: { key: r.key, window: s.window },
                  value: null,
                  timestamp: s.window.end,
                  oldValue: s.value,
                } as StreamRecord)
            }
          agg = aggregator(r.key, r.value, agg)
          store.put(r.key, window, agg, t)
          if (!cached) rt.forward({ key: { key: r.key, window }, value: agg, timestamp: window.end })
        }
      },
    })
    const windowedKeySerde: Serde<Windowed<K>> =
      keySerde !== undefined ? WindowedSerdes.sessionWindowedSerdeFrom(keySerde) : fromDefaultSerde(WindowedSerdes.sessionWindowedSerdeFrom)
    return this.b.dsl.table<Windowed<K>, VA>(
      this.b,
      { node: name, keySerde: windowedKeySerde, valueSerde: materialized.valueSerde, repartitionRequired: false },
      storeName,
    )
  }
}
