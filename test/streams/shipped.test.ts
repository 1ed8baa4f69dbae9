// wafka/streams as it ships: under the built-esm and built-cjs projects these
// imports are dist/'s (test/built-package.ts), so the bundled StreamsBuilder,
// KafkaStreams and serdes run a word count on the bundled embedded broker,
// counts exact, and describe() prints Java's text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { until } from '../kafka/support.js'

describe('wafka/streams as built', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1 })
  })
  afterAll(async () => cluster?.stop())

  it('runs a word count to exact counts', async () => {
    const kafka = new Kafka({ clientId: 'shipped-test', brokers: cluster.bootstrapServers })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'lines', numPartitions: 2 }, { topic: 'word-counts' }] })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    const lines = ['to be or not to be', 'that is the question', 'to be']
    await producer.send({ topic: 'lines', messages: lines.map((value, i) => ({ key: String(i), value })) })
    await producer.disconnect()

    // The README's word count, as written there.
    const builder = new StreamsBuilder()
    builder
      .stream<string, string>('lines')
      .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
      .groupBy((_key, word) => word)
      .count({ storeName: 'counts' })
      .toStream()
      .to('word-counts')
    const strings = { defaultKeySerde: Serdes.String(), defaultValueSerde: Serdes.String() }
    const topology = builder.build()
    expect(topology.describe().toString()).toContain(
      '    Sink: counts-repartition-sink (topic: counts-repartition)\n      <-- counts-repartition-filter\n',
    )
    const app = new KafkaStreams(topology, {
      applicationId: 'shipped',
      brokers: cluster.bootstrapServers,
      commitIntervalMs: 200,
      ...strings,
    })
    const counts = new Map<string, bigint>()
    const consumer = kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 200 })
    try {
      await app.start()
      await consumer.connect()
      consumer.assign([{ topic: 'word-counts', partitions: [0] }])
      await consumer.run({
        eachMessage: async ({ message }) =>
          void counts.set(message.key!.toString(), Serdes.Long().deserialize('word-counts', message.value)!),
      })
      const expected = new Map([
        ['to', 3n],
        ['be', 3n],
        ['or', 1n],
        ['not', 1n],
        ['that', 1n],
        ['is', 1n],
        ['the', 1n],
        ['question', 1n],
      ])
      await until(
        'the counts',
        () => counts,
        (c) => [...expected].every(([w, n]) => c.get(w) === n),
      )
      expect(counts).toEqual(expected)
    } finally {
      await consumer.disconnect()
      await app.close()
    }
    expect(app.state).toBe('NOT_RUNNING')
  })
})
