// Defect 4 of issue 9: options given to new Kafka({...}) are the defaults of
// every client made from it (requestTimeoutMs above all), so an unanswered
// Produce or Fetch ends at the Kafka-level timeout, and deliveryTimeoutMs is
// validated against it.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, TimeoutError } from '../../src/index.js'
import { Fetch, Produce } from '../../src/protocol/messages/index.js'
import { FakeCluster, drip, stall } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, expectTyped, liveResources, sleep, timed } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe('Kafka-level options', () => {
  it('producer({ deliveryTimeoutMs: 10000 }) is valid against the Kafka-level requestTimeoutMs (3000)', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:1'], ...SETTINGS })
    expect(() => kafka.producer({ deliveryTimeoutMs: 10_000 })).not.toThrow()
    expect(kafka.producer().config.requestTimeoutMs).toBe(3000)
    expect(kafka.producer().config.retryBackoffMs).toBe(100)
  })

  it('an unanswered Produce times out at the Kafka-level requestTimeoutMs', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const producer = kafka.producer({ deliveryTimeoutMs: 4000, lingerMs: 0 })
    await producer.connect()
    cluster.broker(1).on(Produce, stall)
    const started = Date.now()
    const firstProduceAt = new Promise<number>((resolve) => {
      const check = setInterval(() => {
        const r = cluster!.broker(1).requests.find((x) => x.apiKey === Produce.apiKey)
        if (r) {
          clearInterval(check)
          resolve(r.at)
        }
      }, 5)
    })
    const { error } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'v' }] }))
    expectTyped(error, TimeoutError, false)
    const first = await firstProduceAt
    // The first attempt's connection was dropped at 3 s, not 30 s: a second Produce followed.
    const produces = cluster.broker(1).requests.filter((x) => x.apiKey === Produce.apiKey)
    expect(produces.length).toBeGreaterThanOrEqual(2)
    expect(produces[1].at - first).toBeLessThan(SETTINGS.requestTimeoutMs + SLACK_MS)
    expect(Date.now() - started).toBeLessThan(4000 + SLACK_MS)
    await producer.disconnect()
  })

  it('a Fetch answer dripped a byte every 200 ms is given up at the Kafka-level requestTimeoutMs', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.append('t', 0, [{ value: 'x'.repeat(200) }])
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const baseline = liveResources()
    const consumer = kafka.consumer({ maxWaitTimeInMs: 100, autoOffsetReset: 'earliest' })
    consumer.assign([{ topic: 't', partitions: [0] }])
    cluster.broker(1).on(Fetch, drip(200))
    await consumer.connect()
    await consumer.run({ eachMessage: async () => {} })
    const fetches = () => cluster!.broker(1).requests.filter((x) => x.apiKey === Fetch.apiKey)
    const start = Date.now()
    while (fetches().length < 2 && Date.now() - start < 15_000) await sleep(20)
    // The dripping answer was given up at ~3.1 s (requestTimeoutMs + maxWait), not after 30 s: the next Fetch followed.
    expect(fetches().length).toBeGreaterThanOrEqual(2)
    const [first, second] = fetches()
    expect(second.at - first.at).toBeLessThan(SETTINGS.requestTimeoutMs + 100 + SLACK_MS)
    await consumer.disconnect()
    await expectNothingLeft(baseline)
  })
})
