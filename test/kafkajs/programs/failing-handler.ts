// Consuming, when a handler throws: KafkaJS retries the message (a handler that fails twice then
// succeeds loses nothing and keeps order), and the commit covers it once it succeeds.
import { quiet, until, type Program } from './program.js'

export const failingHandler: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({
    clientId: 'failing',
    brokers: env.brokers,
    logLevel: logLevel.NOTHING,
    logCreator: quiet,
    retry: { initialRetryTime: 50, retries: 5 },
  })
  const topic = env.name('topic')
  const groupId = env.name('group')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: ['a', 'b', 'c'].map((value) => ({ value })) })
  await producer.disconnect()
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 })
  const done: string[] = []
  let failures = 0
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (String(message.value) === 'b' && failures < 2) {
        failures++
        throw new Error('not yet')
      }
      done.push(String(message.value))
    },
  })
  await until(() => done.length >= 3, 30_000, 'every message processed')
  await consumer.disconnect()
  const committed = await admin.fetchOffsets({ groupId, topics: [topic] })
  await admin.disconnect()
  return {
    done: [...new Set(done)],
    inOrder: done.indexOf('a') < done.indexOf('b') && done.indexOf('b') < done.indexOf('c'),
    failures,
    committed: committed[0].partitions[0].offset,
  }
}
