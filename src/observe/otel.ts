import * as dc from 'node:diagnostics_channel'
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  metrics,
  propagation,
  trace,
  type Attributes,
  type BatchObservableCallback,
  type Context,
  type Link,
  type MeterProvider,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type TracerProvider,
} from '@opentelemetry/api'
import { channelNames, clientChannelName } from './channel-names.js'
import type { ClientAnnouncement, StatisticsSource } from './statistics.js'
import type { BatchContext, ChannelMessage, ChannelSendMessage, ProcessContext, SendContext } from './channels.js'
import type { AsyncLocalStorage } from 'node:async_hooks'

export interface WafkaInstrumentationOptions {
  /** Default: the global tracer provider (`trace.setGlobalTracerProvider`, or what the SDK registered). */
  tracerProvider?: TracerProvider
  /** Default: the global meter provider (`metrics.setGlobalMeterProvider`, or what the SDK registered). */
  meterProvider?: MeterProvider
}

export interface WafkaInstrumentation {
  /** Unsubscribes from the channels: no span is started after. */
  disable(): void
}

/**
 * OpenTelemetry spans for wafka's clients (and the KafkaJS drop-in), by the
 * messaging semantic conventions, made from the tracing channels
 * (src/observe/channels.ts): `send <topic>` (PRODUCER) per message sent,
 * with its context injected into the message's headers by the configured
 * propagator (W3C `traceparent`, as @opentelemetry/instrumentation-kafkajs
 * writes it); `process <topic>` (CONSUMER) per message eachMessage handles,
 * a child of the context extracted from its headers. An eachBatch call gets
 * what @opentelemetry/instrumentation-kafkajs gives KafkaJS's: a
 * `poll <topic>` span (CLIENT, the conventions' receive operation, as their
 * Kafka example names it) and under it a `process <topic>` span per message,
 * linked to the message's producer span. Where the registered context
 * manager keeps its context in an AsyncLocalStorage (the Node SDK's), the
 * process span (eachMessage) or the poll span (eachBatch) is the active
 * context inside the handler, so its own spans are their children.
 *
 * Metrics by the same conventions: `messaging.client.sent.messages` and
 * `messaging.client.consumed.messages` (counters), `messaging.client.operation.duration`
 * (a send, from the call until its records are acknowledged) and
 * `messaging.process.duration` (an eachMessage or eachBatch call), in seconds.
 * The conventions name no lag or buffer metric, so the observable gauges,
 * read from each connected client's statistics() when collected, are
 * wafka's: `wafka.consumer.lag` (records behind the high watermark, per
 * partition), `wafka.producer.buffer.used` and `wafka.producer.buffer.limit`
 * (bytes of bufferMemory); they see clients that connect after instrument().
 */
