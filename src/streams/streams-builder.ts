// The DSL's entry, as Java's StreamsBuilder: stream(topic | topics) → KStream,
// build() → Topology.
import type { Serde } from './serdes.js'
import { InternalBuilder } from './internal-builder.js'
import { streamOf, type KStream } from './kstream.js'
import { groupedOf } from './kgrouped-stream.js'
import { tableOf, type KTable } from './ktable.js'
import type { Materialized } from './kgrouped-stream.js'
import { tableSource } from './table-source.js'
import { BranchedKStream } from './branched-kstream.js'
import { globalTableSource, type GlobalKTable } from './global-table.js'
import type { Topology } from './topology.js'
import type { StoreBuilder } from './processor.js'

/** Java's Consumed: how a source reads its topic's records. */
export interface Consumed<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  /** The source node's name instead of KSTREAM-SOURCE-<index>. */
  processorName?: string
}

export class StreamsBuilder {
  private readonly internal = new InternalBuilder({
    stream: streamOf,
    grouped: groupedOf,
    table: tableOf,
    split: (b, up, name) => new BranchedKStream(b, up, name),
  })

  stream<K = Buffer, V = Buffer>(topics: string | string[], consumed: Consumed<K, V> = {}): KStream<K, V> {
    const list = typeof topics === 'string' ? [topics] : [...topics]
    if (list.length === 0 || list.some((t) => typeof t !== 'string' || t === ''))
      throw new TypeError('stream() takes a topic name or a non-empty list of them')
    const name = consumed.processorName ?? this.internal.newProcessorName('KSTREAM-SOURCE-')
    this.internal.topology.add({ kind: 'source', name, topics: list, keySerde: consumed.keySerde, valueSerde: consumed.valueSerde })
    return streamOf<K, V>(this.internal, {
      node: name,
      keySerde: consumed.keySerde,
      valueSerde: consumed.valueSerde,
      repartitionRequired: false,
    })
  }

  /**
   * The topic read as a table (Java's builder.table): each record an update of its key's value, a
   * null value a deletion. Materialized in the store `materialized.storeName` (logged to its
   * changelog); without a name, in `<topic>-STATE-STORE-<index>` once a join reads it.
   */
  table<K = Buffer, V = Buffer>(topic: string, consumed: Consumed<K, V> = {}, materialized: Materialized<K, V> = {}): KTable<K, V> {
    if (typeof topic !== 'string' || topic === '') throw new TypeError('table() takes a topic name')
    return tableSource<K, V>(this.internal, topic, {
      keySerde: consumed.keySerde ?? materialized.keySerde,
      valueSerde: consumed.valueSerde ?? materialized.valueSerde,
      processorName: consumed.processorName,
      storeName: materialized.storeName,
      storeType: materialized.storeType,
      cachingEnabled: materialized.cachingEnabled,
    })
  }

  /**
   * The topic read whole as a table by every instance (Java's builder.globalTable): bootstrapped
   * before the application runs, then kept following the topic; a null value a deletion. Held in
   * the store `materialized.storeName`, else `<topic>-STATE-STORE-<index>`, with no changelog.
   * Streams join it with join / leftJoin(globalTable, keySelector, joiner), with no co-partitioning.
   */
  globalTable<K = Buffer, V = Buffer>(
    topic: string,
    consumed: Consumed<K, V> = {},
    materialized: Materialized<K, V> = {},
  ): GlobalKTable<K, V> {
    if (typeof topic !== 'string' || topic === '') throw new TypeError('globalTable() takes a topic name')
    return globalTableSource<K, V>(this.internal, topic, {
      keySerde: consumed.keySerde ?? materialized.keySerde,
      valueSerde: consumed.valueSerde ?? materialized.valueSerde,
      processorName: consumed.processorName,
      storeName: materialized.storeName,
    })
  }

  /** Adds a store for processors (Java's addStateStore): connect it by naming it in `KStream.process()`. */
  addStateStore(store: StoreBuilder): this {
    if (!store || typeof store.name !== 'string' || !store.def)
      throw new TypeError('addStateStore() takes a store builder: Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), ...)')
    this.internal.topology.addStore({ ...store.def })
    return this
  }

  /** The topology the DSL calls made. */
  build(): Topology {
    return this.internal.topology
  }
}
