// builder.table(topic): a source and Java's KTABLE-SOURCE processor, which
// puts each record into the table's store (a null value deletes) and
// forwards it. As Java's InternalStreamsBuilder.table: the store is named by
// Materialized, else `<topic>-STATE-STORE-<index>` (the index spent first),
// and an unnamed table gets its store only when something needs to read it
// (a join), as Java's KTableSource.materialize().
import type { InternalBuilder } from './internal-builder.js'
import type { KTable } from './ktable.js'
import type { Serde } from './serdes.js'
import type { ProcessorNode, StreamRecord } from './topology.js'
import { persistentOf, type DslStoreType } from './nodes.js'

/** Java's Consumed and Materialized, as builder.table() takes them. */
export interface TableSourceOptions<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  processorName?: string
  storeName?: string
  /** Java's Materialized.withStoreType: 'rocksDB' (persistent, a file under stateDir) or 'in_memory'; default: defaultDslStore. */
  storeType?: DslStoreType
  /** Java's Materialized.withCachingEnabled/Disabled for the table's store (default true): see Materialized.cachingEnabled. */
  cachingEnabled?: boolean
}

export function tableSource<K, V>(b: InternalBuilder, topic: string, o: TableSourceOptions<K, V>): KTable<K, V> {
  const storeName = o.storeName ?? b.newStoreName(`${topic}-`)
  // Java: a given name names the table source, and the source `<name>-source`.
  const source = o.processorName === undefined ? b.newProcessorName('KSTREAM-SOURCE-') : `${o.processorName}-source`
  const name = o.processorName ?? b.newProcessorName('KTABLE-SOURCE-')
  const t = b.topology
  t.add({ kind: 'source', name: source, topics: [topic], keySerde: o.keySerde, valueSerde: o.valueSerde })
  const node: ProcessorNode = {
    kind: 'processor',
    name,
    parents: [source],
    stores: [],
    make: (rt) => {
      const store = node.stores.length > 0 ? rt.store<K, V>(storeName) : null
      // The value replaced goes along: a table-table join's kept side needs it (Java's sendOldValues).
      const cached = store !== null && rt.forwardOnFlush(storeName, true)
      return (r) => {
        if (r.key === null || r.key === undefined) {
          const c = rt.context()
          rt.log.warn('Skipping record due to null key', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
          return
        }
        if (store) {
          const old = store.getWithTimestamp(r.key)
          if (old !== null && r.timestamp < old.timestamp) {
            const c = rt.context()
            rt.log.warn(`Detected out-of-order KTable update for ${storeName}`, {
              oldTimestamp: old.timestamp,
              newTimestamp: r.timestamp,
              topic: c.topic,
              partition: c.partition,
              offset: String(c.offset),
            })
          }
          store.put(r.key, r.value ?? null, r.timestamp)
          if (cached) return
          rt.forward({ key: r.key, value: r.value ?? null, timestamp: r.timestamp, oldValue: old?.value ?? null } as StreamRecord)
          return
        }
        rt.forward({ key: r.key, value: r.value ?? null, timestamp: r.timestamp })
      }
    },
  }
  t.add(node)
  const materialize = () => {
    if (node.stores.length === 0) {
      t.addStore({
        name: storeName,
        keySerde: o.keySerde,
        valueSerde: o.valueSerde,
        persistent: persistentOf(o.storeType),
        caching: o.cachingEnabled ?? true,
      })
      node.stores.push(storeName)
    }
    return storeName
  }
  const queryable = o.storeName !== undefined
  if (queryable) materialize()
  const up = { node: name, keySerde: o.keySerde, valueSerde: o.valueSerde, repartitionRequired: false }
  return b.dsl.table<K, V>(b, up, queryable ? storeName : null, materialize)
}
