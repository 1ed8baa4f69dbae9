// Configuration: brokers as an async function, retry, timeouts, and the errors KafkaJS gives for a bad configuration or a broker that is not there.
import { errorShape, quiet, until, type Program } from './program.js'

export const configuration: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({
    clientId: 'configuration',
    brokers: async () => env.brokers,
    connectionTimeout: 3000,
    requestTimeout: 25000,
    enforceRequestTimeout: true,
    retry: { initialRetryTime: 100, retries: 8, maxRetryTime: 2000, factor: 0.2, multiplier: 2 },
    logLevel: logLevel.NOTHING,
    logCreator: quiet,
  })
  const topic = env.name('topic')
  const producer = kafka.producer({ allowAutoTopicCreation: true, idempotent: false, maxInFlightRequests: 5, transactionTimeout: 30000 })
  await producer.connect()
  await producer.send({ topic, messages: [{ value: 'configured' }] })
  await producer.disconnect()
  const consumer = kafka.consumer({
    groupId: env.name('group'),
    sessionTimeout: 10000,
    rebalanceTimeout: 20000,
    heartbeatInterval: 1000,
    maxBytesPerPartition: 1048576,
    maxBytes: 10485760,
    maxWaitTimeInMs: 100,
    minBytes: 1,
    allowAutoTopicCreation: false,
    readUncommitted: false,
  })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const values: string[] = []
  await consumer.run({ eachMessage: async ({ message }) => void values.push(String(message.value)) })
  await until(() => values.length === 1, 30_000, 'the message')
  await consumer.disconnect()

  const badHeartbeat = (() => {
    try {
      kafka.consumer({ groupId: 'g', sessionTimeout: 1000, heartbeatInterval: 1000 })
      return null
    } catch (e) {
      return errorShape(e)
    }
  })()
  const noGroup = (() => {
    try {
      kafka.consumer({} as { groupId: string })
      return null
    } catch (e) {
      return errorShape(e)
    }
  })()
  // Nothing listens on port 1: connect retries by the policy, then gives up.
  const nowhere = new Kafka({
    brokers: ['127.0.0.1:1'],
    retry: { retries: 1, initialRetryTime: 50 },
    connectionTimeout: 500,
    logLevel: logLevel.NOTHING,
    logCreator: quiet,
  })
  const down = await nowhere
    .producer()
    .connect()
    .then(
      () => null,
      (e) => errorShape(e),
    )
  // Subscribing to a topic that does not exist, with auto-creation off.
  const strict = kafka.consumer({ groupId: env.name('strict'), allowAutoTopicCreation: false })
  await strict.connect()
  const unknownTopic = await strict.subscribe({ topics: [env.name('nope')] }).then(
    () => null,
    (e) => errorShape(e),
  )
  await strict.disconnect()
  return { values, badHeartbeat, noGroup, down, unknownTopic }
}
