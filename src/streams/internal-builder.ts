// The state a StreamsBuilder's DSL objects share: the topology being built,
// Java's one index counter behind every generated name (so unnamed nodes and
// stores are called what Java calls them: KSTREAM-SOURCE-0000000000, ...),
// and how to make each DSL object (handed in by StreamsBuilder, so KStream,
// KGroupedStream, KTable and BranchedKStream make one another without importing
// one another).
import type { Serde } from './serdes.js'
import type { KStream } from './kstream.js'
import type { KGroupedStream } from './kgrouped-stream.js'
import type { KTable } from './ktable.js'
import type { BranchedKStream } from './branched-kstream.js'
import { Topology } from './topology.js'

/** Where a DSL object's records come from: its node, the serdes known for them, whether a key changed since the last repartition. */
export interface Upstream {
  node: string
  keySerde: Serde<any> | undefined
  valueSerde: Serde<any> | undefined
  repartitionRequired: boolean
}

export interface DslFactories {
  stream<K, V>(builder: InternalBuilder, from: Upstream): KStream<K, V>
  grouped<K, V>(builder: InternalBuilder, from: Upstream, repartitionName: string | undefined): KGroupedStream<K, V>
  /** `materialize` gives the table a store on demand (an unnamed source table's), returning its name. */
  table<K, V>(builder: InternalBuilder, from: Upstream, store: string | null, materialize?: () => string): KTable<K, V>
  split<K, V>(builder: InternalBuilder, from: Upstream, name: string | undefined): BranchedKStream<K, V>
}

export class InternalBuilder {
  readonly topology = new Topology()
  private index = 0

  constructor(readonly dsl: DslFactories) {}

  /** `prefix` and the next index in ten digits: KSTREAM-FILTER-0000000001. */
  newProcessorName(prefix: string): string {
    return prefix + String(this.index++).padStart(10, '0')
  }

  /** `prefix` STATE-STORE- and the next index: KSTREAM-AGGREGATE-STATE-STORE-0000000003. */
  newStoreName(prefix: string): string {
    return `${prefix}STATE-STORE-${String(this.index++).padStart(10, '0')}`
  }
}
