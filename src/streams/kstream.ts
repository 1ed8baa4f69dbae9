// Java's KStream: a record stream and its stateless operators. Each operator
// adds one processor named as Java names it (KSTREAM-FILTER-<index>, ...); a
// key-changing one (map, flatMap, selectKey) marks the stream so a later
// grouping goes through a repartition topic.
import type { Serde } from './serdes.js'
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KGroupedStream } from './kgrouped-stream.js'
import type { BranchedKStream } from './branched-kstream.js'
import type { KeyValue } from './key-value.js'
import type { KTable } from './ktable.js'
import { streamTableJoin, type ValueJoiner } from './stream-table-join.js'
import { streamStreamJoin, type StreamJoined, type StreamJoinKind, type StreamValueJoiner } from './stream-stream-join.js'
import { JoinWindows } from './join-windows.js'
import { GlobalKTable } from './global-table.js'
import { streamGlobalTableJoin, type KeyValueMapper } from './stream-global-table-join.js'
import { TopologyError } from './topology.js'
import type { RecordContext, StreamRecord, TopicNameExtractor } from './topology.js'
import { checkProcess, processorNode, type ProcessorSupplier } from './processor-node.js'
import { repartition, repartitionTopic } from './repartition.js'

/** Java's Produced: how a sink writes (the stream's serdes, else the application's defaults, when absent). */
export interface Produced<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  /** The sink node's name instead of KSTREAM-SINK-<index>. */
  processorName?: string
}

/** Java's Grouped: the serdes of a grouping's repartition topic, and its name. */
export interface Grouped<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  /** Names the repartition topic (`<applicationId>-<name>-repartition`) and, for groupBy, the key selector. */
  name?: string
}

/** Java's Repartitioned: the serdes, name and partition count of repartition()'s topic. */
export interface Repartitioned<K, V> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  /** Names the topic (`<applicationId>-<name>-repartition`) and its nodes instead of KSTREAM-REPARTITION-<index>. */
  name?: string
  /** The topic's partitions (the next sub-topology's tasks); else the count of the sub-topology that writes it. */
  numberOfPartitions?: number
}

export class KStream<K, V> {
  /** @internal */
  constructor(
    private readonly b: InternalBuilder,
    private readonly up: Upstream,
  ) {}

  filter(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.stateless('KSTREAM-FILTER-', (fwd) => (r) => void (predicate(r.key, r.value) && fwd(r)), this.up)
  }

  filterNot(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.stateless('KSTREAM-FILTER-', (fwd) => (r) => void (predicate(r.key, r.value) || fwd(r)), this.up)
  }

  map<KR, VR>(mapper: (key: K, value: V) => KeyValue<KR, VR>): KStream<KR, VR> {
    return this.stateless(
      'KSTREAM-MAP-',
      (fwd) => (r) => {
        const kv = mapper(r.key, r.value)
        fwd({ key: kv.key, value: kv.value, timestamp: r.timestamp })
      },
      { keySerde: undefined, valueSerde: undefined, repartitionRequired: true },
    )
  }

  /** The value mapped; the mapper also sees the key (read only), as Java's ValueMapperWithKey. */
  mapValues<VR>(mapper: (value: V, key: K) => VR): KStream<K, VR> {
    return this.stateless('KSTREAM-MAPVALUES-', (fwd) => (r) => fwd({ ...r, value: mapper(r.value, r.key) }), {
      ...this.up,
      valueSerde: undefined,
    })
  }

  flatMap<KR, VR>(mapper: (key: K, value: V) => Iterable<KeyValue<KR, VR>>): KStream<KR, VR> {
    return this.stateless(
      'KSTREAM-FLATMAP-',
      (fwd) => (r) => {
        for (const kv of mapper(r.key, r.value)) fwd({ key: kv.key, value: kv.value, timestamp: r.timestamp })
      },
      { keySerde: undefined, valueSerde: undefined, repartitionRequired: true },
    )
  }

  flatMapValues<VR>(mapper: (value: V, key: K) => Iterable<VR>): KStream<K, VR> {
    return this.stateless(
      'KSTREAM-FLATMAPVALUES-',
      (fwd) => (r) => {
        for (const value of mapper(r.value, r.key)) fwd({ key: r.key, value, timestamp: r.timestamp })
      },
      { ...this.up, valueSerde: undefined },
    )
  }

  selectKey<KR>(mapper: (key: K, value: V) => KR): KStream<KR, V> {
    const name = this.b.newProcessorName('KSTREAM-KEY-SELECT-')
    return this.b.dsl.stream(this.b, this.selectKeyNode(name, mapper))
  }

  peek(action: (key: K, value: V) => void): KStream<K, V> {
    return this.stateless(
      'KSTREAM-PEEK-',
      (fwd) => (r) => {
        action(r.key, r.value)
        fwd(r)
      },
      this.up,
    )
  }

