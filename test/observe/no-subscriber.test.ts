// With nobody subscribed, the tracing channels cost a check per call site and
// nothing more: no context object is built and nothing is traced (a send, a
// consumed message, a commit, a rebalance, every request). And where the
// runtime has no tracingChannel, every channel stays inactive. Against the
// sources only: it spies on the channels' module, which the package does not export.
import * as dc from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Kafka, logLevel } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Tracing, channels } from '../../src/observe/channels.js'
import { until } from '../consumer/support.js'

describe('tracing channels with no subscriber', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await cluster?.stop()
  })

  async function roundTrip(topic: string) {
    const kafka = new Kafka({ clientId: 'quiet', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: [{ value: 'one' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: `quiet-${topic}`, autoOffsetReset: 'earliest' })
    await consumer.connect()
    await consumer.subscribe({ topics: [topic] })
    let seen = 0
    await consumer.run({ eachMessage: async () => void seen++ })
    await until(
      () => seen >= 1,
      10_000,
      () => 'nothing consumed',
    )
    await consumer.commitOffsets([{ topic, partition: 0, offset: '1' }])
    await consumer.disconnect()
  }

  it('builds no context and traces nothing', async () => {
    const trace = vi.spyOn(Tracing.prototype, 'trace')
    for (const c of Object.values(channels)) expect(c.active, c.name).toBe(false)
    await roundTrip('quiet')
    expect(trace).not.toHaveBeenCalled()

    // The same round trip with every channel subscribed traces each kind of work (the spy sees it).
    const subscribed = Object.values(channels).map((c) => {
      const handlers = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} }
      dc.tracingChannel(c.name).subscribe(handlers)
      return () => dc.tracingChannel(c.name).unsubscribe(handlers)
    })
    try {
      await roundTrip('loud')
    } finally {
      for (const unsubscribe of subscribed) unsubscribe()
    }
    const traced = new Set(trace.mock.contexts.map((t) => (t as Tracing<object>).name))
    expect([...traced].sort()).toEqual(
      Object.values(channels)
        .map((c) => c.name)
        .filter((n) => n !== 'wafka:consumer:batch')
        .sort(),
    )

    // Unsubscribed again: back to nothing.
    for (const c of Object.values(channels)) expect(c.active, c.name).toBe(false)
    trace.mockClear()
    await roundTrip('quiet-again')
    expect(trace).not.toHaveBeenCalled()
  })

  it('one of the five events subscribed is enough to trace', () => {
    const c = new Tracing('wafka:test:one-event')
    expect(c.active).toBe(false)
    const onError = () => {}
    dc.tracingChannel(c.name).error.subscribe(onError)
    expect(c.active).toBe(true)
    dc.tracingChannel(c.name).error.unsubscribe(onError)
    expect(c.active).toBe(false)
  })
})

describe('a runtime without tracing channels', () => {
  it('has every channel inactive (no diagnostics_channel, or one without tracingChannel)', async () => {
    for (const dcModule of [null, {}]) {
      vi.resetModules()
      vi.doMock('../../src/node-builtins.js', () => ({ optionalBuiltin: () => dcModule }))
      const { channels: bare } = await import('../../src/observe/channels.js')
      for (const c of Object.values(bare)) expect(c.active, `${c.name} with ${JSON.stringify(dcModule)}`).toBe(false)
      vi.doUnmock('../../src/node-builtins.js')
    }
  })
})
