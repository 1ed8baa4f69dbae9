// Java's BranchedKStream (KStream.split()): a record goes to the first branch
// whose predicate accepts it, else to the default branch, else nowhere. Names
// as Java's: the splitter KSTREAM-BRANCH-<index>, each branch the splitter's
// name followed by the branch's name, or its position (from 1; the default
// branch is 0), and each branch burns one index.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KStream } from './kstream.js'

/** Java's Branched: a branch's name, and what to do with it instead of returning it. */
export interface Branched<K, V> {
  name?: string
  /** Takes the branch (Java's withConsumer); the branch is not in the returned map. */
  withConsumer?: (branch: KStream<K, V>) => void
  /** Maps the branch (Java's withFunction); the map holds what it returns, unless null. */
  withFunction?: (branch: KStream<K, V>) => KStream<K, V> | null
}

export class BranchedKStream<K, V> {
  private readonly predicates: Array<(key: K, value: V) => boolean> = []
  private readonly childNames: string[] = []
  private readonly outputs: Record<string, KStream<K, V>> = {}
  private readonly splitter: string
  private closed = false

  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    name: string | undefined,
  ) {
    this.splitter = name ?? b.newProcessorName('KSTREAM-BRANCH-')
    const { predicates, childNames } = this
    b.topology.add({
      kind: 'processor',
      name: this.splitter,
      parents: [up.node],
      stores: [],
      make: (rt) => (r) => {
        // Branches added after the splitter are read here by reference, as Java's KStreamBranch reads them.
        for (let i = 0; i < predicates.length; i++) if (predicates[i](r.key, r.value)) return rt.forward(r, childNames[i])
        if (childNames.length > predicates.length) rt.forward(r, childNames[predicates.length])
      },
    })
  }

  branch(predicate: (key: K, value: V) => boolean, branched: Branched<K, V> = {}): this {
    this.open()
    this.predicates.push(predicate)
    this.add(branched, this.predicates.length)
    return this
  }

  /** The records no branch took; ends the split and returns its branches by name. */
  defaultBranch(branched: Branched<K, V> = {}): Record<string, KStream<K, V>> {
    this.open()
    this.add(branched, 0)
    this.closed = true
    return this.outputs
  }

  /** Ends the split without a default branch: records no branch took are dropped. */
  noDefaultBranch(): Record<string, KStream<K, V>> {
    this.open()
    this.closed = true
    return this.outputs
  }

  private open(): void {
    if (this.closed) throw new TypeError(`split ${this.splitter} already ended with defaultBranch() or noDefaultBranch()`)
  }

  private add(branched: Branched<K, V>, index: number): void {
    const name = this.splitter + (branched.name ?? String(index))
    this.childNames.push(name)
    this.b.newProcessorName(name)
    this.b.topology.add({ kind: 'processor', name, parents: [this.splitter], stores: [], make: (rt) => (r) => rt.forward(r) })
    const branch = this.b.dsl.stream<K, V>(this.b, { ...this.up, node: name })
    if (branched.withFunction) {
      const out = branched.withFunction(branch)
      if (out !== null) this.outputs[name] = out
    } else if (branched.withConsumer) branched.withConsumer(branch)
    else this.outputs[name] = branch
  }
}
