// KTable.suppress() of wafka/streams: the Suppressed and BufferConfig
// variants (and those refused), the topology it builds (names as Java's, a
// non-windowed table refused with Java's message), the suppression buffer's
// changelog records in Java's v3 layout and restored from them, and end to
// end on real Kafka 4.4 and the embedded broker with the same assertions: a
// windowed count and a session count through suppress(untilWindowCloses)
// emit nothing before their windows close, then each window once with its
// final value (a session merged away never), and a restart restores values
// buffered but not yet emitted. (The output and the changelog are held to
// Java's in java-comparison.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, type Kafka } from '../../src/index.js'
import {
  BufferConfig,
  KafkaStreams,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TopologyError,
  WindowedSerdes,
} from '../../src/public/streams.js'
import { TimeOrderedKeyValueBuffer, type Eviction } from '../../src/streams/suppress-buffer.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, consumedAll, partitionRecords, targets, type Target } from './support.js'

const kafkaOk = requireKafka()
const str = Serdes.String()
const long = Serdes.Long()

describe('Suppressed and BufferConfig', () => {
  it('untilWindowCloses takes a strict buffer only; limits and logging options Java has are checked or refused', () => {
    expect(Suppressed.untilWindowCloses(BufferConfig.unbounded()).until).toBe('windowCloses')
    expect(Suppressed.untilWindowCloses(BufferConfig.maxRecords(10).shutDownWhenFull()).bufferConfig.maxRecords).toBe(10)
    expect(() => Suppressed.untilWindowCloses(BufferConfig.maxRecords(10))).toThrow(/strict buffer/)
    expect(() => Suppressed.untilWindowCloses(BufferConfig.unbounded().withMaxBytes(5).emitEarlyWhenFull())).toThrow(ConfigError)
    expect(() => BufferConfig.maxRecords(-1)).toThrow(ConfigError)
    expect(() => Suppressed.untilTimeLimit(-5, BufferConfig.unbounded())).toThrow(ConfigError)
    expect(() => BufferConfig.unbounded().withLoggingDisabled()).toThrow(/every wafka\/streams store is logged/)
    expect(() => BufferConfig.unbounded().withLoggingEnabled({ 'segment.ms': '1000' })).toThrow(ConfigError)
    expect(Suppressed.untilTimeLimit(5, BufferConfig.maxBytes(100)).withName('x').name).toBe('x')
  })

  it("names as Java's: KTABLE-SUPPRESS-<n> with KTABLE-SUPPRESS-STATE-STORE-<n+1>, or <name> with <name>-store", () => {
    const b = new StreamsBuilder()
    const windowed = b
      .stream<string, string>('in', { keySerde: str, valueSerde: str })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
    windowed.count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())).toStream().to('out')
    windowed.count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName('final')).toStream().to('out2')
    const text = b.build().describe().toString()
    expect(text).toContain('Processor: KTABLE-SUPPRESS-0000000003 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000004])')
    expect(text).toContain('Processor: final (stores: [final-store])')
    const app = new KafkaStreams(b.build(), { applicationId: 'q', brokers: ['127.0.0.1:1'] })
    expect(() => app.store('final-store', 'keyValue')).toThrow(/suppression buffer, which is not queryable/)
  })

  it("a table no windowed aggregation made is refused with Java's message", () => {
    const b = new StreamsBuilder()
    const counts = b.stream<string, string>('in').groupByKey().count()
    expect(() => counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()) as never)).toThrow(TopologyError)
    expect(() => counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()) as never)).toThrow(
      'Window close time is only defined for windowed computations. Got [KSTREAM-SOURCE-0000000000->KSTREAM-AGGREGATE-0000000002].',
    )
    // untilTimeLimit needs no window.
    expect(() => counts.suppress(Suppressed.untilTimeLimit(1_000, BufferConfig.unbounded()))).not.toThrow()
  })
})

