// Java's KGroupedStream: count, reduce and aggregate into a KTable backed by a
// key-value store (logged to its changelog), or windowedBy for windowed ones.
// When a key changed upstream the records go through a repartition topic
// first (repartition.ts).
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import { Serdes, type Serde } from './serdes.js'
import type { StreamRecord } from './topology.js'
import { persistentOf, type DslStoreType } from './nodes.js'
import { repartition } from './repartition.js'
import { TimeWindowedKStream } from './time-windowed-kstream.js'
import { TimeWindows } from './time-windows.js'
import { SessionWindowedKStream } from './session-windowed-kstream.js'
import { SessionWindows } from './session-windows.js'
import { SlidingWindowedKStream } from './sliding-windowed-kstream.js'
import { SlidingWindows } from './sliding-windows.js'

/** Java's Materialized: the store's name (else generated), serdes and type. */
export interface Materialized<K, V> {
  storeName?: string
  /**
   * Java's withStoreType: `'rocksDB'` a persistent store (ours is a log-structured file under stateDir, not
   * RocksDB), `'in_memory'` memory only. Default: the application's defaultDslStore.
   */
  storeType?: DslStoreType
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  /**
   * Java's withCachingEnabled() / withCachingDisabled(): the store is behind the record cache
   * (statestoreCacheMaxBytes), which forwards and logs each key's (window's, session's) latest update
   * at a commit or an eviction. Default: true, as Java's DSL stores (key-value, window and session).
   */
  cachingEnabled?: boolean
}

export class KGroupedStream<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    private readonly repartitionName: string | undefined,
  ) {}

  /** Aggregations per key and time window (tumbling, hopping or sliding), or per key and session, into a table keyed by Windowed<K>. */
  windowedBy(windows: TimeWindows): TimeWindowedKStream<K, V>
  windowedBy(windows: SlidingWindows): SlidingWindowedKStream<K, V>
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>
  windowedBy(
    windows: TimeWindows | SlidingWindows | SessionWindows,
  ): TimeWindowedKStream<K, V> | SlidingWindowedKStream<K, V> | SessionWindowedKStream<K, V> {
    if (windows instanceof SessionWindows) return new SessionWindowedKStream<K, V>(this.b, this.up, this.repartitionName, windows)
    if (windows instanceof SlidingWindows) return new SlidingWindowedKStream<K, V>(this.b, this.up, this.repartitionName, windows)
    if (windows instanceof TimeWindows) return new TimeWindowedKStream<K, V>(this.b, this.up, this.repartitionName, windows)
    throw new TypeError('windowedBy() takes TimeWindows, SlidingWindows or SessionWindows')
  }

  /** Records per key, as a Long (bigint) table. */
  count(materialized?: Materialized<K, bigint>): KTable<K, bigint> {
    // Java's count(Materialized) without a store name spends one index more (KGroupedStreamImpl.count).
    if (materialized && materialized.storeName === undefined) this.b.newStoreName('KSTREAM-AGGREGATE-')
    return this.aggregation<bigint>('KSTREAM-AGGREGATE-', { valueSerde: Serdes.Long(), ...materialized }, (old) => (old ?? 0n) + 1n)
  }

  /** Combines each key's values: the first value as it is, then reducer(aggregate, value). */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<K, V> {
    return this.aggregation<V>('KSTREAM-REDUCE-', { valueSerde: this.up.valueSerde, ...materialized }, (old, r) =>
      old === null ? r.value : reducer(old, r.value),
    )
  }

  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<K, VA> {
    return this.aggregation<VA>('KSTREAM-AGGREGATE-', materialized, (old, r) => aggregator(r.key, r.value, old ?? initializer()))
  }

  private aggregation<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    next: (old: VA | null, record: StreamRecord<K, V>) => VA,
  ): KTable<K, VA> {
    const storeName = materialized.storeName ?? this.b.newStoreName(prefix)
    const name = this.b.newProcessorName(prefix)
    const keySerde = materialized.keySerde ?? this.up.keySerde
    let parent = this.up.node
    if (this.up.repartitionRequired) parent = repartition(this.b, this.up, this.repartitionName ?? storeName)
    this.b.topology.addStore({
      name: storeName,
      keySerde,
      valueSerde: materialized.valueSerde,
      persistent: persistentOf(materialized.storeType),
      caching: materialized.cachingEnabled ?? true,
    })
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: [storeName],
      make: (rt) => {
        const store = rt.store<K, VA>(storeName)
        // Caching: the store's flushes forward (each key's latest value, at a commit or an eviction).
        const cached = rt.forwardOnFlush(storeName, false)
        return (r) => {
          if (r.key === null || r.key === undefined || r.value === null || r.value === undefined) {
            const c = rt.context()
            rt.log.warn('Skipping record due to null key or value', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
            return
          }
          const old = store.getWithTimestamp(r.key)
          const timestamp = old === null ? r.timestamp : Math.max(r.timestamp, old.timestamp)
          const value = next(old === null ? null : old.value, r)
          store.put(r.key, value, timestamp)
          if (!cached) rt.forward({ key: r.key, value, timestamp })
        }
      },
    })
    return this.b.dsl.table<K, VA>(
      this.b,
      { node: name, keySerde, valueSerde: materialized.valueSerde, repartitionRequired: false },
      storeName,
    )
  }
}

export const groupedOf = <K, V>(b: InternalBuilder, up: Upstream, repartitionName: string | undefined): KGroupedStream<K, V> =>
  new KGroupedStream<K, V>(b, up, repartitionName)
