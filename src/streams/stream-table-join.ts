// KStream.join / leftJoin(KTable), as Java's KStreamKTableJoin: each stream
// record looks up the table's current value for its key in the table's store
// (connected to the join node, so both sides are one sub-topology and their
// topics one co-partition group). Inner drops a record the table has no value
// for; left calls the joiner with null. A null value is dropped (and a null
// key, except in a left join, which joins it with null), warning as Java
// does. The output keeps the stream record's key and timestamp. A stream
// whose key changed (map, flatMap, selectKey) is repartitioned first, as Java
// does, so its records meet the table's in the task of their new key.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import { repartition } from './repartition.js'

/** Java's ValueJoiner, with the key last (Java's ValueJoinerWithKey has it first). */
export type ValueJoiner<V, VT, VR, K> = (value: V, tableValue: VT | null, key: K) => VR

export function streamTableJoin<K, V, VT, VR>(
  b: InternalBuilder,
  up: Upstream,
  table: KTable<K, VT>,
  joiner: ValueJoiner<V, VT, VR, K>,
  left: boolean,
): Upstream {
  if (typeof joiner !== 'function') throw new TypeError('join() takes a table and a joiner function')
  // A stream whose key changed goes through `<its node>-repartition` first, as Java's repartitionForJoin.
  if (up.repartitionRequired) up = { ...up, node: repartition(b, up, up.node), repartitionRequired: false }
  const store = table.valueStore()
  const name = b.newProcessorName(left ? 'KSTREAM-LEFTJOIN-' : 'KSTREAM-JOIN-')
  b.topology.add({
    kind: 'processor',
    name,
    parents: [up.node],
    stores: [store],
    make: (rt) => {
      const values = rt.store<K, VT>(store)
      return (r) => {
        const noKey = r.key === null || r.key === undefined
        if (r.value === null || r.value === undefined || (noKey && !left)) {
          const c = rt.context()
          rt.log.warn('Skipping record due to null join key or value', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
          return
        }
        const other = noKey ? null : values.get(r.key)
        if (left || other !== null) rt.forward({ key: r.key, value: joiner(r.value, other, r.key), timestamp: r.timestamp })
      }
    },
  })
  b.topology.copartition([up.node, table.upstream.node])
  return { node: name, keySerde: up.keySerde, valueSerde: undefined, repartitionRequired: false }
}
