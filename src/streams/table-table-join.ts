// KTable.join / leftJoin / outerJoin(KTable), as Java's KTableKTableJoin:
// both tables materialized; an update of either side (KTABLE-JOINTHIS- for
// this table's, KTABLE-JOINOTHER- for the other's) looks up the other side's
// store and forwards the joined value, or null (a tombstone) when the row
// leaves the join; KTABLE-MERGE- takes both into the result table. Which
// updates forward follows Java's inner, left/right and outer join processors;
// a table update carries its previous value (`oldValue`, from a source table)
// because Java sends old values to the outer sides of a left or outer join.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import type { NodeRuntime } from './nodes.js'
import type { StreamRecord } from './topology.js'

export type TableJoinKind = 'inner' | 'left' | 'outer'

/** A table update: the new value (null: deleted) and, from a source table, the one it replaced. */
type Update = StreamRecord & { oldValue?: unknown }

const none = (v: unknown): boolean => v === null || v === undefined

/** One side's processor: whether it needs the other side's row, and when it forwards a joined value rather than null. */
interface Rule {
  needsOther: boolean
  join(mine: unknown, theirs: unknown): boolean
}

export function tableTableJoin<K, V, VO, VR>(
  b: InternalBuilder,
  self: KTable<K, V>,
  other: KTable<K, VO>,
  joiner: (value: V | null, otherValue: VO | null) => VR,
  kind: TableJoinKind,
): Upstream {
  if (typeof joiner !== 'function') throw new TypeError('a table join takes a table and a joiner function')
  const [thisStore, otherStore] = [self.valueStore(), other.valueStore()]
  const mergeName = b.newProcessorName('KTABLE-MERGE-')
  const thisName = b.newProcessorName('KTABLE-JOINTHIS-')
  const otherName = b.newProcessorName('KTABLE-JOINOTHER-')
  // Java's processors per side: inner (the joined value while both rows are there), left (this side kept
  // without the other's row), right (a left join's other side: joined whenever this side's row is there,
  // its own deletion included) and outer (either row is enough).
  const rules: Record<'inner' | 'left' | 'right' | 'outer', Rule> = {
    inner: { needsOther: true, join: (mine: unknown) => !none(mine) },
    left: { needsOther: false, join: (mine: unknown) => !none(mine) },
    right: { needsOther: true, join: () => true },
    outer: { needsOther: false, join: (mine: unknown, theirs: unknown) => !none(mine) || theirs !== null },
  }
  const [thisRule, otherRule] =
    kind === 'inner' ? [rules.inner, rules.inner] : kind === 'left' ? [rules.left, rules.right] : [rules.outer, rules.outer]
  const side = (store: string, rule: Rule, joined: (mine: unknown, theirs: unknown) => unknown) => (rt: NodeRuntime) => {
    const lookup = rt.store<K, unknown>(store)
    return (r: Update) => {
      if (none(r.key)) {
        const c = rt.context()
        rt.log.warn('Skipping record due to null key', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
        return
      }
      const found = lookup.getWithTimestamp(r.key)
      const theirs = found?.value ?? null
      if (theirs === null && rule.needsOther) return
      // A kept side gets old values (Java enables them): a deletion of a row that was never there forwards nothing.
      if (theirs === null && none(r.value) && none(r.oldValue)) return
      const value = rule.join(r.value, theirs) ? joined(r.value ?? null, theirs) : null
      rt.forward({ key: r.key, value, timestamp: found ? Math.max(r.timestamp, found.timestamp) : r.timestamp })
    }
  }
  const t = b.topology
  t.add({
    kind: 'processor',
    name: thisName,
    parents: [self.upstream.node],
    stores: [otherStore],
    make: side(otherStore, thisRule, (mine, theirs) => joiner(mine as V, theirs as VO)),
  })
  t.add({
    kind: 'processor',
    name: otherName,
    parents: [other.upstream.node],
    stores: [thisStore],
    make: side(thisStore, otherRule, (mine, theirs) => joiner(theirs as V, mine as VO)),
  })
  t.add({ kind: 'processor', name: mergeName, parents: [thisName, otherName], stores: [], make: (rt) => (r) => rt.forward(r) })
  t.copartition([self.upstream.node, other.upstream.node])
  return { node: mergeName, keySerde: self.upstream.keySerde, valueSerde: undefined, repartitionRequired: false }
}
