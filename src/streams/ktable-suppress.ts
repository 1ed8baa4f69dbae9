// KTable.suppress(), as Java's KTableImpl.suppress and
// KTableSuppressProcessorSupplier: a KTABLE-SUPPRESS- processor (or the
// name given) with its buffer, KTABLE-SUPPRESS-STATE-STORE-<index> (or
// `<name>-store`), logged to `<applicationId>-<store>-changelog`. The
// processor's stream time is the latest timestamp of the updates it has
// seen. Each update is buffered under its key at a buffer time (the window's
// end for untilWindowCloses, the record's timestamp for untilTimeLimit);
// then every entry whose buffer time is at or before stream time minus the
// suppression time (the windows' grace, found upstream as Java's
// GraphGraceSearchUtil finds it, or the time limit) is emitted, earliest
// first, with the timestamp of the update that made it. An update for a
// window already closed is buffered and emitted at once. untilWindowCloses
// drops tombstones on emit; untilTimeLimit forwards them. Over its limits
// the buffer emits the oldest early, or stops the application.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import { StreamsError } from './streams-error.js'
import type { Suppressed } from './suppressed.js'
import type { Eviction } from './suppress-buffer.js'
import { TopologyError, type StreamRecord, type Topology } from './topology.js'
import type { Windowed } from './windowed-serdes.js'

/** The largest grace of the windowed aggregations upstream of `node` (Java's findAndVerifyWindowGrace). */
function windowGrace(topology: Topology, node: string, chain = ''): number {
  const n = topology.nodes.get(node)!
  if (n.kind === 'processor' && n.graceMs !== undefined) return n.graceMs
  const at = chain === '' ? n.name : `${n.name}->${chain}`
  if (n.kind === 'source' || n.parents.length === 0)
    throw new TopologyError(`Window close time is only defined for windowed computations. Got [${at}].`)
  return Math.max(...n.parents.map((p) => windowGrace(topology, p, at)))
}

/** Adds the suppress processor and its buffer under `up`; returns the suppressed table's upstream. */
export function suppress(b: InternalBuilder, up: Upstream, suppressed: Suppressed<any>): Upstream {
  const name = suppressed.name ?? b.newProcessorName('KTABLE-SUPPRESS-')
  const windowEnd = suppressed.until === 'windowCloses'
  const suppressMs = windowEnd ? windowGrace(b.topology, up.node) : suppressed.timeToWaitMs
  const storeName = suppressed.name !== undefined ? `${name}-store` : b.newStoreName('KTABLE-SUPPRESS-')
  const { maxRecords, maxBytes, bufferFullStrategy } = suppressed.bufferConfig
  b.topology.addStore({ name: storeName, keySerde: up.keySerde, valueSerde: up.valueSerde, suppressBuffer: true })
  b.topology.add({
    kind: 'processor',
    name,
    parents: [up.node],
    stores: [storeName],
    make: (rt) => {
      const buffer = rt.suppressionBuffer<any, any>(storeName)
      let observedStreamTime = -1
      const overCapacity = () => buffer.numRecords() > maxRecords || buffer.bufferSize() > maxBytes
      const emit = (e: Eviction<any, any>) => {
        // untilWindowCloses: a window deleted before it closed is not emitted.
        if (e.value === null && windowEnd) return
        rt.forward({ key: e.key, value: e.value, oldValue: e.oldValue, timestamp: e.context.timestamp } as StreamRecord)
      }
      return (r: StreamRecord & { oldValue?: unknown }) => {
        observedStreamTime = Math.max(observedStreamTime, r.timestamp)
        const c = rt.context()
        const time = windowEnd ? (r.key as Windowed<unknown>).window.end : r.timestamp
        buffer.put(time, r.key, r.value ?? null, r.oldValue ?? null, {
          timestamp: r.timestamp,
          offset: c.offset,
          topic: c.topic,
          partition: c.partition,
        })
        const expiry = observedStreamTime - suppressMs
        buffer.evictWhile(() => buffer.minTimestamp() <= expiry, emit)
        if (!overCapacity()) return
        if (bufferFullStrategy === 'EMIT') return buffer.evictWhile(overCapacity, emit)
        throw new StreamsError(
          `${name} buffer exceeded its max capacity. Currently [${buffer.numRecords()}/${limit(maxRecords)}] records and [${buffer.bufferSize()}/${limit(maxBytes)}] bytes.`,
        )
      }
    },
  })
  return { node: name, keySerde: up.keySerde, valueSerde: up.valueSerde, repartitionRequired: false }
}

/** As Java prints an unbounded limit (Long.MAX_VALUE). */
const limit = (n: number) => (n === Infinity ? '9223372036854775807' : String(n))
