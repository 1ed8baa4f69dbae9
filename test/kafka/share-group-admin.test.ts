// A share group as the group APIs other than its own see it, on real Apache
// Kafka 4.4 and on the embedded broker with the same assertions: ListGroups
// lists it as type 'share' (and filters by that type), DescribeGroups does
// not describe it (it is not a classic group), DeleteGroups refuses it while
// it has members and deletes it once empty, ShareGroupDescribe tells its
// state, assignor and members, and a consumer-group heartbeat for its id is
// refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { type Admin, Kafka, type ShareConsumer } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { until } from './consumer-support.js'

type Target = { bootstrap: string; stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!requireKafka())(`a share group seen by the group APIs on ${target}`, () => {
    let cluster: Target
    let admin: Admin
    let raw: RawClient

    beforeAll(async () => {
      cluster = await start()
      admin = new Kafka({ brokers: [cluster.bootstrap] }).admin()
      await admin.connect()
      raw = await RawClient.open(cluster.bootstrap)
    }, 120_000)
    afterAll(async () => {
      raw?.socket.destroy()
      await admin?.disconnect()
      await cluster?.stop()
    })

    const listed = async (typesFilter: string[], groupId: string) =>
      (await raw.request(M.ListGroups, 5, { statesFilter: [], typesFilter })).groups.filter((g) => g.groupId === groupId)

    it('ListGroups, DescribeGroups, DeleteGroups, ShareGroupDescribe and ConsumerGroupHeartbeat', async () => {
      const topic = 'admin-share'
      const groupId = 'admin-queue'
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
      const member: ShareConsumer = new Kafka({ brokers: [cluster.bootstrap], retryBackoffMs: 100 }).shareConsumer({
        groupId,
        maxWaitTimeInMs: 200,
      })
      try {
        await member.subscribe({ topics: [topic] })
        await member.run({ eachMessage: async () => {} })
        await until(
          () => member.assignment().length === 2,
          30_000,
          () => `assigned ${JSON.stringify(member.assignment())}`,
        )
        expect(await listed(['share'], groupId)).toEqual([
          expect.objectContaining({ groupId, protocolType: 'share', groupState: 'Stable', groupType: 'share' }),
        ])
        expect(await listed([], groupId)).toHaveLength(1)
        expect(await listed(['consumer', 'classic'], groupId)).toEqual([])

        const described = (await raw.request(M.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false })).groups[0]
        const describedV6 = (await raw.request(M.DescribeGroups, 6, { groups: [groupId], includeAuthorizedOperations: false })).groups[0]
        const share = (await raw.request(M.ShareGroupDescribe, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
        const heartbeat = await raw.request(M.ConsumerGroupHeartbeat, 1, {
          groupId,
          memberId: 'not-a-share-member',
          memberEpoch: 0,
          rebalanceTimeoutMs: 30_000,
          subscribedTopicNames: [topic],
          topicPartitions: [],
        })
        const refused = (await raw.request(M.DeleteGroups, 2, { groupsNames: [groupId] })).results[0]
        expect([described.errorCode, described.groupState]).toEqual([ErrorCodes.NONE, 'Dead'])
        expect([describedV6.errorCode, describedV6.errorMessage]).toEqual([
          ErrorCodes.GROUP_ID_NOT_FOUND,
          `Group ${groupId} is not a classic group.`,
        ])
        expect([share.errorCode, share.groupState, share.assignorName, share.members.length]).toEqual([
          ErrorCodes.NONE,
          'Stable',
          'simple',
          1,
        ])
        expect(share.members[0].memberId).toBe(member.memberId)
        expect(share.members[0].subscribedTopicNames).toEqual([topic])
        expect(share.members[0].assignment.topicPartitions.map((t) => [t.topicName, [...t.partitions].sort()])).toEqual([[topic, [0, 1]]])
        expect(share.members[0].memberEpoch).toBe(share.assignmentEpoch)
        expect([heartbeat.errorCode, heartbeat.errorMessage]).toEqual([
          ErrorCodes.GROUP_ID_NOT_FOUND,
          `Group ${groupId} is not a consumer group.`,
        ])
        expect(refused.errorCode).toBe(ErrorCodes.NON_EMPTY_GROUP)
      } finally {
        await member.disconnect()
      }
      await until(
        async () => (await listed(['share'], groupId))[0]?.groupState === 'Empty',
        30_000,
        () => 'the group did not become Empty',
      )
      expect((await raw.request(M.DeleteGroups, 2, { groupsNames: [groupId] })).results[0].errorCode).toBe(ErrorCodes.NONE)
      expect(await listed([], groupId)).toEqual([])
      const gone = (await raw.request(M.ShareGroupDescribe, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
      expect(gone.errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
    }, 90_000)
  })