  /**
   * Runs a processor of yours on each record (Java's process()): a new one per
   * task from `supplier`, with access to the stores named here (added with
   * `builder.addStateStore`). What it forwards is the returned stream; its key
   * may differ, so a later grouping goes through a repartition topic.
   */
  process<KR, VR>(supplier: ProcessorSupplier<K, V, KR, VR>, ...storeNames: string[]): KStream<KR, VR> {
    checkProcess(this.b.topology, supplier, storeNames)
    const name = this.b.newProcessorName('KSTREAM-PROCESSOR-')
    this.b.topology.add(processorNode(name, this.up.node, supplier, storeNames))
    return this.b.dsl.stream(this.b, { node: name, keySerde: undefined, valueSerde: undefined, repartitionRequired: true })
  }

  /** A terminal operation: `action` for each record. */
  foreach(action: (key: K, value: V) => void): void {
    this.stateless('KSTREAM-FOREACH-', () => (r) => action(r.key, r.value), this.up)
  }

  /** Both streams' records, each in its own order. Serdes are dropped: neither stream's can stand for both. */
  merge(other: KStream<K, V>): KStream<K, V> {
    const name = this.b.newProcessorName('KSTREAM-MERGE-')
    this.b.topology.add({ kind: 'processor', name, parents: [this.up.node, other.up.node], stores: [], make: (rt) => (r) => rt.forward(r) })
    return this.b.dsl.stream(this.b, {
      node: name,
      keySerde: undefined,
      valueSerde: undefined,
      repartitionRequired: this.up.repartitionRequired || other.up.repartitionRequired,
    })
  }

  /** Splits the stream into branches by predicates (Java's split()); `name` replaces KSTREAM-BRANCH-<index>. */
  split(name?: string): BranchedKStream<K, V> {
    return this.b.dsl.split(this.b, this.up, name)
  }

  /** Each record joined with the table's current value for its key; records the table has no value for are dropped (Java's KStream.join(KTable)). */
  join<VT, VR>(table: KTable<K, VT>, joiner: (value: V, tableValue: VT, key: K) => VR): KStream<K, VR>
  /** Each record joined with every record of the other stream with its key within the windows (Java's KStream.join(KStream, JoinWindows)). */
  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, otherValue: VO, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  /** Each record joined with the global table's value for the key `keySelector` maps it to; records the table has no value for are dropped (Java's KStream.join(GlobalKTable, KeyValueMapper, ValueJoinerWithKey), the key last). */
  join<GK, GV, VR>(
    table: GlobalKTable<GK, GV>,
    keySelector: KeyValueMapper<K, V, GK>,
    joiner: (value: V, tableValue: GV, key: K) => VR,
  ): KStream<K, VR>
  join<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO> | GlobalKTable<any, VO>,
    second: any,
    third?: JoinWindows | ((...args: any[]) => any),
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR> {
    return this.joinWith(other, second, third, joined, 'inner')
  }

  /** As join(), but a record the table has no value for is joined with null (Java's KStream.leftJoin(KTable)). */
  leftJoin<VT, VR>(table: KTable<K, VT>, joiner: ValueJoiner<V, VT, VR, K>): KStream<K, VR>
  /** As the windowed join(), and each record that no record of the other stream joined is joined with null once its window has closed (Java's KStream.leftJoin(KStream, JoinWindows)). */
  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V, otherValue: VO | null, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  /** As join(globalTable, ...), but a record the table has no value for (or mapped to a null key) is joined with null (Java's KStream.leftJoin(GlobalKTable, ...)). */
  leftJoin<GK, GV, VR>(
    table: GlobalKTable<GK, GV>,
    keySelector: KeyValueMapper<K, V, GK>,
    joiner: (value: V, tableValue: GV | null, key: K) => VR,
  ): KStream<K, VR>
  leftJoin<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO> | GlobalKTable<any, VO>,
    second: any,
    third?: JoinWindows | ((...args: any[]) => any),
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR> {
    return this.joinWith(other, second, third, joined, 'left')
  }

  /**
   * join / leftJoin by what `other` is: a global table (`second` maps each
   * record to its key there, `third` joins), a stream (`second` joins within
   * the windows `third`) or a table (`second` joins).
   */
  private joinWith<VO, VR>(
    other: KTable<K, VO> | KStream<K, VO> | GlobalKTable<any, VO>,
    second: any,
    third: JoinWindows | ((...args: any[]) => any) | undefined,
    joined: StreamJoined<K, V, VO> | undefined,
    kind: 'inner' | 'left',
  ): KStream<K, VR> {
    const left = kind === 'left'
    if (other instanceof GlobalKTable)
      return this.b.dsl.stream(this.b, streamGlobalTableJoin(this.b, this.up, other, second, third as any, left))
    if (isStream(other)) return this.windowedJoin(other, second, third as JoinWindows | undefined, joined, kind)
    return this.b.dsl.stream(this.b, streamTableJoin(this.b, this.up, other, second as ValueJoiner<V, VO, VR, K>, left))
  }

