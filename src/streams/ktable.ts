// Java's KTable, as an aggregation makes it: each update forwarded downstream
// (a null value is a deletion). filter and mapValues map updates; toStream
// turns them back into records.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KStream } from './kstream.js'
import { TopologyError, type StreamRecord } from './topology.js'
import { tableTableJoin } from './table-table-join.js'
import { foreignKeyJoin, type ForeignKeyExtractor, type ForeignKeyJoinOptions } from './fk-join.js'
import { suppress } from './ktable-suppress.js'
import type { Suppressed } from './suppressed.js'

/** A table update: the new value and, where known, the one it replaced (Java's Change, with sendOldValues). */
type Update<K, V> = StreamRecord<K, V | null> & { oldValue?: V | null }

export class KTable<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
    /** The store that holds the table, or null when it is not materialized. */
    readonly queryableStoreName: string | null,
    private readonly materialize?: () => string,
  ) {}

  /** The store a join reads the table's current values from (materialized now if it can be). @internal */
  valueStore(): string {
    const store = this.queryableStoreName ?? this.materialize?.()
    if (store === undefined)
      throw new TopologyError(
        `table ${this.up.node} has no store to join against: join a table from builder.table() or an aggregation, not one filter() or mapValues() derived`,
      )
    return store
  }

  /** Where the table's updates come from. @internal */
  get upstream(): Upstream {
    return this.up
  }

  toStream(): KStream<K, V> {
    const name = this.b.newProcessorName('KTABLE-TOSTREAM-')
    this.add(name, (fwd) => (r) => fwd({ key: r.key, value: r.value, timestamp: r.timestamp }))
    return this.b.dsl.stream(this.b, { ...this.up, node: name })
  }

  /**
   * The rows both tables have, joined; a row leaving either side is deleted (Java's KTable.join(KTable)).
   * With a foreign key extractor, each row joined with the other table's row under the key its value
   * names (Java's foreign-key join): `(value) => fk`, or `(key, value) => fk` for a function of two parameters.
   */
  join<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO) => VR): KTable<K, VR>
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: ForeignKeyExtractor<K, V, KO>,
    joiner: (value: V, otherValue: VO) => VR,
    options?: ForeignKeyJoinOptions<K, VR>,
  ): KTable<K, VR>
  join(
    other: KTable<any, any>,
    a: (...args: any[]) => any,
    joiner?: (...args: any[]) => any,
    options?: ForeignKeyJoinOptions<K, any>,
  ): KTable<K, any> {
    if (joiner !== undefined) return this.foreignKeyJoin(other, a, joiner, false, options)
    return this.b.dsl.table(this.b, tableTableJoin(this.b, this, other, a, 'inner'), null)
  }

  /**
   * Every row of this table, joined with the other's row or null (Java's KTable.leftJoin(KTable)); with a
   * foreign key extractor, with the other's row under that key or null (a null foreign key too).
   */
  leftJoin<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO | null) => VR): KTable<K, VR>
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: ForeignKeyExtractor<K, V, KO>,
    joiner: (value: V, otherValue: VO | null) => VR,
    options?: ForeignKeyJoinOptions<K, VR>,
  ): KTable<K, VR>
  leftJoin(
    other: KTable<any, any>,
    a: (...args: any[]) => any,
    joiner?: (...args: any[]) => any,
    options?: ForeignKeyJoinOptions<K, any>,
  ): KTable<K, any> {
    if (joiner !== undefined) return this.foreignKeyJoin(other, a, joiner, true, options)
    return this.b.dsl.table(this.b, tableTableJoin(this.b, this, other, a, 'left'), null)
  }

  private foreignKeyJoin(
    other: KTable<any, any>,
    extractor: ForeignKeyExtractor<K, V, any>,
    joiner: (value: V, otherValue: any) => any,
    leftJoin: boolean,
    options?: ForeignKeyJoinOptions<K, any>,
  ): KTable<K, any> {
    const joined = foreignKeyJoin(this.b, this, other, extractor, joiner, leftJoin, options)
    return this.b.dsl.table(this.b, joined.upstream, joined.storeName, joined.materialize)
  }

  /** Every row of either table, joined with the other's or null (Java's KTable.outerJoin(KTable)). */
  outerJoin<VO, VR>(other: KTable<K, VO>, joiner: (value: V | null, otherValue: VO | null) => VR): KTable<K, VR> {
    return this.b.dsl.table<K, VR>(this.b, tableTableJoin(this.b, this, other, joiner, 'outer'), null)
  }

  /**
   * Holds updates back (Java's KTable.suppress): `Suppressed.untilWindowCloses(BufferConfig.unbounded())`
   * on a windowed table emits each window once, its final value, when stream time reaches its end plus
   * the grace; `Suppressed.untilTimeLimit(ms, bufferConfig)` emits each key's latest value `ms` after it
   * was first buffered. The buffer is logged to its changelog in Java's format and restored from it.
   */
  suppress(suppressed: Suppressed<K>): KTable<K, V> {
    if (typeof suppressed !== 'object' || suppressed === null || !('until' in suppressed))
      throw new TypeError('suppress() takes Suppressed.untilWindowCloses(...) or Suppressed.untilTimeLimit(...)')
    // Java enables the parent's old values (a source table is materialized for them).
    if (this.queryableStoreName === null) this.materialize?.()
    return this.b.dsl.table<K, V>(this.b, suppress(this.b, this.up, suppressed), null)
  }

  /** Keeps the updates `predicate` accepts; a refused one is forwarded as a deletion, as Java's KTableFilter does. */
  filter(predicate: (key: K, value: V) => boolean): KTable<K, V> {
    return this.derived('KTABLE-FILTER-', (r) => (r.value === null || predicate(r.key, r.value) ? r.value : null), this.up)
  }

  filterNot(predicate: (key: K, value: V) => boolean): KTable<K, V> {
    return this.derived('KTABLE-FILTER-', (r) => (r.value === null || !predicate(r.key, r.value) ? r.value : null), this.up)
  }

  mapValues<VR>(mapper: (value: V, key: K) => VR): KTable<K, VR> {
    return this.derived('KTABLE-MAPVALUES-', (r) => (r.value === null ? null : mapper(r.value, r.key)), {
      ...this.up,
      valueSerde: undefined,
    })
  }

  private derived<VR>(prefix: string, value: (r: StreamRecord<K, V | null>) => VR | null, next: Upstream): KTable<K, VR> {
    const name = this.b.newProcessorName(prefix)
    // An old value known upstream is mapped alike (Java's KTableFilter and KTableMapValues with sendOldValues).
    this.add(name, (fwd) => (r: Update<K, V>) => {
      const out: Update<K, VR> = { key: r.key, value: value(r), timestamp: r.timestamp }
      if (r.oldValue !== undefined) out.oldValue = r.oldValue === null ? null : value({ ...r, value: r.oldValue })
      fwd(out)
    })
    return this.b.dsl.table<K, VR>(this.b, { ...next, node: name }, null)
  }

  private add(name: string, make: (forward: (r: StreamRecord) => void) => (r: StreamRecord) => void): void {
    this.b.topology.add({ kind: 'processor', name, parents: [this.up.node], stores: [], make: (rt) => make((r) => rt.forward(r)) })
  }
}

export const tableOf = <K, V>(b: InternalBuilder, up: Upstream, store: string | null, materialize?: () => string): KTable<K, V> =>
  new KTable<K, V>(b, up, store, materialize)
