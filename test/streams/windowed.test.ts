// Windowed aggregations of wafka/streams: TimeWindows' windows and checks,
// the in-memory window store's changelog (restored to the same windows,
// expired windows dropped), and end to end on real Kafka 4.4 and the embedded
// broker with the same assertions: reduce and aggregate per window with the
// application's default key serde (the output's keys in Java's
// time-windowed format around it), and a restart that restores the window
// store from its changelog, so a window's aggregate goes on from where it was.
// (The counts themselves are held to Java's in java-comparison.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, type Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, TimeWindows, WindowedSerdes } from '../../src/public/streams.js'
import { InMemoryWindowStore } from '../../src/streams/window-store.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'

const kafkaOk = requireKafka()
// Keys as latin1 strings, so binary windowed keys survive.
const latin1 = (k: Buffer) => k.toString('latin1')
const str = Serdes.String()

describe('TimeWindows', () => {
  it('tumbling and hopping windows hold the timestamp; none starts before 0', () => {
    expect(TimeWindows.ofSizeWithNoGrace(10).windowsFor(25)).toEqual([{ start: 20, end: 30 }])
    expect(TimeWindows.ofSizeAndGrace(10, 5).advanceBy(4).windowsFor(25)).toEqual([
      { start: 16, end: 26 },
      { start: 20, end: 30 },
      { start: 24, end: 34 },
    ])
    expect(TimeWindows.ofSizeWithNoGrace(10).advanceBy(3).windowsFor(2)).toEqual([{ start: 0, end: 10 }])
  })

  it('refuses a size, grace or advance Java refuses', () => {
    expect(() => TimeWindows.ofSizeWithNoGrace(0)).toThrow(ConfigError)
    expect(() => TimeWindows.ofSizeAndGrace(10, -1)).toThrow(ConfigError)
    expect(() => TimeWindows.ofSizeAndGrace(10, 0).advanceBy(11)).toThrow(/must not exceed the size/)
    expect(() => TimeWindows.ofSizeAndGrace(10, 0).advanceBy(0)).toThrow(ConfigError)
  })
})

describe('InMemoryWindowStore', () => {
  it("logs Java's window store keys; a store restored from the log holds the same windows; expired windows are dropped", () => {
    const log: Array<[Buffer, Buffer | null, number]> = []
    const store = new InMemoryWindowStore('w', str, Serdes.Long(), 100, 'app-w-changelog', (k, v, t) => log.push([k, v, t]))
    store.put('a', 1n, 0, 5)
    store.put('a', 2n, 0, 7)
    store.put('b', 3n, 50, 60)
    expect(log[0][0]).toEqual(Buffer.concat([Buffer.from('a'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]), Buffer.from([0, 0, 0, 0])]))
    expect(log.map(([, v, t]) => [Serdes.Long().deserialize('', v), t])).toEqual([
      [1n, 5],
      [2n, 7],
      [3n, 60],
    ])
    const restored = new InMemoryWindowStore('w', str, Serdes.Long(), 100, 'app-w-changelog', () => {})
    for (const [k, v, t] of log) restored.restore(k, v, t)
    expect(restored.fetchWithTimestamp('a', 0)).toEqual({ value: 2n, timestamp: 7 })
    expect(restored.all().sort((x, y) => x.windowStart - y.windowStart)).toEqual([
      { key: 'a', windowStart: 0, value: 2n },
      { key: 'b', windowStart: 50, value: 3n },
    ])
    // A window starting at 100 moves stream time to 100: the window at 0 (0 <= 100 - 100) is gone, and no put reopens it.
    store.put('c', 1n, 100, 100)
    expect(store.fetch('a', 0)).toBeNull()
    store.put('a', 9n, 0, 101)
    expect(store.fetch('a', 0)).toBeNull()
    expect(log.length).toBe(4)
  })
})

const SIZE = 60_000
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000

function topology(input: string, output: string) {
  const builder = new StreamsBuilder()
  const windowed = builder.stream<string, string>(input).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(SIZE, 3_600_000))
  windowed
    .aggregate(
      () => '',
      (_k, v, agg) => (agg === '' ? v : `${agg},${v}`),
      { storeName: 'joined' },
    )
    .toStream()
    .to(output)
  windowed
    .reduce((a, b) => (a > b ? a : b), { storeName: 'max' })
    .toStream()
    .to(`${output}-max`)
  return builder.build()
}

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`windowed aggregations on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => cluster?.stop())

    async function produce(topic: string, records: Array<[string, string, number]>) {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic, messages: records.map(([key, value, at]) => ({ key, value, timestamp: T0 + at, partition: 0 })) })
      await producer.disconnect()
    }

    it('aggregate and reduce per window with the default key serde; a restart goes on from the changelog', async () => {
      const [input, output] = ['win-in', 'win-out']
      const admin = kafka.admin()
      await admin.connect()
      await admin
        .createTopics({ topics: [input, output, `${output}-max`].map((topic) => ({ topic, numPartitions: 2 })) })
        .finally(() => admin.disconnect())
      const options = {
        applicationId: 'win-app',
        brokers: cluster.bootstrap,
        commitIntervalMs: 200,
        defaultApiTimeoutMs: 30_000,
        defaultKeySerde: str,
        defaultValueSerde: str,
      }
      const keys = WindowedSerdes.timeWindowedSerdeFrom(str, SIZE)
      const show = (t: Map<string, Buffer | null>) =>
        Object.fromEntries(
          [...t].map(([k, v]) => {
            const w = keys.deserialize('', Buffer.from(k, 'latin1'))!
            return [`${w.key}@${w.window.start - T0}-${w.window.end - T0}`, str.deserialize('', v)]
          }),
        )
      const joined = await tableReader(kafka, output, latin1)
      const max = await tableReader(kafka, `${output}-max`, latin1)
      try {
        await produce(input, [
          ['a', 'a1', 1_000],
          ['b', 'b1', 2_000],
          ['a', 'a2', 61_000],
          ['a', 'a3', 3_000],
        ])
        const first = new KafkaStreams(topology(input, output), options)
        await first.start()
        const round1 = { 'a@0-60000': 'a1,a3', 'b@0-60000': 'b1', 'a@60000-120000': 'a2' }
        await until(
          'round 1',
          () => show(joined.table),
          (t) => Object.keys(t).length === 3 && t['a@0-60000'] === 'a1,a3',
        )
        expect(show(joined.table)).toEqual(round1)
        await first.close()

        await produce(input, [
          ['a', 'a0', 4_000],
          ['b', 'b9', 65_000],
        ])
        const second = new KafkaStreams(topology(input, output), options)
        await second.start()
        const round2 = { 'a@0-60000': 'a1,a3,a0', 'b@0-60000': 'b1', 'a@60000-120000': 'a2', 'b@60000-120000': 'b9' }
        try {
          await until(
            'round 2',
            () => show(joined.table),
            (t) => Object.keys(t).length === 4 && t['a@0-60000'] === 'a1,a3,a0',
          )
          expect(show(joined.table)).toEqual(round2)
          await until(
            'the maxima',
            () => show(max.table),
            (t) => Object.keys(t).length === 4 && t['a@0-60000'] === 'a3',
          )
          expect(show(max.table)).toEqual({ 'a@0-60000': 'a3', 'b@0-60000': 'b1', 'a@60000-120000': 'a2', 'b@60000-120000': 'b9' })
        } finally {
          await second.close()
        }
      } finally {
        await joined.stop()
        await max.stop()
      }
    }, 150_000)
  })
}
