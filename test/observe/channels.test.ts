// The diagnostics_channel tracing channels (src/observe/channels.ts; the
// README's Observability section), subscribed to as an APM tool does, by
// name, against the embedded broker: each channel's payload and the order of
// its events (start, end, then asyncStart and asyncEnd, with error before
// them on a failure). Also run against the built package (built-esm,
// built-cjs): channels are global by name, so the test sees dist's.
import * as dc from 'node:diagnostics_channel'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ErrorCodes, Kafka, channelNames, logLevel, type KafkaMessage } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from '../consumer/support.js'

const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const
type EventName = (typeof EVENTS)[number]

/** Every event of one channel, in order, with its context object. */
function watch<C extends object = any>(name: string) {
  const seen: Array<{ event: EventName; context: C; error?: unknown }> = []
  const channel = dc.tracingChannel(name)
  const handlers = Object.fromEntries(
    EVENTS.map((event) => [event, (context: C) => seen.push({ event, context, error: (context as { error?: unknown }).error })]),
  ) as unknown as dc.TracingChannelSubscribers<C>
  channel.subscribe(handlers)
  const contexts = () => [...new Set(seen.map((s) => s.context))]
  return {
    seen,
    contexts,
    /** The contexts whose work has settled (asyncEnd published). */
    settled: () => seen.filter((s) => s.event === 'asyncEnd').map((s) => s.context),
    order: (context: C) => seen.filter((s) => s.context === context).map((s) => s.event),
    stop: () => channel.unsubscribe(handlers),
  }
}
type Watch = ReturnType<typeof watch>

const OK = ['start', 'end', 'asyncStart', 'asyncEnd']
const FAILED = ['start', 'end', 'error', 'asyncStart', 'asyncEnd']

