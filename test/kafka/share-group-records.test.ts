// A share group's records as Kafka 4.4 writes them into __consumer_offsets
// (ShareGroup* coordinator records, types 10 to 14), read back with wafka's
// codecs (generated from the group-coordinator module's definitions): a
// member joins (its subscription, the group epoch, the target assignment and
// its epoch, its current assignment), leaves (tombstones for its records),
// and the group is deleted (tombstones for the group's). Each key and value
// decodes to what happened and encodes back to the bytes the broker wrote,
// on Kafka 4.4 and on the embedded broker, with the same assertions. The
// group's metadata hash is not compared: the embedded broker writes 0.
import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCodecs } from '../../src/codec/index.js'
import {
  CreateTopics,
  DeleteGroups,
  Metadata,
  ShareGroupCurrentMemberAssignmentKey,
  ShareGroupCurrentMemberAssignmentValue,
  ShareGroupHeartbeat,
  ShareGroupMemberMetadataKey,
  ShareGroupMemberMetadataValue,
  ShareGroupMetadataKey,
  ShareGroupMetadataValue,
  ShareGroupTargetAssignmentMemberKey,
  ShareGroupTargetAssignmentMemberValue,
  ShareGroupTargetAssignmentMetadataKey,
  ShareGroupTargetAssignmentMetadataValue,
} from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { coordinatorClient, type CoordinatorRecord, partitionOf, readOffsetsPartition, roundTrip } from './offsets-topic-records.js'
import { SHARE_GROUP_TEST_CONFIG } from '../peers/kafka.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const PARTITIONS = 10
const GROUP = 'share-records-group'

const config = { 'offsets.topic.num.partitions': String(PARTITIONS), ...SHARE_GROUP_TEST_CONFIG }

