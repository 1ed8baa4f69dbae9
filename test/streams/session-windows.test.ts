// Session windows, held to Java Kafka Streams 4.4 (the rig's RigStreams
// session-count and session-aggregate, KStreamSessionWindowAggregate the
// reference): SessionWindows' checks, the in-memory session store's
// changelog keys (SessionKeySchema: key, end, start) and restore, the
// topologies' describe() as Java's, and the same input on both (Java with its
// record cache off, so every change is forwarded as our session stores, which
// do not cache, forward them) giving the same
// output records, byte for byte, with the same timestamps, in order per key
// in each partition (a windowed key partitioned by its inner key, as Java's
// WindowedStreamPartitioner does), and the same store changelogs, on real
// Kafka 4.4 and on the embedded broker with the same assertions. The input:
// sessions that grow, merge when a bridging record comes (the merged-away
// ones deleted by tombstones), a late record within the grace that merges,
// late ones beyond it dropped, a record on a one-point session, a null key,
// three keys over two partitions; and the count again with ours restarted
// midway, its session store restored from the changelog.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/index.js'
import { KafkaStreams, Serdes, SessionWindows, StreamsBuilder, WindowedSerdes } from '../../src/public/streams.js'
import { InMemorySessionStore } from '../../src/streams/session-store.js'
import { javaStreamsDescribe, type JavaStreamsAppName } from '../peers/java-streams.js'
import { brokerTargets } from '../peers/targets.js'
import { consumedAll, partitionRecords, runJavaToEnd, describeOnTargets } from './support.js'

const str = Serdes.String()
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const GAP = 5_000
const GRACE = 10_000

describe('SessionWindows', () => {
  it('refuses a gap or grace Java refuses', () => {
    expect(() => SessionWindows.ofInactivityGapWithNoGrace(0)).toThrow(ConfigError)
    expect(() => SessionWindows.ofInactivityGapAndGrace(10, -1)).toThrow(/grace/)
    expect(() => SessionWindows.ofInactivityGapAndGrace(1.5, 0)).toThrow(/inactivity gap/)
    const w = SessionWindows.ofInactivityGapAndGrace(10, 5)
    expect([w.inactivityGapMs, w.graceMs]).toEqual([10, 5])
    expect(SessionWindows.ofInactivityGapWithNoGrace(10).graceMs).toBe(0)
    expect(() =>
      new StreamsBuilder()
        .stream('x')
        .groupByKey()
        .windowedBy({} as any),
    ).toThrow(TypeError)
  })
})

describe('InMemorySessionStore', () => {
  it("logs Java's session store keys (key, end, start); finds a key's sessions by end; restored from the log it holds the same; expired sessions go", () => {
    const log: Array<[Buffer, Buffer | null, number]> = []
    const store = new InMemorySessionStore('s', str, Serdes.Long(), 100, 'app-s-changelog', (k, v, t) => log.push([k, v, t]))
    store.put('a', { start: 0, end: 10 }, 2n, 10)
    store.put('b', { start: 5, end: 5 }, 1n, 5)
    store.put('a', { start: 30, end: 40 }, 3n, 40)
    store.put('ab', { start: 20, end: 20 }, 1n, 20)
    const be = (n: number) => {
      const b = Buffer.alloc(8)
      b.writeBigInt64BE(BigInt(n))
      return b
    }
    expect(log[0][0]).toEqual(Buffer.concat([Buffer.from('a'), be(10), be(0)]))
    expect(log[0][0]).toEqual(WindowedSerdes.sessionWindowedSerdeFrom(str).serialize('', { key: 'a', window: { start: 0, end: 10 } }))
    expect(log.map(([, v, t]) => [Serdes.Long().deserialize('', v), t])).toEqual([
      [2n, 10],
      [1n, 5],
      [3n, 40],
      [1n, 20],
    ])
    expect(store.findSessions('a', 0, 100)).toEqual([
      { window: { start: 0, end: 10 }, value: 2n },
      { window: { start: 30, end: 40 }, value: 3n },
    ])
    // Ending at or after 11 and starting at or before 30: only [30, 40].
    expect(store.findSessions('a', 11, 30)).toEqual([{ window: { start: 30, end: 40 }, value: 3n }])
    store.remove('a', { start: 0, end: 10 }, 41)
    expect(log.at(-1)).toEqual([Buffer.concat([Buffer.from('a'), be(10), be(0)]), null, 41])
    const restored = new InMemorySessionStore('s', str, Serdes.Long(), 100, 'app-s-changelog', () => {})
    for (const [k, v, t] of log) restored.restore(k, v, t)
    expect(restored.all()).toEqual(store.all())
    expect(restored.all().map((s) => `${s.key}@${s.window.start}-${s.window.end}=${s.value}`)).toEqual([
      'b@5-5=1',
      'ab@20-20=1',
      'a@30-40=3',
    ])
    // A session ending at 120 moves stream time to 120: sessions ending at or before 20 are gone, and none is put back.
    store.put('c', { start: 120, end: 120 }, 1n, 120)
    expect(store.all().map((s) => s.key)).toEqual(['a', 'c'])
    store.put('b', { start: 6, end: 6 }, 9n, 121)
    expect(store.findSessions('b', 0, 200)).toEqual([])
    expect(log.length).toBe(7)
  })
})

