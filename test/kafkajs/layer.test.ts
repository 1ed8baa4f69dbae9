// The compatibility layer's pieces beside KafkaJS 2.2.4's own: the same
// constants, error classes, retry schedule and assigner encoding; KafkaJS's
// defaults in the options given to the engine.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import * as ours from '../../src/kafkajs/index.js'
import { createRetrier } from '../../src/kafkajs/retry.js'
import { toKafkaJSError } from '../../src/kafkajs/errors.js'
import { engineConsumerConfig, engineKafkaConfig, engineProducerConfig } from '../../src/kafkajs/options.js'
import { AuthenticationError, ConfigError, ConnectionError, TimeoutError, kafkaError } from '../../src/errors.js'
import { silentLogger } from '../../src/logger.js'

const require = createRequire(import.meta.url)
/** kafkajs as CommonJS code gets it (an ESM namespace of it adds `default`). */
const kafkajs = require('kafkajs') as typeof import('kafkajs')
const kafkajsRetrier = require('kafkajs/src/retry') as (
  o: object,
) => <T>(fn: (bail: unknown, n: number, t: number) => Promise<T>) => Promise<T>

const chain = (e: object) => {
  const names: string[] = []
  for (let p = Object.getPrototypeOf(e); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) names.push(p.constructor.name)
  return names
}

