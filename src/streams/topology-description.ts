// Topology.describe(), printed as Java's TopologyDescription prints: each
// sub-topology's nodes ordered by the size of the sub-tree under them
// (largest first), then by name; successors and predecessors as Java's
// TreeSets hold them, placed by the sizes of the moment each was connected
// (Java connects the nodes in its HashMap's order, growing sizes as it goes).
import type { Topology, TopologyNode } from './topology.js'

export interface NodeDescription {
  name: string
  kind: 'source' | 'processor' | 'sink'
  /** Sources: the topics read. */
  topics?: string[]
  /** Sinks: the topic written, or null when an extractor picks it per record. */
  topic?: string | null
  /** Processors: the stores they use. */
  stores?: string[]
  successors: string[]
  predecessors: string[]
}

export interface SubtopologyDescription {
  id: number
  nodes: NodeDescription[]
  /** A global table's store (Java's GlobalStore description): its nodes are its source and processor. */
  globalStore?: string
}

export interface TopologyDescription {
  subtopologies: SubtopologyDescription[]
  toString(): string
}

export function describeTopology(topology: Topology): TopologyDescription {
  const subtopologies = topology.nodeGroups().map((sub): SubtopologyDescription => {
    const described = new Map(sub.nodes.map((n) => [n.name, { node: describeNode(n), size: 1 }]))
    const size = (name: string) => described.get(name)!.size
    // Java's comparator, on the sizes as they are when it runs: larger sub-tree first, then by name.
    const order = (a: string, b: string) => size(b) - size(a) || (a < b ? -1 : a > b ? 1 : 0)
    // Java's TreeSet.add: placed by the sizes of the moment (a size grown later does not move a node).
    const insert = (list: string[], name: string) => {
      if (list.includes(name)) return
      const at = list.findIndex((other) => order(name, other) < 0)
      list.splice(at === -1 ? list.length : at, 0, name)
    }
    const grow = (name: string, delta: number) => {
      described.get(name)!.size += delta
      for (const p of described.get(name)!.node.predecessors) grow(p, delta)
    }
    // As Java's InternalTopologyBuilder.describeSubtopology: each node, in its HashMap's order, connected to
    // its predecessors one by one, each predecessor's (and their predecessors') size growing by the node's.
    for (const n of javaHashOrder(sub.nodes.map((x) => x.name))) {
      const node = sub.nodes.find((x) => x.name === n)!
      if (node.kind === 'source') continue
      for (const p of node.parents) {
        insert(described.get(n)!.node.predecessors, p)
        insert(described.get(p)!.node.successors, n)
        grow(p, size(n))
      }
    }
    const nodes = [...described.values()].map((d) => d.node).sort((a, b) => order(a.name, b.name))
    return sub.global ? { id: sub.id, nodes, globalStore: sub.global.name } : { id: sub.id, nodes }
  })
  return { subtopologies, toString: () => printed(subtopologies) }
}

/** Java's String.hashCode. */
function javaHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}

/** The order a Java HashSet/HashMap of these names iterates in: by bucket (its table sized for them), then as added. */
function javaHashOrder(names: string[]): string[] {
  let capacity = 16
  while (names.length > capacity * 0.75) capacity *= 2
  const bucket = (s: string) => {
    const h = javaHash(s)
    return (h ^ (h >>> 16)) & (capacity - 1)
  }
  return names
    .map((name, i) => ({ name, i, b: bucket(name) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.name)
}

function describeNode(n: TopologyNode): NodeDescription {
  switch (n.kind) {
    case 'source':
      return { name: n.name, kind: 'source', topics: n.topics, successors: [], predecessors: [] }
    case 'processor':
      // Java keeps a processor's stores in a HashSet.
      return { name: n.name, kind: 'processor', stores: javaHashOrder(n.stores), successors: [], predecessors: [] }
    case 'sink':
      return { name: n.name, kind: 'sink', topic: typeof n.topic === 'string' ? n.topic : null, successors: [], predecessors: [] }
  }
}

const names = (list: string[]) => (list.length === 0 ? 'none' : list.join(', '))

function printedNode(n: NodeDescription): string {
  switch (n.kind) {
    case 'source':
      return `Source: ${n.name} (topics: [${n.topics!.join(', ')}])\n      --> ${names(n.successors)}`
    case 'processor':
      return `Processor: ${n.name} (stores: [${n.stores!.join(', ')}])\n      --> ${names(n.successors)}\n      <-- ${names(n.predecessors)}`
    case 'sink':
      return n.topic === null
        ? `Sink: ${n.name} (extractor class: a function)\n      <-- ${names(n.predecessors)}`
        : `Sink: ${n.name} (topic: ${n.topic})\n      <-- ${names(n.predecessors)}`
  }
}

function printed(subtopologies: SubtopologyDescription[]): string {
  let out = 'Topologies:\n '
  for (const sub of subtopologies) {
    // Java's GlobalStore.toString: its source, then its processor, and no blank line after.
    if (sub.globalStore !== undefined) {
      out += `  Sub-topology: ${sub.id} for global store (will not generate tasks)\n`
      for (const kind of ['source', 'processor']) for (const n of sub.nodes) if (n.kind === kind) out += `    ${printedNode(n)}\n`
      continue
    }
    out += `  Sub-topology: ${sub.id}\n`
    for (const n of sub.nodes) out += `    ${printedNode(n)}\n`
    out += '\n'
  }
  return out
}