describe('the suppression buffer', () => {
  const windowed = WindowedSerdes.timeWindowedSerdeFrom(str, 10)
  const make = (log: Array<[Buffer, Buffer | null, Array<[string, Buffer]> | undefined]>) =>
    new TimeOrderedKeyValueBuffer('b', windowed, long, 'app-b-changelog', (k, v, h) => log.push([k, v, h]))
  const ctx = (timestamp: number, offset: bigint) => ({ timestamp, offset, topic: 'in', partition: 1 })
  const key = (k: string, start: number) => ({ key: k, window: { start, end: start + 10 } })

  it("logs at commit each key changed: Java's v3 record (context, prior, old, new, buffer time) or a tombstone once evicted", () => {
    const log: Array<[Buffer, Buffer | null, Array<[string, Buffer]> | undefined]> = []
    const buffer = make(log)
    buffer.put(10, key('a', 0), 1n, null, ctx(3, 7n))
    buffer.put(10, key('a', 0), 2n, 1n, ctx(4, 8n))
    expect(log).toEqual([])
    buffer.commit()
    expect(log.length).toBe(1)
    const [k, v, headers] = log[0]
    expect(k).toEqual(windowed.serialize('', key('a', 0)))
    expect(headers).toEqual([['v', Buffer.from([3])]])
    // Laid out by hand from Java's ProcessorRecordContext.serialize and BufferValue.serialize.
    const be64 = (n: number) => {
      const b = Buffer.alloc(8)
      b.writeBigInt64BE(BigInt(n))
      return b
    }
    const be32 = (n: number) => {
      const b = Buffer.alloc(4)
      b.writeInt32BE(n)
      return b
    }
    expect(v).toEqual(
      Buffer.concat([
        be64(4), // the context: timestamp, offset, topic, partition, no headers
        be64(8),
        be32(2),
        Buffer.from('in'),
        be32(1),
        be32(0),
        be32(-1), // prior: the old value of the first update buffered (null)
        be32(8), // old: 1
        be64(1),
        be32(8), // new: 2
        be64(2),
        be64(10), // the buffer time (the window's end)
      ]),
    )
    // The prior is kept from the first update: a third update logs prior null, old 2, new 3.
    buffer.put(10, key('a', 0), 3n, 2n, ctx(5, 9n))
    const evicted: Array<Eviction<unknown, bigint>> = []
    buffer.evictWhile(
      () => buffer.minTimestamp() <= 10,
      (e) => evicted.push(e),
    )
    expect(evicted.map((e) => [e.value, e.oldValue, e.context.timestamp])).toEqual([[3n, 2n, 5]])
    buffer.commit()
    expect(log[1]).toEqual([k, null, undefined])
  })

  it('restores what it logged; evicts by buffer time, then key bytes; a key keeps the time it was first buffered at', () => {
    const log: Array<[Buffer, Buffer | null, Array<[string, Buffer]> | undefined]> = []
    const buffer = make(log)
    buffer.put(20, key('b', 10), 1n, null, ctx(12, 1n))
    buffer.put(10, key('z', 0), 1n, null, ctx(5, 2n))
    buffer.put(10, key('a', 0), 4n, 3n, ctx(6, 3n))
    buffer.put(99, key('b', 10), 2n, 1n, ctx(15, 4n))
    buffer.commit()
    const restored = make([])
    for (const [k, v, h] of log) restored.restore(k, v, 0, h)
    expect(restored.numRecords()).toBe(3)
    expect(restored.bufferSize()).toBe(buffer.bufferSize())
    expect(restored.minTimestamp()).toBe(10)
    const order: string[] = []
    restored.evictWhile(
      () => restored.numRecords() > 0,
      (e) => order.push(`${(e.key as { key: string }).key}@${e.value}/${e.oldValue}@${e.context.timestamp}`),
    )
    expect(order).toEqual(['a@4/3@6', 'z@1/null@5', 'b@2/1@15'])
    expect(() => restored.restore(log[0][0], log[0][1], 0, [['v', Buffer.from([2])]])).toThrow(/not in Java's v3 format/)
    expect(() => restored.restore(log[0][0], log[0][1], 0, [])).toThrow(/header v=absent/)
  })
})

const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const SIZE = 10_000
const GRACE = 5_000
const GAP = 5_000

function topology(input: string, output: string) {
  const b = new StreamsBuilder()
  const grouped = b.stream<string, string>(input, { keySerde: str, valueSerde: str }).groupByKey()
  grouped
    .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
    .count({ storeName: 'counts' })
    .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
    .toStream()
    .to(output, { valueSerde: long })
  grouped
    .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(GAP))
    .count({ storeName: 'sessions' })
    .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName('session-final'))
    .toStream()
    .to(`${output}-sessions`, { valueSerde: long })
  grouped
    .count({ storeName: 'plain' })
    .suppress(Suppressed.untilTimeLimit(3_000, BufferConfig.unbounded()))
    .toStream()
    .to(`${output}-limited`, { keySerde: str, valueSerde: long })
  return b.build()
}

