// Sliding windows, held to Java Kafka Streams 4.4 (the rig's RigStreams
// sliding-count and sliding-aggregate, KStreamSlidingWindowAggregate the
// reference): SlidingWindows' checks, the window store's fetch of a key's
// windows with their timestamps, the topologies' describe() as Java's, and
// the same input on both (Java with its record cache off, so every update is
// forwarded as our window stores, which do not cache, forward them) giving the same output records, byte for byte, with
// the same timestamps, in order per key in each partition, and the same
// store changelogs, on real Kafka 4.4 and on the embedded broker with the
// same assertions. The input (time difference 1 s, grace 0.5 s): records
// within the difference of one another, one exactly the difference + 1 ms
// after the one before (the earlier record's right window just reaching it),
// out-of-order ones within the grace, one beyond it (dropped), two at one
// timestamp, a null key and a null value (skipped); and on a second
// partition "early" records (timestamps below the difference, sharing the
// window [0, 1 s]), out of order, one on the difference itself, a late one
// within the grace and one beyond it; and the count again with ours
// restarted midway, its window store restored from the changelog.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/index.js'
import { KafkaStreams, Serdes, SlidingWindows, StreamsBuilder, WindowedSerdes } from '../../src/public/streams.js'
import { InMemoryWindowStore } from '../../src/streams/window-store.js'
import { javaStreamsDescribe, type JavaStreamsAppName } from '../peers/java-streams.js'
import { brokerTargets } from '../peers/targets.js'
import { consumedAll, NO_TIME_RETENTION, partitionRecords, runJavaToEnd, describeOnTargets } from './support.js'

const str = Serdes.String()
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const DIFFERENCE = 1_000
const GRACE = 500

describe('SlidingWindows', () => {
  it('refuses a time difference or grace Java refuses (and a difference of 0, which Java fails on at the first record)', () => {
    expect(() => SlidingWindows.ofTimeDifferenceWithNoGrace(0)).toThrow(ConfigError)
    expect(() => SlidingWindows.ofTimeDifferenceAndGrace(10, -1)).toThrow(/grace/)
    expect(() => SlidingWindows.ofTimeDifferenceAndGrace(1.5, 0)).toThrow(/time difference/)
    const w = SlidingWindows.ofTimeDifferenceAndGrace(10, 5)
    expect([w.timeDifferenceMs, w.graceMs]).toEqual([10, 5])
    expect(SlidingWindows.ofTimeDifferenceWithNoGrace(10).graceMs).toBe(0)
    const grouped = new StreamsBuilder().stream('x').groupByKey()
    expect(grouped.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10)).constructor.name).toMatch(/SlidingWindowedKStream/)
    expect(() => grouped.windowedBy({} as any)).toThrow(/SlidingWindows/)
  })
})

describe('InMemoryWindowStore.fetchWindows', () => {
  it("gives a key's windows starting in [from, to] by start, each with its record timestamp; nothing past retention", () => {
    const store = new InMemoryWindowStore('w', str, Serdes.Long(), 100, 'app-w-changelog', () => {})
    store.put('a', 1n, 10, 15)
    store.put('a', 2n, 30, 31)
    store.put('ab', 5n, 20, 20)
    store.put('a', 3n, 20, 29)
    expect(store.fetchWindows('a', 0, 30)).toEqual([
      { windowStart: 10, value: 1n, timestamp: 15 },
      { windowStart: 20, value: 3n, timestamp: 29 },
      { windowStart: 30, value: 2n, timestamp: 31 },
    ])
    expect(store.fetchWindows('a', 11, 29)).toEqual([{ windowStart: 20, value: 3n, timestamp: 29 }])
    // Stream time 115 (the latest start put): retention 100 keeps starts from 16 on.
    store.put('b', 1n, 115, 115)
    expect(store.fetchWindows('a', 0, 200).map((w) => w.windowStart)).toEqual([20, 30])
  })
})

const windowedKeys = WindowedSerdes.timeWindowedSerdeFrom(str, DIFFERENCE)

