// Java Kafka Streams (the rig's RigStreams, kafka-streams 4.4) and
// wafka/streams run the same topology on the same input, on real Kafka 4.4
// and on the embedded broker with the same assertions: each output topic's
// final table, compared byte for byte (key bytes to value bytes), is the same,
// and is the table the input gives. Java's own deserializers (RigSerdes:
// StringDeserializer, LongDeserializer) read every record wafka/streams wrote
// back to the words and counts, and Java's stream-table join reads a topic
// wafka/streams wrote as its table. The windowed counts (tumbling with grace,
// hopping, sliding) compare the store's changelog too, and its topic configs;
// both topologies' describe() print the same. A windowed count through
// suppress(untilWindowCloses) writes the same records (each closed window
// once, its final count, same timestamps, same order per key) and leaves the
// same suppression buffer changelog table (Java's v3 values, byte for byte);
// each, restarted as the other's application, restores the other's buffer
// and emits the windows it left open. A session count through it does the
// same (sessions merged away never emitted).
import { describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import {
  BufferConfig,
  KafkaStreams,
  Serdes,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  WindowedSerdes,
  type Serde,
  type StreamsConfig,
  type Windowed,
} from '../../src/public/streams.js'
import { javaSerdes, javaStreamsDescribe, javaStreamsApp } from '../peers/java-streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafkaRead } from '../kafka/support.js'
import {
  consumedAll,
  createTopics,
  describeOnTargets,
  NO_TIME_RETENTION,
  partitionRecords,
  produceStrings,
  rawTable,
  runJavaToEnd,
} from './support.js'

const TOPIC_RESOURCE = 2
// An hour ago, to the hour (a multiple of every window size below): within the topics' retention.
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000

const str = Serdes.String()
const VOCABULARY = ['kafka', 'Streams', 'wafka', 'JAVA', 'table', 'window', 'join', 'count', 'x', 'a1', 'under_score']

/** Lines of words with punctuation, capitals and runs of separators between them. */
function lines(count: number): string[] {
  let x = 11
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  const seps = [' ', ', ', '  -- ', '!', '... ', '\t']
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + next(8) }, () => VOCABULARY[next(VOCABULARY.length)])
    return words.map((w, j) => (j === 0 ? w : seps[next(seps.length)] + w)).join('') + (next(3) === 0 ? '.' : '')
  })
}

/** Lower case, split on \W+ (ASCII, as Java's), empty words dropped: RigStreams' wordcount. */
const words = (line: string) => line.toLowerCase().split(/\W+/).filter(Boolean)

function expectedCounts(text: string[]): Record<string, bigint> {
  const counts: Record<string, bigint> = {}
  for (const line of text) for (const w of words(line)) counts[w] = (counts[w] ?? 0n) + 1n
  return counts
}

/** Runs a wafka/streams application until `done` holds of its output's raw table, then closes it. */
async function runWafkaUntil(
  cluster: RunningTarget,
  kafka: Kafka,
  build: (b: StreamsBuilder) => void,
  applicationId: string,
  output: string,
  done: (table: Record<string, string>) => boolean,
  /** Options beyond these, as statestoreCacheMaxBytes 0 where Java runs with its cache off. */
  extra: Partial<StreamsConfig> = {},
): Promise<void> {
  const builder = new StreamsBuilder()
  build(builder)
  const app = new KafkaStreams(builder.build(), {
    applicationId,
    brokers: cluster.bootstrap,
    commitIntervalMs: 100,
    defaultApiTimeoutMs: 30_000,
    defaultKeySerde: Serdes.String(),
    defaultValueSerde: Serdes.String(),
    ...extra,
  })
  await app.start()
  try {
    await until(`${applicationId}'s output`, () => rawTable(kafka, output), done, 90_000)
  } finally {
    await app.close()
  }
  expect(app.state).toBe('NOT_RUNNING')
}

describe.skipIf(!brokerTargets()[0].available)('Java Kafka Streams and wafka/streams topologies', () => {
  it("the word count's and the windowed counts' describe() print as Java's", async () => {
    const wordCount = new StreamsBuilder()
    wordCount
      .stream<string, string>('text', { keySerde: str, valueSerde: str })
      .flatMapValues(words)
      .groupBy((_key, word) => word)
      .count({ storeName: 'counts' })
      .toStream()
      .to('out', { keySerde: str, valueSerde: Serdes.Long() })
    expect(wordCount.build().describe().toString()).toBe(
      await javaStreamsDescribe('wordcount', { applicationId: 'd', inputs: ['text'], output: 'out' }),
    )
    for (const [advanceMs, suppress] of [
      [undefined, false],
      [4_000, false],
      [undefined, true],
    ] as const) {
      const windowed = new StreamsBuilder()
      let windows = TimeWindows.ofSizeAndGrace(10_000, 5_000)
      if (advanceMs !== undefined) windows = windows.advanceBy(advanceMs)
      let counts = windowed
        .stream<string, string>('events', { keySerde: str, valueSerde: str })
        .groupByKey()
        .windowedBy(windows)
        .count({ storeName: 'windowed-counts' })
      if (suppress) counts = counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
      counts.toStream().to('out', { valueSerde: Serdes.Long() })
      expect(windowed.build().describe().toString()).toBe(
        await javaStreamsDescribe('windowed-count', {
          applicationId: 'd',
          inputs: ['events'],
          output: 'out',
          windowMs: 10_000,
          graceMs: 5_000,
          advanceMs,
          suppress,
        }),
      )
    }
    const sliding = new StreamsBuilder()
    sliding
      .stream<string, string>('events', { keySerde: str, valueSerde: str })
      .groupByKey()
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10_000, 5_000))
      .count({ storeName: 'sliding-counts' })
      .toStream()
      .to('out', { valueSerde: Serdes.Long() })
    expect(sliding.build().describe().toString()).toBe(
      await javaStreamsDescribe('sliding-count', {
        applicationId: 'd',
        inputs: ['events'],
        output: 'out',
        windowMs: 10_000,
        graceMs: 5_000,
      }),
    )
  }, 120_000)

  it("repartition()'s describe() prints as Java's: KSTREAM-REPARTITION-<index>, or the name given", async () => {
    for (const name of [undefined, 'by-word']) {
      const b = new StreamsBuilder()
      b.stream<string, string>('text', { keySerde: str, valueSerde: str })
        .selectKey((_key, value) => value)
        .repartition({ keySerde: str, valueSerde: str, name, numberOfPartitions: 5 })
        .groupByKey({ keySerde: str, valueSerde: str })
        .count({ storeName: 'counts' })
        .toStream()
        .to('out', { keySerde: str, valueSerde: Serdes.Long() })
      expect(b.build().describe().toString()).toBe(
        await javaStreamsDescribe('repartition-count', { applicationId: 'd', inputs: ['text'], output: 'out', name, partitions: 5 }),
      )
    }
  }, 120_000)

  it("the stream-table joins' describe() print as Java's (KSTREAM-JOIN / KSTREAM-LEFTJOIN connected to the table's store, a re-keyed stream repartitioned first)", async () => {
    for (const join of ['inner', 'left'] as const)
      for (const rekey of [false, true]) {
        const b = new StreamsBuilder()
        let stream = b.stream<string, string>('clicks', { keySerde: str, valueSerde: str })
        // Re-keyed: through KSTREAM-KEY-SELECT-<index>-repartition before the join, as Java's repartitionForJoin.
        if (rekey) stream = stream.selectKey((_key, value) => value)
        const table = b.table<string, string>('users', { keySerde: str, valueSerde: str }, { storeName: 'table' })
        const joiner = (v: string, t: string | null) => `${v}+${t}`
        ;(join === 'inner' ? stream.join(table, joiner) : stream.leftJoin(table, joiner)).to('out', { keySerde: str, valueSerde: str })
        expect(b.build().describe().toString(), `${join}${rekey ? ', re-keyed' : ''}`).toBe(
          await javaStreamsDescribe('stream-table-join', { applicationId: 'd', inputs: ['clicks', 'users'], output: 'out', join, rekey }),
        )
      }
  }, 120_000)

  it("the stream-globalTable joins' describe() print as Java's (the global store its own section, which makes no tasks; KSTREAM-LEFTJOIN for both, connected to no store)", async () => {
    for (const join of ['inner', 'left'] as const) {
      const b = new StreamsBuilder()
      const stream = b.stream<string, string>('clicks', { keySerde: str, valueSerde: str })
      const table = b.globalTable<string, string>('users', { keySerde: str, valueSerde: str }, { storeName: 'global' })
      const joiner = (v: string, t: string | null) => `${v}+${t}`
      const byValue = (_k: string, v: string) => v
      ;(join === 'inner' ? stream.join(table, byValue, joiner) : stream.leftJoin(table, byValue, joiner)).to('out', {
        keySerde: str,
        valueSerde: str,
      })
      const topology = b.build()
      expect(topology.describe().toString(), join).toBe(
        await javaStreamsDescribe('stream-globaltable-join', { applicationId: 'd', inputs: ['clicks', 'users'], output: 'out', join }),
      )
      // The global group takes id 1 but makes no tasks: the stream's sub-topology alone does.
      expect(topology.subtopologies().map((s) => s.id)).toEqual([0])
    }
    // Declared before the stream, and named by Consumed: the global store's section is sub-topology 0, the stream's 1.
    for (const name of [undefined, 'users-global']) {
      const b = new StreamsBuilder()
      const table = b.globalTable<string, string>('users', { keySerde: str, valueSerde: str, processorName: name }, { storeName: 'global' })
      b.stream<string, string>('clicks', { keySerde: str, valueSerde: str })
        .join(
          table,
          (_k, v) => v,
          (v, t) => `${v}+${t}`,
        )
        .to('out', { keySerde: str, valueSerde: str })
      const topology = b.build()
      expect(topology.describe().toString(), name).toBe(
        await javaStreamsDescribe('stream-globaltable-join', {
          applicationId: 'd',
          inputs: ['clicks', 'users'],
          output: 'out',
          globalFirst: true,
          name,
        }),
      )
      expect(topology.subtopologies().map((s) => s.id)).toEqual([1])
    }
  }, 120_000)

  it("the table-table joins' describe() print as Java's (KTABLE-MERGE, -JOINTHIS and -JOINOTHER, each side connected to the other's store)", async () => {
    for (const join of ['inner', 'left', 'outer'] as const) {
      const b = new StreamsBuilder()
      const left = b.table<string, string>('l', { keySerde: str, valueSerde: str }, { storeName: 'left' })
      const right = b.table<string, string>('r', { keySerde: str, valueSerde: str }, { storeName: 'right' })
      const joiner = (l: string | null, r: string | null) => `${l}+${r}`
      const joined =
        join === 'inner' ? left.join(right, joiner) : join === 'left' ? left.leftJoin(right, joiner) : left.outerJoin(right, joiner)
      joined.toStream().to('out', { keySerde: str, valueSerde: str })
      expect(b.build().describe().toString()).toBe(
        await javaStreamsDescribe('table-table-join', { applicationId: 'd', inputs: ['l', 'r'], output: 'out', join }),
      )
    }
  }, 120_000)
})