  /** As leftJoin(), both ways: a record of either stream that nothing joined is joined with null (Java's KStream.outerJoin(KStream, JoinWindows)). */
  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: V | null, otherValue: VO | null, key: K) => VR,
    windows: JoinWindows,
    joined?: StreamJoined<K, V, VO>,
  ): KStream<K, VR> {
    return this.windowedJoin(other, joiner, windows, joined, 'outer')
  }

  private windowedJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: StreamValueJoiner<V, VO, VR, K>,
    windows: JoinWindows | undefined,
    joined: StreamJoined<K, V, VO> = {},
    kind: StreamJoinKind,
  ): KStream<K, VR> {
    if (!isStream(other)) throw new TypeError(`a stream's ${kind} join with JoinWindows takes another KStream`)
    if (!(windows instanceof JoinWindows))
      throw new TypeError('a stream-stream join takes JoinWindows (JoinWindows.ofTimeDifferenceWithNoGrace(ms), ...)')
    if (other.b !== this.b) throw new TopologyError('a stream-stream join takes two streams of the same StreamsBuilder')
    return this.b.dsl.stream(this.b, streamStreamJoin(this.b, this.up, other.up, joiner, windows, joined, kind))
  }

  /** Writes each record to `topic`, or to the topic `extractor` names for it. */
  to(topic: string | TopicNameExtractor<K, V>, produced: Produced<K, V> = {}): void {
    if (typeof topic !== 'function' && (typeof topic !== 'string' || topic === ''))
      throw new TypeError('to() takes a topic name or a function that names one')
    this.b.topology.add({
      kind: 'sink',
      name: produced.processorName ?? this.b.newProcessorName('KSTREAM-SINK-'),
      parents: [this.up.node],
      topic,
      keySerde: produced.keySerde ?? this.up.keySerde,
      valueSerde: produced.valueSerde ?? this.up.valueSerde,
    })
  }

  /**
   * Writes the stream through a repartition topic and reads it back, as
   * Java's repartition(): the records are spread over the topic's partitions
   * by their (new) key, and a later grouping or join needs no other hop.
   */
  repartition(repartitioned: Repartitioned<K, V> = {}): KStream<K, V> {
    const { numberOfPartitions: count } = repartitioned
    if (count !== undefined && !(Number.isInteger(count) && count > 0))
      throw new TypeError(`repartition(): numberOfPartitions must be a positive integer, not ${count}`)
    const name = repartitioned.name ?? this.b.newProcessorName('KSTREAM-REPARTITION-')
    // The topic's key serde is Repartitioned's or the application's default, not the stream's: as Java's doRepartition.
    const source = repartition(
      this.b,
      { ...this.up, keySerde: repartitioned.keySerde, valueSerde: repartitioned.valueSerde ?? this.up.valueSerde },
      name,
    )
    if (count !== undefined) this.b.topology.internalTopicPartitions.set(repartitionTopic(name), count)
    return this.b.dsl.stream(this.b, {
      node: source,
      keySerde: repartitioned.keySerde ?? this.up.keySerde,
      valueSerde: repartitioned.valueSerde ?? this.up.valueSerde,
      repartitionRequired: false,
    })
  }

  /** Groups by the record's key; through a repartition topic when a key changed upstream. */
  groupByKey(grouped: Grouped<K, V> = {}): KGroupedStream<K, V> {
    return this.b.dsl.grouped(
      this.b,
      { ...this.up, keySerde: grouped.keySerde ?? this.up.keySerde, valueSerde: grouped.valueSerde ?? this.up.valueSerde },
      grouped.name,
    )
  }

  /** Groups by a new key (selectKey, then groupByKey): always through a repartition topic. */
  groupBy<KR>(selector: (key: K, value: V) => KR, grouped: Grouped<KR, V> = {}): KGroupedStream<KR, V> {
    const name = grouped.name ?? this.b.newProcessorName('KSTREAM-KEY-SELECT-')
    const up = this.selectKeyNode(name, selector)
    return this.b.dsl.grouped(
      this.b,
      { ...up, keySerde: grouped.keySerde, valueSerde: grouped.valueSerde ?? this.up.valueSerde },
      grouped.name,
    )
  }

  private selectKeyNode<KR>(name: string, mapper: (key: K, value: V) => KR): Upstream {
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [this.up.node],
      stores: [],
      make: (rt) => (r) => rt.forward({ key: mapper(r.key, r.value), value: r.value, timestamp: r.timestamp }),
    })
    return { node: name, keySerde: undefined, valueSerde: this.up.valueSerde, repartitionRequired: true }
  }

  private stateless<KR, VR>(
    prefix: string,
    make: (forward: (r: StreamRecord) => void, context: () => RecordContext) => (r: StreamRecord<K, V>) => void,
    next: Omit<Upstream, 'node'>,
  ): KStream<KR, VR> {
    const name = this.b.newProcessorName(prefix)
    this.b.topology.add({
      kind: 'processor',
      name,
      parents: [this.up.node],
      stores: [],
      make: (rt) =>
        make(
          (r) => rt.forward(r),
          () => rt.context(),
        ),
    })
    return this.b.dsl.stream(this.b, { ...next, node: name })
  }
}

export const streamOf = <K, V>(b: InternalBuilder, up: Upstream): KStream<K, V> => new KStream<K, V>(b, up)

// Outside the class: a class body naming its class gets it renamed by the bundler.
function isStream<K, V>(x: KStream<K, V> | KTable<K, V>): x is KStream<K, V> {
  return x instanceof KStream
}