describe('wafka/kafkajs beside kafkajs 2.2.4', () => {
  it('has every export kafkajs has, and the same enumerations', () => {
    expect(Object.keys(kafkajs).filter((k) => !(k in ours))).toEqual([])
    for (const name of [
      'logLevel',
      'CompressionTypes',
      'ConfigResourceTypes',
      'ConfigSource',
      'AclResourceTypes',
      'AclOperationTypes',
      'AclPermissionTypes',
      'ResourcePatternTypes',
    ] as const)
      // Every KafkaJS value; wafka's ACL table has Kafka's newer USER (7) too.
      expect({ ...ours[name] }, name).toMatchObject({ ...kafkajs[name] })
    expect(ours.AclResourceTypes.USER).toBe(7)
    expect(Object.keys(ours.CompressionCodecs).sort()).toEqual(['1', '2', '3', '4'])
    expect(Object.keys(ours.Partitioners).sort()).toEqual(Object.keys(kafkajs.Partitioners).sort())
    expect(Object.keys(ours.PartitionAssigners)).toEqual(Object.keys(kafkajs.PartitionAssigners))
  })

  it('error classes have KafkaJS names, fields and inheritance', () => {
    const k = kafkajs as unknown as Record<string, new (...a: any[]) => Error>
    const o = ours as unknown as Record<string, new (...a: any[]) => Error>
    const args: Record<string, unknown[]> = {
      KafkaJSDeleteTopicRecordsError: [{ partitions: [] }],
      KafkaJSNumberOfRetriesExceeded: [new Error('x'), { retryCount: 2, retryTime: 10 }],
      KafkaJSOffsetOutOfRange: [
        { message: 'x', type: 'OFFSET_OUT_OF_RANGE', code: 1 },
        { topic: 't', partition: 0 },
      ],
      KafkaJSMemberIdRequired: [{ message: 'x' }, { memberId: 'm' }],
      KafkaJSAggregateError: ['x', []],
    }
    const names = Object.keys(kafkajs).filter((n) => n.startsWith('KafkaJS') && n !== 'KafkaJSFetcherRebalanceError')
    expect(names.length).toBeGreaterThan(25)
    for (const name of names) {
      const a = args[name] ?? [name === 'KafkaJSInvariantViolation' ? { message: 'x' } : 'x']
      const theirs = new k[name](...a)
      const mine = new o[name](...a)
      expect(mine.name, name).toBe(theirs.name)
      expect(chain(mine), name).toEqual(chain(theirs))
      expect((mine as { retriable?: boolean }).retriable, name).toBe((theirs as { retriable?: boolean }).retriable)
    }
    const p = new ours.KafkaJSProtocolError({ message: 'm', type: 'NOT_LEADER_OR_FOLLOWER', code: 6, retriable: true })
    expect([p.type, p.code, p.retriable, p instanceof ours.KafkaJSError]).toEqual(['NOT_LEADER_OR_FOLLOWER', 6, true, true])
  })

  it("wafka's errors reach KafkaJS code as KafkaJS's classes, the original as cause", () => {
    const protocol = toKafkaJSError(kafkaError(6, { api: 'Produce' })) as ours.KafkaJSProtocolError
    expect([protocol.name, protocol.type, protocol.code, protocol.retriable]).toEqual([
      'KafkaJSProtocolError',
      'NOT_LEADER_OR_FOLLOWER',
      6,
      true,
    ])
    const cases: Array<[Error, string, boolean]> = [
      [new ConnectionError('refused'), 'KafkaJSConnectionError', true],
      [new TimeoutError('slow'), 'KafkaJSRequestTimeoutError', true],
      [new TimeoutError('gave up', { retriable: false }), 'KafkaJSTimeout', false],
      [new AuthenticationError('bad password'), 'KafkaJSSASLAuthenticationError', false],
      [new ConfigError('bad option'), 'KafkaJSNonRetriableError', false],
      [kafkaError(1), 'KafkaJSOffsetOutOfRange', false],
    ]
    for (const [err, name, retriable] of cases) {
      const e = toKafkaJSError(err) as ours.KafkaJSError
      expect([e.name, e.retriable, e instanceof ours.KafkaJSError], name).toEqual([name, retriable, true])
      if (name !== 'KafkaJSOffsetOutOfRange') expect(e.cause).toBe(err)
    }
    const plain = new TypeError('not ours')
    expect(toKafkaJSError(plain)).toBe(plain)
  })

  it("connection and request-timeout errors carry KafkaJS's broker and code; a retrier's cause is the KafkaJS error", async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:9093'), {
      code: 'ECONNREFUSED',
      address: '10.0.0.7',
      port: 9093,
    })
    const lost = toKafkaJSError(
      new ConnectionError('no broker answered (tried 1: kafka-1:9093): connection to kafka-1:9093 failed', {
        cause: new ConnectionError('connection to broker 1 (kafka-1:9093) failed: connect ECONNREFUSED', { cause: refused }),
      }),
    ) as ours.KafkaJSConnectionError
    expect([lost.name, lost.broker, lost.code, lost.retriable]).toEqual(['KafkaJSConnectionError', '10.0.0.7:9093', 'ECONNREFUSED', true])
    const reset = toKafkaJSError(
      new ConnectionError('connection to broker 2 (kafka-2:9092) is closed', {
        cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      }),
    ) as ours.KafkaJSConnectionError
    expect([reset.broker, reset.code]).toEqual(['kafka-2:9092', 'ECONNRESET'])
    const slow = toKafkaJSError(
      new TimeoutError('Produce v9 to broker 1 (kafka-1:9092) got no response within 30000 ms'),
    ) as ours.KafkaJSRequestTimeoutError
    expect([slow.name, slow.broker, slow.retriable]).toEqual(['KafkaJSRequestTimeoutError', 'kafka-1:9092', true])
    // KafkaJS's retrier names `e.cause || e`: a translated error's cause (wafka's original) is not KafkaJS's.
    const spent = await createRetrier({ retries: 1, initialRetryTime: 1, factor: 0 })(async () => {
      throw new ConnectionError('connection to broker 1 (kafka-1:9093) failed', { cause: refused })
    }).catch((e: Error) => e)
    expect(spent).toBeInstanceOf(ours.KafkaJSNumberOfRetriesExceeded)
    expect(spent.cause).toBeInstanceOf(ours.KafkaJSConnectionError)
    expect((spent.cause as ours.KafkaJSConnectionError).broker).toBe('10.0.0.7:9093')
  })

  it("retries on KafkaJS's schedule: the same attempts, retry times and final error as kafkajs's retrier", async () => {
    const run = async (retrier: <T>(fn: (bail: unknown, n: number, t: number) => Promise<T>) => Promise<T>, error: () => Error) => {
      const calls: Array<[number, number]> = []
      const e = await retrier(async (_bail, n, t) => {
        calls.push([n, t])
        throw error()
      }).catch((x: Error & { retryCount?: number }) => x)
      return {
        calls,
        name: (e as Error).name,
        retryCount: (e as { retryCount?: number }).retryCount,
        cause: ((e as { cause?: Error }).cause as Error)?.name,
      }
    }
    const options = { retries: 3, initialRetryTime: 10, factor: 0, multiplier: 2, maxRetryTime: 30 }
    const retriable = () => new kafkajs.KafkaJSConnectionError('down')
    const theirs = await run(kafkajsRetrier(options), retriable)
    const mine = await run(createRetrier(options), () => new ours.KafkaJSConnectionError('down'))
    expect(mine).toEqual(theirs)
    expect(mine.calls).toEqual([
      [0, 10],
      [1, 20],
      [2, 30],
      [3, 30],
    ])
    const fatal = await run(createRetrier(options), () => new ours.KafkaJSNonRetriableError('no'))
    expect(fatal).toEqual(await run(kafkajsRetrier(options), () => new kafkajs.KafkaJSNonRetriableError('no')))
    expect(fatal.calls).toHaveLength(1)
    // A wafka error is judged by its own retriability.
    const engine = await run(createRetrier(options), () => new ConfigError('bad'))
    expect([engine.calls.length, engine.name]).toEqual([1, 'KafkaJSNonRetriableError'])
  })

  it("AssignerProtocol writes and reads what kafkajs's does", () => {
    const meta = { version: 1, topics: ['a', 'b'], userData: Buffer.from('u') }
    expect(ours.AssignerProtocol.MemberMetadata.encode(meta)).toEqual(kafkajs.AssignerProtocol.MemberMetadata.encode(meta))
    expect(ours.AssignerProtocol.MemberMetadata.decode(kafkajs.AssignerProtocol.MemberMetadata.encode(meta))).toEqual(meta)
    const assignment = { version: 0, assignment: { a: [0, 2], b: [1] }, userData: Buffer.alloc(0) }
    const bytes = kafkajs.AssignerProtocol.MemberAssignment.encode(assignment)
    expect(ours.AssignerProtocol.MemberAssignment.encode(assignment)).toEqual(bytes)
    expect({ ...ours.AssignerProtocol.MemberAssignment.decode(bytes) }).toEqual({
      ...kafkajs.AssignerProtocol.MemberAssignment.decode(bytes),
    })
    expect(ours.AssignerProtocol.MemberAssignment.decode(Buffer.alloc(0))).toBeNull()
  })

  it("gives the engine KafkaJS's defaults, not the main entry's", () => {
    const k = engineKafkaConfig({ brokers: ['b:1'] }, ['b:1'])
    expect([k.clientId, k.connectTimeoutMs, k.requestTimeoutMs, k.logLevel, k.retryBackoffMs, k.retryBackoffMaxMs]).toEqual([
      'kafkajs',
      1000,
      30_000,
      4,
      300,
      30_000,
    ])
    expect(engineKafkaConfig({ brokers: [], enforceRequestTimeout: false }, []).requestTimeoutMs).toBe(2_147_483_647)
    const p = engineProducerConfig({}, { brokers: [] })
    expect([p.idempotent, p.lingerMs, p.partitioner]).toEqual([false, 0, 'kafkajs-default'])
    expect(engineProducerConfig({ transactionalId: 't' }, { brokers: [] }).idempotent).toBe(true)
    const c = engineConsumerConfig({ groupId: 'g' }, { brokers: [] }, silentLogger)
    expect([
      c.isolationLevel,
      c.maxWaitTimeInMs,
      c.maxBytes,
      c.sessionTimeoutMs,
      c.rebalanceTimeoutMs,
      c.heartbeatIntervalMs,
      c.autoOffsetReset,
    ]).toEqual(['read_committed', 5000, 10_485_760, 30_000, 60_000, 3000, 'latest'])
    // No poll deadline: a slow handler is never made to leave (the int32 maximum, ~24.8 days).
    expect(c.maxPollIntervalMs).toBe(2_147_483_647)
    expect((c.partitionAssigners as Array<{ name: string }>).map((a) => a.name)).toEqual(['RoundRobinAssigner'])
    expect(engineConsumerConfig({ groupId: 'g', readUncommitted: true }, { brokers: [] }, silentLogger).isolationLevel).toBe(
      'read_uncommitted',
    )
  })

  it('KAFKAJS_LOG_LEVEL wins over the logLevel option, as in KafkaJS', () => {
    const before = process.env.KAFKAJS_LOG_LEVEL
    process.env.KAFKAJS_LOG_LEVEL = 'debug'
    try {
      expect(engineKafkaConfig({ brokers: [], logLevel: ours.logLevel.ERROR }, []).logLevel).toBe(ours.logLevel.DEBUG)
    } finally {
      if (before === undefined) delete process.env.KAFKAJS_LOG_LEVEL
      else process.env.KAFKAJS_LOG_LEVEL = before
    }
    expect(engineKafkaConfig({ brokers: [], logLevel: ours.logLevel.ERROR }, []).logLevel).toBe(ours.logLevel.ERROR)
  })

  it('refuses what KafkaJS refuses when a client is made', () => {
    const kafka = new ours.Kafka({ brokers: ['127.0.0.1:1'] })
    expect(() => kafka.consumer({ groupId: '' })).toThrow(ours.KafkaJSNonRetriableError)
    expect(() => kafka.consumer({ groupId: 'g', sessionTimeout: 100, heartbeatInterval: 100 })).toThrow(/heartbeatInterval/)
    // No brokers is not refused here: KafkaJS refuses it when a client connects (test/config/brokers-and-tls.test.ts).
    expect(() => new ours.Kafka({} as never)).not.toThrow()
    expect(() => kafka.producer().on('producer.nope', () => {})).toThrow(ours.KafkaJSNonRetriableError)
  })
})