export function instrument(options: WafkaInstrumentationOptions = {}): WafkaInstrumentation {
  if (typeof dc.tracingChannel !== 'function') return { disable() {} }
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer('wafka')
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter('wafka')
  const sentMessages = meter.createCounter('messaging.client.sent.messages', { unit: '{message}', description: 'Messages sent' })
  const consumedMessages = meter.createCounter('messaging.client.consumed.messages', {
    unit: '{message}',
    description: 'Messages handed to eachMessage or eachBatch',
  })
  const operationDuration = meter.createHistogram('messaging.client.operation.duration', {
    unit: 's',
    description: 'How long a send took, until its records were acknowledged',
  })
  const processDuration = meter.createHistogram('messaging.process.duration', { unit: 's', description: 'How long a handler took' })
  const lag = meter.createObservableGauge('wafka.consumer.lag', {
    unit: '{message}',
    description: 'Records behind the high watermark of the last fetch, per assigned partition',
  })
  const bufferUsed = meter.createObservableGauge('wafka.producer.buffer.used', {
    unit: 'By',
    description: 'Bytes of bufferMemory taken by records not yet acknowledged',
  })
  const bufferLimit = meter.createObservableGauge('wafka.producer.buffer.limit', { unit: 'By', description: 'The producer bufferMemory' })
  const spans = new WeakMap<object, Span[]>()
  const startedAt = new WeakMap<object, number>()
  const seconds = (ctx: object) => (performance.now() - (startedAt.get(ctx) ?? performance.now())) / 1000
  const undo: Array<() => void> = []

  const subscribe = <C extends object>(name: string, handlers: Partial<dc.TracingChannelSubscribers<C>>) => {
    const all = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {}, ...handlers } as dc.TracingChannelSubscribers<C>
    const channel = dc.tracingChannel<unknown, C>(name)
    channel.subscribe(all)
    undo.push(() => channel.unsubscribe(all))
    return channel
  }
  /** Ends a context's spans, marking them failed when it failed. */
  const finish = (ctx: { error?: unknown }) => {
    const list = spans.get(ctx)
    if (!list) return
    spans.delete(ctx)
    for (const span of list) {
      if (ctx.error !== undefined) failed(span, ctx.error)
      span.end()
    }
  }

  const sent = (ctx: SendContext) => {
    if (!spans.has(ctx)) return
    const error = errorType(ctx.error)
    const topics = new Set<string>()
    for (const { topic, messages } of ctx.topicMessages) {
      topics.add(topic)
      sentMessages.add(messages.length, withError({ ...SEND, 'messaging.destination.name': topic }, error))
    }
    const attributes: Attributes = topics.size === 1 ? { ...SEND, 'messaging.destination.name': [...topics][0] } : { ...SEND }
    operationDuration.record(seconds(ctx), withError(attributes, error))
    finish(ctx)
  }
  /**
   * A handler call ended: each message it was handed counts as consumed; the call is one process.duration (an
   * eachBatch call too: instrumentation-kafkajs records one per message of it, a histogram record a message that
   * would cost more than the message's span).
   */
  const handled = (ctx: ProcessContext | BatchContext, count: number) => {
    if (!spans.has(ctx)) return
    const attributes: Attributes = {
      'messaging.system': 'kafka',
      'messaging.operation.name': 'process',
      'messaging.destination.name': ctx.topic,
      'messaging.destination.partition.id': String(ctx.partition),
    }
    if (ctx.groupId !== null) attributes['messaging.consumer.group.name'] = ctx.groupId
    const error = errorType(ctx.error)
    consumedMessages.add(count, attributes)
    processDuration.record(seconds(ctx), withError(attributes, error))
    finish(ctx)
  }
  const processed = (ctx: ProcessContext) => handled(ctx, 1)
  const batched = (ctx: BatchContext) => handled(ctx, ctx.messages.length)

  subscribe<SendContext>(channelNames.send, {
    start(ctx) {
      const parent = context.active()
      const list: Span[] = []
      for (const { topic, messages } of ctx.topicMessages) {
        for (const m of messages) {
          const span = tracer.startSpan(
            `send ${topic}`,
            { kind: SpanKind.PRODUCER, attributes: sendAttributes(topic, m, ctx.clusterId) },
            parent,
          )
          propagation.inject(trace.setSpan(parent, span), m, headerSetter)
          list.push(span)
        }
      }
      spans.set(ctx, list)
      startedAt.set(ctx, performance.now())
    },
    // A send that failed synchronously has no asyncEnd.
    end: (ctx) => void (ctx.error !== undefined && sent(ctx)),
    asyncEnd: (ctx) => sent(ctx),
  })

  // The consumer's spans: opened by the store binding (before `start`, so the handler runs inside them) or by `start`.
  // A message's process span continues its producer's trace, or starts one: never the context consumer.run() was called in.
  const openProcess = (ctx: ProcessContext): Context => {
    const parent = extracted(ctx.message) ?? ROOT_CONTEXT
    const span = tracer.startSpan(
      `process ${ctx.topic}`,
      { kind: SpanKind.CONSUMER, attributes: processAttributes(ctx, ctx.message) },
      parent,
    )
    spans.set(ctx, [span])
    startedAt.set(ctx, performance.now())
    return trace.setSpan(parent, span)
  }
  // eachBatch, as instrumentation-kafkajs traces it for KafkaJS (the conventions' batch receive): a `poll <topic>`
  // span (CLIENT, operation type receive) starting its own trace, the handler running inside it, and under it a
  // `process <topic>` span (CONSUMER) per message, linked to that message's producer span; all end with the call.
  const openBatch = (ctx: BatchContext): Context => {
    const poll = tracer.startSpan(`poll ${ctx.topic}`, { kind: SpanKind.CLIENT, attributes: pollAttributes(ctx) }, ROOT_CONTEXT)
    const inPoll = trace.setSpan(context.active(), poll)
    const list = [poll]
    for (const m of ctx.messages) {
      const linked = extracted(m)
      const spanContext = linked && trace.getSpanContext(linked)
      const links: Link[] = spanContext ? [{ context: spanContext }] : []
      list.push(tracer.startSpan(`process ${ctx.topic}`, { kind: SpanKind.CONSUMER, attributes: processAttributes(ctx, m), links }, inPoll))
    }
    spans.set(ctx, list)
    startedAt.set(ctx, performance.now())
    return inPoll
  }
  const processing = subscribe<ProcessContext>(channelNames.process, {
    start: (ctx) => void (spans.has(ctx) || openProcess(ctx)),
    end: (ctx) => void (ctx.error !== undefined && processed(ctx)),
    asyncEnd: processed,
  })
  const batch = subscribe<BatchContext>(channelNames.batch, {
    start: (ctx) => void (spans.has(ctx) || openBatch(ctx)),
    end: (ctx) => void (ctx.error !== undefined && batched(ctx)),
    asyncEnd: batched,
  })
  // Connected clients, announced on `wafka:client`: the gauges read their statistics when collected.
  const sources = new Set<StatisticsSource>()
  const announced = (message: unknown) => {
    const { event, source } = message as ClientAnnouncement
    if (event === 'connect') sources.add(source)
    else sources.delete(source)
  }
  dc.subscribe(clientChannelName, announced)
  undo.push(() => dc.unsubscribe(clientChannelName, announced))
  const observe: BatchObservableCallback = (result) => {
    for (const source of sources) {
      const stats = source.statistics()
      const client: Attributes = stats.clientId !== null ? { 'messaging.client.id': stats.clientId } : {}
      if (stats.type === 'producer') {
        result.observe(bufferUsed, stats.bufferedBytes, { 'messaging.system': 'kafka', ...client })
        result.observe(bufferLimit, stats.bufferMemory, { 'messaging.system': 'kafka', ...client })
        continue
      }
      for (const p of stats.partitions) {
        if (p.lag === null) continue
        const attributes: Attributes = {
          'messaging.system': 'kafka',
          'messaging.destination.name': p.topic,
          'messaging.destination.partition.id': String(p.partition),
          ...client,
        }
        if (stats.groupId !== null) attributes['messaging.consumer.group.name'] = stats.groupId
        result.observe(lag, p.lag, attributes)
      }
    }
  }
  meter.addBatchObservableCallback(observe, [lag, bufferUsed, bufferLimit])
  undo.push(() => meter.removeBatchObservableCallback(observe, [lag, bufferUsed, bufferLimit]))

  const store = contextStore()
  if (store) {
    processing.start.bindStore(store, openProcess)
    batch.start.bindStore(store, openBatch)
    undo.push(() => {
      processing.start.unbindStore(store)
      batch.start.unbindStore(store)
    })
  }

  return {
    disable() {
      for (const u of undo.splice(0)) u()
    },
  }
}

