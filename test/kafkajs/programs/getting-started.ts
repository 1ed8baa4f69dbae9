// Getting Started: a producer sends a message, a consumer in a group reads it from the beginning.
import { quiet, until, type Program } from './program.js'

export const gettingStarted: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({ clientId: 'my-app', brokers: env.brokers, logLevel: logLevel.ERROR, logCreator: quiet })
  const topic = env.name('test-topic')
  const producer = kafka.producer()
  await producer.connect()
  const sent = await producer.send({ topic, messages: [{ value: 'Hello KafkaJS user!' }] })
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: env.name('test-group') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const received: Array<{ partition: number; offset: string; value: string | undefined; keys: string[] }> = []
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({ partition, offset: message.offset, value: message.value?.toString(), keys: Object.keys({ ...message }).sort() })
    },
  })
  await until(() => received.length === 1, 30_000, 'the message')
  await consumer.disconnect()
  return { sent: sent.map((r) => ({ partition: r.partition, errorCode: r.errorCode, baseOffset: r.baseOffset })), received }
}
