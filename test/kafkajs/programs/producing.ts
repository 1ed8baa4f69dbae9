// Producing: keys through the default partitioner, headers, acks, GZIP, sendBatch across topics.
import { quiet, until, type Program } from './program.js'

export const producing: Program = async ({ Kafka, logLevel, CompressionTypes }, env) => {
  const kafka = new Kafka({ clientId: 'producing', brokers: env.brokers, logLevel: logLevel.ERROR, logCreator: quiet })
  const [a, b] = [env.name('a'), env.name('b')]
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({
    topics: [
      { topic: a, numPartitions: 3 },
      { topic: b, numPartitions: 2 },
    ],
    waitForLeaders: true,
  })
  await admin.disconnect()

  const producer = kafka.producer()
  await producer.connect()
  const keyed = await producer.send({
    topic: a,
    acks: -1,
    messages: ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((key) => ({ key, value: `v-${key}`, headers: { 'correlation-id': `id-${key}` } })),
  })
  const gzip = await producer.send({ topic: a, compression: CompressionTypes.GZIP, acks: 1, messages: [{ key: 'k1', value: 'zipped' }] })
  const batch = await producer.sendBatch({
    topicMessages: [
      { topic: a, messages: [{ key: 'k2', value: 'batched-a' }] },
      { topic: b, messages: [{ key: 'k7', value: 'batched-b', partition: 1 }] },
    ],
  })
  await producer.disconnect()
  const meta = (rs: Array<{ topicName: string; partition: number; errorCode: number; baseOffset?: string }>) =>
    rs
      .map((r) => ({ topic: r.topicName === a ? 'a' : 'b', partition: r.partition, errorCode: r.errorCode, baseOffset: r.baseOffset }))
      .sort((x, y) => x.topic.localeCompare(y.topic) || x.partition - y.partition)

  const consumer = kafka.consumer({ groupId: env.name('group') })
  await consumer.connect()
  await consumer.subscribe({ topics: [a, b], fromBeginning: true })
  const read: string[] = []
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      read.push(
        `${topic === a ? 'a' : 'b'}/${partition}@${message.offset} ${message.key} ${message.value} ${message.headers?.['correlation-id'] ?? ''}`,
      )
    },
  })
  await until(() => read.length === 9, 30_000, 'nine messages')
  await consumer.disconnect()
  return { keyed: meta(keyed), gzip: meta(gzip), batch: meta(batch), read: read.sort() }
}