/**
 * The AsyncLocalStorage the registered context manager keeps the active
 * context in (@opentelemetry/context-async-hooks'), when there is one: the
 * API has no way to make a context active around code it does not call.
 */
function contextStore(): AsyncLocalStorage<Context> | undefined {
  const manager = (context as unknown as { _getContextManager?(): { _asyncLocalStorage?: unknown } })._getContextManager?.()
  const store = manager?._asyncLocalStorage as { run?: unknown; getStore?: unknown } | undefined
  return typeof store?.run === 'function' && typeof store.getStore === 'function' ? (store as AsyncLocalStorage<Context>) : undefined
}

const SEND: Attributes = { 'messaging.system': 'kafka', 'messaging.operation.name': 'send' }

/** error.type: the error's class name, '_OTHER' for something without one; undefined when nothing failed. */
function errorType(error: unknown): string | undefined {
  if (error === undefined) return undefined
  const name = (error as { name?: unknown } | null)?.name
  return typeof name === 'string' ? name : '_OTHER'
}

const withError = (attributes: Attributes, error: string | undefined): Attributes =>
  error === undefined ? attributes : { ...attributes, 'error.type': error }

function failed(span: Span, error: unknown): void {
  span.setAttribute('error.type', errorType(error)!)
  if (error instanceof Error) span.recordException(error)
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
}

