// Stream-stream joins within JoinWindows, held to Java Kafka Streams 4.4
// (the rig's RigStreams stream-stream-join, KStreamKStreamJoin the
// reference): the same topology's describe() prints as Java's, and the same
// input, one record at a time (each processed by both before the next is
// written, so both see one order), gives the same output records, byte for
// byte and in order per partition, with the same timestamps, on real Kafka
// 4.4 and on the embedded broker with the same assertions; the join's stores'
// changelogs (both sides' window stores and the left/outer join's shared
// store) are the same records too. The input has records in and out of
// order, late within the grace and late beyond it, null keys and values,
// on two partitions (stream time is each task's). Java's throttle of the
// outer join's emission (1 s of wall clock, an internal config) is set to 0,
// as wafka/streams emits.
import { describe, expect, it } from 'vitest'
import { JoinWindows, KafkaStreams, Serdes, StreamsBuilder, TopologyError } from '../../src/public/streams.js'
import { javaStreamsApp, javaStreamsDescribe } from '../peers/java-streams.js'
import { brokerTargets } from '../peers/targets.js'
import { until, wafkaRead } from '../kafka/support.js'
import { consumedAll, describeOnTargets } from './support.js'

const str = Serdes.String()
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const KINDS = ['inner', 'left', 'outer'] as const
type Kind = (typeof KINDS)[number]

function build(kind: Kind, left: string, right: string, out: string, windows: JoinWindows): StreamsBuilder {
  const b = new StreamsBuilder()
  const l = b.stream<string, string>(left, { keySerde: str, valueSerde: str })
  const r = b.stream<string, string>(right, { keySerde: str, valueSerde: str })
  const joiner = (x: string | null, y: string | null) => `${x}+${y}`
  const joined = { keySerde: str, valueSerde: str, otherValueSerde: str }
  const j =
    kind === 'inner'
      ? l.join(r, joiner, windows, joined)
      : kind === 'left'
        ? l.leftJoin(r, joiner, windows, joined)
        : l.outerJoin(r, joiner, windows, joined)
  j.to(out, { keySerde: str, valueSerde: str })
  return b
}

const available = brokerTargets()[0].available

describe.skipIf(!available)("stream-stream joins' topology", () => {
  it("describe() prints as Java's: KSTREAM-WINDOWED, -JOINTHIS/-OUTERTHIS, -JOINOTHER/-OUTEROTHER and -MERGE, the window stores and the shared store", async () => {
    for (const join of KINDS)
      for (const [beforeMs, afterMs] of [
        [undefined, undefined],
        [2_000, -1_000],
      ]) {
        let windows = JoinWindows.ofTimeDifferenceAndGrace(10_000, 5_000)
        if (beforeMs !== undefined) windows = windows.before(beforeMs)
        if (afterMs !== undefined) windows = windows.after(afterMs)
        const ours = build(join, 'l', 'r', 'out', windows).build().describe().toString()
        expect(ours).toBe(
          await javaStreamsDescribe('stream-stream-join', {
            applicationId: 'd',
            inputs: ['l', 'r'],
            output: 'out',
            join,
            windowMs: 10_000,
            graceMs: 5_000,
            beforeMs,
            afterMs,
          }),
        )
        if (join !== 'inner') expect(ours).toContain('KSTREAM-OUTERSHARED-0000000004-store')
      }
  }, 120_000)
})

