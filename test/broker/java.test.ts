// The Java client (kafka-clients 4.4, the reference for client behaviour)
// against the embedded broker: its idempotent producer with every codec and
// its consumer reading back, byte for byte; and wafka reading what Java wrote.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { javaConsume, javaProduce } from '../peers/java-client.js'
import { requireKafka, runJava, type KafkaCluster } from '../peers/kafka.js'
import { compareExactly, received, until, type Received } from './support.js'
import { testMessages } from './messages.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

/** The rig's Java helpers need only a bootstrap list and a way to run the JVM. */
const javaOn = (cluster: RunningCluster) => ({ bootstrap: cluster.bootstrapServers, runJava }) as unknown as KafkaCluster

describe.skipIf(!requireKafka())('the Java client against the embedded broker', () => {
  let cluster: RunningCluster | undefined
  afterEach(async () => {
    await cluster?.stop()
    cluster = undefined
  })

  it.each(CODECS)(
    '%s: the Java producer (idempotent, acks=all) writes, the Java consumer and wafka read back exactly',
    async (compression) => {
      cluster = await startCluster({ brokers: 3, topics: [{ name: 'java', partitions: 3 }] })
      const sent = testMessages(CODECS.indexOf(compression) + 51, 150)
      const results = await javaProduce(
        javaOn(cluster),
        'java',
        sent.map((m) => ({ key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })),
        {
          'compression.type': compression,
          'enable.idempotence': true,
          acks: 'all',
          'linger.ms': 5,
        },
      )
      expect(results.filter((r) => 'error' in r)).toEqual([])
      const byJava = await javaConsume(javaOn(cluster), 'java', { timeoutMs: 30_000 })
      expect(compareExactly(sent, byJava)).toEqual([])
      const kafka = new Kafka({ clientId: 'after-java', brokers: cluster.bootstrapServers.split(',') })
      const consumer = kafka.consumer({ groupId: `after-java-${compression}` })
      const got: Received[] = []
      try {
        await consumer.connect()
        await consumer.subscribe({ topics: ['java'], fromBeginning: true })
        await consumer.run({ eachMessage: async ({ partition, message }) => void got.push(received(partition, message)) })
        await until(
          () => got.length >= sent.length,
          20_000,
          () => `${got.length} of ${sent.length}`,
        )
      } finally {
        await consumer.disconnect()
      }
      expect(compareExactly(sent, got)).toEqual([])
    },
    120_000,
  )
})
