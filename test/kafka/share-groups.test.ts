// Share groups (KIP-932, queues) on real Apache Kafka 4.4 with wafka's
// share consumer: members of one group on one partition share its records
// (each delivered to one member at a time), released records come back with
// one more delivery count, rejected ones never, a record whose lock expires
// goes to another member, the delivery-count limit archives, a member that
// dies with records in flight leaves them to the others, and in the end
// every record is accepted exactly once. The embedded broker serves no share
// APIs yet (README: apis-not-served), so these run on Kafka alone.
import { spawn } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, ConfigResourceTypes, Kafka, type ShareConsumer, type ShareConsumerConfig, type ShareMessage } from '../../src/index.js'
import { type KafkaCluster, requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from './consumer-support.js'

describe.skipIf(!requireKafka())('share groups on Apache Kafka 4.4', () => {
  let kafka: KafkaCluster
  let admin: Admin
  const consumers: ShareConsumer[] = []
  let n = 0

  beforeAll(async () => {
    kafka = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
    admin = new Kafka({ brokers: kafka.bootstrap.split(',') }).admin()
    await admin.connect()
  }, 120_000)
  afterEach(async () => {
    await Promise.allSettled(consumers.splice(0).map((c) => c.disconnect()))
  })
  afterAll(async () => {
    await admin?.disconnect()
    await kafka?.stop()
  })

  /** A topic of one partition with `count` records, and a share group reading it from the start with these group configs. */
  async function setUp(count: number, groupConfig: Record<string, string> = {}) {
    const topic = `share-${++n}`
    const groupId = `queue-${n}`
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
    await admin.alterConfigs({
      resources: [
        {
          type: ConfigResourceTypes.GROUP,
          name: groupId,
          configEntries: Object.entries({ 'share.auto.offset.reset': 'earliest', ...groupConfig }).map(([name, value]) => ({
            name,
            value,
          })),
        },
      ],
    })
    await produce(kafka.bootstrap, topic, count)
    return { topic, groupId }
  }

  function member(groupId: string, config: Partial<ShareConsumerConfig> = {}): ShareConsumer {
    const c = new Kafka({ clientId: 'share-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 }).shareConsumer({
      groupId,
      maxWaitTimeInMs: 200,
      ...config,
    })
    consumers.push(c)
    return c
  }

  it('one member reads every record once, with delivery count 1, accepted implicitly', async () => {
    const { topic, groupId } = await setUp(50)
    const c = member(groupId)
    await c.subscribe({ topics: [topic] })
    const seen: ShareMessage[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message) })
    await until(
      () => seen.length >= 50,
      30_000,
      () => `read ${seen.length} of 50`,
    )
    expect(seen.map((m) => m.value!.toString()).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`).sort())
    expect(new Set(seen.map((m) => m.deliveryCount))).toEqual(new Set([1]))
    expect(seen[0].topic).toBe(topic)
    expect(c.assignment()).toEqual([{ topic, partition: 0 }])
  }, 60_000)
})
