// What the tests that run one program on kafkajs and on wafka/kafkajs share:
// both libraries by name, silence, and one embedded broker per describe.
import { afterAll, beforeAll } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'

export const libs = { kafkajs, 'wafka/kafkajs': wafkajs as unknown as typeof kafkajs }
export const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A one-broker embedded cluster, started before the describe's tests and stopped after (groups join at once). */
export function embeddedBroker(): { readonly cluster: RunningCluster } {
  const holder = {} as { cluster: RunningCluster }
  beforeAll(async () => {
    holder.cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
  })
  afterAll(async () => {
    await holder.cluster?.stop()
  })
  return holder
}

/** A one-partition topic made with `kafka`'s admin, holding `values` sent by its producer. */
export async function topicWith(kafka: kafkajs.Kafka, topic: string, values: string[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  await admin.disconnect()
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: values.map((value) => ({ value })) })
  await producer.disconnect()
}
