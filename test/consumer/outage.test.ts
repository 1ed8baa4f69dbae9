// The whole embedded cluster goes away under a running consumer (root API),
// then comes back. As Java's consumer, it keeps trying: no CRASH, a WARN
// as the outage begins and an INFO as it ends, and it reads what was written
// meanwhile once the brokers are back, losing nothing.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from './support.js'

let cluster: RunningCluster
beforeAll(async () => {
  cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
})
afterAll(async () => {
  await cluster?.stop()
})

it('keeps trying through a whole-cluster outage, says so at WARN, and reads on once the brokers are back', async () => {
  const entries: LogEntry[] = []
  const kafka = new Kafka({
    clientId: 'outage',
    brokers: cluster.bootstrapServers.split(','),
    logLevel: logLevel.INFO,
    logCreator: () => (e) => void entries.push(e),
    retryBackoffMs: 100,
    retryBackoffMaxMs: 500,
  })
  const topic = 'outage'
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
  await admin.disconnect()
  const send = async (values: string[]) => {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: values.map((value) => ({ value })) })
    await producer.disconnect()
  }
  await send(['a', 'b'])
  const consumer = kafka.consumer({ groupId: 'g-outage', maxWaitTimeInMs: 100, autoOffsetReset: 'earliest', sessionTimeoutMs: 10_000 })
  const crashes: unknown[] = []
  consumer.on(consumer.events.CRASH, (e) => void crashes.push(e.payload.error))
  const seen: string[] = []
  let resumeMs = Infinity
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [topic] })
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) })
    await until(
      () => seen.length >= 2,
      20_000,
      () => `read ${seen.join(' ')}`,
    )
    for (const b of cluster.brokers) await cluster.stopBroker(b.id)
    await until(
      () => entries.some((e) => e.label === 'WARN' && /^Fetching failed/.test(e.log.message)),
      10_000,
      () => 'no WARN as the outage began',
    )
    await new Promise((r) => setTimeout(r, 3000)) // longer than KafkaJS's default retry budget would allow at this pace
    for (const b of cluster.brokers) await cluster.startBroker(b.id)
    const back = Date.now()
    await send(['c', 'd'])
    await until(
      () => seen.includes('d'),
      20_000,
      () => `read ${seen.join(' ')} after the cluster came back`,
    )
    resumeMs = Date.now() - back
  } finally {
    await consumer.disconnect()
  }
  expect(resumeMs).toBeLessThan(3000)
  expect(crashes).toEqual([])
  expect([...new Set(seen)]).toEqual(['a', 'b', 'c', 'd'])
  const consumerLog = entries.filter((e) => e.namespace === 'Consumer')
  expect(consumerLog.filter((e) => e.label === 'WARN' && /^Fetching failed/.test(e.log.message))).toHaveLength(1)
  expect(consumerLog.some((e) => e.label === 'INFO' && /^Fetching again/.test(e.log.message))).toBe(true)
  expect(consumerLog.filter((e) => /^Crash/.test(e.log.message))).toEqual([])
}, 60_000)
