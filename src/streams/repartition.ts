// The hop a grouping makes when a key changed upstream, and the one
// KStream.repartition() makes: filter → sink → `<name>-repartition` topic →
// source, named and numbered as Java names them
// (KStreamImpl.createRepartitionedSource): the store's name (or Grouped's,
// or Repartitioned's) + `-repartition`, with a filter, sink and source whose
// names burn three indexes whether or not they are used.
import type { InternalBuilder, Upstream } from './internal-builder.js'

/** The topic's short name for a prefix (the application id goes before it at run time). */
export const repartitionTopic = (prefix: string): string => (prefix.endsWith('-repartition') ? prefix : `${prefix}-repartition`)

/** Adds the hop after `up`; returns the source's name. */
export function repartition(b: InternalBuilder, up: Upstream, prefix: string): string {
  const topic = repartitionTopic(prefix)
  const generated = {
    sink: b.newProcessorName('KSTREAM-SINK-'),
    filter: b.newProcessorName('KSTREAM-FILTER-'),
    source: b.newProcessorName('KSTREAM-SOURCE-'),
  }
  const names = /^KSTREAM.*-[0-9]{10}$/.test(prefix)
    ? generated
    : { sink: `${topic}-sink`, filter: `${topic}-filter`, source: `${topic}-source` }
  const t = b.topology
  t.internalTopics.add(topic)
  t.add({ kind: 'processor', name: names.filter, parents: [up.node], stores: [], make: (rt) => (r) => rt.forward(r) })
  t.add({ kind: 'sink', name: names.sink, parents: [names.filter], topic, keySerde: up.keySerde, valueSerde: up.valueSerde })
  t.add({ kind: 'source', name: names.source, topics: [topic], keySerde: up.keySerde, valueSerde: up.valueSerde })
  return names.source
}
