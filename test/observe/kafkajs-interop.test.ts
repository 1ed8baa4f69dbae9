// wafka/otel beside @opentelemetry/instrumentation-kafkajs (the instrumentation
// KafkaJS users run), on Apache Kafka 4.4 and on the embedded broker, with one
// tracer provider: a real KafkaJS producer's send span is the parent of a
// wafka consumer's process span, a wafka producer's send span the parent of a
// real KafkaJS consumer's process span (the same W3C traceparent header both
// ways), and
// the KafkaJS drop-in (wafka/kafkajs) under wafka/otel gives the spans
// instrumentation-kafkajs gives real KafkaJS on the same workload, through
// eachMessage and through eachBatch: the same names, kinds, attributes and
// their values, parents and links (wafka adds the group and the two
// older-convention keys the README lists).
import { createRequire } from 'node:module'
import { SpanKind, context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Kafka, logLevel } from '../../src/index.js'
import { instrument, type WafkaInstrumentation } from '../../src/public/otel.js'
import * as DropIn from '../../src/kafkajs/index.js'
import { until } from '../consumer/support.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const parentOf = (s: ReadableSpan) =>
  (s as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ??
  (s as unknown as { parentSpanId?: string }).parentSpanId

/**
 * Keys wafka's spans carry beyond instrumentation-kafkajs' (README, Observability): the consumer group the conventions
 * ask for, and the older conventions' partition and offset.
 */
const WAFKA_ONLY = new Set(['messaging.consumer.group.name', 'messaging.kafka.destination.partition', 'messaging.kafka.message.offset'])

// One tracer provider, propagator and context manager for the file; instrumentation-kafkajs patches KafkaJS once.
const exporter = new InMemorySpanExporter()
let ours: WafkaInstrumentation
let theirs: KafkaJsInstrumentation
// Real KafkaJS, required after instrumentation-kafkajs is enabled so its hook patches it.
let RealKafkaJS: typeof import('kafkajs')
beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  theirs = new KafkaJsInstrumentation()
  theirs.enable()
  RealKafkaJS = createRequire(import.meta.url)('kafkajs')
  ours = instrument()
})
afterAll(() => {
  ours?.disable()
  theirs?.disable()
  trace.disable()
  context.disable()
  propagation.disable()
})

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`wafka/otel beside @opentelemetry/instrumentation-kafkajs on ${target.name}`, () => {
    let cluster: RunningTarget
    let brokers: string[]
    let wafka: Kafka

    beforeAll(async () => {
      cluster = await target.start()
      brokers = cluster.bootstrap.split(',')
      wafka = new Kafka({ clientId: 'interop', brokers, logLevel: logLevel.NOTHING })
      const admin = wafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: ['kafkajs-to-wafka', 'wafka-to-kafkajs', 'same-real', 'same-dropin', 'batch-real', 'batch-dropin'].map((topic) => ({
          topic,
          numPartitions: 1,
        })),
        waitForLeaders: true,
      })
      await admin.disconnect()
    }, 120_000)
    beforeEach(() => exporter.reset())
    afterAll(() => cluster?.stop())

    const realKafka = () => new RealKafkaJS.Kafka({ clientId: 'real', brokers, logLevel: RealKafkaJS.logLevel.NOTHING })
    const waitFor = (name: string) =>
      until(
        () => exporter.getFinishedSpans().some((s) => s.name === name),
        15_000,
        () =>
          exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', '),
      )
    const only = (name: string) => {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name)
      expect(found, name).toHaveLength(1)
      return found[0]
    }

    it('KafkaJS producer (instrumentation-kafkajs) -> wafka consumer (wafka/otel): one trace', async () => {
      const producer = realKafka().producer()
      await producer.connect()
      await producer.send({ topic: 'kafkajs-to-wafka', messages: [{ key: 'k', value: 'v' }] })
      await producer.disconnect()
      const consumer = wafka.consumer({ groupId: 'interop-wafka', autoOffsetReset: 'earliest' })
      await consumer.connect()
      await consumer.subscribe({ topics: ['kafkajs-to-wafka'] })
      await consumer.run({ eachMessage: async () => {} })
      await waitFor('process kafkajs-to-wafka')
      await consumer.disconnect()
      const send = only('send kafkajs-to-wafka')
      const processed = only('process kafkajs-to-wafka')
      expect(send.instrumentationScope.name).toContain('instrumentation-kafkajs')
      expect(processed.instrumentationScope.name).toBe('wafka')
      expect(processed.spanContext().traceId).toBe(send.spanContext().traceId)
      expect(parentOf(processed)).toBe(send.spanContext().spanId)
    })

    it('wafka producer (wafka/otel) -> KafkaJS consumer (instrumentation-kafkajs): one trace', async () => {
      const producer = wafka.producer()
      await producer.connect()
      await producer.send({ topic: 'wafka-to-kafkajs', messages: [{ key: 'k', value: 'v' }] })
      await producer.disconnect()
      const consumer = realKafka().consumer({ groupId: 'interop-real' })
      await consumer.connect()
      await consumer.subscribe({ topic: 'wafka-to-kafkajs', fromBeginning: true })
      await consumer.run({ eachMessage: async () => {} })
      await waitFor('process wafka-to-kafkajs')
      await consumer.disconnect()
      const send = only('send wafka-to-kafkajs')
      const processed = only('process wafka-to-kafkajs')
      expect(send.instrumentationScope.name).toBe('wafka')
      expect(processed.instrumentationScope.name).toContain('instrumentation-kafkajs')
      expect(processed.spanContext().traceId).toBe(send.spanContext().traceId)
      expect(parentOf(processed)).toBe(send.spanContext().spanId)
    })

    type Shape = { name: string; kind: SpanKind; attributes: Array<[string, unknown]>; parent: string | null; links: string[] }

    /**
     * One workload: a send of three messages (keyed, unkeyed, a keyed tombstone), then eachMessage or eachBatch over
     * them; the spans it gave: name, kind, attributes (the topic written T, the cluster id C), the parent's name and
     * the linked spans' names.
     */
    async function workload(
      lib: Pick<typeof import('kafkajs'), 'Kafka' | 'logLevel'> | typeof DropIn,
      topic: string,
      handler: 'eachMessage' | 'eachBatch',
    ): Promise<Shape[]> {
      exporter.reset()
      const kafka = new lib.Kafka({ clientId: 'workload', brokers, logLevel: lib.logLevel.NOTHING })
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic, messages: [{ key: 'k', value: 'a' }, { value: 'b' }, { key: 'gone', value: null }] })
      await producer.disconnect()
      const consumer = kafka.consumer({ groupId: `${topic}-group` })
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      let handled = 0
      if (handler === 'eachMessage') await consumer.run({ eachMessage: async () => void handled++ })
      else await consumer.run({ eachBatch: async ({ batch }) => void (handled += batch.messages.length) })
      await until(
        () => handled === 3 && exporter.getFinishedSpans().filter((s) => s.name.startsWith('process')).length === 3,
        15_000,
        () => `${handled} handled`,
      )
      await consumer.disconnect()
      const spans = exporter.getFinishedSpans()
      const nameOf = new Map(spans.map((s) => [s.spanContext().spanId, s.name.replace(topic, 'T')]))
      return spans
        .map((s) => ({
          name: s.name.replace(topic, 'T'),
          kind: s.kind,
          // instrumentation-kafkajs reads the cluster id from KafkaJS's metadata as a send starts: a first send has none yet.
          attributes: Object.entries(s.attributes)
            .filter(([k]) => !WAFKA_ONLY.has(k) && !(s.kind === SpanKind.PRODUCER && k === 'messaging.kafka.cluster.id'))
            .map(([k, v]): [string, unknown] => [
              k,
              k === 'messaging.destination.name' ? v === topic && 'T' : k === 'messaging.kafka.cluster.id' ? 'C' : v,
            ])
            .sort(([a], [b]) => a.localeCompare(b)),
          parent: nameOf.get(parentOf(s) ?? '') ?? null,
          links: s.links.map((l) => nameOf.get(l.context.spanId) ?? 'elsewhere'),
        }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    }

    it('the KafkaJS drop-in under wafka/otel gives the spans instrumentation-kafkajs gives real KafkaJS: eachMessage', async () => {
      const real = await workload(RealKafkaJS, 'same-real', 'eachMessage')
      const dropIn = await workload(DropIn, 'same-dropin', 'eachMessage')
      expect(real.map((s) => s.name)).toEqual(['process T', 'process T', 'process T', 'send T', 'send T', 'send T'])
      expect(dropIn).toEqual(real)
      const processed = real.filter((s) => s.name === 'process T')
      expect(processed.every((s) => s.kind === SpanKind.CONSUMER && s.parent === 'send T' && s.links.length === 0)).toBe(true)
      const tombstones = processed.filter((s) => s.attributes.some(([k, v]) => k === 'messaging.kafka.message.tombstone' && v === true))
      expect(tombstones).toHaveLength(1)
    })

    it('the KafkaJS drop-in under wafka/otel gives the spans instrumentation-kafkajs gives real KafkaJS: eachBatch', async () => {
      const real = await workload(RealKafkaJS, 'batch-real', 'eachBatch')
      const dropIn = await workload(DropIn, 'batch-dropin', 'eachBatch')
      // One poll span (CLIENT, a trace of its own) over a process span per message, each linked to its send span.
      expect(real.map((s) => s.name)).toEqual(['poll T', 'process T', 'process T', 'process T', 'send T', 'send T', 'send T'])
      expect(dropIn).toEqual(real)
      const poll = real.find((s) => s.name === 'poll T')!
      expect(poll).toMatchObject({ kind: SpanKind.CLIENT, parent: null, links: [] })
      expect(poll.attributes).toContainEqual(['messaging.batch.message_count', 3])
      const processed = real.filter((s) => s.name === 'process T')
      expect(processed.every((s) => s.kind === SpanKind.CONSUMER && s.parent === 'poll T' && s.links.join() === 'send T')).toBe(true)
    })
  })