for (const target of brokerTargets({ kafka: { config }, embedded: { config } }))
  describe.skipIf(!target.available)(`a share group’s records in __consumer_offsets, as ${target.name} writes them`, () => {
    let cluster: RunningTarget
    let bootstrap: RawClient
    let c: RawClient
    beforeAll(async () => {
      await loadCodecs()
      cluster = await target.start()
      bootstrap = await RawClient.open(cluster.bootstrap.split(',')[0])
      await bootstrap.request(CreateTopics, 7, { topics: [{ name: 't', numPartitions: 2, replicationFactor: 1 }], timeoutMs: 10_000 })
    }, 120_000)
    afterAll(async () => {
      bootstrap?.close()
      c?.close()
      await cluster?.stop()
    })

    /** The share records (types 10 to 15) of the group's partition, from `from` on. */
    async function records(from = 0): Promise<CoordinatorRecord[]> {
      return (await readOffsetsPartition(c, partitionOf(GROUP, PARTITIONS))).filter((r) => r.type >= 10 && r.type <= 15).slice(from)
    }

    it('a member’s join, its leaving and the group’s deletion, decoded and encoded back byte for byte', async () => {
      c = await coordinatorClient(bootstrap, GROUP)
      const topicId = (await c.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })).topics[0].topicId
      const memberId = randomUUID()
      const v = ShareGroupHeartbeat.maxVersion
      let hb = await c.request(ShareGroupHeartbeat, v, {
        groupId: GROUP,
        memberId,
        memberEpoch: 0,
        rackId: null,
        subscribedTopicNames: ['t'],
      })
      await until(
        async () => {
          if (hb.errorCode === 0) return true
          // COORDINATOR_LOAD_IN_PROGRESS while the partition loads.
          hb = await c.request(ShareGroupHeartbeat, v, {
            groupId: GROUP,
            memberId,
            memberEpoch: 0,
            rackId: null,
            subscribedTopicNames: ['t'],
          })
          return hb.errorCode === 0
        },
        30_000,
        () => `ShareGroupHeartbeat: ${hb.errorCode}`,
      )
      // Kafka assigns a topic once its share state is initialized: heartbeats until the member has both partitions.
      let epoch = hb.memberEpoch
      let assigned = hb.assignment?.topicPartitions ?? []
      await until(
        async () => {
          if (assigned.flatMap((t) => t.partitions).length === 2) return true
          hb = await c.request(ShareGroupHeartbeat, v, {
            groupId: GROUP,
            memberId,
            memberEpoch: epoch,
            rackId: null,
            subscribedTopicNames: null,
          })
          expect(hb.errorCode).toBe(0)
          epoch = hb.memberEpoch
          if (hb.assignment) assigned = hb.assignment.topicPartitions
          return false
        },
        30_000,
        () => `the member's assignment: ${JSON.stringify(assigned)}`,
      )
      expect(epoch).toBeGreaterThan(0)

      // The join, then (on Kafka, once the topic's share state is initialized) the assignment: each heartbeat that changed
      // something wrote the member's subscription (the first), the group epoch, its target assignment and the assignment's
      // epoch, its current assignment, in that order. The latest record of each type says where the group is.
      const joined = await records()
      const shareTypes = joined.map((r) => r.type).filter((t) => t !== 15)
      expect(shareTypes.join()).toMatch(/^10,11,13,12,14(,11,13,12,14)*$/)
      const last = (type: number) => joined.filter((r) => r.type === type).at(-1)!
      expect(joined.filter((r) => r.type === 10)).toHaveLength(1)
      expect(roundTrip(ShareGroupMemberMetadataKey, last(10).key)).toEqual({ version: 10, value: { groupId: GROUP, memberId } })
      expect(roundTrip(ShareGroupMemberMetadataValue, last(10).value!).value).toMatchObject({
        rackId: null,
        clientId: 'raw',
        subscribedTopicNames: ['t'],
      })
      expect(roundTrip(ShareGroupMetadataKey, last(11).key)).toEqual({ version: 11, value: { groupId: GROUP } })
      expect(roundTrip(ShareGroupMetadataValue, last(11).value!).value.epoch).toBe(epoch)
      expect(roundTrip(ShareGroupTargetAssignmentMemberKey, last(13).key).value).toEqual({ groupId: GROUP, memberId })
      expect(roundTrip(ShareGroupTargetAssignmentMemberValue, last(13).value!).value.topicPartitions).toMatchObject([
        { topicId, partitions: [0, 1] },
      ])
      expect(roundTrip(ShareGroupTargetAssignmentMetadataKey, last(12).key).value).toEqual({ groupId: GROUP })
      expect(roundTrip(ShareGroupTargetAssignmentMetadataValue, last(12).value!).value.assignmentEpoch).toBe(epoch)
      const currents = joined.filter((r) => r.type === 14).map((r) => roundTrip(ShareGroupCurrentMemberAssignmentValue, r.value!).value)
      expect(roundTrip(ShareGroupCurrentMemberAssignmentKey, last(14).key).value).toEqual({ groupId: GROUP, memberId })
      expect(currents.at(-1)).toMatchObject({
        memberEpoch: epoch,
        // The epoch of the member's record before (0 for its first).
        previousMemberEpoch: currents.at(-2)?.memberEpoch ?? 0,
        state: 0,
        assignedPartitions: [{ topicId, partitions: [0, 1] }],
      })

      // The member leaves: its current assignment, target assignment and subscription tombstoned; the group epoch moves on.
      const left = await c.request(ShareGroupHeartbeat, v, {
        groupId: GROUP,
        memberId,
        memberEpoch: -1,
        rackId: null,
        subscribedTopicNames: null,
      })
      expect(left.errorCode).toBe(0)
      const afterLeave = await records(joined.length)
      const leaving = afterLeave.filter((r) => r.type !== 15)
      expect(leaving.filter((r) => r.value === null).map((r) => r.type)).toEqual([14, 13, 10])
      for (const r of leaving.filter((r) => r.value === null)) expect(r.key.includes(Buffer.from(memberId))).toBe(true)
      const moved = leaving.filter((r) => r.type === 11)
      expect(moved).toHaveLength(1)
      expect(roundTrip(ShareGroupMetadataValue, moved[0].value!).value.epoch).toBe(epoch + 1)

      // The group deleted: its epoch and target assignment epoch tombstoned.
      const deleted = await c.request(DeleteGroups, 2, { groupsNames: [GROUP] })
      expect(deleted.results[0].errorCode).toBe(0)
      const gone = await records(joined.length + afterLeave.length)
      expect(gone.filter((r) => r.type !== 15).map((r) => [r.type, r.value])).toEqual([
        [12, null],
        [11, null],
      ])
    })
  })
