// KIP-392, fetch from follower, with wafka's consumer: three brokers in three
// racks, the rack-aware replica selector, and a consumer whose rackId is a
// follower's rack. The leader names that follower; the consumer fetches
// there and reads every record once. On real Kafka (Kafka's own
// RackAwareReplicaSelector) and on the embedded broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, Kafka } from '../../src/index.js'
import type { RequestEvent } from '../../src/net/connection.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from './consumer-support.js'

const RACKS = ['rack-a', 'rack-b', 'rack-c']

for (const target of brokerTargets({
  kafka: {
    brokers: 3,
    config: { 'replica.selector.class': 'org.apache.kafka.common.replica.RackAwareReplicaSelector' },
    brokerConfig: (id) => ({ 'broker.rack': RACKS[id - 1] }),
  },
  embedded: { brokers: 3, racks: RACKS, replicaSelector: 'rack-aware' },
}))
  describe.skipIf(!target.available)(`fetch from follower, on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin
    beforeAll(async () => {
      cluster = await target.start()
      admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
    }, 120_000)
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
    })

    it("a consumer with a follower's rack reads every record once, the follower serving them", async () => {
      await admin.createTopics({ topics: [{ topic: 'ff', numPartitions: 1, replicationFactor: 3 }] })
      const producer = new Kafka({ brokers: cluster.bootstrap.split(',') }).producer({ acks: 'all' })
      await producer.connect()
      const sent = Array.from({ length: 2000 }, (_, i) => `v${i}`)
      try {
        for (let i = 0; i < sent.length; i += 500)
          await producer.send({ topic: 'ff', messages: sent.slice(i, i + 500).map((value) => ({ value })) })
      } finally {
        await producer.disconnect()
      }
      const [p] = (await admin.fetchTopicMetadata({ topics: ['ff'] })).topics[0].partitions
      await until(
        async () => (await admin.fetchTopicMetadata({ topics: ['ff'] })).topics[0].partitions[0].isr.length === 3,
        30_000,
        () => 'the ISR of ff-0 back to 3',
      )
      const { brokers } = await admin.describeCluster()
      const follower = brokers.find((b) => b.nodeId !== p.leader)!
      const address = (b: { host: string; port: number }) => `${b.host}:${b.port}`
      // Fetch response bytes by broker: the follower must carry the records.
      const fetched = new Map<string, number>()
      const onRequest = (e: RequestEvent) => {
        if (e.type === 'request' && e.apiName === 'Fetch') fetched.set(e.broker, (fetched.get(e.broker) ?? 0) + e.size)
      }
      const consumer = new Kafka({ brokers: cluster.bootstrap.split(','), onRequest }).consumer({
        rackId: follower.rack ?? undefined,
        maxWaitTimeInMs: 100,
      })
      const seen: string[] = []
      try {
        consumer.assign([{ topic: 'ff', partitions: [0] }])
        consumer.seek({ topic: 'ff', partition: 0, offset: 0 })
        await consumer.connect()
        await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
        await until(
          () => seen.length >= sent.length,
          30_000,
          () => `${seen.length} of ${sent.length} read; fetched ${JSON.stringify([...fetched])}`,
        )
      } finally {
        await consumer.disconnect()
      }
      expect(seen).toEqual(sent)
      expect(follower.rack).toBe(RACKS[target.embedded ? follower.nodeId : follower.nodeId - 1])
      const fromFollower = fetched.get(address(follower)) ?? 0
      const fromLeader = fetched.get(address(brokers.find((b) => b.nodeId === p.leader)!)) ?? 0
      // The records (2000 × ~10 bytes) came from the follower; the leader answered a redirect or two.
      expect(fromFollower).toBeGreaterThan(2000 * 8)
      expect(fromLeader).toBeLessThan(fromFollower)
    })
  })