function countTopology(input: string, output: string): StreamsBuilder {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GRACE))
    .count({ storeName: 'session-counts' })
    .toStream()
    .to(output, { keySerde: WindowedSerdes.sessionWindowedSerdeFrom(str), valueSerde: Serdes.Long() })
  return b
}

/** RigStreams' session-aggregate: aggregate with a merger, and reduce, over the same sessions. */
function aggregateTopology(input: string, output: string): StreamsBuilder {
  const b = new StreamsBuilder()
  const sessions = b
    .stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GRACE))
  const keys = WindowedSerdes.sessionWindowedSerdeFrom(str)
  sessions
    .aggregate(
      () => '',
      (_k, v, agg) => `${agg}+${v}`,
      (_k, a1, a2) => `${a1}|${a2}`,
      { storeName: 'session-aggs', valueSerde: str },
    )
    .toStream()
    .to(output, { keySerde: keys, valueSerde: str })
  sessions
    .reduce((a, v) => `${a}/${v}`, { storeName: 'session-reduced', valueSerde: str })
    .toStream()
    .to(`${output}-reduced`, { keySerde: keys, valueSerde: str })
  return b
}

const available = brokerTargets()[0].available

describe.skipIf(!available)("session windows' topology", () => {
  it("describe() prints as Java's: KSTREAM-AGGREGATE / KSTREAM-REDUCE connected to the session stores", async () => {
    for (const [app, build] of [
      ['session-count', countTopology],
      ['session-aggregate', aggregateTopology],
    ] as const) {
      const ours = build('events', 'out').build().describe().toString()
      expect(ours).toBe(
        await javaStreamsDescribe(app, { applicationId: 'd', inputs: ['events'], output: 'out', gapMs: GAP, graceMs: GRACE }),
      )
    }
    expect(aggregateTopology('events', 'out').build().describe().toString()).toContain(
      'KSTREAM-REDUCE-0000000004 (stores: [session-reduced])',
    )
  }, 120_000)
})

/** One input record: partition, key, value, timestamp (from T0). Gap 5 s, grace 10 s: a session closes 15 s after its end. */
type Step = [number, string | null, string, number]

