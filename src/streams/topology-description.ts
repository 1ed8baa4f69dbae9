// Topology.describe(), printed as Java's TopologyDescription prints: each
// sub-topology's nodes ordered by the size of the sub-tree under them
// (largest first), then by name; successors and predecessors the same way.
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
}

export interface TopologyDescription {
  subtopologies: SubtopologyDescription[]
  toString(): string
}

export function describeTopology(topology: Topology): TopologyDescription {
  const subtopologies = topology.subtopologies().map((sub) => {
    const children = new Map<string, string[]>()
    for (const n of sub.nodes) if (n.kind !== 'source') for (const p of n.parents) children.set(p, [...(children.get(p) ?? []), n.name])
    const size = new Map<string, number>()
    // Java adds each successor's size to its predecessors, recursively: a path count, 1 for the node itself.
    const sizeOf = (name: string): number => {
      const known = size.get(name)
      if (known !== undefined) return known
      const s = 1 + (children.get(name) ?? []).reduce((sum, c) => sum + sizeOf(c), 0)
      size.set(name, s)
      return s
    }
    const order = (a: string, b: string) => sizeOf(b) - sizeOf(a) || (a < b ? -1 : a > b ? 1 : 0)
    const nodes = sub.nodes.map((n) => describeNode(n, [...(children.get(n.name) ?? [])].sort(order)))
    for (const n of nodes) n.predecessors.sort(order)
    nodes.sort((a, b) => order(a.name, b.name))
    return { id: sub.id, nodes }
  })
  return { subtopologies, toString: () => printed(subtopologies) }
}

function describeNode(n: TopologyNode, successors: string[]): NodeDescription {
  switch (n.kind) {
    case 'source':
      return { name: n.name, kind: 'source', topics: n.topics, successors, predecessors: [] }
    case 'processor':
      return { name: n.name, kind: 'processor', stores: n.stores, successors, predecessors: [...n.parents] }
    case 'sink':
      return { name: n.name, kind: 'sink', topic: typeof n.topic === 'string' ? n.topic : null, successors, predecessors: [...n.parents] }
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
    out += `  Sub-topology: ${sub.id}\n`
    for (const n of sub.nodes) out += `    ${printedNode(n)}\n`
    out += '\n'
  }
  return out
}
