// A KIP-848 consumer group's records as Kafka 4.4 writes them into
// __consumer_offsets (ConsumerGroup* coordinator records, types 3 to 8),
// read back with wafka's codecs (generated from the group-coordinator
// module's definitions): a member joins (its subscription, the group epoch,
// its target assignment and the assignment's epoch, its current assignment),
// leaves (tombstones for its records, a new group epoch), and the group is
// deleted (tombstones for the group's); and a member's current assignment
// through a revocation (its state, epochs, partitions' assignment epochs).
// Each key and value decodes to what
// happened and encodes back to the bytes the broker wrote, on Kafka 4.4 and
// on the embedded broker, with the same assertions. The group's metadata
// hash and the assignment's timestamp are not compared: the embedded broker
// writes 0 for the hash.
import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadCodecs } from '../../src/codec/index.js'
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupHeartbeat,
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMemberMetadataValue,
  ConsumerGroupMetadataKey,
  ConsumerGroupMetadataValue,
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMemberValue,
  ConsumerGroupTargetAssignmentMetadataKey,
  ConsumerGroupTargetAssignmentMetadataValue,
  CreateTopics,
  DeleteGroups,
  Metadata,
} from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { coordinatorClient, type CoordinatorRecord, partitionOf, readOffsetsPartition, roundTrip } from './offsets-topic-records.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const PARTITIONS = 10
const GROUP = 'consumer-records-group'

const config = { 'offsets.topic.num.partitions': String(PARTITIONS) }

