// Java's SlidingWindowedKStreamImpl (a TimeWindowedKStream in Java's API):
// count, reduce and aggregate per key over sliding windows
// (sliding-window-aggregate.ts) into a KTable<Windowed<K>, V> backed by a
// window store, logged to its changelog and keeping windows for
// 2 * timeDifference + grace, as Java's. The table's key serde writes Java's
// TimeWindowedSerializer format with the time difference as the window size
// (a window read back is [start, start + timeDifference]).
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import type { Materialized } from './kgrouped-stream.js'
import { persistentOf } from './nodes.js'
import { repartition } from './repartition.js'
import { fromDefaultSerde, Serdes, type Serde } from './serdes.js'
import { slidingWindowAggregate, type SlidingAggregation } from './sliding-window-aggregate.js'
import type { SlidingWindows } from './sliding-windows.js'
import { WindowedSerdes, type Windowed } from './windowed-serdes.js'

export class SlidingWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    private readonly repartitionName: string | undefined,
    private readonly windows: SlidingWindows,
  ) {}

  /** Records per key and window, as a Long (bigint) table. */
  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    // Unlike the time and session windows' count(Materialized), Java's sliding one spends no extra store index.
    return this.aggregation<bigint>(
      'KSTREAM-AGGREGATE-',
      { valueSerde: Serdes.Long(), ...materialized },
      { initializer: () => 0n, aggregator: (_k, _v, agg) => (agg ?? 0n) + 1n },
    )
  }

  /** Combines each key's values per window: the first value as it is, then reducer(aggregate, value). */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<Windowed<K>, V> {
    return this.aggregation<V>(
      'KSTREAM-REDUCE-',
      { valueSerde: this.up.valueSerde, ...materialized },
      { initializer: () => null, aggregator: (_k, v, agg) => (agg === null ? v : reducer(agg, v)) },
    )
  }

  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<Windowed<K>, VA> {
    return this.aggregation<VA>('KSTREAM-AGGREGATE-', materialized, {
      initializer,
      aggregator: (k, v, agg) => aggregator(k, v, agg as VA),
    })
  }

  private aggregation<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    aggregation: SlidingAggregation<K, V, VA>,
  ): KTable<Windowed<K>, VA> {
    const storeName = materialized.storeName ?? this.b.newStoreName(prefix)
    const name = this.b.newProcessorName(prefix)
    const keySerde = materialized.keySerde ?? this.up.keySerde
    const windows = this.windows
    const { timeDifferenceMs, graceMs } = windows
    let parent = this.up.node
    if (this.up.repartitionRequired) parent = repartition(this.b, this.up, this.repartitionName ?? storeName)
    this.b.topology.addStore({
      name: storeName,
      keySerde,
      valueSerde: materialized.valueSerde,
      window: { retentionMs: 2 * timeDifferenceMs + graceMs },
      persistent: persistentOf(materialized.storeType),
      caching: materialized.cachingEnabled ?? true,
    })
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: [storeName],
      graceMs,
      make: (rt) => slidingWindowAggregate<K, V, VA>(rt, storeName, windows, aggregation),
    })
    const windowedKeySerde: Serde<Windowed<K>> =
      keySerde !== undefined
        ? WindowedSerdes.timeWindowedSerdeFrom(keySerde, timeDifferenceMs)
        : fromDefaultSerde((inner) => WindowedSerdes.timeWindowedSerdeFrom(inner, timeDifferenceMs))
    return this.b.dsl.table<Windowed<K>, VA>(
      this.b,
      { node: name, keySerde: windowedKeySerde, valueSerde: materialized.valueSerde, repartitionRequired: false },
      storeName,
    )
  }
}