const utf8 = new TextDecoder()
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : v instanceof Uint8Array ? utf8.decode(v) : undefined)

function sendAttributes(topic: string, m: ChannelSendMessage, clusterId: string | null): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'kafka',
    'messaging.operation.name': 'send',
    'messaging.operation.type': 'send',
    'messaging.destination.name': topic,
  }
  if (clusterId) attributes['messaging.kafka.cluster.id'] = clusterId
  const key = text(m.key)
  if (key !== undefined) attributes['messaging.kafka.message.key'] = key
  if (m.value === null) attributes['messaging.kafka.message.tombstone'] = true
  if (m.partition !== undefined) {
    attributes['messaging.kafka.destination.partition'] = m.partition
    attributes['messaging.destination.partition.id'] = String(m.partition)
  }
  return attributes
}

function processAttributes(ctx: ProcessContext | BatchContext, m: ChannelMessage): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'kafka',
    'messaging.operation.name': 'process',
    'messaging.operation.type': 'process',
    'messaging.destination.name': ctx.topic,
    'messaging.kafka.destination.partition': ctx.partition,
    'messaging.destination.partition.id': String(ctx.partition),
    'messaging.kafka.offset': m.offset,
    'messaging.kafka.message.offset': m.offset,
  }
  if (ctx.groupId !== null) attributes['messaging.consumer.group.name'] = ctx.groupId
  if (ctx.clusterId) attributes['messaging.kafka.cluster.id'] = ctx.clusterId
  const key = text(m.key)
  if (key !== undefined) attributes['messaging.kafka.message.key'] = key
  if (m.value === null) attributes['messaging.kafka.message.tombstone'] = true
  return attributes
}

function pollAttributes(ctx: BatchContext): Attributes {
  const attributes: Attributes = {
    'messaging.system': 'kafka',
    'messaging.operation.name': 'poll',
    'messaging.operation.type': 'receive',
    'messaging.destination.name': ctx.topic,
    'messaging.kafka.destination.partition': ctx.partition,
    'messaging.destination.partition.id': String(ctx.partition),
    'messaging.batch.message_count': ctx.messages.length,
  }
  if (ctx.groupId !== null) attributes['messaging.consumer.group.name'] = ctx.groupId
  if (ctx.clusterId) attributes['messaging.kafka.cluster.id'] = ctx.clusterId
  return attributes
}

/** The context a message's headers carry (a producer's span), or undefined when they carry none. */
function extracted(m: ChannelMessage): Context | undefined {
  if (!m.headers) return undefined
  const found = propagation.extract(ROOT_CONTEXT, m.headers, headerGetter)
  return trace.getSpanContext(found) ? found : undefined
}

/** A send's message headers: an object or [name, value] pairs; absent ones are made. */
const headerSetter: TextMapSetter<ChannelSendMessage> = {
  set(m, key, value) {
    const h = m.headers
    if (h === undefined || h === null) m.headers = { [key]: value }
    else if (Array.isArray(h)) m.headers = [...h.filter(([k]) => k !== key), [key, value]]
    else (h as Record<string, unknown>)[key] = value
  },
}

/** A consumed message's headers: values are Buffers, or arrays of them when a name repeats. */
const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (h) => Object.keys(h),
  get(h, key) {
    const v = h[key]
    if (Array.isArray(v)) return v.map((x) => text(x) ?? '')
    return text(v)
  },
}
