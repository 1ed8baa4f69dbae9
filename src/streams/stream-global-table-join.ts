// KStream.join / leftJoin(GlobalKTable, keySelector, joiner), as Java's
// KStreamGlobalKTableJoin: each record's value is joined with the global
// table's value for the key `keySelector` maps the record to. A null value
// is dropped (and a null mapped key, except in a left join, which joins it
// with null), warning as Java does; inner drops a record the table has no
// value for, left joins it with null. The output keeps the stream record's
// key and timestamp. No repartition and no co-partitioning: every instance
// holds the whole table. Java names both joins' node KSTREAM-LEFTJOIN-<index>
// and connects it to no store (it reads the global store by name); so do we.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { GlobalKTable } from './global-table.js'

export type KeyValueMapper<K, V, GK> = (key: K, value: V) => GK

export function streamGlobalTableJoin<K, V, GK, GV, VR>(
  b: InternalBuilder,
  up: Upstream,
  table: GlobalKTable<GK, GV>,
  keySelector: KeyValueMapper<K, V, GK>,
  joiner: (value: V, tableValue: GV | null, key: K) => VR,
  left: boolean,
): Upstream {
  if (typeof keySelector !== 'function' || typeof joiner !== 'function')
    throw new TypeError('join(globalTable, keySelector, joiner) takes a global table and two functions')
  const store = table.storeName
  const name = b.newProcessorName('KSTREAM-LEFTJOIN-')
  b.topology.add({
    kind: 'processor',
    name,
    parents: [up.node],
    stores: [],
    make: (rt) => {
      const values = rt.globalStore<GK, GV>(store)
      return (r) => {
        const mapped = r.value === null || r.value === undefined ? null : keySelector(r.key, r.value)
        const noKey = mapped === null || mapped === undefined
        if (r.value === null || r.value === undefined || (noKey && !left)) {
          const c = rt.context()
          rt.log.warn('Skipping record due to null join key or value', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
          return
        }
        const other = noKey ? null : values.get(mapped)
        if (left || other !== null) rt.forward({ key: r.key, value: joiner(r.value, other, r.key), timestamp: r.timestamp })
      }
    },
  })
  return { node: name, keySerde: up.keySerde, valueSerde: undefined, repartitionRequired: up.repartitionRequired }
}
