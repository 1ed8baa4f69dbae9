// Compose start order: the application starts before its broker. KafkaJS's
// connect() retries by the retry policy until the broker answers; so does
// wafka/kafkajs's. Against the embedded broker (wafka/broker), stopped until
// both clients are already retrying.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'

describe('connect() before the broker is up', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'late', partitions: 1 }] } as never)
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('retries by the policy, then connects and sends, on kafkajs and on wafka/kafkajs alike', async () => {
    await cluster.stopBroker(cluster.brokers[0].id)
    const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
    const retry = { retries: 20, initialRetryTime: 100, maxRetryTime: 300 }
    const clients = [kafkajs, wafkajs as unknown as typeof kafkajs].map((lib) =>
      new lib.Kafka({ brokers: cluster.bootstrapServers.split(','), connectionTimeout: 300, retry, ...quiet }).producer(),
    )
    const connected = clients.map((p) => p.connect().then(() => Date.now()))
    await new Promise((r) => setTimeout(r, 1000))
    const upAt = Date.now()
    await cluster.startBroker(cluster.brokers[0].id)
    const at = await Promise.all(connected)
    // Neither gave up while the broker was down; both connected once it was up.
    for (const t of at) expect(t).toBeGreaterThanOrEqual(upAt)
    const sent = await Promise.all(clients.map((p) => p.send({ topic: 'late', messages: [{ value: 'after the broker came up' }] })))
    expect(sent.map((r) => r[0].errorCode)).toEqual([0, 0])
    await Promise.all(clients.map((p) => p.disconnect()))
  }, 60_000)

  it('a send to a broker that went away fails once the policy is spent, with the same error on both', async () => {
    const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
    const retry = { retries: 2, initialRetryTime: 100, maxRetryTime: 300 }
    const clients = [kafkajs, wafkajs as unknown as typeof kafkajs].map((lib) =>
      new lib.Kafka({
        brokers: cluster.bootstrapServers.split(','),
        connectionTimeout: 300,
        requestTimeout: 1000,
        retry,
        ...quiet,
      }).producer(),
    )
    await Promise.all(clients.map((p) => p.connect()))
    await cluster.stopBroker(cluster.brokers[0].id)
    try {
      const errors = await Promise.all(
        clients.map((p) =>
          p.send({ topic: 'late', messages: [{ value: 'nowhere to go' }] }).then(
            () => null,
            (e: Error & { retriable?: boolean }) => ({ name: e.name, retriable: e.retriable, cause: (e.cause as Error)?.name }),
          ),
        ),
      )
      expect(errors[0]?.retriable).toBe(false)
      expect(errors[1]).toEqual(errors[0])
    } finally {
      await cluster.startBroker(cluster.brokers[0].id)
      await Promise.all(clients.map((p) => p.disconnect()))
    }
  }, 60_000)
})
