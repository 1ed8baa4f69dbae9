// Custom Partitioner: createPartitioner with KafkaJS's ({ topic, partitionMetadata, message }) arguments, and the built-in partitioners.
import { quiet, until, type Program } from './program.js'

export const customPartitioner: Program = async ({ Kafka, logLevel, Partitioners }, env) => {
  const kafka = new Kafka({ clientId: 'partitioner', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const topic = env.name('topic')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })
  await admin.disconnect()
  const calls: string[] = []
  // By the value's number: message "n" goes to partition n % partitions.
  const ByValue =
    () =>
    ({
      topic: t,
      partitionMetadata,
      message,
    }: {
      topic: string
      partitionMetadata: Array<{ partitionId: number }>
      message: { value: unknown }
    }) => {
      calls.push(`${t === topic}:${partitionMetadata.length}`)
      return Number(String(message.value)) % partitionMetadata.length
    }
  const placed: Record<string, number[]> = {}
  for (const [name, createPartitioner] of Object.entries({
    custom: ByValue,
    default: Partitioners.DefaultPartitioner,
    legacy: Partitioners.LegacyPartitioner,
    java: Partitioners.JavaCompatiblePartitioner,
  })) {
    const producer = kafka.producer({ createPartitioner })
    await producer.connect()
    const keys = ['1', '2', '3', '5', '8', '13', 'alpha', 'beta']
    const sent = await Promise.all(
      keys.map((k) => producer.send({ topic, messages: [{ key: k, value: k === 'alpha' || k === 'beta' ? '0' : k }] })),
    )
    placed[name] = sent.map((r) => r[0].partition)
    await producer.disconnect()
  }
  const consumer = kafka.consumer({ groupId: env.name('g') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  let n = 0
  await consumer.run({ eachMessage: async () => void n++ })
  await until(() => n === 32, 30_000, 'every message')
  await consumer.disconnect()
  return { placed, calls: [...new Set(calls)] }
}
