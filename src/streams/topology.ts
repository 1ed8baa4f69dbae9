// A built topology: its nodes (sources, processors, sinks) in the order the
// DSL added them, its stores, and which topics are internal. Sub-topologies
// are the connected parts (through parent links and shared stores), numbered
// in the order their first node was added, as Java's InternalTopologyBuilder
// numbers them; a task is one sub-topology on one partition.
import type { Serde } from './serdes.js'
import type { NodeRuntime, StoreDef } from './nodes.js'
import { describeTopology, type TopologyDescription } from './topology-description.js'

export interface SourceNode {
  kind: 'source'
  name: string
  topics: string[]
  keySerde?: Serde<any>
  valueSerde?: Serde<any>
}

export interface ProcessorNode {
  kind: 'processor'
  name: string
  parents: string[]
  stores: string[]
  /** A windowed aggregation's grace (a session's: gap + grace), which suppress(untilWindowCloses) waits for. */
  graceMs?: number
  /** Makes the node's per-task behaviour. */
  make: (runtime: NodeRuntime) => (record: StreamRecord) => void
}

/** Where a sink writes: a topic, or one chosen per record. */
export type TopicNameExtractor<K = any, V = any> = (key: K, value: V, context: RecordContext) => string

export interface SinkNode {
  kind: 'sink'
  name: string
  parents: string[]
  topic: string | TopicNameExtractor
  keySerde?: Serde<any>
  valueSerde?: Serde<any>
  /** The partition a record goes to (Java's StreamPartitioner); undefined: the default partitioner. */
  partitioner?: (key: any, value: any) => number | undefined
}

export type TopologyNode = SourceNode | ProcessorNode | SinkNode

/** A record flowing through a task: deserialized key and value, the input's timestamp. */
export interface StreamRecord<K = any, V = any> {
  key: K
  value: V
  timestamp: number
}

/** Where the record in hand came from (Java's RecordContext). */
export interface RecordContext {
  topic: string
  partition: number
  offset: bigint
  timestamp: number
}

export interface Subtopology {
  id: number
  /** A global table's group (its source and the processor filling its store): no tasks, every instance reads it whole. */
  global?: GlobalStoreDef
  nodes: TopologyNode[]
  /** Every topic its sources read (internal ones by their short name). */
  sourceTopics: string[]
  stores: string[]
}

/** A global table's store (Java's addGlobalStore): its topic read whole by every instance, no changelog (the topic is one). */
export interface GlobalStoreDef {
  name: string
  topic: string
  source: string
  processor: string
  keySerde?: Serde<any>
  valueSerde?: Serde<any>
}

export class Topology {
  /** @internal */
  readonly nodes = new Map<string, TopologyNode>()
  /** @internal */
  readonly stores = new Map<string, StoreDef>()
  /** Repartition topics by short name (`<name>-repartition`, a foreign-key join's `<name>-topic`); the application id prefixes them at run time. @internal */
  readonly internalTopics = new Set<string>()
  /** Repartition topics whose partition count the topology fixes (Java's Repartitioned.withNumberOfPartitions). @internal */
  readonly internalTopicPartitions = new Map<string, number>()
  /** Global tables' stores by name (global-table.ts). @internal */
  readonly globalStores = new Map<string, GlobalStoreDef>()
  /** Topics that must have the same partition count (a join's two sides), each group sorted. @internal */
  readonly copartitionGroups: string[][] = []

  /** @internal */
  add(node: TopologyNode): void {
    if (this.nodes.has(node.name)) throw new TopologyError(`a node named ${node.name} is already in the topology`)
    // One source per topic, as Java's (a partition's records go to one task).
    if (node.kind === 'source')
      for (const t of node.topics)
        if ([...this.nodes.values()].some((n) => n.kind === 'source' && n.topics.includes(t)))
          throw new TopologyError(`Topic ${t} has already been registered by another source.`)
    for (const p of 'parents' in node ? node.parents : [])
      if (!this.nodes.has(p)) throw new TopologyError(`${node.name}'s parent ${p} is not in the topology`)
    this.nodes.set(node.name, node)
  }

  /** @internal */
  addStore(store: StoreDef): void {
    if (this.stores.has(store.name)) throw new TopologyError(`a store named ${store.name} is already in the topology`)
    this.stores.set(store.name, store)
  }

  /** Marks the source topics upstream of `nodes` as one co-partition group (Java's copartition groups). @internal */
  copartition(nodes: string[]): void {
    const topics = new Set<string>()
    const seen = new Set<string>()
    const walk = (name: string) => {
      if (seen.has(name)) return
      seen.add(name)
      const node = this.nodes.get(name)!
      if (node.kind === 'source') for (const t of node.topics) topics.add(t)
      else for (const p of node.parents) walk(p)
    }
    for (const n of nodes) walk(n)
    this.copartitionGroups.push([...topics].sort())
  }

  /** The sub-topologies that make tasks, upstream first (Java's node groups); a global table's group keeps its id, so later ones skip it as Java's do. */
  subtopologies(): Subtopology[] {
    return this.nodeGroups().filter((g) => !g.global)
  }

  /** Every node group, global tables' included, numbered together as Java numbers them. @internal */
  nodeGroups(): Subtopology[] {
    const parent = new Map<string, string>()
    const root = (n: string): string => {
      let r = n
      while (parent.get(r) !== r) r = parent.get(r)!
      parent.set(n, r)
      return r
    }
    const unite = (a: string, b: string) => parent.set(root(a), root(b))
    const storeOwner = new Map<string, string>()
    for (const node of this.nodes.values()) {
      parent.set(node.name, node.name)
      if (node.kind !== 'source') for (const p of node.parents) unite(node.name, p)
      if (node.kind === 'processor')
        for (const s of node.stores) {
          const owner = storeOwner.get(s)
          if (owner) unite(node.name, owner)
          else storeOwner.set(s, node.name)
        }
    }
    const byRoot = new Map<string, Subtopology>()
    const out: Subtopology[] = []
    for (const node of this.nodes.values()) {
      const r = root(node.name)
      let sub = byRoot.get(r)
      if (!sub) {
        sub = { id: out.length, nodes: [], sourceTopics: [], stores: [] }
        byRoot.set(r, sub)
        out.push(sub)
      }
      sub.nodes.push(node)
      if (node.kind === 'source') sub.sourceTopics.push(...node.topics)
      if (node.kind === 'processor') for (const s of node.stores) if (!sub.stores.includes(s)) sub.stores.push(s)
    }
    for (const sub of out) {
      const global = [...this.globalStores.values()].find((g) => sub.nodes.some((n) => n.name === g.source))
      if (global) sub.global = global
    }
    return out
  }

  /** The topology as Java's Topology.describe() gives it; `toString()` prints what Java prints. */
  describe(): TopologyDescription {
    return describeTopology(this)
  }
}

/** A topology the DSL cannot build (a name used twice, a missing parent). */
export class TopologyError extends Error {
  override name = 'TopologyError'
}
