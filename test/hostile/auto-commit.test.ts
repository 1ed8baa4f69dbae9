// Defect 9 of issue 9: commits the application did not ask for. autoCommit,
// autoCommitInterval and autoCommitThreshold given to run() govern that run
// (KafkaJS's place for them), and a manual commit is never overwritten by an
// automatic one unless messages were processed after it. On librdkafka's
// 2.15 mock (a real group coordinator and offset store).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups } from '../consumer/support.js'

const PARTITIONS = 4

describe.skipIf(!requirePeers({ builds: ['modern'], kcat: false }))('commits the application asked for (2.15 mock)', () => {
  let mock: MockCluster
  let kafka: Kafka
  let topicNo = 0
  beforeAll(async () => {
    mock = await startMockCluster({ brokers: 1, build: 'modern' })
    await prepareForGroups(mock, 'modern')
    kafka = new Kafka({ clientId: 'wafka-commits', brokers: mock.bootstrap.split(','), retryBackoffMs: 100 })
  })
  afterAll(async () => {
    await mock?.stop()
  })

  /** A fresh topic with `perPartition` messages in each partition. */
  async function topicWith(perPartition: number): Promise<string> {
    const topic = `commits-${topicNo++}`
    await mock.createTopic(topic, { partitions: PARTITIONS, replicationFactor: 1 })
    const producer = kafka.producer()
    await producer.connect()
    for (let p = 0; p < PARTITIONS; p++)
      await producer.send({ topic, messages: Array.from({ length: perPartition }, (_, i) => ({ value: `${p}:${i}`, partition: p })) })
    await producer.disconnect()
    return topic
  }

  async function committed(groupId: string, topic: string): Promise<string[]> {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const [t] = await admin.fetchOffsets({ groupId, topics: [topic] })
      return t.partitions.sort((a: any, b: any) => a.partition - b.partition).map((p: any) => p.offset)
    } finally {
      await admin.disconnect()
    }
  }

  /** Runs a member of `groupId` until it has processed `count` messages, calling `after` then; then disconnects. */
  async function consume(
    groupId: string,
    topic: string,
    count: number,
    run: object = {},
    after?: (c: ReturnType<Kafka['consumer']>) => Promise<void>,
    config: object = { autoCommitIntervalMs: 200 },
  ) {
    const consumer = kafka.consumer({ groupId, heartbeatIntervalMs: 300, sessionTimeoutMs: 3000, maxWaitTimeInMs: 100, ...config })
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    let seen = 0
    let done!: () => void
    const all = new Promise<void>((r) => (done = r))
    await consumer.run({ ...run, eachMessage: async () => void (++seen >= count && done()) })
    await Promise.race([all, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${seen} of ${count} messages`)), 15_000))])
    await after?.(consumer)
    return consumer
  }

  it('run({ autoCommit: false }) commits nothing, on its interval or on disconnect', async () => {
    const topic = await topicWith(2)
    const consumer = await consume('no-auto', topic, 2 * PARTITIONS, { autoCommit: false })
    await new Promise((r) => setTimeout(r, 600)) // three autoCommitIntervalMs
    await consumer.disconnect()
    expect(await committed('no-auto', topic)).toEqual(['-1', '-1', '-1', '-1'])
  })

  it('a manual commit of an older offset is not overwritten on disconnect', async () => {
    const topic = await topicWith(5)
    const consumer = await consume('manual', topic, 5 * PARTITIONS, {}, async (c) => {
      await new Promise((r) => setTimeout(r, 400)) // the interval commits what was processed (5)
      await c.commitOffsets([{ topic, partition: 0, offset: '1' }]) // the application rewinds partition 0
    })
    await consumer.disconnect()
    expect(await committed('manual', topic)).toEqual(['1', '5', '5', '5'])
  })

  it('run({ autoCommitThreshold: 3, autoCommitInterval: 60000 }) commits after 3 messages, without waiting for the interval', async () => {
    const topic = await topicWith(3)
    // The consumer's own interval (5 s default) would not commit within the test: the threshold must.
    const consumer = await consume(
      'threshold',
      topic,
      3 * PARTITIONS,
      { autoCommitThreshold: 3, autoCommitInterval: 60_000 },
      async () => {
        await new Promise((r) => setTimeout(r, 300))
      },
      {},
    )
    const before = await committed('threshold', topic)
    await consumer.disconnect()
    expect(before.filter((o) => o === '3').length).toBeGreaterThanOrEqual(3)
  })

  it('run({ autoCommitInterval: 200 }) commits on that interval, not the consumer default (5 s)', async () => {
    const topic = await topicWith(1)
    const consumer = await consume(
      'interval',
      topic,
      PARTITIONS,
      { autoCommitInterval: 200 },
      async () => {
        await new Promise((r) => setTimeout(r, 700))
      },
      {},
    )
    const before = await committed('interval', topic)
    await consumer.disconnect()
    expect(before).toEqual(['1', '1', '1', '1'])
  })
})
