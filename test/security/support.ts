import { expect } from 'vitest'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { until } from '../consumer/support.js'

export const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

/**
 * Through one secured client config: an admin creates a topic, a producer
 * sends a batch in every codec, a consumer group reads all of it back, and
 * the admin describes the group's committed offsets.
 */
export async function roundTrip(config: KafkaConfig, topic: string): Promise<void> {
  const kafka = new Kafka({ clientId: `wafka-${topic}`, ...config })
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] })
    const producer = kafka.producer()
    await producer.connect()
    const sent: string[] = []
    try {
      for (const compression of CODECS) {
        const messages = Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `${compression}-${i}-${'x'.repeat(i * 10)}` }))
        await producer.send({ topic, messages, compression })
        sent.push(...messages.map((m) => m.value))
      }
    } finally {
      await producer.disconnect()
    }
    const groupId = `${topic}-group`
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 })
    await consumer.connect()
    const read: string[] = []
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true })
      await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
      await until(
        () => read.length >= sent.length,
        30_000,
        () => `read ${read.length} of ${sent.length}`,
      )
    } finally {
      await consumer.disconnect()
    }
    expect(read.sort()).toEqual(sent.sort())
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] })
    const committed = offsets.flatMap((t: any) => t.partitions).reduce((n: number, p: any) => n + Number(p.offset), 0)
    expect(committed).toBe(sent.length)
  } finally {
    await admin.disconnect()
  }
}
