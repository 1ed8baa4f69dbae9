// builder.globalTable(topic): Java's GlobalKTable. Its topic is read whole
// (every partition) by every instance into one store, bootstrapped before
// the application runs and followed after (global-stores.ts); streams join
// it by a key they map each record to (stream-global-table-join.ts), with
// no co-partitioning. As Java's InternalStreamsBuilder.globalTable: the store
// is named by Materialized, else `<topic>-STATE-STORE-<index>` (the index
// spent first), never logged (the topic is its changelog); the source is
// `<name>-source` else KSTREAM-SOURCE-<index>, the processor `<name>` else
// KTABLE-SOURCE-<index> (both indices spent either way), their own node
// group, which makes no tasks.
import type { InternalBuilder } from './internal-builder.js'
import type { Serde } from './serdes.js'

export interface GlobalTableOptions<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  processorName?: string
  storeName?: string
}

/** Java's GlobalKTable: a table every instance holds whole, for stream joins and interactive queries. */
export class GlobalKTable<K, V> {
  /** @internal */
  readonly keyType?: K
  /** @internal */
  readonly valueType?: V

  /** @internal */
  constructor(
    /** The store holding the table. @internal */
    readonly storeName: string,
    private readonly named: boolean,
  ) {}

  /** The store's name when Materialized named it (query it with `app.store(name, 'keyValue')`), else null, as Java's. */
  queryableStoreName(): string | null {
    return this.named ? this.storeName : null
  }
}

export function globalTableSource<K, V>(b: InternalBuilder, topic: string, o: GlobalTableOptions<K, V>): GlobalKTable<K, V> {
  const storeName = o.storeName ?? b.newStoreName(`${topic}-`)
  // Java's NamedInternal spends both indices even when the names are given.
  const sourceIndexed = b.newProcessorName('KSTREAM-SOURCE-')
  const processorIndexed = b.newProcessorName('KTABLE-SOURCE-')
  const source = o.processorName === undefined ? sourceIndexed : `${o.processorName}-source`
  const processor = o.processorName ?? processorIndexed
  const t = b.topology
  if (t.stores.has(storeName) || t.globalStores.has(storeName)) throw new TypeError(`a store named ${storeName} is already in the topology`)
  t.add({ kind: 'source', name: source, topics: [topic], keySerde: o.keySerde, valueSerde: o.valueSerde })
  // The store is filled from the topic's raw records by the global stores (global-stores.ts), not by a task.
  t.add({
    kind: 'processor',
    name: processor,
    parents: [source],
    stores: [storeName],
    make: () => () => {
      throw new Error(`${processor} fills a global store: it runs in no task`)
    },
  })
  t.globalStores.set(storeName, { name: storeName, topic, source, processor, keySerde: o.keySerde, valueSerde: o.valueSerde })
  return new GlobalKTable<K, V>(storeName, o.storeName !== undefined)
}
