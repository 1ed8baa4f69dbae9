// What KafkaStreams refuses and how it stops: unknown options by name, a
// missing serde before anything connects, a missing source topic at start,
// and a record its serde cannot read: the application goes to ERROR (Java's
// default: log and fail, shut the client down) with the topic, partition and
// offset named, after sending and committing what came before that record
// and nothing past it; with 'logAndContinue' (or a handler that says so) the
// record is skipped with a WARN and processing goes on past it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ConfigError, logLevel, type Kafka, type LogEntry } from '../../src/index.js'
import {
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  StreamsError,
  type DeserializationFailure,
  type StreamsConfig,
  type StreamsState,
} from '../../src/public/streams.js'
import { until } from '../kafka/support.js'
import { client, tableReader } from './support.js'

function doubler(input: string) {
  const builder = new StreamsBuilder()
  builder
    .stream<string, number>(input, { keySerde: Serdes.String(), valueSerde: Serdes.Integer() })
    .mapValues((n) => n * 2)
    .to(`${input}-doubled`)
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
    // Java's num.standby.replicas: a whole number from 0.
    for (const numStandbyReplicas of [-1, 1.5, '1' as never])
      expect(() => new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', numStandbyReplicas })).toThrow(
        /numStandbyReplicas must be/,
      )
    expect(new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', numStandbyReplicas: 2 }).state).toBe('CREATED')
    // The lag-aware placement's options, with Java's bounds.
    const base = { applicationId: 'a', brokers: 'localhost:9092' }
    for (const [more, error] of [
      [{ acceptableRecoveryLag: -1 }, /acceptableRecoveryLag must be/],
      [{ acceptableRecoveryLag: 0.5 }, /acceptableRecoveryLag must be a whole number/],
      [{ maxWarmupReplicas: 0 }, /maxWarmupReplicas must be a number from 1/],
      [{ probingRebalanceIntervalMs: 59_999 }, /probingRebalanceIntervalMs must be a whole number of milliseconds from 60000/],
      [{ rackAwareAssignmentTags: ['zone'] }, /rackAwareAssignmentTags names "zone", which clientTags does not set/],
      [{ rackAwareAssignmentTags: 'zone' as never }, /rackAwareAssignmentTags must be an array/],
      [
        { rackAwareAssignmentTags: ['a', 'b', 'c', 'd', 'e', 'f'], clientTags: { a: '1', b: '1', c: '1', d: '1', e: '1', f: '1' } },
        /at most 5/,
      ],
    ] as const)
      expect(() => new KafkaStreams(topology, { ...base, ...more })).toThrow(error)
    expect(
      new KafkaStreams(topology, {
        ...base,
        acceptableRecoveryLag: 0,
        maxWarmupReplicas: 1,
        probingRebalanceIntervalMs: 60_000,
        clientTags: { zone: 'z1' },
        rackAwareAssignmentTags: ['zone'],
      }).state,
    ).toBe('CREATED')
  })
  it('refuses a deserializationExceptionHandler it does not know', () => {
    expect(
      () => new KafkaStreams(topology, { applicationId: 'a', brokers: 'localhost:9092', deserializationExceptionHandler: 'skip' as never }),
    ).toThrow(/deserializationExceptionHandler must be 'logAndFail', 'logAndContinue' or a function, not "skip"/)
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

  /** nums-like input with an unreadable record at offset 2, in a topic of its own. */
  async function withBadRecord(topic: string): Promise<void> {
    const int = (n: number) => Serdes.Integer().serialize(topic, n)
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic }, { topic: `${topic}-doubled` }] }).finally(() => admin.disconnect())
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic,
      messages: [
        { key: 'a', value: int(1) },
        { key: 'b', value: int(2) },
        { key: 'c', value: Buffer.from([1, 2, 3]) },
        { key: 'd', value: int(4) },
      ],
    })
    await producer.disconnect()
  }

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
    await withBadRecord('nums')
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

    const doubled = await tableReader(kafka, 'nums-doubled')
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

  /** Runs `doubler` with `handler` until all four offsets are committed; returns the output table and the logs. */
  async function runPastBadRecord(topic: string, handler: StreamsConfig['deserializationExceptionHandler']) {
    await withBadRecord(topic)
    const logs: LogEntry[] = []
    const app = new KafkaStreams(doubler(topic), { ...options(`${topic}-app`, logs), deserializationExceptionHandler: handler })
    await app.start()
    const admin = kafka.admin()
    await admin.connect()
    try {
      await until(
        'offset 4 committed',
        async () => (await admin.fetchOffsets({ groupId: `${topic}-app`, topics: [topic] }))[0].partitions[0]?.offset,
        (o) => o === '4',
      )
    } finally {
      await admin.disconnect()
    }
    expect(app.state).toBe('RUNNING')
    await app.close()
    const out = await tableReader(kafka, `${topic}-doubled`)
    await until(
      'the output',
      () => out.records(),
      (n) => n === 3,
    ).finally(() => out.stop())
    return { table: new Map([...out.table].map(([k, v]) => [k, v!.readInt32BE(0)])), logs }
  }

  it("'logAndContinue' skips a record its serde cannot read, with a WARN naming it, and goes on past it", async () => {
    const { table, logs } = await runPastBadRecord('skippy', 'logAndContinue')
    expect(table).toEqual(
      new Map([
        ['a', 2],
        ['b', 4],
        ['d', 8],
      ]),
    )
    const warned = logs.filter((e) => e.level === logLevel.WARN && e.log.message.startsWith('a record could not be deserialized'))
    expect(warned.map((e) => [e.log.taskId, e.log.topic, e.log.partition, e.log.offset, e.log.error])).toEqual([
      ['0_0', 'skippy', 0, '2', 'Serdes.Integer needs 4 bytes, the record in skippy has 3'],
    ])
  })

  it('a handler function gets the task, topic, partition, offset and error, and its answer decides', async () => {
    const seen: DeserializationFailure[] = []
    const { table } = await runPastBadRecord('judged', (f) => {
      seen.push(f)
      return 'continue'
    })
    expect(table.get('d')).toBe(8)
    expect(seen.map((f) => [f.taskId, f.topic, f.partition, f.offset, f.error.message])).toEqual([
      ['0_0', 'judged', 0, '2', 'Serdes.Integer needs 4 bytes, the record in judged has 3'],
    ])
  })

  it("REPLACE_THREAD: a processor's error starts a new stream thread, which processes the record again from the last commit", async () => {
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'flaky' }, { topic: 'flaky-out' }] }).finally(() => admin.disconnect())
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({
      topic: 'flaky',
      messages: [1, 2, 3, 4].map((n) => ({ key: `k${n}`, value: Serdes.Integer().serialize('flaky', n) })),
    })
    await producer.disconnect()
    let thrown = 0
    const builder = new StreamsBuilder()
    builder
      .stream<string, number>('flaky')
      .mapValues((n) => {
        if (n === 3 && thrown++ === 0) throw new RangeError('3 failed once')
        return n * 10
      })
      .to('flaky-out')
    const logs: LogEntry[] = []
    const app = new KafkaStreams(builder.build(), options('flaky-app', logs))
    const handled: string[] = []
    app.setUncaughtExceptionHandler((e) => {
      handled.push(e.message)
      return 'REPLACE_THREAD'
    })
    const states: StreamsState[] = []
    app.setStateListener((st) => states.push(st))
    await app.start()
    const out = await tableReader(kafka, 'flaky-out')
    try {
      await until(
        'all four out',
        () => out.table.size,
        (n) => n === 4,
      )
    } finally {
      out.stop()
    }
    expect(new Map([...out.table].map(([k, v]) => [k, v!.readInt32BE(0)]))).toEqual(
      new Map([
        ['k1', 10],
        ['k2', 20],
        ['k3', 30],
        ['k4', 40],
      ]),
    )
    expect(handled).toEqual(['task 0_0 failed to process flaky-0 at offset 2: 3 failed once'])
    expect(logs.filter((e) => e.log.message === 'stream thread failed: replacing it')).toHaveLength(1)
    await until(
      'RUNNING again',
      () => app.state,
      (st) => st === 'RUNNING',
    )
    expect(states).toEqual(['REBALANCING', 'RUNNING', 'REBALANCING', 'RUNNING'])
    expect(() => app.setUncaughtExceptionHandler(() => 'SHUTDOWN_CLIENT')).toThrow(/set it before start\(\)/)
    await app.close()
    expect(app.state).toBe('NOT_RUNNING')
  })

  it('SHUTDOWN_APPLICATION (classic group) asks the group, whose answer stops this client in ERROR', async () => {
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'doomed' }, { topic: 'doomed-out' }] }).finally(() => admin.disconnect())
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'doomed', messages: [{ key: 'x', value: Serdes.Integer().serialize('doomed', 1) }] })
    await producer.disconnect()
    const builder = new StreamsBuilder()
    builder
      .stream<string, number>('doomed')
      .mapValues((): number => {
        throw new Error('never')
      })
      .to('doomed-out')
    const logs: LogEntry[] = []
    const app = new KafkaStreams(builder.build(), options('doomed-app', logs))
    app.setUncaughtExceptionHandler(() => 'SHUTDOWN_APPLICATION')
    await app.start()
    // Within 20 s: the leader's SHUTDOWN_REQUESTED stopped it, not the 30 s wait for an answer.
    await until(
      'ERROR',
      () => app.state,
      (st) => st === 'ERROR',
      20_000,
    )
    expect(
      logs.some((e) => e.level === logLevel.ERROR && e.log.message.includes('asking every instance of the application to shut down')),
    ).toBe(true)
    // As Java's closeToError, no LeaveGroup: a leave would start a rebalance that could keep the stop request
    // from a member still syncing; the group keeps this member until its session times out.
    const described = kafka.admin()
    await described.connect()
    const { groups } = await described.describeGroups(['doomed-app']).finally(() => described.disconnect())
    expect(groups[0].members).toHaveLength(1)
  })

  it("close() leaves the group; close({ leaveGroup: false }) does not (Java's REMAIN_IN_GROUP), and an unknown option is refused", async () => {
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.createTopics({ topics: [{ topic: 'closing' }] })
      const members = async (groupId: string) => (await admin.describeGroups([groupId])).groups[0].members.length
      for (const leaveGroup of [true, false]) {
        const groupId = `closing-${leaveGroup}`
        const app = new KafkaStreams(doubler('closing'), options(groupId, []))
        await app.start()
        await until(
          'joined',
          () => members(groupId),
          (n) => n === 1,
          20_000,
        )
        await expect(app.close({ leaveGroups: true } as never)).rejects.toThrow(ConfigError)
        await app.close({ leaveGroup })
        expect(await members(groupId)).toBe(leaveGroup ? 0 : 1)
      }
    } finally {
      await admin.disconnect()
    }
  })
})