function countTopology(input: string, output: string): StreamsBuilder {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(DIFFERENCE, GRACE))
    .count({ storeName: 'sliding-counts' })
    .toStream()
    .to(output, { keySerde: windowedKeys, valueSerde: Serdes.Long() })
  return b
}

/** RigStreams' sliding-aggregate: aggregate and reduce over the same windows. */
function aggregateTopology(input: string, output: string): StreamsBuilder {
  const b = new StreamsBuilder()
  const windowed = b
    .stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(DIFFERENCE, GRACE))
  windowed
    .aggregate(
      () => '',
      (_k, v, agg) => `${agg}+${v}`,
      { storeName: 'sliding-aggs', valueSerde: str },
    )
    .toStream()
    .to(output, { keySerde: windowedKeys, valueSerde: str })
  windowed
    .reduce((a, v) => `${a}/${v}`, { storeName: 'sliding-reduced', valueSerde: str })
    .toStream()
    .to(`${output}-reduced`, { keySerde: windowedKeys, valueSerde: str })
  return b
}

// Java's describe() needs the Java rig: skipped only where it cannot run, outside CI (requireKafka throws under CI).
const available = brokerTargets()[0].available

describe.skipIf(!available)("sliding windows' topology", () => {
  it("describe() prints as Java's: KSTREAM-AGGREGATE / KSTREAM-REDUCE connected to the window stores", async () => {
    for (const [app, build] of [
      ['sliding-count', countTopology],
      ['sliding-aggregate', aggregateTopology],
    ] as const) {
      const ours = build('events', 'out').build().describe().toString()
      expect(ours).toBe(
        await javaStreamsDescribe(app, { applicationId: 'd', inputs: ['events'], output: 'out', windowMs: DIFFERENCE, graceMs: GRACE }),
      )
    }
    expect(aggregateTopology('events', 'out').build().describe().toString()).toContain(
      'KSTREAM-REDUCE-0000000004 (stores: [sliding-reduced])',
    )
    // Without a store name: Java's sliding count(Materialized) spends no extra index (its time windows' one does).
    const unnamed = new StreamsBuilder()
    unnamed
      .stream<string, string>('events')
      .groupByKey()
      .windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(DIFFERENCE))
      .count({ valueSerde: Serdes.Long() })
    expect(unnamed.build().describe().toString()).toContain(
      'KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])',
    )
  }, 120_000)
})

/** One input record: partition, key, value, timestamp (partition 0: from T0; partition 1: from 0, early records). */
type Step = [number, string | null, string | null, number]

const STEPS: Step[] = [
  [0, 'a', 'a1', 5_000],
  [0, 'b', 'b1', 5_200],
  [0, 'a', 'a2', 5_500], // left window [4500, 5500] from a1's; a1's right window [5001, 6001]
  [0, 'b', 'b2', 5_300],
  [0, 'a', 'a3', 6_501], // a2's right window [5501, 6501] just reaches it
  [0, 'a', 'a4', 6_000], // out of order, within the grace: into the windows holding it, but its own left window [5000, 6000] has closed
  [0, 'a', 'a5', 7_000],
  [0, 'a', 'a6', 5_400], // its window [5400, 6400] closed (stream time 7000 - grace 500): dropped
  [0, 'a', 'a7', 6_600], // out of order: some windows holding it closed, others not
  [0, 'a', 'a8', 7_000], // on a5's timestamp: its windows exist, updated
  [0, 'a', 'a9', 9_000], // more than the difference after a8: a fresh left window, no right window for a8
  [0, 'a', null, 9_100], // null value: skipped
  [0, null, 'n1', 9_200], // null key: skipped
  [1, 'e', 'e1', 100], // early: [0, 1000]
  [1, 'e', 'e2', 600],
  [1, 'e', 'e3', 300], // early, out of order
  [1, 'e', 'e4', 999],
  [1, 'e', 'e5', 1_000], // on the difference: no longer early; its left window is [0, 1000]
  [1, 'e', 'e6', 1_500],
  [1, 'e', 'e7', 200], // early and late, within the grace: [0, 1000] still open
  [1, 'e', 'e8', 2_600],
  [1, 'e', 'e9', 50], // early, beyond the grace: dropped
]

