// subscribe() before connect(): KafkaJS accepts that order (the subscription
// takes effect at run()), so wafka/kafkajs does too; the root API does, as
// Java's subscribe needs no connection. On one embedded broker.
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, libs, quiet, sleep } from './side-by-side.js'
import { Kafka, logLevel } from '../../src/index.js'

describe('subscribe() before connect()', () => {
  const embedded = embeddedBroker()

  async function prepare(topic: string) {
    const kafka = new kafkajs.Kafka({ brokers: embedded.cluster.bootstrapServers.split(','), ...quiet })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] })
    await producer.disconnect()
  }

  for (const [name, lib] of Object.entries(libs))
    it(`${name}: reads the topic subscribed to before connecting`, async () => {
      const topic = `subscribe-first-${name.replace('/', '-')}`
      await prepare(topic)
      const consumer = new lib.Kafka({ brokers: embedded.cluster.bootstrapServers.split(','), ...quiet }).consumer({
        groupId: `g-${topic}`,
        maxWaitTimeInMs: 100,
      })
      const seen: string[] = []
      try {
        await consumer.subscribe({ topics: [topic], fromBeginning: true })
        await consumer.connect()
        await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) })
        const deadline = Date.now() + 15_000
        while (seen.length < 2 && Date.now() < deadline) await sleep(25)
      } finally {
        await consumer.disconnect()
      }
      expect(seen).toEqual(['a', 'b'])
    }, 30_000)

  it('the root API: reads the topic subscribed to before connecting', async () => {
    const topic = 'subscribe-first-root'
    await prepare(topic)
    const consumer = new Kafka({ brokers: embedded.cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING }).consumer({
      groupId: `g-${topic}`,
      maxWaitTimeInMs: 100,
      autoOffsetReset: 'earliest',
    })
    const seen: string[] = []
    try {
      await consumer.subscribe({ topics: [topic] })
      await consumer.connect()
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) })
      const deadline = Date.now() + 15_000
      while (seen.length < 2 && Date.now() < deadline) await sleep(25)
    } finally {
      await consumer.disconnect()
    }
    expect(seen).toEqual(['a', 'b'])
  }, 30_000)
})