// The sliding-window count's early records carry timestamps near 0 (1970): nothing is deleted by time during the run.
describeOnTargets(brokerTargets(NO_TIME_RETENTION), 'Java Kafka Streams and wafka/streams', (on) => {
  it("word count: the same final table, byte for byte; Java's deserializers read wafka's output", async () => {
    const text = lines(300)
    await createTopics(on.kafka, ['cmp-text', 'cmp-java-counts', 'cmp-wafka-counts'], 3)
    const producer = on.kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'cmp-text',
      messages: text.map((value, i) => ({ key: str.serialize('cmp-text', `line-${i}`), value: str.serialize('cmp-text', value) })),
    })
    await producer.disconnect()
    const expected = expectedCounts(text)

    await runJavaToEnd(on.cluster, 'wordcount', {
      applicationId: 'cmp-java-wc',
      inputs: ['cmp-text'],
      output: 'cmp-java-counts',
      count: text.length,
    })
    const javaTable = await rawTable(on.kafka, 'cmp-java-counts')

    // The same topology as RigStreams' wordcount, store "counts".
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>('cmp-text', { keySerde: str, valueSerde: str })
          .flatMapValues(words)
          .groupBy((_key, word) => word)
          .count({ storeName: 'counts' })
          .toStream()
          .to('cmp-wafka-counts', { keySerde: str, valueSerde: Serdes.Long() }),
      'cmp-wafka-wc',
      'cmp-wafka-counts',
      // Until each word's count is the input's (computed here, not from Java's output), so a difference shows as one.
      (t) => sameCounts(decode(t), expected),
    )
    const wafkaTable = await rawTable(on.kafka, 'cmp-wafka-counts')
    expect(wafkaTable).toEqual(javaTable)
    expect(decode(javaTable)).toEqual(expected)

    // Java's StringDeserializer and LongDeserializer on every record wafka/streams wrote.
    const written = await wafkaRead(on.kafka, 'cmp-wafka-counts', 'end')
    const answers = await javaSerdes(
      written.flatMap((r) => [
        { op: 'deserialize' as const, serde: 'String' as const, bytes: r.key },
        { op: 'deserialize' as const, serde: 'Long' as const, bytes: r.value },
      ]),
    )
    const javaRead: Record<string, unknown> = {}
    for (let i = 0; i < answers.length; i += 2) {
      const [k, v] = [answers[i], answers[i + 1]]
      if (!('value' in k) || !('value' in v)) throw new Error(`Java could not read record ${i / 2}: ${JSON.stringify([k, v])}`)
      javaRead[k.value as string] = v.value
    }
    expect(javaRead).toEqual(expected)
  }, 300_000)

  it('repartition() with a name and a partition count: the same topics and the same final table, byte for byte', async () => {
    const values = Array.from({ length: 200 }, (_, i) => VOCABULARY[(i * 7 + (i >> 3)) % VOCABULARY.length])
    await createTopics(on.kafka, ['rep-text', 'rep-java-counts', 'rep-wafka-counts'], 3)
    const producer = on.kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'rep-text',
      messages: values.map((value, i) => ({ key: str.serialize('rep-text', `k${i}`), value: str.serialize('rep-text', value) })),
    })
    await producer.disconnect()
    const expected: Record<string, bigint> = {}
    for (const v of values) expected[v] = (expected[v] ?? 0n) + 1n

    const options = { inputs: ['rep-text'], name: 'by-word', partitions: 5 }
    await runJavaToEnd(on.cluster, 'repartition-count', {
      ...options,
      applicationId: 'rep-java',
      output: 'rep-java-counts',
      count: values.length,
    })
    const javaTable = await rawTable(on.kafka, 'rep-java-counts')
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>('rep-text', { keySerde: str, valueSerde: str })
          .selectKey((_key, value) => value)
          .repartition({ keySerde: str, valueSerde: str, name: options.name, numberOfPartitions: options.partitions })
          .groupByKey({ keySerde: str, valueSerde: str })
          .count({ storeName: 'counts' })
          .toStream()
          .to('rep-wafka-counts', { keySerde: str, valueSerde: Serdes.Long() }),
      'rep-wafka',
      'rep-wafka-counts',
      (t) => sameCounts(decode(t), expected),
    )
    expect(await rawTable(on.kafka, 'rep-wafka-counts')).toEqual(javaTable)
    expect(decode(javaTable)).toEqual(expected)
    // Both made the repartition topic and the store's changelog with the count given (the input has 3).
    const admin = on.kafka.admin()
    await admin.connect()
    try {
      const internal = (app: string) => [`${app}-by-word-repartition`, `${app}-counts-changelog`]
      const { topics } = await admin.fetchTopicMetadata({ topics: [...internal('rep-java'), ...internal('rep-wafka')] })
      expect(Object.fromEntries(topics.map((t) => [t.name.replace(/^rep-(java|wafka)-/, '$1 '), t.partitions.length]))).toEqual({
        'java by-word-repartition': 5,
        'java counts-changelog': 5,
        'wafka by-word-repartition': 5,
        'wafka counts-changelog': 5,
      })
    } finally {
      await admin.disconnect()
    }
  }, 300_000)

  it('a Java Streams application reads a wafka/streams output topic as its table (stream-table join)', async () => {
    // wafka/streams writes the users table (names upper-cased); Java's stream-table join reads
    // it through Serdes.String() and joins each click with it. Both topics keyed by the default
    // partitioner (murmur2 of the key), so co-partitioned; the users first in time.
    await createTopics(on.kafka, ['raw-users', 'users-table', 'st-clicks', 'st-enriched'], 3)
    const producer = on.kafka.producer()
    await producer.connect()
    const at = (key: string, value: string, ms: number, topic: string) => ({
      key: str.serialize(topic, key),
      value: str.serialize(topic, value),
      timestamp: T0 + ms,
    })
    await producer.send({ topic: 'raw-users', messages: [0, 1, 2, 3, 4].map((i) => at(`u${i}`, `name${i}`, 1_000 + i, 'raw-users')) })
    await producer.send({ topic: 'st-clicks', messages: [0, 1, 2, 3, 4, 5].map((i) => at(`u${i}`, `page${i}`, 10_000 + i, 'st-clicks')) })
    await producer.disconnect()
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>('raw-users', { keySerde: str, valueSerde: str })
          .mapValues((v) => v.toUpperCase())
          .to('users-table', { keySerde: str, valueSerde: str }),
      'st-wafka-users',
      'users-table',
      (t) => Object.keys(t).length === 5,
    )
    await runJavaToEnd(on.cluster, 'stream-table-join', {
      applicationId: 'st-java-join',
      inputs: ['st-clicks', 'users-table'],
      output: 'st-enriched',
      join: 'left',
      count: 5 + 6,
    })
    const joined: Record<string, string> = {}
    for (const [k, v] of Object.entries(await rawTable(on.kafka, 'st-enriched')))
      joined[str.deserialize('', Buffer.from(k, 'hex'))!] = str.deserialize('', Buffer.from(v, 'hex'))!
    expect(joined).toEqual({
      u0: 'page0+NAME0',
      u1: 'page1+NAME1',
      u2: 'page2+NAME2',
      u3: 'page3+NAME3',
      u4: 'page4+NAME4',
      u5: 'page5+null',
    })
  }, 300_000)

  it('stream-table join, inner and left: the same output records and table changelog, byte for byte', async () => {
    // The table's updates (a key updated, one deleted, one with a null key) all before the
    // clicks in time, so Java (which picks a task's next record by timestamp) applies them
    // first; wafka/streams is given them first (it takes each partition's records as they come).
    const [users, clicks] = ['stj-users', 'stj-clicks']
    await createTopics(on.kafka, [users, clicks, 'stj-java-inner', 'stj-java-left', 'stj-wafka-inner', 'stj-wafka-left'], 3)
    const at = (topic: string, key: string | null, value: string | null, ms: number) => ({
      key: str.serialize(topic, key),
      value: str.serialize(topic, value),
      timestamp: T0 + ms,
    })
    const table: Array<[string | null, string | null]> = [
      ['u0', 'ann'],
      ['u1', 'bob'],
      ['u2', 'cy'],
      [null, 'nobody'],
      ['u2', null],
      ['u1', 'bobby'],
      ['u5', 'eve'],
    ]
    const events: Array<[string | null, string | null]> = [
      ['u0', 'p0'],
      ['u1', 'p1'],
      ['u2', 'p2'],
      ['u3', 'p3'],
      [null, 'p4'],
      ['u0', null],
      ['u5', 'p5'],
      ['u1', 'p6'],
    ]
    const producer = on.kafka.producer()
    await producer.connect()
    await producer.send({ topic: users, messages: table.map(([k, v], i) => at(users, k, v, 1_000 + i)) })
    const wafkaApps = (['inner', 'left'] as const).map((join) => {
      const b = new StreamsBuilder()
      const stream = b.stream<string, string>(clicks, { keySerde: str, valueSerde: str })
      const t = b.table<string, string>(users, { keySerde: str, valueSerde: str }, { storeName: 'table' })
      const joiner = (v: string, u: string | null) => `${v}+${u}`
      ;(join === 'inner' ? stream.join(t, joiner) : stream.leftJoin(t, joiner)).to(`stj-wafka-${join}`, {
        keySerde: str,
        valueSerde: str,
      })
      return new KafkaStreams(b.build(), {
        applicationId: `stj-wafka-${join}`,
        brokers: on.cluster.bootstrap,
        commitIntervalMs: 100,
        defaultApiTimeoutMs: 30_000,
      })
    })
    try {
      for (const app of wafkaApps) await app.start()
      for (const join of ['inner', 'left']) await consumedAll(on.kafka, `stj-wafka-${join}`, [users])
      await producer.send({ topic: clicks, messages: events.map(([k, v], i) => at(clicks, k, v, 10_000 + i)) })
      for (const join of ['inner', 'left']) await consumedAll(on.kafka, `stj-wafka-${join}`, [users, clicks], 90_000)
    } finally {
      await producer.disconnect()
      for (const app of wafkaApps) await app.close()
    }
    for (const join of ['inner', 'left'] as const)
      await runJavaToEnd(on.cluster, 'stream-table-join', {
        applicationId: `stj-java-${join}`,
        inputs: [clicks, users],
        output: `stj-java-${join}`,
        join,
        count: table.length + events.length,
      })

    /** Every record, key and value as hex ('-' for null), sorted. */
    const records = async (topic: string) =>
      (await wafkaRead(on.kafka, topic, 'end')).map((r) => `${r.key?.toString('hex') ?? '-'}:${r.value?.toString('hex') ?? '-'}`).sort()
    const readable = (list: string[]) =>
      list.map((r) =>
        r
          .split(':')
          .map((h) => (h === '-' ? 'null' : Buffer.from(h, 'hex').toString()))
          .join('='),
      )
    const expected = {
      inner: ['u0=p0+ann', 'u1=p1+bobby', 'u1=p6+bobby', 'u5=p5+eve'],
      left: ['null=p4+null', 'u0=p0+ann', 'u1=p1+bobby', 'u1=p6+bobby', 'u2=p2+null', 'u3=p3+null', 'u5=p5+eve'],
    }
    for (const join of ['inner', 'left'] as const) {
      const javaOut = await records(`stj-java-${join}`)
      expect(readable(javaOut).sort()).toEqual(expected[join])
      expect(await records(`stj-wafka-${join}`)).toEqual(javaOut)
      // The table's store, logged to <applicationId>-table-changelog: the same final table.
      const [javaLog, wafkaLog] = [
        await rawTable(on.kafka, `stj-java-${join}-table-changelog`),
        await rawTable(on.kafka, `stj-wafka-${join}-table-changelog`),
      ]
      expect(
        Object.keys(javaLog)
          .map((k) => Buffer.from(k, 'hex').toString())
          .sort(),
      ).toEqual(['u0', 'u1', 'u5'])
      expect(wafkaLog).toEqual(javaLog)
    }
  }, 300_000)

  it('stream-globalTable join, inner and left: the same output records, byte for byte', async () => {
    // The table (3 partitions; an update, a deletion, a null key) written before either starts, so
    // both bootstrap it whole before the first click; the clicks' topic has 2 partitions (no
    // co-partitioning). A click's value is the user it is for (the mapped key).
    const [users, clicks] = ['sgj-users', 'sgj-clicks']
    await createTopics(on.kafka, [users, 'sgj-java-inner', 'sgj-java-left', 'sgj-wafka-inner', 'sgj-wafka-left'], 3)
    const admin = on.kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: clicks, numPartitions: 2 }] }).finally(() => admin.disconnect())
    const at = (topic: string, key: string | null, value: string | null, ms: number) => ({
      key: str.serialize(topic, key),
      value: str.serialize(topic, value),
      timestamp: T0 + ms,
    })
    const table: Array<[string | null, string | null]> = [
      ['u0', 'ann'],
      ['u1', 'bob'],
      ['u2', 'cy'],
      [null, 'nobody'],
      ['u2', null],
      ['u1', 'bobby'],
      ['u5', 'eve'],
    ]
    const events: Array<[string | null, string | null]> = [
      ['c0', 'u0'],
      ['c1', 'u1'],
      ['c2', 'u2'],
      ['c3', 'u3'],
      [null, 'u5'],
      ['c5', null],
      ['c6', 'u1'],
    ]
    const producer = on.kafka.producer()
    await producer.connect()
    await producer.send({ topic: users, messages: table.map(([k, v], i) => at(users, k, v, 1_000 + i)) })
    await producer.send({ topic: clicks, messages: events.map(([k, v], i) => at(clicks, k, v, 10_000 + i)) })
    await producer.disconnect()
    const wafkaApps = (['inner', 'left'] as const).map((join) => {
      const b = new StreamsBuilder()
      const stream = b.stream<string, string>(clicks, { keySerde: str, valueSerde: str })
      const t = b.globalTable<string, string>(users, { keySerde: str, valueSerde: str }, { storeName: 'global' })
      const joiner = (v: string, u: string | null) => `${v}+${u}`
      const byValue = (_k: string, v: string) => v
      ;(join === 'inner' ? stream.join(t, byValue, joiner) : stream.leftJoin(t, byValue, joiner)).to(`sgj-wafka-${join}`, {
        keySerde: str,
        valueSerde: str,
      })
      return new KafkaStreams(b.build(), {
        applicationId: `sgj-wafka-${join}`,
        brokers: on.cluster.bootstrap,
        commitIntervalMs: 100,
        defaultApiTimeoutMs: 30_000,
      })
    })
    try {
      for (const app of wafkaApps) await app.start()
      for (const join of ['inner', 'left']) await consumedAll(on.kafka, `sgj-wafka-${join}`, [clicks], 90_000)
    } finally {
      for (const app of wafkaApps) await app.close()
    }
    for (const join of ['inner', 'left'] as const)
      await runJavaToEnd(on.cluster, 'stream-globaltable-join', {
        applicationId: `sgj-java-${join}`,
        inputs: [clicks, users],
        output: `sgj-java-${join}`,
        join,
        count: events.length,
      })
    const records = async (topic: string) =>
      (await wafkaRead(on.kafka, topic, 'end')).map((r) => `${r.key?.toString('hex') ?? '-'}:${r.value?.toString('hex') ?? '-'}`).sort()
    const readable = (list: string[]) =>
      list.map((r) =>
        r
          .split(':')
          .map((h) => (h === '-' ? 'null' : Buffer.from(h, 'hex').toString()))
          .join('='),
      )
    const expected = {
      inner: ['c0=u0+ann', 'c1=u1+bobby', 'c6=u1+bobby', 'null=u5+eve'],
      left: ['c0=u0+ann', 'c1=u1+bobby', 'c2=u2+null', 'c3=u3+null', 'c6=u1+bobby', 'null=u5+eve'],
    }
    for (const join of ['inner', 'left'] as const) {
      const javaOut = await records(`sgj-java-${join}`)
      expect(readable(javaOut).sort()).toEqual(expected[join])
      expect(await records(`sgj-wafka-${join}`)).toEqual(javaOut)
    }
    // Neither made a changelog for the global store: its topic is one.
    const lister = on.kafka.admin()
    await lister.connect()
    const topics = await lister.listTopics().finally(() => lister.disconnect())
    expect(topics.filter((t) => t.startsWith('sgj-') && t.endsWith('-changelog'))).toEqual([])
  }, 300_000)

  it('table-table join, inner, left and outer: the same final output table and table changelogs, byte for byte', async () => {
    // Rows added, updated and deleted on both sides (k2 deleted on the left, k3 on the right, k4 on
    // both, k7 on the right under a left row, k6 deleted before it was ever there); a null-keyed left
    // row skipped.
    const [leftTopic, rightTopic] = ['ttj-left', 'ttj-right']
    const left: Array<[string | null, string | null]> = [
      ['k0', 'a0'],
      ['k1', 'a1'],
      ['k2', 'a2'],
      ['k4', 'a4'],
      [null, 'x'],
      ['k2', null],
      ['k1', 'a1b'],
      ['k4', null],
      ['k6', null],
      ['k7', 'a7'],
    ]
    const right: Array<[string | null, string | null]> = [
      ['k1', 'b1'],
      ['k2', 'b2'],
      ['k3', 'b3'],
      ['k4', 'b4'],
      ['k5', 'b5'],
      ['k3', null],
      ['k4', null],
      ['k0', 'b0'],
      ['k7', 'b7'],
      ['k5', 'b5b'],
      ['k7', null],
    ]
    const final = (rows: Array<[string | null, string | null]>) => {
      const t = new Map<string, string>()
      for (const [k, v] of rows) if (k !== null) v === null ? t.delete(k) : t.set(k, v)
      return t
    }
    const [L, R] = [final(left), final(right)]
    const keys = [...new Set([...L.keys(), ...R.keys()])]
    const expected = (join: 'inner' | 'left' | 'outer') =>
      Object.fromEntries(
        keys
          .filter((k) => (join === 'inner' ? L.has(k) && R.has(k) : join === 'left' ? L.has(k) : true))
          .map((k) => [k, `${L.get(k) ?? null}+${R.get(k) ?? null}`]),
      )
    const outputs = ['inner', 'left', 'outer'].flatMap((j) => [`ttj-java-${j}`, `ttj-wafka-${j}`])
    await createTopics(on.kafka, [leftTopic, rightTopic, ...outputs], 3)
    const producer = on.kafka.producer()
    await producer.connect()
    const at = (topic: string, [key, value]: [string | null, string | null], ms: number) => ({
      key: str.serialize(topic, key),
      value: str.serialize(topic, value),
      timestamp: T0 + ms,
    })
    await producer.send({ topic: leftTopic, messages: left.map((r, i) => at(leftTopic, r, 1_000 + 2 * i)) })
    await producer.send({ topic: rightTopic, messages: right.map((r, i) => at(rightTopic, r, 1_001 + 2 * i)) })
    await producer.disconnect()
    const decodeStrings = (t: Record<string, string>) =>
      Object.fromEntries(Object.entries(t).map(([k, v]) => [Buffer.from(k, 'hex').toString(), Buffer.from(v, 'hex').toString()]))

    for (const join of ['inner', 'left', 'outer'] as const) {
      await runJavaToEnd(on.cluster, 'table-table-join', {
        applicationId: `ttj-java-${join}`,
        inputs: [leftTopic, rightTopic],
        output: `ttj-java-${join}`,
        join,
        count: left.length + right.length,
      })
      const javaTable = await rawTable(on.kafka, `ttj-java-${join}`)
      expect(decodeStrings(javaTable)).toEqual(expected(join))
      await runWafkaUntil(
        on.cluster,
        on.kafka,
        (b) => {
          const l = b.table<string, string>(leftTopic, { keySerde: str, valueSerde: str }, { storeName: 'left' })
          const r = b.table<string, string>(rightTopic, { keySerde: str, valueSerde: str }, { storeName: 'right' })
          const joiner = (x: string | null, y: string | null) => `${x}+${y}`
          const joined = join === 'inner' ? l.join(r, joiner) : join === 'left' ? l.leftJoin(r, joiner) : l.outerJoin(r, joiner)
          joined.toStream().to(`ttj-wafka-${join}`, { keySerde: str, valueSerde: str })
        },
        `ttj-wafka-${join}`,
        `ttj-wafka-${join}`,
        (t) => sameTable(decodeStrings(t), expected(join)),
      )
      expect(await rawTable(on.kafka, `ttj-wafka-${join}`)).toEqual(javaTable)
      for (const store of ['left', 'right'])
        expect(await rawTable(on.kafka, `ttj-wafka-${join}-${store}-changelog`)).toEqual(
          await rawTable(on.kafka, `ttj-java-${join}-${store}-changelog`),
        )
    }
  }, 300_000)

  it("table-table join, record by record: the same changes and tombstones as Java's with its cache off, one input change at a time", async () => {
    // Both with statestore.cache.max.bytes=0 (statestoreCacheMaxBytes) forward every change as it happens; each
    // change is processed by both before the next is written, so the order is the same for both.
    const steps: Array<['l' | 'r', string, string | null]> = [
      ['l', 'k1', 'a'],
      ['r', 'k1', 'b'],
      ['l', 'k2', 'c'],
      ['r', 'k1', null],
      ['r', 'k1', 'b2'],
      ['l', 'k1', null],
      ['l', 'k3', null],
      ['r', 'k2', 'd'],
      ['r', 'k2', null],
    ]
    for (const join of ['inner', 'left', 'outer'] as const) {
      const [l, r, javaOut, wafkaOut] = ['l', 'r', 'java', 'wafka'].map((x) => `ttr-${join}-${x}`)
      await createTopics(on.kafka, [l, r, javaOut, wafkaOut], 3)
      const java = javaStreamsApp(on.cluster, 'table-table-join', {
        applicationId: javaOut,
        inputs: [l, r],
        output: javaOut,
        join,
        // The count turns on the rig's progress events (and ends it once the last change is committed).
        count: steps.length,
        props: { 'group.protocol': 'classic', 'commit.interval.ms': 100, 'statestore.cache.max.bytes': 0 },
      })
      const b = new StreamsBuilder()
      const lt = b.table<string, string>(l, { keySerde: str, valueSerde: str }, { storeName: 'left' })
      const rt = b.table<string, string>(r, { keySerde: str, valueSerde: str }, { storeName: 'right' })
      const joiner = (x: string | null, y: string | null) => `${x}+${y}`
      ;(join === 'inner' ? lt.join(rt, joiner) : join === 'left' ? lt.leftJoin(rt, joiner) : lt.outerJoin(rt, joiner))
        .toStream()
        .to(wafkaOut, { keySerde: str, valueSerde: str })
      const app = new KafkaStreams(b.build(), {
        applicationId: wafkaOut,
        brokers: on.cluster.bootstrap,
        commitIntervalMs: 100,
        statestoreCacheMaxBytes: 0,
      })
      const producer = on.kafka.producer()
      try {
        await producer.connect()
        await app.start()
        await java.waitFor((e) => e.event === 'state' && e.to === 'RUNNING', 90_000)
        for (const [i, [side, key, value]] of steps.entries()) {
          const topic = side === 'l' ? l : r
          await producer.send({
            topic,
            messages: [{ key: str.serialize(topic, key), value: str.serialize(topic, value), timestamp: T0 + 1_000 + i }],
          })
          await java.waitFor((e) => e.event === 'progress' && e.records >= i + 1, 60_000)
          await consumedAll(on.kafka, wafkaOut, [l, r])
        }
      } finally {
        await producer.disconnect()
        await app.close()
        expect((await java.stop()).code).toBe(0)
      }
      const records = async (topic: string) =>
        (await wafkaRead(on.kafka, topic, 'end')).map((x) => `${x.key?.toString('hex')}:${x.value?.toString('hex') ?? '-'}`)
      const javaRecords = await records(javaOut)
      expect(javaRecords.length).toBeGreaterThan(0)
      expect(await records(wafkaOut)).toEqual(javaRecords)
    }
  }, 300_000)

  for (const [label, size, grace, advance] of [
    ['tumbling windows with grace', 10_000, 5_000, undefined],
    ['hopping windows', 10_000, 2_000, 4_000],
  ] as const) {
    it(`windowed count, ${label}: the same final table and changelog, byte for byte; late records dropped alike`, async () => {
      const tag = advance === undefined ? 'tw' : 'hw'
      // Per partition, time moves on by 0.7 s a record; every 9th record is 4 s behind, every
      // 13th 20 s behind (its windows closed).
      // Every 17th record has a null value: Kafka Streams' window aggregation counts it (it skips
      // only null keys), where its count without windows skips it.
      const records: Array<{ key: string; value: string | null; timestamp: number; partition: number }> = []
      for (let p = 0; p < 3; p++)
        for (let i = 0; i < 60; i++) {
          const late = i % 13 === 12 ? 20_000 : i % 9 === 8 ? 4_000 : 0
          const value = i % 17 === 5 ? null : `v${i}`
          records.push({ key: `k${p + 3 * (i % 2)}`, value, timestamp: T0 + 30_000 + i * 700 - late, partition: p })
        }
      // Kafka Streams' documented semantics: stream time per task (partition); a record counts in
      // each window [start, start + size) holding it, start a multiple of the advance, while
      // start + size > stream time - grace.
      const step = advance ?? size
      const expected: Record<string, bigint> = {}
      let dropped = 0
      for (let p = 0; p < 3; p++) {
        let streamTime = -Infinity
        for (const r of records.filter((x) => x.partition === p)) {
          streamTime = Math.max(streamTime, r.timestamp)
          for (let start = Math.floor(r.timestamp / step) * step; start > r.timestamp - size && start >= 0; start -= step) {
            if (start + size > streamTime - grace) expected[`${r.key}@${start}`] = (expected[`${r.key}@${start}`] ?? 0n) + 1n
            else dropped++
          }
        }
      }
      expect(dropped).toBeGreaterThan(0)
      const [input, javaOut, wafkaOut] = [`${tag}-events`, `${tag}-java-out`, `${tag}-wafka-out`]
      await createTopics(on.kafka, [input, javaOut, wafkaOut], 3)
      await produceStrings(on.kafka, input, records)

      const javaApp = `${tag}-java`
      await runJavaToEnd(on.cluster, 'windowed-count', {
        applicationId: javaApp,
        inputs: [input],
        output: javaOut,
        count: records.length,
        windowMs: size,
        graceMs: grace,
        advanceMs: advance,
      })
      const keySerde = WindowedSerdes.timeWindowedSerdeFrom(str, size)
      const decodeWindowed = (t: Record<string, string>) =>
        Object.fromEntries(
          Object.entries(t).map(([k, v]) => {
            const w = keySerde.deserialize('', Buffer.from(k, 'hex'))!
            return [`${w.key}@${w.window.start}`, Serdes.Long().deserialize('', Buffer.from(v, 'hex'))]
          }),
        )

      // The same topology as RigStreams' windowed-count, store "windowed-counts"; the output's
      // key serde is the table's (Java's TimeWindowedSerializer format), not given here.
      const wafkaApp = `${tag}-wafka`
      let windows = TimeWindows.ofSizeAndGrace(size, grace)
      if (advance !== undefined) windows = windows.advanceBy(advance)
      await runWafkaUntil(
        on.cluster,
        on.kafka,
        (b) =>
          b
            .stream<string, string>(input, { keySerde: str, valueSerde: str })
            .groupByKey()
            .windowedBy(windows)
            .count({ storeName: 'windowed-counts' })
            .toStream()
            .to(wafkaOut, { valueSerde: Serdes.Long() }),
        wafkaApp,
        wafkaOut,
        (t) => sameCounts(decodeWindowed(t), expected),
      )
      const javaTable = await rawTable(on.kafka, javaOut)
      expect(decodeWindowed(javaTable)).toEqual(expected)
      expect(await rawTable(on.kafka, wafkaOut)).toEqual(javaTable)

      // The store's changelog: Java's window store key (key, window start, sequence number 0) and
      // Long values; the same final table, and the same topic configs.
      const changelogs = [javaApp, wafkaApp].map((app) => `${app}-windowed-counts-changelog`)
      const [javaLog, wafkaLog] = [await rawTable(on.kafka, changelogs[0]), await rawTable(on.kafka, changelogs[1])]
      expect(Object.keys(javaLog).length).toBe(Object.keys(expected).length)
      expect(wafkaLog).toEqual(javaLog)
      const admin = on.kafka.admin()
      await admin.connect()
      try {
        const { resources } = await admin.describeConfigs({
          resources: changelogs.map((name) => ({ type: TOPIC_RESOURCE, name, configNames: ['cleanup.policy', 'retention.ms'] })),
        })
        const configs = resources.map((r) =>
          Object.fromEntries(r.configEntries.map((e: { configName: string; configValue: string }) => [e.configName, e.configValue])),
        )
        expect(configs[0]).toEqual({ 'cleanup.policy': 'compact,delete', 'retention.ms': String(size + grace + 86_400_000) })
        expect(configs[1]).toEqual(configs[0])
      } finally {
        await admin.disconnect()
      }
    }, 300_000)
  }

  it('sliding-window count: the same final table and changelog, byte for byte; out-of-order, late and early records alike', async () => {
    const [difference, grace] = [10_000, 5_000]
    // Per partition, time moves on by 0.7 s a record; every 9th record is 4 s behind (within the
    // grace), every 13th 20 s behind (its own window [t, t + 10 s] closed: dropped). Partitions 0
    // and 1 start an hour ago; partition 2 starts at 0, so its first records are early ones
    // (timestamp < the time difference: windows from 0), a late one among them too. Every 17th
    // record has a null value: sliding windows skip it, as they skip a null key.
    const records: Array<{ key: string; value: string | null; timestamp: number; partition: number }> = []
    for (let p = 0; p < 3; p++)
      for (let i = 0; i < 60; i++) {
        const late = i % 13 === 12 ? 20_000 : i % 9 === 8 ? 4_000 : 0
        const value = i % 17 === 5 ? null : `v${i}`
        const timestamp = Math.max(0, (p === 2 ? 0 : T0 + 30_000) + i * 700 - late)
        records.push({ key: `k${p + 3 * (i % 2)}`, value, timestamp, partition: p })
      }
    const [input, javaOut, wafkaOut] = ['sw-events', 'sw-java-out', 'sw-wafka-out']
    await createTopics(on.kafka, [input, javaOut, wafkaOut], 3)
    await produceStrings(on.kafka, input, records)

    const javaApp = 'sw-java'
    await runJavaToEnd(on.cluster, 'sliding-count', {
      applicationId: javaApp,
      inputs: [input],
      output: javaOut,
      count: records.length,
      windowMs: difference,
      graceMs: grace,
    })
    const javaTable = await rawTable(on.kafka, javaOut)
    // The windows' size in Java's TimeWindowedSerializer format is the time difference: [start, start + difference].
    const keySerde = WindowedSerdes.timeWindowedSerdeFrom(str, difference)
    const javaCounts = Object.fromEntries(
      Object.entries(javaTable).map(([k, v]) => {
        const w = keySerde.deserialize('', Buffer.from(k, 'hex'))!
        return [`${w.key}@${w.window.start}`, Serdes.Long().deserialize('', Buffer.from(v, 'hex'))]
      }),
    )
    // What the input was made to exercise, on Java's side: early records share [0, 10 s]; a
    // record's left window ends at it; a right window starts just after a record.
    const kept = records.filter((r) => r.value !== null)
    expect(javaCounts['k2@0']).toBeGreaterThan(1n)
    expect(javaCounts['k5@0']).toBeGreaterThan(1n)
    expect(kept.some((r) => r.timestamp >= difference && javaCounts[`${r.key}@${r.timestamp - difference}`] !== undefined)).toBe(true)
    expect(kept.some((r) => javaCounts[`${r.key}@${r.timestamp + 1}`] !== undefined)).toBe(true)

    // The same topology as RigStreams' sliding-count, store "sliding-counts".
    const wafkaApp = 'sw-wafka'
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(difference, grace))
          .count({ storeName: 'sliding-counts' })
          .toStream()
          .to(wafkaOut, { valueSerde: Serdes.Long() }),
      wafkaApp,
      wafkaOut,
      (t) => sameTable(t, javaTable),
    )
    expect(await rawTable(on.kafka, wafkaOut)).toEqual(javaTable)

    // The store's changelog (window store keys: key, window start, sequence number 0) and its
    // configs: retention 2 * difference + grace, plus Java's extra day.
    const changelogs = [javaApp, wafkaApp].map((app) => `${app}-sliding-counts-changelog`)
    const [javaLog, wafkaLog] = [await rawTable(on.kafka, changelogs[0]), await rawTable(on.kafka, changelogs[1])]
    expect(Object.keys(javaLog).length).toBe(Object.keys(javaTable).length)
    expect(wafkaLog).toEqual(javaLog)
    const admin = on.kafka.admin()
    await admin.connect()
    try {
      const { resources } = await admin.describeConfigs({
        resources: changelogs.map((name) => ({ type: TOPIC_RESOURCE, name, configNames: ['cleanup.policy', 'retention.ms'] })),
      })
      const configs = resources.map((r) =>
        Object.fromEntries(r.configEntries.map((e: { configName: string; configValue: string }) => [e.configName, e.configValue])),
      )
      expect(configs[0]).toEqual({ 'cleanup.policy': 'compact,delete', 'retention.ms': String(2 * difference + grace + 86_400_000) })
      expect(configs[1]).toEqual(configs[0])
    } finally {
      await admin.disconnect()
    }
  }, 300_000)

  it("windowed count through suppress(untilWindowCloses): each closed window once, final, the same records as Java's; the same buffer changelog, byte for byte; each restores the other's buffer", async () => {
    // Java with its record cache off (statestore.cache.max.bytes=0), as wafka/streams' window stores run:
    // the suppression buffer sees every update as it happens. Tumbling 10 s windows, grace 5 s;
    // per partition time moves on by 0.7 s a record, every 9th 4 s behind (within the grace),
    // every 13th 20 s behind (dropped), every 17th with a null value (counted).
    const [size, grace] = [10_000, 5_000]
    const records: Array<{ key: string; value: string | null; timestamp: number; partition: number }> = []
    for (let p = 0; p < 3; p++)
      for (let i = 0; i < 60; i++) {
        const late = i % 13 === 12 ? 20_000 : i % 9 === 8 ? 4_000 : 0
        records.push({
          key: `k${p + 3 * (i % 2)}`,
          value: i % 17 === 5 ? null : `v${i}`,
          timestamp: T0 + 30_000 + i * 700 - late,
          partition: p,
        })
      }
    // Kafka Streams' documented semantics: a window is emitted once, with its final count and the
    // latest timestamp counted in it, when the task's stream time reaches its end + grace; windows
    // still open at the end stay buffered.
    const expected = new Map<string, { count: bigint; timestamp: number }>()
    const open = new Set<string>()
    for (let p = 0; p < 3; p++) {
      let streamTime = -Infinity
      for (const r of records.filter((x) => x.partition === p)) {
        streamTime = Math.max(streamTime, r.timestamp)
        const start = Math.floor(r.timestamp / size) * size
        if (start + size <= streamTime - grace) continue
        const id = `${r.key}@${start}`
        const had = expected.get(id)
        expected.set(id, { count: (had?.count ?? 0n) + 1n, timestamp: Math.max(had?.timestamp ?? -Infinity, r.timestamp) })
      }
      for (const id of expected.keys())
        if (records.find((x) => x.key === id.split('@')[0])!.partition === p && Number(id.split('@')[1]) + size > streamTime - grace)
          open.add(id)
    }
    expect(open.size).toBeGreaterThan(0)
    const closed = [...expected].filter(([id]) => !open.has(id))
    expect(closed.length).toBeGreaterThan(10)

    const [input, javaOut, wafkaOut] = ['sup-events', 'sup-java-out', 'sup-wafka-out']
    await createTopics(on.kafka, [input, javaOut, wafkaOut, `${wafkaOut}-cached`], 3)
    await produceStrings(on.kafka, input, records)
    await runJavaToEnd(on.cluster, 'windowed-count', {
      applicationId: 'sup-java',
      inputs: [input],
      output: javaOut,
      count: records.length,
      windowMs: size,
      graceMs: grace,
      suppress: true,
      props: { 'statestore.cache.max.bytes': 0, 'session.timeout.ms': 6_000 },
    })
    const keySerde = WindowedSerdes.timeWindowedSerdeFrom(str, size)
    const written = (topic: string) => windowedCounts(on.kafka, topic, keySerde, 0)
    const javaWritten = await written(javaOut)
    const want: Record<string, string[]> = {}
    for (const [id, { count, timestamp }] of closed.sort(([a], [b]) => Number(a.split('@')[1]) - Number(b.split('@')[1]))) {
      const [key, start] = id.split('@')
      const p = Object.keys(javaWritten).find((x) => x.endsWith(`/${key}`)) ?? `?/${key}`
      ;(want[p] ??= []).push(`${start}=${count}@${timestamp}`)
    }
    expect(javaWritten).toEqual(want)

    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(TimeWindows.ofSizeAndGrace(size, grace))
          .count({ storeName: 'windowed-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to(wafkaOut, { valueSerde: Serdes.Long() }),
      'sup-wafka',
      wafkaOut,
      (t) => Object.keys(t).length === closed.length,
      { statestoreCacheMaxBytes: 0 },
    )
    await consumedAll(on.kafka, 'sup-wafka', [input])
    expect(await written(wafkaOut)).toEqual(javaWritten)

    // With the record cache on (the default; commits 1 s apart, so updates fold), the same final results.
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(TimeWindows.ofSizeAndGrace(size, grace))
          .count({ storeName: 'windowed-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to(`${wafkaOut}-cached`, { valueSerde: Serdes.Long() }),
      'sup-wafka-cached',
      `${wafkaOut}-cached`,
      (t) => Object.keys(t).length === closed.length,
      { commitIntervalMs: 1_000 },
    )
    await consumedAll(on.kafka, 'sup-wafka-cached', [input])
    expect(await written(`${wafkaOut}-cached`)).toEqual(javaWritten)

    // The buffer's changelog (KTABLE-SUPPRESS-STATE-STORE-0000000003, as Java numbers it): the windows
    // still open, each with Java's v3 value (record context: timestamp, input offset, topic and
    // partition; prior, old and new counts; the window's end), the closed ones deleted. The records'
    // own timestamps are the clock's on both sides and are not compared.
    const [javaLog, wafkaLog] = await Promise.all(
      ['sup-java', 'sup-wafka'].map((app) => rawTable(on.kafka, `${app}-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog`)),
    )
    expect(
      Object.keys(javaLog)
        .map((k) => {
          const w = keySerde.deserialize('', Buffer.from(k, 'hex'))!
          return `${w.key}@${w.window.start}`
        })
        .sort(),
    ).toEqual([...open].sort())
    expect(wafkaLog).toEqual(javaLog)

    // Each goes on from the other's state: wafka/streams as the application sup-java (restoring
    // Java's buffer and window store from Java's changelogs), Java as sup-wafka (restoring from
    // wafka's). A record far later in each partition closes the windows left open: both emit them,
    // from the restored buffers, with the counts of the first run.
    await createTopics(on.kafka, ['sup-cross-java', 'sup-cross-wafka'], 3)
    const closer = on.kafka.producer()
    await closer.connect()
    await closer.send({
      topic: input,
      messages: [0, 1, 2].map((p) => ({
        key: str.serialize(input, `k${p}`),
        value: str.serialize(input, 'late'),
        timestamp: T0 + 200_000,
        partition: p,
      })),
    })
    await closer.disconnect()
    await runJavaToEnd(on.cluster, 'windowed-count', {
      applicationId: 'sup-wafka',
      inputs: [input],
      output: 'sup-cross-java',
      count: records.length + 3,
      windowMs: size,
      graceMs: grace,
      suppress: true,
      props: { 'statestore.cache.max.bytes': 0 },
    })
    // Java's members do not leave the group on close (Kafka Streams' internal.leave.group.on.close is
    // false): sup-java is joined once its session (6 s, set for its run above) has expired.
    const admin = on.kafka.admin()
    await admin.connect()
    await until(
      'sup-java without members',
      async () => (await admin.describeGroups(['sup-java'])).groups[0].members.length,
      (n) => n === 0,
      60_000,
    ).finally(() => admin.disconnect())
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(TimeWindows.ofSizeAndGrace(size, grace))
          .count({ storeName: 'windowed-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to('sup-cross-wafka', { valueSerde: Serdes.Long() }),
      'sup-java',
      'sup-cross-wafka',
      (t) => Object.keys(t).length === open.size,
      { statestoreCacheMaxBytes: 0 },
    )
    await consumedAll(on.kafka, 'sup-java', [input])
    const crossJava = await written('sup-cross-java')
    const wantOpen: Record<string, string[]> = {}
    for (const id of [...open].sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1]))) {
      const [key, start] = id.split('@')
      const p = Object.keys(crossJava).find((x) => x.endsWith(`/${key}`)) ?? `?/${key}`
      const { count, timestamp } = expected.get(id)!
      ;(wantOpen[p] ??= []).push(`${start}=${count}@${timestamp}`)
    }
    expect(crossJava).toEqual(wantOpen)
    expect(await written('sup-cross-wafka')).toEqual(crossJava)
  }, 300_000)

  it("sliding count through suppress(untilWindowCloses): the same records as Java's, each closed window once; the same buffer changelog, byte for byte", async () => {
    // Difference 2 s, grace 1 s, Java's cache off. Per partition: records within the difference
    // (left and right windows), one out of order within the grace, one past it, and a record far
    // later closing all but the last windows.
    const [difference, grace] = [2_000, 1_000]
    const pattern: Array<[string, number]> = [
      ['a', 0],
      ['a', 1_500],
      ['b', 1_000],
      ['a', 3_000],
      ['a', 2_500],
      ['a', 7_000],
      ['b', 8_000],
      ['a', 4_000],
      ['a', 30_000],
    ]
    const records = [0, 1, 2].flatMap((p) =>
      pattern.map(([k, at]) => ({ key: `${k}${p}`, value: `${k}${at}`, timestamp: T0 + at + 100 * p, partition: p })),
    )
    const [input, javaOut, wafkaOut] = ['supsl-events', 'supsl-java-out', 'supsl-wafka-out']
    await createTopics(on.kafka, [input, javaOut, wafkaOut], 3)
    await produceStrings(on.kafka, input, records)
    await runJavaToEnd(on.cluster, 'sliding-count', {
      applicationId: 'supsl-java',
      inputs: [input],
      output: javaOut,
      count: records.length,
      windowMs: difference,
      graceMs: grace,
      suppress: true,
      props: { 'statestore.cache.max.bytes': 0 },
    })
    const keySerde = WindowedSerdes.timeWindowedSerdeFrom(str, difference)
    const written = (topic: string) => windowedCounts(on.kafka, topic, keySerde, T0)
    const javaWritten = await written(javaOut)
    const all = Object.values(javaWritten).flat()
    // Each window once (none emitted twice), none a tombstone.
    expect(all.length).toBeGreaterThan(6)
    for (const list of Object.values(javaWritten)) expect(new Set(list.map((x) => x.split('=')[0])).size).toBe(list.length)
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(difference, grace))
          .count({ storeName: 'sliding-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to(wafkaOut, { valueSerde: Serdes.Long() }),
      'supsl-wafka',
      wafkaOut,
      (t) => Object.keys(t).length === all.length,
      { statestoreCacheMaxBytes: 0 },
    )
    await consumedAll(on.kafka, 'supsl-wafka', [input])
    expect(await written(wafkaOut)).toEqual(javaWritten)
    const [javaLog, wafkaLog] = await Promise.all(
      ['supsl-java', 'supsl-wafka'].map((app) => rawTable(on.kafka, `${app}-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog`)),
    )
    expect(Object.keys(javaLog).length).toBeGreaterThan(0)
    expect(wafkaLog).toEqual(javaLog)
  }, 300_000)

  it("session count through suppress(untilWindowCloses): the same records as Java's (merged-away sessions never emitted), the same buffer changelog, byte for byte", async () => {
    // Gap 3 s, grace 2 s, Java's cache off. Per partition: sessions growing, merged by a bridging
    // record, a late record within the grace merging, one beyond it dropped, and a record far later
    // closing all but the last sessions.
    const [gap, grace] = [3_000, 2_000]
    const pattern: Array<[string, number]> = [
      ['s', 0],
      ['t', 500],
      ['s', 1_000],
      ['s', 6_000],
      ['s', 3_500],
      ['t', 7_000],
      ['s', 10_000],
      ['s', 12_000],
      ['s', 9_000],
      ['t', 8_000],
      ['s', 20_000],
      ['s', 4_000],
      ['t', 15_000],
      ['s', 30_000],
      ['s', 31_000],
      ['t', 60_000],
    ]
    const records = [0, 1, 2].flatMap((p) =>
      pattern.map(([k, at]) => ({ key: `${k}${p}`, value: `${k}${at}`, timestamp: T0 + at + 100 * p, partition: p })),
    )
    const [input, javaOut, wafkaOut] = ['sups-events', 'sups-java-out', 'sups-wafka-out']
    await createTopics(on.kafka, [input, javaOut, wafkaOut, `${wafkaOut}-cached`], 3)
    await produceStrings(on.kafka, input, records)
    await runJavaToEnd(on.cluster, 'session-count', {
      applicationId: 'sups-java',
      inputs: [input],
      output: javaOut,
      count: records.length,
      gapMs: gap,
      graceMs: grace,
      suppress: true,
      props: { 'statestore.cache.max.bytes': 0 },
    })
    const keySerde = WindowedSerdes.sessionWindowedSerdeFrom(str)
    const written = (topic: string) => windowedCounts(on.kafka, topic, keySerde, T0, true)
    const javaWritten = await written(javaOut)
    const all = Object.values(javaWritten).flat()
    // Each session once, no tombstone: [0, 1 s] closes at stream time 6 s (end <= 6 s - gap - grace)
    // and has left the store (retention gap + grace) when 3.5 s comes, which merges with [6 s]
    // only; 9 s merges into [10 s, 12 s] (the sessions merged away, buffered as deletions, never
    // emitted); 4 s is dropped; [60 s] stays open.
    expect(all.length).toBe(new Set(all.map((x) => x.split('=')[0] + x.split('/')[0])).size)
    expect(all.every((x) => !x.includes('=null'))).toBe(true)
    expect(Object.entries(javaWritten).find(([k]) => k.endsWith('/s0'))![1]).toEqual([
      '0-1000=2@1000',
      '3500-6000=2@6000',
      '9000-12000=3@12000',
      '20000-20000=1@20000',
      '30000-31000=2@31000',
    ])
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(SessionWindows.ofInactivityGapAndGrace(gap, grace))
          .count({ storeName: 'session-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to(wafkaOut, { valueSerde: Serdes.Long() }),
      'sups-wafka',
      wafkaOut,
      (t) => Object.keys(t).length === all.length,
      { statestoreCacheMaxBytes: 0 },
    )
    await consumedAll(on.kafka, 'sups-wafka', [input])
    expect(await written(wafkaOut)).toEqual(javaWritten)

    // With the record cache on (the default; commits 1 s apart, so updates fold), the same final results.
    await runWafkaUntil(
      on.cluster,
      on.kafka,
      (b) =>
        b
          .stream<string, string>(input, { keySerde: str, valueSerde: str })
          .groupByKey()
          .windowedBy(SessionWindows.ofInactivityGapAndGrace(gap, grace))
          .count({ storeName: 'session-counts' })
          .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
          .toStream()
          .to(`${wafkaOut}-cached`, { valueSerde: Serdes.Long() }),
      'sups-wafka-cached',
      `${wafkaOut}-cached`,
      (t) => Object.keys(t).length === all.length,
      { commitIntervalMs: 1_000 },
    )
    await consumedAll(on.kafka, 'sups-wafka-cached', [input])
    expect(await written(`${wafkaOut}-cached`)).toEqual(javaWritten)
    const [javaLog, wafkaLog] = await Promise.all(
      ['sups-java', 'sups-wafka'].map((app) => rawTable(on.kafka, `${app}-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog`)),
    )
    expect(Object.keys(javaLog).length).toBeGreaterThan(0)
    expect(wafkaLog).toEqual(javaLog)
  }, 300_000)
})