describe('stream-stream joins: building', () => {
  it('JoinWindows refuses what Java refuses; join() refuses a missing JoinWindows and unknown StreamJoined options', () => {
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(-1)).toThrow(/time difference/)
    expect(() => JoinWindows.ofTimeDifferenceAndGrace(10, -1)).toThrow(/grace/)
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(10).before(-11)).toThrow(/must not be negative/)
    const w = JoinWindows.ofTimeDifferenceWithNoGrace(10).before(-5)
    expect([w.beforeMs, w.afterMs, w.sizeMs, w.graceMs]).toEqual([-5, 10, 5, 0])
    const b = new StreamsBuilder()
    const l = b.stream<string, string>('l')
    const r = b.stream<string, string>('r')
    expect(() => (l as any).outerJoin(r, (x: string) => x)).toThrow(TypeError)
    expect(() => l.join(r, (x) => x, w, { keySerde: str, storeName: 'x' } as any)).toThrow(/no option storeName/)
    expect(() => l.join(new StreamsBuilder().stream<string, string>('o'), (x) => x, w)).toThrow(TopologyError)
  })

  it('a side whose key changed goes through <node>-repartition first, as Java names it; the join reads that topic', () => {
    const b = new StreamsBuilder()
    const l = b.stream<string, string>('l').selectKey((_k, v) => v)
    const r = b.stream<string, string>('r')
    l.join(r, (x, y) => `${x}+${y}`, JoinWindows.ofTimeDifferenceWithNoGrace(10)).to('out')
    const t = b.build()
    expect([...t.internalTopics]).toEqual(['KSTREAM-KEY-SELECT-0000000001-repartition'])
    const subs = t.subtopologies()
    expect(subs.map((s) => s.sourceTopics)).toEqual([['l'], ['r', 'KSTREAM-KEY-SELECT-0000000001-repartition']])
    expect(t.copartitionGroups).toEqual([['KSTREAM-KEY-SELECT-0000000001-repartition', 'r']])
    expect(subs[1].stores).toEqual(['KSTREAM-JOINTHIS-0000000008-store', 'KSTREAM-JOINOTHER-0000000009-store'])
  })
})

/** One input record: side, partition, key, value, timestamp (from T0). */
type Step = ['l' | 'r', number, string | null, string | null, number]

// Windows of ±10 s with 5 s grace. Partition 0 holds keys a, b, d; partition 1 key c.
const STEPS: Step[] = [
  ['l', 0, 'a', 'a1', 1_000],
  ['r', 0, 'a', 'A1', 3_000], // joins a1
  ['l', 0, 'b', 'b1', 5_000], // no partner: waits (left, outer)
  ['r', 0, 'a', 'A2', 20_000], // no partner; b1's window not closed yet (5 + 10 + 5 = 20 s)
  ['l', 0, 'a', 'a2', 14_000], // out of order within the grace: joins A2
  ['r', 1, 'c', 'C1', 21_000], // the other task: waits (outer)
  ['l', 0, 'a', 'a3', 26_000], // stream time 26 s: b1 emitted with null; joins A2
  ['l', 0, 'd', 'd0', 100], // late beyond the grace: joined with null at once (left, outer)
  ['r', 0, 'd', 'D0', 600], // late: the left store no longer returns d0
  ['r', 0, 'b', 'B1', 4_000], // late, but b1 still within the left store's retention: joins it
  ['l', 0, 'a', 'a4', 40_000], // waits
  ['r', 0, 'b', 'B2', 41_000], // waits (outer); a4's window still open
  ['l', 0, null, 'n1', 41_500], // null key: joined with null at once on an outer side, else skipped
  ['l', 0, 'a', null, 41_600], // null value: skipped
  ['r', 0, 'a', 'A3', 41_700], // joins a4
  ['r', 1, 'c', 'C2', 60_000], // task 1's stream time 60 s: C1 emitted (outer)
  ['l', 1, 'c', 'c-late', 21_500], // late: C1 gone from the right store; joined with null at once
  ['l', 0, 'e', 'e1', 70_000], // stream time 70 s: B2 emitted (outer)
]