describe("the engine's request events as KafkaJS's network events", () => {
  it('timeout, queueSize and request reach REQUEST_TIMEOUT, REQUEST_QUEUE_SIZE and REQUEST with the fields KafkaJS 2.2.4 emits, nothing when no one listens', async () => {
    const { Instrumentation, ProducerEvents } = await import('../../src/kafkajs/events.js')
    const events = new Instrumentation('producer', ProducerEvents)
    const tell = events.requests(ProducerEvents)
    const got: Array<{ type: string; payload: Record<string, unknown> }> = []
    const timing = {
      broker: 'b:1',
      clientId: 'c',
      correlationId: 7,
      apiName: 'Produce',
      apiKey: 0,
      apiVersion: 9,
      createdAt: 1,
      sentAt: 3,
      pendingDuration: 2,
    }
    tell({ type: 'timeout', ...timing })
    events.on(ProducerEvents.REQUEST_TIMEOUT, (e) => void got.push(e))
    events.on(ProducerEvents.REQUEST_QUEUE_SIZE, (e) => void got.push(e))
    events.on(ProducerEvents.REQUEST, (e) => void got.push(e))
    tell({ type: 'timeout', ...timing })
    tell({ type: 'queueSize', broker: 'b:1', clientId: 'c', queueSize: 2 })
    tell({ type: 'request', ...timing, size: 10, duration: 4, throttleTimeMs: 250 })
    await new Promise((r) => setTimeout(r, 0))
    // KafkaJS's socketRequest.timeoutRequest() and completed() and requestQueue's queue-size event carry exactly these
    // (not the throttle time, which KafkaJS's REQUEST lacks).
    expect(got.map((e) => [e.type, Object.keys(e.payload).sort()])).toEqual([
      [
        'producer.network.request_timeout',
        ['apiKey', 'apiName', 'apiVersion', 'broker', 'clientId', 'correlationId', 'createdAt', 'pendingDuration', 'sentAt'],
      ],
      ['producer.network.request_queue_size', ['broker', 'clientId', 'queueSize']],
      [
        'producer.network.request',
        [
          'apiKey',
          'apiName',
          'apiVersion',
          'broker',
          'clientId',
          'correlationId',
          'createdAt',
          'duration',
          'pendingDuration',
          'sentAt',
          'size',
        ],
      ],
    ])
    expect(got[1].payload.queueSize).toBe(2)
  })
})
