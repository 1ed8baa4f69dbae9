// The Java client (kafka-clients 4.4, the reference for client behaviour)
// against the embedded broker: its idempotent producer with every codec and
// its consumer reading back, byte for byte; and wafka reading what Java wrote.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { javaConsume, javaProduce } from '../peers/java-client.js'
import { javaPeer, requireKafka } from '../peers/kafka.js'
import { compareExactly, received, until, type Received } from './support.js'
import { testMessages } from './messages.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

const javaOn = (cluster: RunningCluster) => javaPeer(cluster.bootstrapServers)

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

  it('3 brokers, RF 3: the Java producer (idempotent, acks=all) loses nothing when the leader of partition 0 is stopped mid-load', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'jfail', partitions: 3 }], replicaLagTimeMaxMs: 2000 })
    const sent = testMessages(77, 30_000)
    const kafka = new Kafka({ clientId: 'java-failover', brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    await admin.connect()
    try {
      const leader = (await admin.fetchTopicMetadata({ topics: ['jfail'] })).topics[0].partitions.find((p) => p.partitionId === 0)!.leader
      const producing = javaProduce(
        javaOn(cluster),
        'jfail',
        sent.map((m) => ({ key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp })),
        { 'enable.idempotence': true, acks: 'all', 'linger.ms': 5, 'batch.size': 4096 },
      )
      // Once partition 0 has taken some of the load, its leader goes.
      let hwAtStop = 0
      await until(
        async () => {
          const hw = Number((await admin.fetchTopicOffsets('jfail')).find((o) => o.partition === 0)!.high)
          if (hw > 0) hwAtStop = hw
          return hw > 0
        },
        60_000,
        () => 'the Java producer writing to partition 0',
      )
      await cluster.stopBroker(leader)
      const results = await producing
      expect(results.filter((r) => 'error' in r)).toEqual([])
      const onZero = results.filter((r) => 'partition' in r && r.partition === 0).length
      // The stop came while partition 0 still had records to take.
      expect(hwAtStop).toBeLessThan(onZero)
      const after = (await admin.fetchTopicMetadata({ topics: ['jfail'] })).topics[0].partitions.find((p) => p.partitionId === 0)!
      expect(after.leader).not.toBe(leader)
      expect(after.isr).not.toContain(leader)
      const byJava = await javaConsume(javaOn(cluster), 'jfail', { timeoutMs: 30_000 })
      expect(compareExactly(sent, byJava)).toEqual([])
    } finally {
      await admin.disconnect()
    }
  }, 180_000)
})
