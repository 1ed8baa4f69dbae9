// wafka/otel with the real OpenTelemetry SDK (sdk-trace-base's in-memory
// exporter, the W3C propagator, the AsyncLocalStorage context manager)
// against the embedded broker: a send and the consumer's processing of it are
// one trace (the process span a child of the send span, through the
// traceparent header), a span the handler starts is a child of the process
// span, baggage and tracestate reach the handler through the headers,
// eachBatch gets a poll span over a process span per message linked to its
// producer's, and a failed send is an error span; metrics count what was sent
// and consumed, the lag gauge is the high watermark minus the committed
// offset, the buffer gauges each producer's bufferMemory use.
import { SpanKind, SpanStatusCode, context, metrics, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { CompositePropagator, TraceState, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import { MeterProvider, MetricReader, type DataPoint } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ErrorCodes, Kafka, logLevel } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { instrument, type WafkaInstrumentation } from '../../src/public/otel.js'
import * as KafkaJS from '../../src/kafkajs/index.js'
import { until } from '../consumer/support.js'

/** Collects on demand (MetricReader is abstract only in its flush and shutdown). */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** `until` for a condition that awaits. */
async function eventually(done: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const parentOf = (s: ReadableSpan) =>
  (s as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ??
  (s as unknown as { parentSpanId?: string }).parentSpanId

describe('wafka/otel', () => {
  let cluster: RunningCluster
  let kafka: Kafka
  let instrumentation: WafkaInstrumentation
  const exporter = new InMemorySpanExporter()
  const reader = new TestReader()
  /** Waits until a span named `name` has ended (the ended spans' names said otherwise). */
  const untilSpan = (name: string) =>
    until(
      () => exporter.getFinishedSpans().some((s) => s.name === name),
      10_000,
      () =>
        exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .join(', '),
    )
  /** The data points of one metric whose attributes include `where`. */
  const points = async (name: string, where: Record<string, unknown>) => {
    const { resourceMetrics } = await reader.collect()
    const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)
    return ((metric?.dataPoints ?? []) as DataPoint<unknown>[]).filter((p) =>
      Object.entries(where).every(([k, v]) => p.attributes[k] === v),
    )
  }
  const tracer = () => trace.getTracer('test')

  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    // As the Node SDK registers by default: the W3C trace context and baggage.
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }))
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
    instrumentation = instrument()
    cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
    kafka = new Kafka({ clientId: 'otel', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: ['traced', 'traced-baggage', 'traced-batch', 'traced-failed', 'traced-kafkajs', 'metered', 'lagged'].map((topic) => ({
        topic,
        numPartitions: 1,
      })),
    })
    await admin.disconnect()
  })
  beforeEach(() => exporter.reset())
  afterAll(async () => {
    instrumentation?.disable()
    trace.disable()
    metrics.disable()
    context.disable()
    propagation.disable()
    await cluster?.stop()
  })

  it('a send and its processing are one trace: send <topic> (PRODUCER) parent of process <topic> (CONSUMER)', async () => {
    const producer = kafka.producer()
    await producer.connect()
    await tracer().startActiveSpan('request', async (request) => {
      await producer.send({ topic: 'traced', messages: [{ key: 'k1', value: 'v1', headers: { own: 'h' } }] })
      request.end()
    })
    await producer.disconnect()

    const consumer = kafka.consumer({ groupId: 'otel-group', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['traced'] })
    const headers: string[][] = []
    await consumer.run({
      eachMessage: async ({ message }) => {
        headers.push(Object.keys(message.headers ?? {}))
        tracer().startSpan('handler work').end()
      },
    })
    await untilSpan('process traced')
    await consumer.disconnect()

    const spans = exporter.getFinishedSpans()
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name)
      expect(found, name).toHaveLength(1)
      return found[0]
    }
    const request = one('request')
    const send = one('send traced')
    const processed = one('process traced')
    const work = one('handler work')

    expect(send.kind).toBe(SpanKind.PRODUCER)
    expect(send.spanContext().traceId).toBe(request.spanContext().traceId)
    expect(parentOf(send)).toBe(request.spanContext().spanId)
    expect(send.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.name': 'send',
      'messaging.destination.name': 'traced',
      'messaging.kafka.message.key': 'k1',
    })

    expect(processed.kind).toBe(SpanKind.CONSUMER)
    expect(processed.spanContext().traceId).toBe(send.spanContext().traceId)
    expect(parentOf(processed)).toBe(send.spanContext().spanId)
    expect(processed.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'traced',
      'messaging.kafka.destination.partition': 0,
      'messaging.kafka.offset': '0',
      'messaging.kafka.message.key': 'k1',
      'messaging.consumer.group.name': 'otel-group',
    })
    // The handler runs inside the process span.
    expect(parentOf(work)).toBe(processed.spanContext().spanId)
    // The W3C header went beside the message's own.
    expect(headers[0].sort()).toEqual(['own', 'traceparent'])
  })

  it('baggage and tracestate travel in the headers, through the configured propagator, to the handler', async () => {
    const producer = kafka.producer()
    await producer.connect()
    const withBaggage = propagation.setBaggage(context.active(), propagation.createBaggage({ tenant: { value: 'acme' } }))
    // A parent whose span context carries a tracestate: the send span inherits it, the header carries it.
    const parent = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      traceState: new TraceState('vendor=value'),
    })
    await context.with(trace.setSpan(withBaggage, parent), () => producer.send({ topic: 'traced-baggage', messages: [{ value: 'v' }] }))
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'otel-baggage', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['traced-baggage'] })
    let seen: { tenant?: string; headers: Record<string, string>; traceState?: string } | undefined
    await consumer.run({
      eachMessage: async ({ message }) => {
        const active = context.active()
        seen = {
          tenant: propagation.getBaggage(active)?.getEntry('tenant')?.value,
          headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
          traceState: trace.getSpanContext(active)?.traceState?.serialize(),
        }
      },
    })
    await untilSpan('process traced-baggage')
    await consumer.disconnect()
    expect(seen?.headers).toMatchObject({ baggage: 'tenant=acme', tracestate: 'vendor=value' })
    expect(seen?.headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/)
    expect(seen?.tenant).toBe('acme')
    expect(seen?.traceState).toBe('vendor=value')
  })

  it('eachBatch: poll <topic> (CLIENT) over a process <topic> span per message, each linked to its producer span', async () => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'traced-batch', messages: [{ value: 'a' }, { key: 'gone', value: null }] })
    await producer.disconnect()
    const sends = exporter.getFinishedSpans().filter((s) => s.name === 'send traced-batch')
    expect(sends).toHaveLength(2)

    const consumer = kafka.consumer({ groupId: 'otel-batch', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['traced-batch'] })
    await consumer.run({ eachBatch: async () => tracer().startSpan('batch work').end() })
    await untilSpan('poll traced-batch')
    await consumer.disconnect()
    const spans = exporter.getFinishedSpans()
    const polls = spans.filter((s) => s.name === 'poll traced-batch')
    expect(polls).toHaveLength(1)
    const poll = polls[0]
    expect(poll.kind).toBe(SpanKind.CLIENT)
    // Its own trace: not the producer's, not whatever context consumer.run() was called in.
    expect(parentOf(poll)).toBeUndefined()
    expect(poll.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'poll',
      'messaging.destination.name': 'traced-batch',
      'messaging.destination.partition.id': '0',
      'messaging.batch.message_count': 2,
      'messaging.consumer.group.name': 'otel-batch',
    })
    const processed = spans.filter((s) => s.name === 'process traced-batch')
    expect(processed.map((s) => s.attributes['messaging.kafka.offset']).sort()).toEqual(['0', '1'])
    for (const p of processed) {
      expect(p.kind).toBe(SpanKind.CONSUMER)
      expect(p.spanContext().traceId).toBe(poll.spanContext().traceId)
      expect(parentOf(p)).toBe(poll.spanContext().spanId)
      expect(p.links).toHaveLength(1)
      expect(p.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'messaging.consumer.group.name': 'otel-batch' })
    }
    // Each process span links to its own message's send span (offset 0 is 'a', sent first).
    const byOffset = (o: string) => processed.find((s) => s.attributes['messaging.kafka.offset'] === o)!
    const sendOf = (value: boolean) => sends.find((s) => (s.attributes['messaging.kafka.message.tombstone'] === true) === value)!
    expect(byOffset('0').links[0].context.spanId).toBe(sendOf(false).spanContext().spanId)
    expect(byOffset('1').links[0].context.spanId).toBe(sendOf(true).spanContext().spanId)
    expect(byOffset('1').attributes).toMatchObject({ 'messaging.kafka.message.key': 'gone', 'messaging.kafka.message.tombstone': true })
    expect(byOffset('0').attributes['messaging.kafka.message.tombstone']).toBeUndefined()
    // The handler runs inside the poll span.
    const work = spans.find((s) => s.name === 'batch work')!
    expect(parentOf(work)).toBe(poll.spanContext().spanId)
    // Metrics: the batch's messages consumed, its call one handler duration.
    const batchGroup = { 'messaging.destination.name': 'traced-batch', 'messaging.consumer.group.name': 'otel-batch' }
    const consumed = await points('messaging.client.consumed.messages', { ...batchGroup, 'messaging.operation.name': 'process' })
    expect(consumed.reduce((n, p) => n + (p.value as number), 0)).toBe(2)
    const durations = await points('messaging.process.duration', batchGroup)
    expect(durations.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(1)
  })

  it('the KafkaJS drop-in (wafka/kafkajs) gets the same spans: one trace from its producer to its consumer', async () => {
    const dropIn = new KafkaJS.Kafka({
      clientId: 'otel-kafkajs',
      brokers: cluster.bootstrapServers.split(','),
      logLevel: KafkaJS.logLevel.NOTHING,
    })
    const producer = dropIn.producer()
    await producer.connect()
    await producer.send({ topic: 'traced-kafkajs', messages: [{ key: 'k', value: 'v' }] })
    await producer.disconnect()
    const consumer = dropIn.consumer({ groupId: 'otel-kafkajs' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'traced-kafkajs', fromBeginning: true })
    await consumer.run({ eachMessage: async () => tracer().startSpan('kafkajs handler').end() })
    await untilSpan('kafkajs handler')
    await consumer.disconnect()
    const spans = exporter.getFinishedSpans()
    const send = spans.find((s) => s.name === 'send traced-kafkajs')!
    const processed = spans.find((s) => s.name === 'process traced-kafkajs')!
    const work = spans.find((s) => s.name === 'kafkajs handler')!
    expect(send.kind).toBe(SpanKind.PRODUCER)
    expect(processed.kind).toBe(SpanKind.CONSUMER)
    expect(parentOf(processed)).toBe(send.spanContext().spanId)
    expect(parentOf(work)).toBe(processed.spanContext().spanId)
  })

  it('metrics: messages sent and consumed, send and handler durations', async () => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'metered', messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] })
    await producer.send({ topic: 'metered', messages: [{ value: 'd' }, { value: 'e' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'otel-metered', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['metered'] })
    let handled = 0
    await consumer.run({ eachMessage: async () => void handled++ })
    await until(
      () => handled >= 5,
      10_000,
      () => `${handled} of 5`,
    )
    await consumer.disconnect()

    const topic = { 'messaging.destination.name': 'metered', 'messaging.system': 'kafka' }
    const sum = (list: DataPoint<unknown>[]) => list.reduce((n, p) => n + (p.value as number), 0)
    expect(sum(await points('messaging.client.sent.messages', { ...topic, 'messaging.operation.name': 'send' }))).toBe(5)
    const consumed = await points('messaging.client.consumed.messages', { ...topic, 'messaging.consumer.group.name': 'otel-metered' })
    expect(sum(consumed)).toBe(5)
    const sends = await points('messaging.client.operation.duration', topic)
    expect(sends.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(2)
    const handlers = await points('messaging.process.duration', { ...topic, 'messaging.operation.name': 'process' })
    expect(handlers.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(5)
  })

  it('gauges: consumer lag per partition is the high watermark minus the consumed position (the committed one, once committed); producer buffer use', async () => {
    const producer = kafka.producer({ lingerMs: 60_000, bufferMemory: 1 << 20 })
    await producer.connect()
    // Held by the linger: the buffer gauge sees the records before they are acknowledged.
    const sending = producer.send({ topic: 'lagged', messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}` })) })
    const buffered = async (name: string) => (await points(name, { 'messaging.client.id': 'otel' })).map((p) => p.value)
    await eventually(
      async () => ((await buffered('wafka.producer.buffer.used'))[0] as number) > 0,
      5_000,
      () => 'nothing buffered',
    )
    expect(await buffered('wafka.producer.buffer.limit')).toEqual([1 << 20])
    // Each producer is its own series, by messaging.client.id.
    const other = new Kafka({ clientId: 'otel-other', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING }).producer({
      bufferMemory: 1 << 21,
    })
    await other.connect()
    const limits = await points('wafka.producer.buffer.limit', {})
    expect(Object.fromEntries(limits.map((p) => [p.attributes['messaging.client.id'], p.value]))).toEqual({
      otel: 1 << 20,
      'otel-other': 1 << 21,
    })
    await other.disconnect()
    await producer.flush()
    await sending
    expect((await points('wafka.producer.buffer.used', { 'messaging.client.id': 'otel' })).map((p) => p.value)).toEqual([0])
    await producer.disconnect()

    const consumer = kafka.consumer({ groupId: 'otel-lagged', autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['lagged'] })
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let handled = 0
    // Offsets 0-3 are processed, then the handler holds offset 4: the position is 4, the high watermark 10.
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.offset === '4') await held
        handled++
      },
    })
    const lagged = { 'messaging.destination.name': 'lagged', 'messaging.consumer.group.name': 'otel-lagged' }
    await eventually(
      async () => handled === 4 && (await points('wafka.consumer.lag', lagged)).length === 1,
      10_000,
      () => `${handled} handled`,
    )
    const [stats] = consumer.statistics().partitions
    expect(stats).toMatchObject({ topic: 'lagged', partition: 0, highWatermark: '10', position: '4', lag: 6 })
    // The position committed, the gauge is the high watermark minus the committed offset, as a lag dashboard reads it.
    await consumer.commitOffsets([{ topic: 'lagged', partition: 0, offset: '4' }])
    const committed = async () => {
      const admin = kafka.admin()
      await admin.connect()
      const [topic] = await admin.fetchOffsets({ groupId: 'otel-lagged', topics: ['lagged'] })
      await admin.disconnect()
      return Number(topic.partitions[0].offset)
    }
    expect(await committed()).toBe(4)
    expect((await points('wafka.consumer.lag', lagged)).map((p) => p.value)).toEqual([10 - 4])
    release()
    await until(
      () => handled === 10,
      10_000,
      () => `${handled} of 10`,
    )
    await eventually(
      async () => (await points('wafka.consumer.lag', lagged)).map((p) => p.value)[0] === 0,
      10_000,
      () => 'lag not 0 after all were consumed',
    )
    await consumer.commitOffsets([{ topic: 'lagged', partition: 0, offset: '10' }])
    expect(10 - (await committed())).toBe((await points('wafka.consumer.lag', lagged)).map((p) => p.value)[0])
    const sum = (list: DataPoint<unknown>[]) => list.reduce((n, p) => n + (p.value as number), 0)
    expect(sum(await points('messaging.client.consumed.messages', lagged))).toBe(10)
    expect(sum(await points('messaging.client.sent.messages', { 'messaging.destination.name': 'lagged' }))).toBe(10)
    await consumer.disconnect()
  })

  it('a failed send is an error span', async () => {
    const producer = kafka.producer({ idempotent: false })
    await producer.connect()
    cluster.injectError(0, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
    const failure = await producer.send({ topic: 'traced-failed', messages: [{ value: 'x' }] }).catch((err) => err)
    await producer.disconnect()
    expect(failure).toBeInstanceOf(Error)
    const send = exporter.getFinishedSpans().find((s) => s.name === 'send traced-failed')!
    expect(send.status.code).toBe(SpanStatusCode.ERROR)
    expect(send.attributes['error.type']).toBe(failure.name)
    expect(send.events.map((e) => e.name)).toContain('exception')
    const counted = await points('messaging.client.sent.messages', {
      'messaging.destination.name': 'traced-failed',
      'error.type': failure.name,
    })
    expect(counted.map((p) => p.value)).toEqual([1])
  })
})
