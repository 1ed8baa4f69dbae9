// Defect 3 of issue 9: a send's outcome is known by deliveryTimeoutMs, in
// flight or not (Java's contract), and deliveryTimeoutMs must be at least
// lingerMs + requestTimeoutMs.
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, Kafka, TimeoutError } from '../../src/index.js'
import { Produce } from '../../src/protocol/messages/index.js'
import { FakeCluster, stall } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, expectTyped, liveResources, timed } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe('deliveryTimeoutMs', () => {
  it('fails an unanswered send by its deadline (10 s), not after attempts of requestTimeoutMs + 5 s', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const baseline = liveResources()
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const producer = kafka.producer({ deliveryTimeoutMs: 10_000, requestTimeoutMs: 8000 })
    await producer.connect()
    cluster.broker(1).on(Produce, stall)
    const { ms, error } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'v' }] }))
    expectTyped(error, TimeoutError, false)
    expect(ms).toBeGreaterThanOrEqual(9_000)
    expect(ms).toBeLessThan(10_000 + SLACK_MS)
    await producer.disconnect()
    await expectNothingLeft(baseline)
  }, 30_000)

  it('is validated: at least lingerMs + requestTimeoutMs', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:1'] })
    expect(() => kafka.producer({ deliveryTimeoutMs: 1000, requestTimeoutMs: 2000 })).toThrow(ConfigError)
    expect(() => kafka.producer({ deliveryTimeoutMs: 2005, requestTimeoutMs: 2000, lingerMs: 5 })).not.toThrow()
  })
})
