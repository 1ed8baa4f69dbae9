// The DSL builds the topology Java's StreamsBuilder builds: the same node and
// store names (one index counter, burnt where Java burns it), the same
// sub-topologies, and describe() printing what Java's Topology.describe()
// prints. The expected texts are Java's (Kafka's TopologyTest and the word
// count of its streams tutorial, with today's repartition node names).
import { describe, expect, it } from 'vitest'
import { KeyValue, Serdes, StreamsBuilder, TopologyError } from '../../src/public/streams.js'

const words = (line: string) => line.toLowerCase().split(/\W+/).filter(Boolean)

describe('StreamsBuilder and Topology.describe()', () => {
  it('groupByKey().count(): the store named before its processor, one sub-topology', () => {
    const builder = new StreamsBuilder()
    builder.stream('input-topic').groupByKey().count()
    expect(builder.build().describe().toString()).toBe(
      'Topologies:\n' +
        '   Sub-topology: 0\n' +
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [input-topic])\n' +
        '      --> KSTREAM-AGGREGATE-0000000002\n' +
        '    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])\n' +
        '      --> none\n' +
        '      <-- KSTREAM-SOURCE-0000000000\n\n',
    )
  })

  it('count(Materialized) without a store name burns one index more, as Java', () => {
    const builder = new StreamsBuilder()
    builder.stream('input-topic').groupByKey().count({ valueSerde: Serdes.Long() })
    expect(builder.build().describe().toString()).toContain(
      'Processor: KSTREAM-AGGREGATE-0000000003 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000002])',
    )
  })

  it('word count with a named store: the repartition hop named after the store, its three indexes burnt', () => {
    const builder = new StreamsBuilder()
    builder
      .stream<string, string>('streams-plaintext-input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .flatMapValues(words)
      .groupBy((_key, word) => word)
      .count({ storeName: 'counts-store' })
      .toStream()
      .to('streams-wordcount-output', { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
    const topology = builder.build()
    expect(topology.describe().toString()).toBe(
      'Topologies:\n' +
        '   Sub-topology: 0\n' +
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [streams-plaintext-input])\n' +
        '      --> KSTREAM-FLATMAPVALUES-0000000001\n' +
        '    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])\n' +
        '      --> KSTREAM-KEY-SELECT-0000000002\n' +
        '      <-- KSTREAM-SOURCE-0000000000\n' +
        '    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])\n' +
        '      --> counts-store-repartition-filter\n' +
        '      <-- KSTREAM-FLATMAPVALUES-0000000001\n' +
        '    Processor: counts-store-repartition-filter (stores: [])\n' +
        '      --> counts-store-repartition-sink\n' +
        '      <-- KSTREAM-KEY-SELECT-0000000002\n' +
        '    Sink: counts-store-repartition-sink (topic: counts-store-repartition)\n' +
        '      <-- counts-store-repartition-filter\n' +
        '\n' +
        '  Sub-topology: 1\n' +
        '    Source: counts-store-repartition-source (topics: [counts-store-repartition])\n' +
        '      --> KSTREAM-AGGREGATE-0000000003\n' +
        '    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [counts-store])\n' +
        '      --> KTABLE-TOSTREAM-0000000007\n' +
        '      <-- counts-store-repartition-source\n' +
        '    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])\n' +
        '      --> KSTREAM-SINK-0000000008\n' +
        '      <-- KSTREAM-AGGREGATE-0000000003\n' +
        '    Sink: KSTREAM-SINK-0000000008 (topic: streams-wordcount-output)\n' +
        '      <-- KTABLE-TOSTREAM-0000000007\n\n',
    )
    const subs = topology.subtopologies()
    expect(subs.map((s) => [s.id, s.sourceTopics, s.stores])).toEqual([
      [0, ['streams-plaintext-input'], []],
      [1, ['counts-store-repartition'], ['counts-store']],
    ])
    expect([...topology.internalTopics]).toEqual(['counts-store-repartition'])
  })

  it('an unnamed store gives the repartition hop generated names (KSTREAM-SINK, -FILTER, -SOURCE)', () => {
    const builder = new StreamsBuilder()
    builder
      .stream<string, string>('in')
      .selectKey((_k, v) => v)
      .groupByKey()
      .count()
    const d = builder.build().describe()
    expect(d.subtopologies[0].nodes.map((n) => n.name)).toEqual([
      'KSTREAM-SOURCE-0000000000',
      'KSTREAM-KEY-SELECT-0000000001',
      'KSTREAM-FILTER-0000000005',
      'KSTREAM-SINK-0000000004',
    ])
    expect(d.subtopologies[0].nodes[3].topic).toBe('KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition')
    expect(d.subtopologies[1].nodes.map((n) => n.name)).toEqual(['KSTREAM-SOURCE-0000000006', 'KSTREAM-AGGREGATE-0000000003'])
  })

  it('orders successors by the size of their sub-tree, then by name; a key change only repartitions before a grouping', () => {
    const builder = new StreamsBuilder()
    const source = builder.stream<string, string>('in')
    const mapped = source.map((k, v) => KeyValue.pair(v, k))
    mapped
      .filter(() => true)
      .mapValues((v) => v.length)
      .foreach(() => {})
    mapped.groupByKey({ name: 'count-stream' }).count()
    const text = builder.build().describe().toString()
    expect(text).toContain(
      'Processor: KSTREAM-MAP-0000000001 (stores: [])\n      --> KSTREAM-FILTER-0000000002, count-stream-repartition-filter\n',
    )
    expect(text).toContain('Sink: count-stream-repartition-sink (topic: count-stream-repartition)')
    expect(text).toContain('  Sub-topology: 1\n    Source: count-stream-repartition-source (topics: [count-stream-repartition])')
  })

  it('merge joins two sources into one sub-topology; a name given twice is refused', () => {
    const builder = new StreamsBuilder()
    const a = builder.stream('a')
    // A named source spends no index.
    const b = builder.stream('b', { processorName: 'from-b' })
    a.merge(b).to('out')
    const topology = builder.build()
    expect(topology.subtopologies().map((s) => s.sourceTopics)).toEqual([['a', 'b']])
    expect(topology.describe().toString()).toContain(
      'Processor: KSTREAM-MERGE-0000000001 (stores: [])\n      --> KSTREAM-SINK-0000000002\n      <-- KSTREAM-SOURCE-0000000000, from-b\n',
    )
    expect(() => builder.stream('c', { processorName: 'from-b' })).toThrow(TopologyError)
  })

  it("split(): Java's branch names (the splitter's name and the position, 0 for the default), one index burnt per branch", () => {
    const builder = new StreamsBuilder()
    const branches = builder
      .stream<string, number>('in')
      .split()
      .branch((_k, v) => v < 0, { name: '-negative' })
      .branch((_k, v) => v === 0)
      .defaultBranch()
    expect(Object.keys(branches).sort()).toEqual([
      'KSTREAM-BRANCH-0000000001-negative',
      'KSTREAM-BRANCH-00000000010',
      'KSTREAM-BRANCH-00000000012',
    ])
    branches['KSTREAM-BRANCH-00000000012'].to('zero')
    const text = builder.build().describe().toString()
    expect(text).toContain(
      '    Processor: KSTREAM-BRANCH-0000000001 (stores: [])\n' +
        // Java 4.4 prints this (its TreeSet placed each branch by the sizes when it was connected, in its
        // HashMap's order: -negative first, while the sink's branch still counted 1).
        '      --> KSTREAM-BRANCH-0000000001-negative, KSTREAM-BRANCH-00000000012, KSTREAM-BRANCH-00000000010\n' +
        '      <-- KSTREAM-SOURCE-0000000000\n',
    )
    // Three branches burnt indexes 2 to 4: the sink is 5.
    expect(text).toContain('    Sink: KSTREAM-SINK-0000000005 (topic: zero)\n      <-- KSTREAM-BRANCH-00000000012\n')
  })

  it("stream-table left join: Java's text (the table's source and the join share the store, so one sub-topology; one co-partition group)", () => {
    const builder = new StreamsBuilder()
    const clicks = builder.stream<string, string>('clicks')
    const users = builder.table<string, string>('users', {}, { storeName: 'table' })
    clicks.leftJoin(users, (c, u) => `${c}+${u}`).to('out')
    const topology = builder.build()
    // Printed by Java's RigStreams stream-table-join --join left (kafka-streams 4.4).
    expect(topology.describe().toString()).toBe(
      'Topologies:\n' +
        '   Sub-topology: 0\n' +
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [clicks])\n' +
        '      --> KSTREAM-LEFTJOIN-0000000003\n' +
        '    Processor: KSTREAM-LEFTJOIN-0000000003 (stores: [table])\n' +
        '      --> KSTREAM-SINK-0000000004\n' +
        '      <-- KSTREAM-SOURCE-0000000000\n' +
        '    Source: KSTREAM-SOURCE-0000000001 (topics: [users])\n' +
        '      --> KTABLE-SOURCE-0000000002\n' +
        '    Sink: KSTREAM-SINK-0000000004 (topic: out)\n' +
        '      <-- KSTREAM-LEFTJOIN-0000000003\n' +
        '    Processor: KTABLE-SOURCE-0000000002 (stores: [table])\n' +
        '      --> none\n' +
        '      <-- KSTREAM-SOURCE-0000000001\n\n',
    )
    expect(topology.copartitionGroups).toEqual([['clicks', 'users']])
  })

  it('an unnamed table gets its store (<topic>-STATE-STORE-<index>, the index spent first) only when a join reads it', () => {
    const alone = new StreamsBuilder()
    alone.table('users').toStream().to('out')
    const text = alone.build().describe().toString()
    expect(text).toContain('Processor: KTABLE-SOURCE-0000000002 (stores: [])')
    expect([...alone.build().stores.keys()]).toEqual([])

    const joined = new StreamsBuilder()
    const clicks = joined.stream('clicks')
    clicks.join(joined.table('users'), (c, u) => `${c}+${u}`).to('out')
    const topology = joined.build()
    expect(topology.describe().toString()).toContain('Processor: KTABLE-SOURCE-0000000003 (stores: [users-STATE-STORE-0000000001])')
    expect(topology.describe().toString()).toContain('Processor: KSTREAM-JOIN-0000000004 (stores: [users-STATE-STORE-0000000001])')
    expect(topology.subtopologies().map((s) => s.stores)).toEqual([['users-STATE-STORE-0000000001']])
  })

  it("refuses a topic read by two sources, as Java's InternalTopologyBuilder does (a partition's records go to one task)", () => {
    const builder = new StreamsBuilder()
    builder.stream('clicks')
    expect(() => builder.stream(['other', 'clicks'])).toThrow(
      new TopologyError('Topic clicks has already been registered by another source.'),
    )
    expect(() => builder.table('clicks')).toThrow(TopologyError)
  })

  it('repartitions a stream whose key changed before joining it, and refuses a join against a table with no store', () => {
    const builder = new StreamsBuilder()
    const users = builder.table<string, string>('users', {}, { storeName: 'users' })
    const rekeyed = builder.stream<string, string>('clicks').selectKey((_k, v) => v)
    rekeyed.join(users, (c, u) => c + u).to('out')
    const topology = builder.build()
    // The join reads the repartition topic, which is co-partitioned with the table's.
    expect(topology.describe().toString()).toContain('Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-KEY-SELECT-0000000003-repartition)')
    expect(topology.copartitionGroups).toEqual([['KSTREAM-KEY-SELECT-0000000003-repartition', 'users']])
    const derived = users.mapValues((u) => u.length)
    expect(() => builder.stream<string, string>('more').leftJoin(derived, (c, n) => `${c}${n}`)).toThrow(TopologyError)
  })
})