/**
 * A windowed count topic per output partition and key, in the order written:
 * `<start>=<count>@<timestamp>` (`<start>-<end>=...` with `withEnd`), times
 * relative to `t0`, a tombstone's count null.
 */
async function windowedCounts(
  kafka: Kafka,
  topic: string,
  keySerde: Serde<Windowed<string>>,
  t0: number,
  withEnd = false,
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const [p, list] of (await partitionRecords(kafka, topic, t0)).entries())
    for (const r of list) {
      const [kv, at] = r.split('@')
      const [k, v] = kv.split(':')
      const w = keySerde.deserialize('', Buffer.from(k, 'hex'))!
      const count = v === '-' ? null : Serdes.Long().deserialize('', Buffer.from(v, 'hex'))
      const window = withEnd ? `${w.window.start - t0}-${w.window.end - t0}` : `${w.window.start - t0}`
      ;(out[`${p}/${w.key}`] ??= []).push(`${window}=${count}@${at}`)
    }
  return out
}

const decode = (t: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(t).map(([k, v]) => [str.deserialize('', Buffer.from(k, 'hex')), Serdes.Long().deserialize('', Buffer.from(v, 'hex'))]),
  )

function sameCounts(a: Record<string, bigint | null>, b: Record<string, bigint>): boolean {
  return Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v)
}

function sameTable(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v)
}
