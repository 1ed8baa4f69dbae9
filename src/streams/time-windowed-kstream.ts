// Java's TimeWindowedKStream: count, reduce and aggregate per key and time
// window into a KTable<Windowed<K>, V> backed by a window store (logged to
// its changelog, windows kept for size + grace). As Java's
// KStreamWindowAggregate: a null key is skipped (a null value is not); stream
// time is the latest timestamp the task's processor has seen; a record
// updates each of its windows that has not closed (end > stream time -
// grace) and is dropped, with a warning, from those that have. Each update
// is forwarded with the window as part of the key (with the record cache,
// Java's default: each changed window once per flush of its store's cache,
// record-cache.ts); the table's key serde writes Java's
// TimeWindowedSerializer format.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import type { Materialized } from './kgrouped-stream.js'
import { persistentOf } from './nodes.js'
import { repartition } from './repartition.js'
import { fromDefaultSerde, Serdes, type Serde } from './serdes.js'
import type { TimeWindows } from './time-windows.js'
import type { StreamRecord } from './topology.js'
import { WindowedSerdes, type Windowed } from './windowed-serdes.js'

export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    private readonly repartitionName: string | undefined,
    private readonly windows: TimeWindows,
  ) {}

  /** Records per key and window, as a Long (bigint) table. */
  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    if (materialized && materialized.storeName === undefined) this.b.newStoreName('KSTREAM-AGGREGATE-')
    return this.aggregation<bigint>(
      'KSTREAM-AGGREGATE-',
      { valueSerde: Serdes.Long(), ...materialized },
      (old) => (old ?? 0n) + 1n,
      () => 0n,
    )
  }

  /** Combines each key's values per window: the first value as it is, then reducer(aggregate, value). */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    return this.aggregation<V>('KSTREAM-REDUCE-', { valueSerde: this.up.valueSerde, ...materialized }, (old, r) =>
      old === null ? r.value : reducer(old, r.value),
    )
  }

  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<Windowed<K>, VA> {
    return this.aggregation<VA>(
      'KSTREAM-AGGREGATE-',
      materialized,
      (old, r) => aggregator(r.key, r.value, old ?? initializer()),
      initializer,
    )
  }

  private aggregation<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    next: (old: VA | null, record: StreamRecord<K, V>) => VA,
    /** A new window's starting aggregate (Java's initializer; reduce's is null): what an update of it replaced. */
    initial: () => VA | null = () => null,
  ): KTable<Windowed<K>, VA> {
    const storeName = materialized.storeName ?? this.b.newStoreName(prefix)
    const name = this.b.newProcessorName(prefix)
    const keySerde = materialized.keySerde ?? this.up.keySerde
    const { sizeMs, graceMs } = this.windows
    const windows = this.windows
    let parent = this.up.node
    if (this.up.repartitionRequired) parent = repartition(this.b, this.up, this.repartitionName ?? storeName)
    this.b.topology.addStore({
      name: storeName,
      keySerde,
      valueSerde: materialized.valueSerde,
      window: { retentionMs: sizeMs + graceMs },
      persistent: persistentOf(materialized.storeType),
      caching: materialized.cachingEnabled ?? true,
    })
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: [storeName],
      graceMs,
      make: (rt) => {
        const store = rt.windowStore<K, VA>(storeName)
        // Caching: the store's flushes forward each changed window, with the value flushed before it.
        const cached = store.setFlushListener((key, start, value, oldValue, timestamp, context) =>
          rt.inContext(context, () =>
            rt.forward({ key: { key, window: { start, end: start + sizeMs } }, value, timestamp, oldValue } as StreamRecord),
          ),
        )
        let observedStreamTime = -Infinity
        return (r) => {
          const c = rt.context()
          // Only a null key is skipped: Java's window aggregation hands a null value to the aggregator (count counts it).
          if (r.key === null || r.key === undefined) {
            rt.log.warn('Skipping record due to null key', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
            return
          }
          observedStreamTime = Math.max(observedStreamTime, r.timestamp)
          const closeTime = observedStreamTime - graceMs
          for (const window of windows.windowsFor(r.timestamp)) {
            if (window.end <= closeTime) {
              rt.log.warn('Skipping record for expired window', {
                topic: c.topic,
                partition: c.partition,
                offset: String(c.offset),
                recordTimestamp: r.timestamp,
                window: `[${window.start},${window.end})`,
                expiration: closeTime,
                streamTime: observedStreamTime,
              })
              continue
            }
            const old = store.fetchWithTimestamp(r.key, window.start)
            const timestamp = old === null ? r.timestamp : Math.max(r.timestamp, old.timestamp)
            const before = old === null ? initial() : old.value
            const value = next(before, r)
            store.put(r.key, value, window.start, timestamp)
            // The value replaced goes along (Java's sendOldValues): a suppression buffer keeps it.
            if (!cached) rt.forward({ key: { key: r.key, window }, value, timestamp, oldValue: before } as StreamRecord)
          }
        }
      },
    })
    const windowedKeySerde: Serde<Windowed<K>> =
      keySerde !== undefined
        ? WindowedSerdes.timeWindowedSerdeFrom(keySerde, sizeMs)
        : fromDefaultSerde((inner) => WindowedSerdes.timeWindowedSerdeFrom(inner, sizeMs))
    return this.b.dsl.table<Windowed<K>, VA>(
      this.b,
      { node: name, keySerde: windowedKeySerde, valueSerde: materialized.valueSerde, repartitionRequired: false },
      storeName,
    )
  }
}