describe('tracing channels', () => {
  let cluster: RunningCluster
  let kafka: Kafka
  const watches: Watch[] = []
  const subscribe = <C extends object = any>(name: string) => {
    const w = watch<C>(name)
    watches.push(w)
    return w
  }

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0, autoCreateTopics: false } as never)
    kafka = new Kafka({ clientId: 'channels', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: ['sent', 'failed', 'consumed', 'batches', 'kip848'].map((topic) => ({ topic, numPartitions: 1 })),
    })
    await admin.disconnect()
  })
  afterEach(() => {
    for (const w of watches.splice(0)) w.stop()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('names every channel under wafka:', () => {
    expect(channelNames).toEqual({
      request: 'wafka:request',
      send: 'wafka:producer:send',
      produce: 'wafka:producer:produce',
      process: 'wafka:consumer:process',
      batch: 'wafka:consumer:batch',
      commit: 'wafka:consumer:commit',
      rebalance: 'wafka:consumer:rebalance',
    })
  })

  it('a send: the send, its Produce request and the request to the broker', async () => {
    const producer = kafka.producer()
    await producer.connect()
    const send = subscribe(channelNames.send)
    const produce = subscribe(channelNames.produce)
    const request = subscribe(channelNames.request)
    const messages = [{ key: 'k', value: 'v' }]
    const result = await producer.send({ topic: 'sent', messages })
    await producer.disconnect()

    expect(send.contexts()).toHaveLength(1)
    const s = send.contexts()[0]
    expect(send.order(s)).toEqual(OK)
    expect(s.topicMessages).toEqual([{ topic: 'sent', messages }])
    expect(s.topicMessages[0].messages[0]).toBe(messages[0]) // the caller's own objects
    expect(s.transactionalId).toBe(null)
    expect(s.result).toBe(result)

    expect(produce.contexts()).toHaveLength(1)
    const p = produce.contexts()[0]
    expect(produce.order(p)).toEqual(OK)
    expect(p).toMatchObject({ nodeId: 0, acks: -1, batches: [{ topic: 'sent', partition: 0, records: 1 }] })
    expect(p.batches[0].bytes).toBeGreaterThan(0)
    expect(p.error).toBeUndefined()

    const produces = request.contexts().filter((c) => c.apiName === 'Produce')
    expect(produces).toHaveLength(1)
    const r = produces[0]
    expect(request.order(r)).toEqual(OK)
    const [host, port] = cluster.bootstrapServers.split(',')[0].split(':')
    expect(r).toMatchObject({ apiKey: 0, broker: `${host}:${port}`, nodeId: 0, clientId: 'channels', throttleTimeMs: 0 })
    expect(r.apiVersion).toBeGreaterThanOrEqual(3)
    expect(r.correlationId).toBeGreaterThan(0)
    expect(r.requestSize).toBeGreaterThan(0)
    expect(r.size).toBeGreaterThan(0)
    expect(r.duration).toBeGreaterThanOrEqual(0)
    expect(r.sentAt).toBeGreaterThanOrEqual(r.createdAt)
    expect(r.result).toMatchObject({ responses: [{ partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 0n }] }] })
    // The producer's other requests are there too (the data connection's negotiation), each settled.
    expect(request.contexts().map((c) => c.apiName)).toContain('ApiVersions')
    for (const c of request.contexts()) expect(request.order(c)).toEqual(OK)
  })

  it('a failed send: error before asyncStart, on the send and on its Produce request', async () => {
    const producer = kafka.producer({ idempotent: false })
    await producer.connect()
    const send = subscribe(channelNames.send)
    const produce = subscribe(channelNames.produce)
    cluster.injectError(0, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
    const failure = await producer.send({ topic: 'failed', messages: [{ value: 'x' }] }).catch((err) => err)
    await producer.disconnect()

    expect(failure).toBeInstanceOf(Error)
    const s = send.contexts()[0]
    expect(send.order(s)).toEqual(FAILED)
    expect(s.error).toBe(failure)
    expect(send.seen.find((e) => e.event === 'error')!.error).toBe(failure)

    const p = produce.contexts()[0]
    expect(produce.order(p)).toEqual(FAILED)
    expect((p.error as { code?: number }).code).toBe(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
  })

  it('a request that fails: the error on wafka:request', async () => {
    const admin = kafka.admin({ requestTimeoutMs: 200 } as never)
    await admin.connect()
    const request = subscribe(channelNames.request)
    cluster.addLatency(1000)
    let listed: Promise<unknown> | undefined
    try {
      listed = admin.listTopics().catch(() => {})
      await until(
        () => request.seen.some((e) => e.event === 'error'),
        5000,
        () => 'no request failed',
      )
    } finally {
      cluster.addLatency(0)
    }
    await listed
    await admin.disconnect()
    const failed = request.seen.find((e) => e.event === 'error')!.context
    expect(request.order(failed)).toEqual(FAILED)
    expect(failed.apiName).toBe('Metadata')
    expect((failed.error as Error).name).toBe('TimeoutError')
    expect(failed.duration).toBeGreaterThanOrEqual(150)
  })

  it('a consumed message, its commit and the rebalance that assigned it (classic group); start can add headers', async () => {
    const send = subscribe(channelNames.send)
    // As a tracer does: a header added in the send's start reaches the consumer.
    const injected = dc.tracingChannel(channelNames.send)
    const inject = {
      start: (c: any) => {
        for (const { messages } of c.topicMessages) for (const m of messages) m.headers = { ...m.headers, traceparent: 'tp-1' }
      },
    }
    injected.subscribe(inject as never)
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'consumed', messages: [{ key: 'a', value: 'first' }] })
    await producer.send({ topic: 'consumed', messages: [{ key: 'b', value: 'second', headers: { own: 'h' } }] })
    await producer.disconnect()
    injected.unsubscribe(inject as never)
    expect(send.contexts()).toHaveLength(2)

    const process = subscribe(channelNames.process)
    const commit = subscribe(channelNames.commit)
    const rebalance = subscribe(channelNames.rebalance)
    const consumer = kafka.consumer({ groupId: 'channels-classic', autoOffsetReset: 'earliest', heartbeatIntervalMs: 100 })
    await consumer.connect()
    await consumer.subscribe({ topics: ['consumed'] })
    const handled: KafkaMessage[] = []
    let failOnce = true
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
        if (String(message.value) === 'second' && failOnce) {
          failOnce = false
          throw new Error('handler failed once')
        }
        handled.push(message)
      },
    })
    await until(
      () => handled.length >= 2,
      10_000,
      () => `${handled.length} of 2 handled`,
    )
    await consumer.commitOffsets([{ topic: 'consumed', partition: 0, offset: '2' }])
    await consumer.disconnect()

    // Three calls: first, second (threw), second again.
    const calls = process.contexts()
    expect(calls.map((c) => String(c.message.value))).toEqual(['first', 'second', 'second'])
    expect(process.order(calls[0])).toEqual(OK)
    expect(process.order(calls[1])).toEqual(FAILED)
    expect((calls[1].error as Error).message).toBe('handler failed once')
    expect(process.order(calls[2])).toEqual(OK)
    expect(calls[0]).toMatchObject({ groupId: 'channels-classic', topic: 'consumed', partition: 0 })
    expect(calls[0].message.offset).toBe('0')
    expect(calls[0].message).toBe(handled[0])
    expect(String(calls[0].message.headers.traceparent)).toBe('tp-1')
    expect(String(calls[2].message.headers.own)).toBe('h')
    expect(String(calls[2].message.headers.traceparent)).toBe('tp-1')

    const commits = commit.contexts()
    const mine = commits.find((c) => c.offsets.some((o: any) => o.offset === '2'))!
    expect(commit.order(mine)).toEqual(OK)
    expect(mine).toMatchObject({ groupId: 'channels-classic', offsets: [{ topic: 'consumed', partition: 0, offset: '2' }] })
    expect(mine.memberId).toMatch(/.+/)

    const first = rebalance.contexts()[0]
    expect(rebalance.order(first)).toEqual(OK)
    expect(first).toMatchObject({
      groupId: 'channels-classic',
      protocol: 'classic',
      isLeader: true,
      assigned: [{ topic: 'consumed', partition: 0 }],
      revoked: [],
    })
    expect(first.generationId).toBeGreaterThanOrEqual(1)
    expect(first.memberId).toMatch(/.+/)
    expect(typeof first.reason).toBe('string')
  })

  it('a batch handed to eachBatch', async () => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'batches', messages: [{ value: 'a' }, { value: 'b' }] })
    await producer.disconnect()
    const batch = subscribe(channelNames.batch)
    const consumer = kafka.consumer({ groupId: 'channels-batch', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['batches'] })
    let count = 0
    await consumer.run({ eachBatch: async ({ batch: b }) => void (count += b.messages.length) })
    await until(
      () => count >= 2 && batch.settled().length >= 1,
      10_000,
      () => `${count} of 2`,
    )
    await consumer.disconnect()
    const b = batch.contexts()[0]
    expect(batch.order(b)).toEqual(OK)
    expect(b).toMatchObject({ groupId: 'channels-batch', topic: 'batches', partition: 0, highWatermark: '2' })
    expect(b.messages.map((m: KafkaMessage) => String(m.value))).toEqual(['a', 'b'])
  })

  it('an assignment change of a KIP-848 group', async () => {
    const rebalance = subscribe(channelNames.rebalance)
    const consumer = kafka.consumer({ groupId: 'channels-848', groupProtocol: 'consumer', autoOffsetReset: 'earliest' } as never)
    await consumer.connect()
    await consumer.subscribe({ topics: ['kip848'] })
    await consumer.run({ eachMessage: async () => {} })
    await until(
      () => rebalance.settled().length >= 1,
      10_000,
      () => 'no assignment',
    )
    await consumer.disconnect()
    const [assigned, ...rest] = rebalance.contexts()
    expect(rebalance.order(assigned)).toEqual(OK)
    expect(assigned).toMatchObject({
      groupId: 'channels-848',
      protocol: 'consumer',
      assigned: [{ topic: 'kip848', partition: 0 }],
      revoked: [],
    })
    expect(assigned.memberEpoch).toBeGreaterThanOrEqual(1)
    // Leaving gives the partition up: that is an assignment change too, or none is traced (the leave revokes directly).
    for (const c of rest) expect(rebalance.order(c)).toEqual(OK)
  })
})
