// What KafkaStreams refuses and how it stops: unknown options by name, a
// missing serde before anything connects, a missing source topic at start,
// and a record its serde cannot read: the application goes to ERROR (Java's
// default: log and fail, shut the client down) with the topic, partition and
// offset named, after sending and committing what came before that record
// and nothing past it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ConfigError, type Kafka, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, StreamsError, type StreamsState } from '../../src/public/streams.js'
import { until } from '../kafka/support.js'
import { client, tableReader } from './support.js'

function doubler(input: string) {
  const builder = new StreamsBuilder()
  builder
    .stream<string, number>(input, { keySerde: Serdes.String(), valueSerde: Serdes.Integer() })
    .mapValues((n) => n * 2)
    .to('doubled')
  return builder.build()
}

describe('KafkaStreams options', () => {
  const topology = doubler('in')
  it('refuses an unknown key, naming the nearest one', () => {
    expect(() => new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', commitIntervalMS: 5 } as never)).toThrow(
      /unknown KafkaStreams option commitIntervalMS: did you mean commitIntervalMs\?/,
    )
  })
  it('needs an applicationId a topic name can carry, and a guarantee it has', () => {
    expect(() => new KafkaStreams(topology, { brokers: 'localhost:9092' } as never)).toThrow(ConfigError)
    expect(() => new KafkaStreams(topology, { applicationId: 'a b', brokers: 'localhost:9092' })).toThrow(/applicationId/)
    expect(
      () => new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', processingGuarantee: 'exactly_once' as never }),
    ).toThrow(/processingGuarantee must be one of 'at_least_once'/)
    expect(() => new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', commitIntervalMs: -1 })).toThrow(
      /commitIntervalMs/,
    )
  })
  // mapValues keeps the key serde and drops the value serde, as Java does.
  it('refuses to start a topology with a serde missing, naming the node, before connecting', async () => {
    const app = new KafkaStreams(doubler('in'), { applicationId: 'a', brokers: 'localhost:1' })
    await expect(app.start()).rejects.toThrow(
      /sink KSTREAM-SINK-0000000002 has no value serde: give one in the topology or set defaultValueSerde/,
    )
    expect(app.state).toBe('CREATED')
  })
})

describe('KafkaStreams failures on the embedded broker', () => {
  let cluster: RunningCluster
  let kafka: Kafka
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1 })
    kafka = client({ bootstrap: cluster.bootstrapServers })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'nums' }, { topic: 'doubled' }] })
    await admin.disconnect()
  })
  afterAll(async () => cluster?.stop())

  const options = (applicationId: string, logs: LogEntry[] = []) => ({
    applicationId,
    brokers: cluster.bootstrapServers,
    commitIntervalMs: 200,
    defaultKeySerde: Serdes.String(),
    defaultValueSerde: Serdes.Integer(),
    logCreator: () => (e: LogEntry) => void logs.push(e),
  })

  it('a missing source topic fails start(), naming it', async () => {
    const app = new KafkaStreams(doubler('no-such-topic'), options('missing-app'))
    await expect(app.start()).rejects.toThrow(new StreamsError('source topics no-such-topic do not exist: create them before start()'))
    await until(
      'ERROR',
      () => app.state,
      (s) => s === 'ERROR',
    )
  })

  it('a record its serde cannot read stops the application in ERROR; what came before it is sent and committed, nothing past it', async () => {
    const int = (n: number) => Serdes.Integer().serialize('nums', n)
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'nums',
      messages: [
        { key: 'a', value: int(1) },
        { key: 'b', value: int(2) },
        { key: 'c', value: Buffer.from([1, 2, 3]) },
        { key: 'd', value: int(4) },
      ],
    })
    await producer.disconnect()
    const logs: LogEntry[] = []
    const states: StreamsState[] = []
    const app = new KafkaStreams(doubler('nums'), options('bad-record-app', logs))
    app.setStateListener((s) => states.push(s))
    await app.start()
    await until(
      'ERROR',
      () => app.state,
      (s) => s === 'ERROR',
    )
    expect(states).toEqual(['REBALANCING', 'RUNNING', 'PENDING_ERROR', 'ERROR'])
    const failed = logs.find((e) => e.log.message === 'stream processing failed: shutting down')
    expect(failed?.log.error).toMatch(
      /task 0_0 failed to process nums-0 at offset 2: Serdes.Integer needs 4 bytes, the record in nums has 3/,
    )

    const doubled = await tableReader(kafka, 'doubled')
    await until(
      'the output before the bad record',
      () => doubled.records(),
      (n) => n === 2,
    ).finally(() => doubled.stop())
    expect(new Map([...doubled.table].map(([k, v]) => [k, v!.readInt32BE(0)]))).toEqual(
      new Map([
        ['a', 2],
        ['b', 4],
      ]),
    )
    const admin = kafka.admin()
    await admin.connect()
    const committed = await admin.fetchOffsets({ groupId: 'bad-record-app', topics: ['nums'] }).finally(() => admin.disconnect())
    expect(committed[0].partitions).toEqual([expect.objectContaining({ partition: 0, offset: '2' })])
    await app.close()
    expect(app.state).toBe('ERROR')
  })

  it('a processor that throws stops the application in ERROR the same way, naming its error', async () => {
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'nums2' }, { topic: 'halved' }] })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'nums2',
      messages: [4, 8, 3, 6].map((n, i) => ({ key: `k${i}`, value: Serdes.Integer().serialize('nums2', n) })),
    })
    await producer.disconnect()
    const builder = new StreamsBuilder()
    builder
      .stream<string, number>('nums2')
      .mapValues((n) => {
        if (n % 2 !== 0) throw new RangeError(`${n} is odd`)
        return n / 2
      })
      .to('halved')
    const logs: LogEntry[] = []
    const app = new KafkaStreams(builder.build(), options('throwing-app', logs))
    await app.start()
    await until(
      'ERROR',
      () => app.state,
      (s) => s === 'ERROR',
    )
    expect(logs.find((e) => e.log.message === 'stream processing failed: shutting down')?.log.error).toBe(
      'task 0_0 failed to process nums2-0 at offset 2: 3 is odd',
    )
    const committed = await admin.fetchOffsets({ groupId: 'throwing-app', topics: ['nums2'] }).finally(() => admin.disconnect())
    expect(committed[0].partitions).toEqual([expect.objectContaining({ partition: 0, offset: '2' })])
  })
})
