// Share-partition state across a leader change, on a 3-broker Apache Kafka
// 4.4 and a 3-broker embedded broker with the same assertions: the
// partition's leadership moves (a reassignment that puts another replica
// first, then a preferred election; every broker stays up) while a member
// holds records it has not acknowledged. The new leader takes the state up
// where it was persisted: what was accepted or rejected is never delivered
// again, what was released comes back with its delivery count carried on,
// and what the member still held is delivered again, not lost. Against the
// built package (the built-esm and built-cjs projects) the embedded broker's
// run only: there the client and the broker are dist/'s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from './consumer-support.js'
import { configureShareGroup, type Delivery, holdInEveryState, readUntil, type ShareTarget } from './share-support.js'

const targets: Array<[string, boolean, () => Promise<ShareTarget>]> = [
  [
    'a 3-broker Apache Kafka 4.4',
    !!process.env.WAFKA_BUILT || !requireKafka(),
    async () => {
      const k = await startKafka({ brokers: 3, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
  [
    `a 3-broker embedded broker${process.env.WAFKA_BUILT ? ` (the package as built, ${process.env.WAFKA_BUILT})` : ''}`,
    false,
    async () => {
      const c = await startCluster({ brokers: 3, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
]

for (const [target, skip, start] of targets)
  describe.skipIf(skip)(`share-partition state across a leader change on ${target}`, () => {
    let cluster: ShareTarget
    beforeAll(async () => {
      cluster = await start()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('accepted and rejected records stay done; released and held ones are delivered again by the new leader', async () => {
      const topic = 'leader-change-jobs'
      const groupId = 'leader-change-workers'
      const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), retryBackoffMs: 100 })
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }] })
        await configureShareGroup(admin, groupId)
        await produce(cluster.bootstrap, topic, 30)

        // v0-v9 accepted, v10-v14 rejected, v15-v19 released; v20-v29 held (acquired, never acknowledged) as the leader moves.
        const { first, seen, letGo } = await holdInEveryState(kafka, groupId, topic)
        expect(seen).toHaveLength(30)

        // The leadership moves: another replica first, then a preferred election.
        const leaderOf = async () => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions[0]
        const before = await leaderOf()
        const replicas = [...before.replicas.filter((r) => r !== before.leader), before.leader]
        await admin.alterPartitionReassignments({ topics: [{ topic, partitions: [{ partition: 0, replicas }] }] })
        let now = before
        await until(
          async () => {
            // ELECTION_NOT_NEEDED once the controller has elected it itself (Kafka does when the reassignment completes).
            await admin.electLeaders({ electionType: 'PREFERRED', topicPartitions: [{ topic, partitions: [0] }] }).catch(() => {})
            now = await leaderOf()
            return now.leader === replicas[0]
          },
          60_000,
          () => `leader still ${now.leader} (wanted ${replicas[0]})`,
        )

        // The first member goes; whatever it says about the records it held, the new leader has them.
        letGo()
        await Promise.race([first.disconnect(), new Promise((r) => setTimeout(r, 5_000))])

        await produce(cluster.bootstrap, topic, 5, 'v', { from: 30 })
        const got = await readUntil(
          kafka.shareConsumer({ groupId, maxWaitTimeInMs: 200 }),
          topic,
          (got) => got.some((g) => g.value === 'v34') && got.length >= 20,
          60_000,
        )
        const order = (l: Delivery[]) => [...l].sort((a, b) => Number(a.value.slice(1)) - Number(b.value.slice(1)))
        // Released: delivered a second time. Held at the old leader: its acquisition was never persisted, so the
        // new leader delivers them as it would for the first time (Kafka 4.4 does), as it does the new records.
        expect(order(got)).toEqual([
          ...Array.from({ length: 5 }, (_, i) => ({ value: `v${15 + i}`, deliveryCount: 2 })),
          ...Array.from({ length: 15 }, (_, i) => ({ value: `v${20 + i}`, deliveryCount: 1 })),
        ])
      } finally {
        await admin.disconnect()
      }
    }, 180_000)
  })