// Real Kafka's half skips only where Kafka cannot run, outside CI: requireKafka() throws under CI.
for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`suppress(untilWindowCloses) on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => cluster?.stop())

    async function produce(topic: string, records: Array<[string, number]>) {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({
        topic,
        messages: records.map(([key, at]) => ({ key, value: `${key}${at}`, timestamp: T0 + at, partition: 0 })),
      })
      await producer.disconnect()
    }

    const timeKeys = WindowedSerdes.timeWindowedSerdeFrom(str, SIZE)
    const sessionKeys = WindowedSerdes.sessionWindowedSerdeFrom(str)
    /** The output's records in order: `key@start-end=count@timestamp` (times less T0). */
    const records = async (topic: string, keys: typeof timeKeys) =>
      (await partitionRecords(kafka, topic, T0))[0].map((r) => {
        const [kv, at] = r.split('@')
        const [k, v] = kv.split(':')
        const w = keys.deserialize('', Buffer.from(k, 'hex'))!
        return `${w.key}@${w.window.start - T0}-${w.window.end - T0}=${long.deserialize('', Buffer.from(v, 'hex'))}@${at}`
      })

    const limited = async (topic: string) =>
      (await partitionRecords(kafka, topic, T0))[0].map((r) => {
        const [kv, at] = r.split('@')
        const [k, v] = kv.split(':')
        return `${str.deserialize('', Buffer.from(k, 'hex'))}=${long.deserialize('', Buffer.from(v, 'hex'))}@${at}`
      })

    it('emits each window once, final, only after it closes (untilTimeLimit: each key after the limit); a restart restores what was buffered and not yet emitted', async () => {
      const [input, output] = ['sup-in', 'sup-out']
      const admin = kafka.admin()
      await admin.connect()
      await admin
        .createTopics({ topics: [input, output, `${output}-sessions`, `${output}-limited`].map((topic) => ({ topic, numPartitions: 1 })) })
        .finally(() => admin.disconnect())
      const options = {
        applicationId: 'sup-app',
        brokers: cluster.bootstrap,
        commitIntervalMs: 100,
        defaultApiTimeoutMs: 30_000,
        // untilTimeLimit sees each update of the count as it happens (the cache would fold them first).
        statestoreCacheMaxBytes: 0,
        defaultKeySerde: str,
        defaultValueSerde: str,
      }
      // Time windows [0, 10 s) close at stream time 15 s. Sessions (gap 5 s, no grace) close 5 s
      // after their end: a [1 s] is merged into a [1 s, 3 s] (its tombstone, buffered, is never
      // emitted); b [6 s] and a [9 s] close at 14 s.
      await produce(input, [
        ['a', 1_000],
        ['a', 3_000],
        ['b', 6_000],
        ['a', 9_000],
        ['c', 14_000],
      ])
      const first = new KafkaStreams(topology(input, output), options)
      await first.start()
      try {
        await consumedAll(kafka, 'sup-app', [input])
      } finally {
        await first.close()
      }
      // Stream time 14 s: no time window has closed.
      expect(await records(output, timeKeys)).toEqual([])
      const sessionsClosed = ['a@1000-3000=2@3000', 'b@6000-6000=1@6000', 'a@9000-9000=1@9000']
      expect(await records(`${output}-sessions`, sessionKeys)).toEqual(sessionsClosed)
      // untilTimeLimit(3 s) on the plain count: a key is emitted, with its latest count, once stream
      // time is 3 s past the first update buffered (a at 1 s, emitted at 6 s with its update of 3 s).
      const limitedFirst = ['a=2@3000', 'b=1@6000', 'a=3@9000']
      expect(await limited(`${output}-limited`)).toEqual(limitedFirst)

      // Buffered, not emitted: a [0, 10 s) = 3, b = 1, c [10 s, 20 s) = 1, session c [14 s]. A new
      // instance restores them (its processors' stream time starts again); a at 16 s closes [0, 10 s)
      // (emitted from the restored buffer: no record updates them now), a late a at 2 s is dropped by
      // the aggregations, d at 40 s closes the rest.
      await produce(input, [
        ['a', 16_000],
        ['a', 2_000],
        ['d', 40_000],
      ])
      const second = new KafkaStreams(topology(input, output), options)
      await second.start()
      try {
        await until(
          'the windows closed by 40 s',
          () => records(output, timeKeys),
          (r) => r.length >= 4,
          60_000,
        )
        await consumedAll(kafka, 'sup-app', [input])
      } finally {
        await second.close()
      }
      expect(await records(output, timeKeys)).toEqual([
        'a@0-10000=3@9000',
        'b@0-10000=1@6000',
        'a@10000-20000=1@16000',
        'c@10000-20000=1@14000',
      ])
      expect(await records(`${output}-sessions`, sessionKeys)).toEqual([
        ...sessionsClosed,
        'c@14000-14000=1@14000',
        'a@16000-16000=1@16000',
      ])
      // c from the restored buffer; a buffered at 16 s, its late update (no window: counted) kept there.
      expect(await limited(`${output}-limited`)).toEqual([...limitedFirst, 'c=1@14000', 'a=5@16000'])
      // The buffers' changelogs, one per store: Java's names.
      const topics = await (async () => {
        const a = kafka.admin()
        await a.connect()
        return a.listTopics().finally(() => a.disconnect())
      })()
      expect(topics).toEqual(
        expect.arrayContaining(['sup-app-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog', 'sup-app-session-final-store-changelog']),
      )
    }, 150_000)
  })
}