// Against the built package (test/vitest.config.ts builtSlice), the embedded broker's run only.
describeOnTargets(
  brokerTargets(),
  'stream-stream joins against Java Kafka Streams',
  (on) => {
    it("a side whose key changed goes through a repartition topic with the other side's partition count, then joins", async () => {
      const admin = on.kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: [
            { topic: 'ssj-rk-l', numPartitions: 3 },
            { topic: 'ssj-rk-r', numPartitions: 2 },
            { topic: 'ssj-rk-out', numPartitions: 1 },
          ],
        })
        const producer = on.kafka.producer()
        await producer.connect()
        const at = (topic: string, key: string, value: string, ms: number) => ({
          key: str.serialize(topic, key),
          value: str.serialize(topic, value),
          timestamp: T0 + ms,
        })
        // Left keyed by order id, its value the user; right keyed by user.
        await producer.send({
          topic: 'ssj-rk-l',
          messages: ['u1', 'u2', 'u3', 'u4'].map((u, i) => at('ssj-rk-l', `o${i}`, u, 1_000 + i)),
        })
        await producer.send({ topic: 'ssj-rk-r', messages: ['u1', 'u2', 'u3'].map((u, i) => at('ssj-rk-r', u, `name-${u}`, 2_000 + i)) })
        await producer.disconnect()
        const b = new StreamsBuilder()
        b.stream<string, string>('ssj-rk-l', { keySerde: str, valueSerde: str })
          .selectKey((_order, user) => user)
          .join(
            b.stream<string, string>('ssj-rk-r', { keySerde: str, valueSerde: str }),
            (u, name) => `${u}:${name}`,
            JoinWindows.ofTimeDifferenceWithNoGrace(60_000),
            {
              keySerde: str,
              valueSerde: str,
              otherValueSerde: str,
            },
          )
          .to('ssj-rk-out', { keySerde: str, valueSerde: str })
        const app = new KafkaStreams(b.build(), { applicationId: 'ssj-rk', brokers: on.cluster.bootstrap, commitIntervalMs: 100 })
        await app.start()
        try {
          await consumedAll(on.kafka, 'ssj-rk', ['ssj-rk-l', 'ssj-rk-r', 'ssj-rk-KSTREAM-KEY-SELECT-0000000001-repartition'])
        } finally {
          await app.close()
        }
        const meta = await admin.fetchTopicMetadata({ topics: ['ssj-rk-KSTREAM-KEY-SELECT-0000000001-repartition'] })
        expect(meta.topics[0].partitions.length).toBe(2)
        const [end] = await admin.fetchTopicOffsets('ssj-rk-out')
        const out = await wafkaRead(on.kafka, 'ssj-rk-out', Number(end.high))
        expect(out.map((x) => `${str.deserialize('', x.key)}=${str.deserialize('', x.value)}`).sort()).toEqual([
          'u1=u1:name-u1',
          'u2=u2:name-u2',
          'u3=u3:name-u3',
        ])
      } finally {
        await admin.disconnect()
      }
    }, 120_000)

    // The last case restarts the wafka/streams application after the 12th record (B2 and a4 waiting in the
    // shared store): its stores come back from their changelogs, and the output goes on as Java's.
    for (const [join, restartAfter] of [...KINDS.map((k) => [k, undefined] as const), ['outer', 11] as const])
      it(`${join} join${restartAfter === undefined ? '' : ', wafka/streams restarted midway (stores restored)'}: the same output records in order per partition${restartAfter === undefined ? ', and the same store changelogs, byte for byte' : ''}`, async () => {
        const tag = restartAfter === undefined ? join : `${join}-restart`
        const [l, r, javaOut, wafkaOut] = ['l', 'r', 'java', 'wafka'].map((x) => `ssj-${tag}-${x}`)
        const admin = on.kafka.admin()
        await admin.connect()
        try {
          await admin.createTopics({
            waitForLeaders: true,
            topics: [l, r, javaOut, wafkaOut].map((topic) => ({ topic, numPartitions: 2 })),
          })
        } finally {
          await admin.disconnect()
        }
        const windows = JoinWindows.ofTimeDifferenceAndGrace(10_000, 5_000)
        const java = javaStreamsApp(on.cluster, 'stream-stream-join', {
          applicationId: javaOut,
          inputs: [l, r],
          output: javaOut,
          join,
          windowMs: 10_000,
          graceMs: 5_000,
          count: STEPS.length,
          props: {
            'group.protocol': 'classic',
            'commit.interval.ms': 100,
            '__emit.interval.ms.kstreams.outer.join.spurious.results.fix__': 0,
          },
        })
        const topology = build(join, l, r, wafkaOut, windows).build()
        const options = { applicationId: wafkaOut, brokers: on.cluster.bootstrap, commitIntervalMs: 100 }
        let app = new KafkaStreams(topology, options)
        const producer = on.kafka.producer()
        try {
          await producer.connect()
          await app.start()
          await java.waitFor((e) => e.event === 'state' && e.to === 'RUNNING', 90_000)
          for (const [i, [side, partition, key, value, ms]] of STEPS.entries()) {
            const topic = side === 'l' ? l : r
            await producer.send({
              topic,
              messages: [{ key: str.serialize(topic, key), value: str.serialize(topic, value), timestamp: T0 + ms, partition }],
            })
            await java.waitFor((e) => e.event === 'progress' && e.records >= i + 1, 60_000)
            await consumedAll(on.kafka, wafkaOut, [l, r])
            if (i === restartAfter) {
              await app.close()
              app = new KafkaStreams(build(join, l, r, wafkaOut, windows).build(), options)
              await app.start()
            }
          }
        } finally {
          await producer.disconnect()
          await app.close()
          expect((await java.stop()).code).toBe(0)
        }
        /** Each partition's records in order: key, value (hex, '-' for null) and timestamp; read to the end offsets (a compacted topic has gaps). */
        const records = async (topic: string) => {
          const a = on.kafka.admin()
          await a.connect()
          const ends = await a.fetchTopicOffsets(topic).finally(() => a.disconnect())
          const out: string[][] = ends.map(() => [])
          const pending = new Set(ends.filter((e) => Number(e.high) > 0).map((e) => e.partition))
          if (pending.size === 0) return out
          const consumer = on.kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 200 })
          await consumer.connect()
          try {
            consumer.assign([{ topic, partitions: ends.map((e) => e.partition) }])
            let done!: () => void
            const finished = new Promise<void>((resolve) => (done = resolve))
            await consumer.run({
              eachMessage: async ({ partition, message: m }) => {
                out[partition].push(`${m.key?.toString('hex') ?? '-'}:${m.value?.toString('hex') ?? '-'}@${m.timestampMs - T0}`)
                // The last record of a partition is never compacted away.
                if (m.offsetBigInt + 1n >= BigInt(ends.find((e) => e.partition === partition)!.high)) pending.delete(partition)
                if (pending.size === 0) done()
              },
            })
            await until(
              `${topic} read to its end`,
              async () => pending.size,
              (n) => n === 0,
              30_000,
            )
            await finished
          } finally {
            await consumer.disconnect()
          }
          return out
        }
        /** A changelog as its store ends up (the latest value per key; tombstones delete): what compaction keeps. */
        const table = (parts: string[][]) => {
          const t = new Map<string, string>()
          for (const x of parts.flat()) {
            const [k, v] = x.split('@')[0].split(':')
            if (v === '-') t.delete(k)
            else t.set(k, v)
          }
          return Object.fromEntries([...t].sort())
        }
        /** A null key's record is placed by each producer's own choice (Java's sticky partitioner): compared apart. */
        const keyed = (parts: string[][]) => parts.map((list) => list.filter((x) => !x.startsWith('-:')))
        const unkeyed = (parts: string[][]) => parts.flat().filter((x) => x.startsWith('-:'))
        const readable = (parts: string[][]) =>
          parts.map((list) =>
            list.map((x) => {
              const [kv, at] = x.split('@')
              const [k, v] = kv.split(':').map((h) => (h === '-' ? 'null' : Buffer.from(h, 'hex').toString()))
              return `${k}=${v}@${at}`
            }),
          )
        const javaRecords = await records(javaOut)
        const ours = await records(wafkaOut)
        expect(readable(keyed(ours))).toEqual(readable(keyed(javaRecords)))
        expect(keyed(ours)).toEqual(keyed(javaRecords))
        expect(unkeyed(ours)).toEqual(unkeyed(javaRecords))
        // What Kafka Streams' semantics give (the comparison above is the byte-for-byte one): pairs at the later
        // timestamp; a non-joined left record only once its window closed (b1 after a3's join, not when it came).
        const flat = readable(javaRecords).flat()
        expect(flat).toContain('a=a2+A2@20000')
        expect(flat).toContain('a=a3+A2@26000')
        expect(flat).toContain('b=b1+B1@5000')
        if (join === 'inner') expect(flat.some((x) => x.includes('null'))).toBe(false)
        else {
          const p0 = readable(javaRecords).flat()
          expect(p0.indexOf('b=b1+null@5000')).toBeGreaterThan(p0.indexOf('a=a2+A2@20000'))
          expect(flat).toContain('d=d0+null@100')
          expect(flat).toContain('null=n1+null@41500')
        }
        if (join === 'outer') expect(flat).toEqual(expect.arrayContaining(['c=null+C1@21000', 'd=null+D0@600', 'b=null+B2@41000']))

        // The stores' changelogs, named as Java names them: the same final tables (compaction may have run).
        // Not after a restart: a window store's sequence numbers start again (as Java's would, had it restarted).
        if (restartAfter !== undefined) return
        const stores = [...topology.stores.keys()]
        expect(stores.length).toBe(join === 'inner' ? 2 : 3)
        for (const store of stores) {
          const [javaLog, ourLog] = [await records(`${javaOut}-${store}-changelog`), await records(`${wafkaOut}-${store}-changelog`)]
          expect(javaLog.flat().length, store).toBeGreaterThan(0)
          expect(table(ourLog), store).toEqual(table(javaLog))
        }
      }, 300_000)
  },
  { builtOnEmbedded: true },
)