const at = (partition: number, ms: number) => (partition === 0 ? T0 + ms : ms)
const rel = (ms: number) => (ms >= T0 ? ms - T0 : ms)

/** Records as `key@start-end=value@timestamp`, T0 taken off partition 0's times. */
const readable = (parts: string[][], value: (b: Buffer) => unknown) =>
  parts.map((list) =>
    list.map((x) => {
      const [kv, ts] = x.split('@')
      const [k, v] = kv.split(':')
      const w = windowedKeys.deserialize('', Buffer.from(k, 'hex'))!
      return `${w.key}@${rel(w.window.start)}-${rel(w.window.end)}=${v === '-' ? null : value(Buffer.from(v, 'hex'))}@${rel(Number(ts))}`
    }),
  )
/** A partition's records by inner key, each key's in order (two tasks write one partition, in an order of their own). */
const byKey = (list: string[]) => {
  const out: Record<string, string[]> = {}
  for (const x of list) {
    const k = /^[0-9a-f]+:/.test(x) ? x.split(':')[0].slice(0, -16) : x.split('@')[0]
    ;(out[k] ??= []).push(x)
  }
  return out
}
/** What a topic ends as (the latest record per key), with each record's timestamp: what compaction keeps. */
const table = (parts: string[][]) => {
  const t = new Map<string, string>()
  for (const x of parts.flat()) {
    const [kv, ts] = x.split('@')
    const [k, v] = kv.split(':')
    if (v === '-') t.delete(k)
    else t.set(k, `${v}@${ts}`)
  }
  return Object.fromEntries([...t].sort())
}
const finalValues = (parts: string[][], value: (b: Buffer) => unknown) => {
  const t: Record<string, unknown> = {}
  for (const x of readable(parts, value).flat()) {
    const [kw, v] = x.split('=')
    t[kw] = v.split('@')[0]
  }
  return t
}

