// The Processor API (Java's KStream.process with a store and punctuations),
// on real Kafka 4.4 and on the embedded broker with the same assertions. A
// processor sums values per key into a store added with addStateStore and
// forwards nothing itself; a stream-time punctuation every 10 s forwards
// every key's sum, stamped with the punctuation's time. Punctuations follow
// Java's StreamTask and PunctuationSchedule: the first as soon as the task
// has a record (schedules by stream time start at 0), then at the next
// multiple of the interval that stream time reaches, missed ones not made
// up. The store outlives a restart (its changelog), and stream time too (the
// committed offset's partition time): the restarted task punctuates at once.
// A wall-clock punctuation
// fires on its own; recordMetadata() is null inside a punctuator; close()
// runs when the application closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import {
  KafkaStreams,
  Serdes,
  Stores,
  StreamsBuilder,
  TopologyError,
  type Processor,
  type ProcessorContext,
  type RecordMetadata,
} from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, consumedAll, targets, type Target } from './support.js'

const kafkaOk = requireKafka()
const INTERVAL = 10_000
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000

interface Seen {
  inProcess: RecordMetadata | null
  inPunctuate: RecordMetadata | null | undefined
  closed: number
}

function summing(input: string, output: string, seen: Seen) {
  const builder = new StreamsBuilder()
  builder.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('sums'), Serdes.String(), Serdes.Long()))
  builder
    .stream<string, bigint>(input, { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
    .process((): Processor<string, bigint, string, bigint> => {
      let ctx: ProcessorContext<string, bigint>
      return {
        init(context) {
          ctx = context
          context.schedule(INTERVAL, 'STREAM_TIME', (ts) => {
            seen.inPunctuate = context.recordMetadata()
            const sums = ctx.getStateStore<string, bigint>('sums')
            for (const { key, value } of sums.all()) ctx.forward({ key, value, timestamp: ts })
          })
        },
        process(record) {
          seen.inProcess = ctx.recordMetadata()
          const sums = ctx.getStateStore<string, bigint>('sums')
          sums.put(record.key, (sums.get(record.key) ?? 0n) + record.value, record.timestamp)
        },
        close() {
          seen.closed++
        },
      }
    }, 'sums')
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
  return builder.build()
}

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`the Processor API on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'pa-in' }, { topic: 'pa-out' }, { topic: 'pa-tick' }] })
      await admin.disconnect()
    }, 120_000)
    afterAll(async () => cluster?.stop())

    async function send(records: Array<[string, bigint, number]>) {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({
        topic: 'pa-in',
        messages: records.map(([key, v, t]) => ({ key, value: Serdes.Long().serialize('pa-in', v), timestamp: String(T0 + t) })),
      })
      await producer.disconnect()
    }

    /** Every record of pa-out, in order: [key, sum, timestamp - T0]. */
    async function output(count: number): Promise<Array<[string, bigint, number]>> {
      const got: Array<[string, bigint, number]> = []
      const consumer = kafka.consumer({ groupId: `pa-reader-${Date.now()}`, autoOffsetReset: 'earliest', maxWaitTimeInMs: 100 })
      await consumer.connect()
      await consumer.subscribe({ topics: ['pa-out'] })
      await consumer.run({
        eachMessage: async ({ message }) =>
          void got.push([message.key!.toString(), Serdes.Long().deserialize('pa-out', message.value)!, Number(message.timestamp) - T0]),
      })
      try {
        await until(
          `${count} records on pa-out`,
          () => got.length,
          (n) => n >= count,
        )
        await new Promise((r) => setTimeout(r, 300)) // nothing more comes
      } finally {
        await consumer.disconnect()
      }
      return got
    }

    it('sums into its store and punctuates by stream time as Java does; the store outlives a restart', async () => {
      const seen: Seen = { inProcess: null, inPunctuate: undefined, closed: 0 }
      const options = { applicationId: 'pa-app', brokers: cluster.bootstrap, commitIntervalMs: 100 }
      let app = new KafkaStreams(summing('pa-in', 'pa-out', seen), options)
      await app.start()
      // Stream time T0 (a multiple of the interval): the first punctuation at once, after the record.
      // T0+4000, T0+9999: none due. T0+10000: one. T0+35000: one (20000 and 30000 missed, not made up).
      await send([
        ['a', 1n, 0],
        ['b', 2n, 4000],
        ['a', 3n, 9999],
        ['b', 4n, 10_000],
        ['a', 5n, 35_000],
      ])
      await consumedAll(kafka, 'pa-app', ['pa-in'])
      expect(seen.inProcess).toEqual({ topic: 'pa-in', partition: 0, offset: 4n })
      expect(seen.inPunctuate).toBeNull()
      await app.close()
      expect(seen.closed).toBe(1)

      const before: Array<[string, bigint, number]> = [
        ['a', 1n, 0],
        ['a', 4n, 10_000],
        ['b', 6n, 10_000],
        ['a', 9n, 35_000],
        ['b', 6n, 35_000],
      ]
      expect(await output(5)).toEqual(before)

      // Restarted: the sums come back from the changelog and stream time from the committed offset's partition
      // time (T0+35000), so the punctuation scheduled anew is due at once, with no new record (Java's
      // TaskExecutor.punctuate runs maybePunctuateStreamTime every loop); T0+40000 is the next boundary.
      app = new KafkaStreams(summing('pa-in', 'pa-out', seen), options)
      await app.start()
      const atRestart: Array<[string, bigint, number]> = [
        ['a', 9n, 35_000],
        ['b', 6n, 35_000],
      ]
      expect(await output(7)).toEqual([...before, ...atRestart])
      await send([['b', 10n, 40_000]])
      await consumedAll(kafka, 'pa-app', ['pa-in'])
      await app.close()
      expect(await output(9)).toEqual([...before, ...atRestart, ['a', 9n, 40_000], ['b', 16n, 40_000]])
    })

    it('a wall-clock punctuation fires by itself, with no input', async () => {
      const builder = new StreamsBuilder()
      builder
        .stream<string, string>('pa-tick', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .process((): Processor<string, string, string, string> => ({
          init(ctx) {
            let n = 0
            ctx.schedule(200, 'WALL_CLOCK_TIME', (ts) => ctx.forward({ key: 'tick', value: String(n++), timestamp: ts }))
          },
          process() {},
        }))
        .to('pa-tick-out', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'pa-tick-out' }] }).finally(() => admin.disconnect())
      // No input at all: as Java's, the task exists once its partition is assigned, and its clock ticks.
      const app = new KafkaStreams(builder.build(), { applicationId: 'pa-tick-app', brokers: cluster.bootstrap, commitIntervalMs: 100 })
      await app.start()
      const ticks: string[] = []
      const consumer = kafka.consumer({ groupId: 'pa-tick-reader', autoOffsetReset: 'earliest', maxWaitTimeInMs: 100 })
      await consumer.connect()
      await consumer.subscribe({ topics: ['pa-tick-out'] })
      await consumer.run({ eachMessage: async ({ message }) => void ticks.push(message.value!.toString()) })
      try {
        await until(
          'three ticks',
          () => ticks.length,
          (n) => n >= 3,
        )
      } finally {
        await consumer.disconnect()
        await app.close()
      }
      expect(ticks.slice(0, 3)).toEqual(['0', '1', '2'])
    })
  })
}

describe('process() in the topology', () => {
  it('refuses a store not added, and lists the stores it is given as Java describes them', () => {
    const builder = new StreamsBuilder()
    const stream = builder.stream<string, string>('in')
    expect(() => stream.process(() => ({ process() {} }), 'missing')).toThrow(TopologyError)
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('s'), Serdes.String(), Serdes.String()))
    stream.process(() => ({ process() {} }), 's').to('out')
    const text = builder.build().describe().toString()
    expect(text).toContain('Processor: KSTREAM-PROCESSOR-0000000001 (stores: [s])')
    expect(text).toContain('--> KSTREAM-SINK-0000000002')
  })
})