const STEPS: Step[] = [
  [0, 'a', 'a1', 1_000],
  [0, 'd', 'd1', 2_000],
  [0, 'a', 'a2', 3_000], // grows a's session: [1000, 3000]
  [0, 'd', 'd2', 9_000], // d's second session
  [0, 'a', 'a3', 11_000], // a's second session
  [0, 'd', 'd3', 5_500], // bridges d's two sessions: [2000, 9000]
  [0, 'a', 'a4', 7_000], // bridges a's: [1000, 11000]
  [0, 'a', 'a5', 24_000], // stream time 24 s
  [0, 'a', 'a6', 14_000], // late, within the grace: merges into [1000, 14000]
  [0, 'a', 'a7', 60_000], // stream time 60 s: sessions ending before 45 s are closed
  [0, 'a', 'a8', 42_000], // late beyond the grace: dropped
  [0, 'a', 'a9', 62_000], // grows [60000, 62000]
  [0, null, 'n1', 62_500], // null key: skipped
  [1, 'b', 'b1', 1_000],
  [1, 'b', 'b2', 8_000],
  [1, 'b', 'b3', 4_000], // bridges: [1000, 8000]
  [1, 'b', 'b4', 30_000], // stream time 30 s
  [1, 'b', 'b5', 12_000], // late beyond the grace: dropped
  [1, 'b', 'b6', 27_000], // late within the grace: [27000, 30000]
  [1, 'b', 'b7', 30_000], // on the session's end: removed and put again under the same key
  [1, 'b', 'b8', 50_000],
  [1, 'b', 'b9', 50_000], // on a one-point session [50000, 50000]: put again, nothing removed
]

const windowedKeys = WindowedSerdes.sessionWindowedSerdeFrom(str)
/** Records as `key@start-end=value@timestamp`, windows and timestamps less T0. */
const readable = (parts: string[][], value: (b: Buffer) => unknown) =>
  parts.map((list) =>
    list.map((x) => {
      const [kv, at] = x.split('@')
      const [k, v] = kv.split(':')
      const w = windowedKeys.deserialize('', Buffer.from(k, 'hex'))!
      return `${w.key}@${w.window.start - T0}-${w.window.end - T0}=${v === '-' ? null : value(Buffer.from(v, 'hex'))}@${at}`
    }),
  )
/** A partition's records by inner key, each key's in order (two tasks write one partition, in an order of their own). */
const byKey = (list: string[]) => {
  const out: Record<string, string[]> = {}
  for (const x of list) {
    const k = /^[0-9a-f]+:/.test(x) ? windowedKeys.deserialize('', Buffer.from(x.split(':')[0], 'hex'))!.key! : x.split('@')[0]
    ;(out[k] ??= []).push(x)
  }
  return out
}
/** What a topic ends as (the latest record per key; tombstones delete), with each record's timestamp: what compaction keeps. */
const table = (parts: string[][]) => {
  const t = new Map<string, string>()
  for (const x of parts.flat()) {
    const [kv, at] = x.split('@')
    const [k, v] = kv.split(':')
    if (v === '-') t.delete(k)
    else t.set(k, `${v}@${at}`)
  }
  return Object.fromEntries([...t].sort())
}
const finalValues = (parts: string[][], value: (b: Buffer) => unknown) => {
  const t: Record<string, unknown> = {}
  for (const x of readable(parts, value).flat()) {
    const [kw, v] = x.split('=')
    if (v.startsWith('null@')) delete t[kw]
    else t[kw] = v.split('@')[0]
  }
  return t
}