for (const target of brokerTargets({ kafka: { config }, embedded: { config } }))
  describe.skipIf(!target.available)(`a consumer group’s records in __consumer_offsets, as ${target.name} writes them`, () => {
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

    /** The consumer group records (types 3 to 8) of the group's partition, from `from` on. */
    async function records(from = 0): Promise<CoordinatorRecord[]> {
      return (await readOffsetsPartition(c, partitionOf(GROUP, PARTITIONS))).filter((r) => r.type >= 3 && r.type <= 8).slice(from)
    }

    it('a member’s join, its leaving and the group’s deletion, decoded and encoded back byte for byte', async () => {
      c = await coordinatorClient(bootstrap, GROUP)
      const topicId = (await c.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })).topics[0].topicId
      const memberId = randomUUID()
      const heartbeat = (memberEpoch: number) =>
        c.request(ConsumerGroupHeartbeat, 1, {
          groupId: GROUP,
          memberId,
          memberEpoch,
          instanceId: null,
          rackId: null,
          rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
          subscribedTopicNames: memberEpoch === 0 ? ['t'] : null,
          subscribedTopicRegex: null,
          serverAssignor: null,
          topicPartitions: memberEpoch === 0 ? [] : null,
        })
      let hb = await heartbeat(0)
      // COORDINATOR_LOAD_IN_PROGRESS while the partition loads.
      await until(
        async () => hb.errorCode === 0 || (hb = await heartbeat(0)).errorCode === 0,
        30_000,
        () => `ConsumerGroupHeartbeat: ${hb.errorCode}`,
      )
      const epoch = hb.memberEpoch
      expect(epoch).toBeGreaterThan(0)
      expect(hb.assignment?.topicPartitions).toEqual([{ topicId, partitions: [0, 1] }])

      // The join wrote the member's subscription, the group epoch, its target assignment and the assignment's epoch,
      // its current assignment, in that order.
      const joined = await records()
      expect(joined.map((r) => r.type)).toEqual([5, 3, 7, 6, 8])
      const [member, group, target, targetEpoch, current] = joined
      expect(roundTrip(ConsumerGroupMemberMetadataKey, member.key)).toEqual({ version: 5, value: { groupId: GROUP, memberId } })
      expect(roundTrip(ConsumerGroupMemberMetadataValue, member.value!).value).toMatchObject({
        instanceId: null,
        rackId: null,
        clientId: 'raw',
        subscribedTopicNames: ['t'],
        subscribedTopicRegex: '',
        rebalanceTimeoutMs: 30_000,
        serverAssignor: null,
        classicMemberMetadata: null,
      })
      expect(roundTrip(ConsumerGroupMetadataKey, group.key)).toEqual({ version: 3, value: { groupId: GROUP } })
      expect(roundTrip(ConsumerGroupMetadataValue, group.value!).value.epoch).toBe(epoch)
      expect(roundTrip(ConsumerGroupTargetAssignmentMemberKey, target.key).value).toEqual({ groupId: GROUP, memberId })
      expect(roundTrip(ConsumerGroupTargetAssignmentMemberValue, target.value!).value.topicPartitions).toMatchObject([
        { topicId, partitions: [0, 1] },
      ])
      expect(roundTrip(ConsumerGroupTargetAssignmentMetadataKey, targetEpoch.key).value).toEqual({ groupId: GROUP })
      expect(roundTrip(ConsumerGroupTargetAssignmentMetadataValue, targetEpoch.value!).value.assignmentEpoch).toBe(epoch)
      expect(roundTrip(ConsumerGroupCurrentMemberAssignmentKey, current.key).value).toEqual({ groupId: GROUP, memberId })
      expect(roundTrip(ConsumerGroupCurrentMemberAssignmentValue, current.value!).value).toMatchObject({
        memberEpoch: epoch,
        previousMemberEpoch: 0,
        state: 0,
        assignedPartitions: [{ topicId, partitions: [0, 1] }],
        partitionsPendingRevocation: [],
      })

      // A heartbeat that changes nothing writes nothing.
      expect((await heartbeat(epoch)).errorCode).toBe(0)
      expect(await records(joined.length)).toEqual([])

      // The member leaves: its current assignment, target assignment and subscription tombstoned; the group epoch moves
      // on, and the empty group's (empty) target assignment is at it.
      const left = await heartbeat(-1)
      expect(left.errorCode).toBe(0)
      const leaving = await records(joined.length)
      expect(leaving.map((r) => [r.type, r.value === null])).toEqual([
        [8, true],
        [7, true],
        [5, true],
        [3, false],
        [6, false],
      ])
      for (const r of leaving.slice(0, 3)) expect(r.key.includes(Buffer.from(memberId))).toBe(true)
      expect(roundTrip(ConsumerGroupMetadataValue, leaving[3].value!).value.epoch).toBe(epoch + 1)
      expect(roundTrip(ConsumerGroupTargetAssignmentMetadataValue, leaving[4].value!).value.assignmentEpoch).toBe(epoch + 1)

      // The group deleted: its target assignment epoch, subscription metadata and epoch tombstoned.
      const deleted = await c.request(DeleteGroups, 2, { groupsNames: [GROUP] })
      expect(deleted.results[0].errorCode).toBe(0)
      const gone = (await readOffsetsPartition(c, partitionOf(GROUP, PARTITIONS))).slice(-3)
      expect(gone.map((r) => [r.type, r.value])).toEqual([
        [6, null],
        [4, null],
        [3, null],
      ])
    })

    it('a member giving a partition up: its current assignment says so (unrevoked, the previous epoch its own), then at the new epoch', async () => {
      const group = 'consumer-records-revoke'
      const rc = await coordinatorClient(bootstrap, group)
      try {
        const topicId = (await rc.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })).topics[0].topicId
        const [first, second] = [randomUUID(), randomUUID()]
        const heartbeat = (memberId: string, memberEpoch: number, owned: number[] | null) =>
          rc.request(ConsumerGroupHeartbeat, 1, {
            groupId: group,
            memberId,
            memberEpoch,
            instanceId: null,
            rackId: null,
            rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
            subscribedTopicNames: memberEpoch === 0 ? ['t'] : null,
            subscribedTopicRegex: null,
            serverAssignor: null,
            topicPartitions: owned === null ? null : owned.length ? [{ topicId, partitions: owned }] : [],
          })
        /** The latest current assignment record of `memberId`, decoded. */
        const current = async (memberId: string) => {
          const all = await readOffsetsPartition(rc, partitionOf(group, PARTITIONS))
          const r = all.filter((x) => x.type === 8 && x.key.includes(Buffer.from(memberId))).at(-1)!
          return roundTrip(ConsumerGroupCurrentMemberAssignmentValue, r.value!).value
        }
        let a = await heartbeat(first, 0, [])
        await until(
          async () => a.errorCode === 0 || (a = await heartbeat(first, 0, [])).errorCode === 0,
          30_000,
          () => `ConsumerGroupHeartbeat: ${a.errorCode}`,
        )
        const epoch = a.memberEpoch
        // Past group.consumer.assignment.interval.ms (1 s): the second member's join is assigned at once.
        await new Promise((resolve) => setTimeout(resolve, 1500))
        const b = await heartbeat(second, 0, [])
        expect([b.errorCode, b.memberEpoch]).toEqual([0, epoch + 1])
        // The first must give one partition up: it stays at its epoch, which its record says is also its previous one.
        const a1 = await heartbeat(first, epoch, [0, 1])
        expect([a1.errorCode, a1.memberEpoch]).toEqual([0, epoch])
        const kept = a1.assignment!.topicPartitions[0].partitions
        expect(kept).toHaveLength(1)
        expect(await current(first)).toMatchObject({
          memberEpoch: epoch,
          previousMemberEpoch: epoch,
          state: 1,
          assignedPartitions: [{ topicId, partitions: kept, assignmentEpochs: [epoch] }],
          partitionsPendingRevocation: [{ topicId, partitions: [1 - kept[0]], assignmentEpochs: [epoch] }],
        })
        // It has: the new epoch, its previous the one it left.
        const a2 = await heartbeat(first, epoch, kept)
        expect([a2.errorCode, a2.memberEpoch]).toEqual([0, epoch + 1])
        expect(await current(first)).toMatchObject({
          memberEpoch: epoch + 1,
          previousMemberEpoch: epoch,
          state: 0,
          assignedPartitions: [{ topicId, partitions: kept, assignmentEpochs: [epoch] }],
          partitionsPendingRevocation: [],
        })
        // The second, waiting for the partition until then, gets it (unreleased before: at the new epoch, nothing yet).
        const b1 = await heartbeat(second, epoch + 1, [])
        expect([b1.errorCode, b1.memberEpoch, b1.assignment?.topicPartitions]).toEqual([
          0,
          epoch + 1,
          [{ topicId, partitions: [1 - kept[0]] }],
        ])
        expect(await current(second)).toMatchObject({
          memberEpoch: epoch + 1,
          previousMemberEpoch: epoch + 1,
          state: 0,
          assignedPartitions: [{ topicId, partitions: [1 - kept[0]], assignmentEpochs: [epoch + 1] }],
        })
      } finally {
        rc.close()
      }
    })
  })