// Partition 1's records carry timestamps near 0 (1970): nothing is deleted by time during the run.
// Skipped only where Kafka cannot run, outside CI (requireKafka throws under CI); and, against the
// built package, on real Kafka: the built runs hold dist/ to Java on the embedded broker, the src run
// covers Kafka (the same code, one Kafka cluster less per built format).
describeOnTargets(
  brokerTargets(NO_TIME_RETENTION),
  'sliding windows against Java Kafka Streams',
  (on) => {
    /**
     * Runs RigStreams' `app` and our `build` on the same input (ours restarted before STEPS[restartAt] if given);
     * checks the outputs (`suffixes` of each side's output topic) record by record and the stores' changelogs as
     * tables; returns Java's outputs.
     */
    async function compare(
      tag: string,
      app: JavaStreamsAppName,
      build: (input: string, output: string) => StreamsBuilder,
      suffixes: string[],
      restartAt?: number,
    ): Promise<string[][][]> {
      const [input, javaOut, wafkaOut] = ['in', 'java', 'wafka'].map((x) => `${tag}-${x}`)
      const admin = on.kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: [input, ...suffixes.flatMap((s) => [javaOut + s, wafkaOut + s])].map((topic) => ({ topic, numPartitions: 2 })),
        })
      } finally {
        await admin.disconnect()
      }
      const parts = restartAt === undefined ? [STEPS] : [STEPS.slice(0, restartAt), STEPS.slice(restartAt)]
      const topology = build(input, wafkaOut).build()
      for (const part of parts) {
        const producer = on.kafka.producer()
        await producer.connect()
        try {
          await producer.send({
            topic: input,
            messages: part.map(([partition, key, value, ms]) => ({
              key: str.serialize(input, key),
              value: str.serialize(input, value),
              timestamp: at(partition, ms),
              partition,
            })),
          })
        } finally {
          await producer.disconnect()
        }
        const streams = new KafkaStreams(build(input, wafkaOut).build(), {
          applicationId: wafkaOut,
          brokers: on.cluster.bootstrap,
          commitIntervalMs: 100,
          // Every update compared: the record cache off on both sides.
          statestoreCacheMaxBytes: 0,
        })
        try {
          await streams.start()
          await consumedAll(on.kafka, wafkaOut, [input], 90_000)
        } finally {
          await streams.close()
        }
      }
      await runJavaToEnd(on.cluster, app, {
        applicationId: javaOut,
        inputs: [input],
        output: javaOut,
        windowMs: DIFFERENCE,
        graceMs: GRACE,
        count: STEPS.length,
        props: { 'statestore.cache.max.bytes': 0 },
      })
      const outputs: string[][][] = []
      for (const s of suffixes) {
        const [theirs, ours] = [await partitionRecords(on.kafka, javaOut + s, 0), await partitionRecords(on.kafka, wafkaOut + s, 0)]
        expect(theirs.flat().length).toBeGreaterThan(0)
        const hex = (b: Buffer) => b.toString('hex')
        expect(readable(ours, hex).map(byKey), s).toEqual(readable(theirs, hex).map(byKey))
        expect(ours.map(byKey), s).toEqual(theirs.map(byKey))
        outputs.push(theirs)
      }
      // The stores' changelogs, named as Java names them: the same final tables, timestamps included.
      const stores = [...topology.stores.keys()]
      expect(stores.length).toBe(suffixes.length)
      for (const store of stores) {
        const [theirs, ours] = [
          await partitionRecords(on.kafka, `${javaOut}-${store}-changelog`, 0),
          await partitionRecords(on.kafka, `${wafkaOut}-${store}-changelog`, 0),
        ]
        expect(Object.keys(table(theirs)).length, store).toBeGreaterThan(0)
        expect(table(ours), store).toEqual(table(theirs))
      }
      return outputs
    }

    it('count: the same output records in order per key and partition and the same changelog, byte for byte', async () => {
      const [out] = await compare('slc', 'sliding-count', countTopology, [''])
      const long = (b: Buffer) => Serdes.Long().deserialize('', b)
      const final = finalValues(out, long)
      // What Kafka Streams' semantics give (the comparison above is the byte-for-byte one).
      expect(final).toMatchObject({
        'a@4000-5000': '1', // a1's left window
        'a@4500-5500': '2', // a2's: a1 and a2
        'a@5001-6001': '2', // a1's right window: a2, then a4
        'a@5501-6501': '2', // a2's right window, made by a3 on its end: a3, then a4
        'b@4300-5300': '2', // b2, behind stream time (a2's), in b's windows only
        'e@0-1000': '6', // the early records e1 to e4, e5 on its end, e7 within the grace (not e9)
      })
      expect(final['a@5000-6000']).toBeUndefined() // closed when a4 came (stream time 6501 - grace 500 > 6000)
      expect(Object.keys(final).some((k) => k.startsWith('a@4400-'))).toBe(false) // a6 dropped
      expect(Object.keys(final).some((k) => k.startsWith('a@7001-'))).toBe(false) // no right window for a8: a9 is beyond the difference
    }, 300_000)

    it('count, ours restarted midway: the window store restored from its changelog, the windows go on as in one run', async () => {
      // Restarted before a5 (stream time, not kept across a restart by Java's processor either, starts again at
      // a5, the latest yet): a7 (out of order) goes into windows only the restored store holds; partition 1 all after.
      const [out] = await compare('slr', 'sliding-count', countTopology, [''], 6)
      expect(finalValues(out, (b) => Serdes.Long().deserialize('', b))).toMatchObject({ 'a@6001-7001': '4', 'a@5600-6600': '3' })
    }, 300_000)

    it('aggregate and reduce: the same output records in order per key and partition and the same changelogs, byte for byte', async () => {
      const [aggs, reduced] = await compare('sla', 'sliding-aggregate', aggregateTopology, ['', '-reduced'])
      const text = (b: Buffer) => b.toString()
      expect(finalValues(aggs, text)).toMatchObject({ 'a@4500-5500': '+a1+a2', 'a@5001-6001': '+a2+a4' })
      expect(finalValues(reduced, text)).toMatchObject({ 'a@4500-5500': 'a1/a2', 'a@5001-6001': 'a2/a4' })
    }, 300_000)
  },
  { builtOnEmbedded: true },
)