// Against the built package (test/vitest.config.ts builtSlice), the embedded broker's run only.
describeOnTargets(
  brokerTargets(),
  'session windows against Java Kafka Streams',
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
      // With a restart, ours reads the input in two parts, a new instance (its stores restored from their changelogs)
      // the second; Java reads it all at once.
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
              timestamp: T0 + ms,
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
        gapMs: GAP,
        graceMs: GRACE,
        count: STEPS.length,
        props: { 'statestore.cache.max.bytes': 0 },
      })
      const outputs: string[][][] = []
      for (const s of suffixes) {
        const [theirs, ours] = [await partitionRecords(on.kafka, javaOut + s, T0), await partitionRecords(on.kafka, wafkaOut + s, T0)]
        expect(theirs.flat().length).toBeGreaterThan(0)
        const hex = (b: Buffer) => b.toString('hex')
        expect(readable(ours, hex).map(byKey), s).toEqual(readable(theirs, hex).map(byKey))
        expect(ours.map(byKey), s).toEqual(theirs.map(byKey))
        // a and b go to output partition 0, d to 1 (murmur2 of the inner key); a full windowed key would spread them.
        expect(theirs.map((p) => Object.keys(byKey(p)).sort())).toEqual([['a', 'b'], ['d']])
        outputs.push(theirs)
      }
      // The stores' changelogs, named as Java names them: the same final tables, timestamps included.
      const stores = [...topology.stores.keys()]
      expect(stores.length).toBe(suffixes.length)
      for (const store of stores) {
        const [theirs, ours] = [
          await partitionRecords(on.kafka, `${javaOut}-${store}-changelog`, T0),
          await partitionRecords(on.kafka, `${wafkaOut}-${store}-changelog`, T0),
        ]
        expect(Object.keys(table(theirs)).length, store).toBeGreaterThan(0)
        expect(table(ours), store).toEqual(table(theirs))
      }
      return outputs
    }

    it('count: the same output records in order per key and partition (tombstones for merged sessions) and the same changelog, byte for byte', async () => {
      const [out] = await compare('swc', 'session-count', countTopology, [''])
      const long = (b: Buffer) => Serdes.Long().deserialize('', b)
      // What Kafka Streams' semantics give (the comparison above is the byte-for-byte one).
      expect(finalValues(out, long)).toEqual({
        'a@1000-14000': '5',
        'a@24000-24000': '1',
        'a@60000-62000': '2',
        'b@1000-8000': '3',
        'b@27000-30000': '3',
        'b@50000-50000': '2',
        'd@2000-9000': '3',
      })
      const flat = readable(out, long).flat()
      // Every window of a key in one partition (its inner key's).
      for (const key of ['a', 'b', 'd'])
        expect(readable(out, long).filter((p) => p.some((x) => x.startsWith(`${key}@`))).length, key).toBe(1)
      // a4 bridges [1000, 3000] and [11000, 11000]: both deleted (at their ends), then the merged session.
      const a = flat.filter((x) => x.startsWith('a@'))
      expect(a.slice(4, 7)).toEqual(['a@1000-3000=null@3000', 'a@11000-11000=null@11000', 'a@1000-11000=4@11000'])
      expect(a).toContain('a@1000-14000=5@14000')
      expect(flat.some((x) => x.startsWith('a@42000') || x.startsWith('b@12000'))).toBe(false)
      const b = flat.filter((x) => x.startsWith('b@'))
      expect(b.slice(-4)).toEqual(['b@27000-30000=null@30000', 'b@27000-30000=3@30000', 'b@50000-50000=1@50000', 'b@50000-50000=2@50000'])
    }, 300_000)

    it('count, ours restarted midway: the store restored from its changelog, a late record merges into a restored session as in one run', async () => {
      // Restarted before a5: a6 (late, within the grace) merges into [1000, 11000], which only the restored store holds.
      const [out] = await compare('swr', 'session-count', countTopology, [''], 7)
      const flat = readable(out, (b) => Serdes.Long().deserialize('', b)).flat()
      expect(flat).toEqual(expect.arrayContaining(['a@1000-11000=null@11000', 'a@1000-14000=5@14000']))
    }, 300_000)

    it('aggregate with a merger, and reduce: the same output records in order per key and partition and the same changelogs, byte for byte', async () => {
      const [aggs, reduced] = await compare('swa', 'session-aggregate', aggregateTopology, ['', '-reduced'])
      const text = (b: Buffer) => b.toString()
      // The merger takes the sessions by end, into the initializer's aggregate; the new value comes last.
      expect(finalValues(aggs, text)).toMatchObject({
        'a@1000-14000': '|||+a1+a2|+a3+a4+a6',
        'd@2000-9000': '|+d1|+d2+d3',
        'b@50000-50000': '|+b8+b9',
      })
      expect(finalValues(reduced, text)).toMatchObject({
        'a@1000-14000': 'a1/a2/a3/a4/a6',
        'd@2000-9000': 'd1/d2/d3',
        'b@27000-30000': 'b4/b6/b7',
      })
    }, 300_000)
  },
  { builtOnEmbedded: true },
)
