// The group coordinator's records as Kafka 4.4 writes them into
// __consumer_offsets, read back with wafka's codecs (generated from the
// group-coordinator module's own definitions, src/protocol/spec/messages):
// an offset commit (OffsetCommitKey type 1, OffsetCommitValue v4) and a
// classic group's metadata after a join and sync (GroupMetadataKey type 2,
// GroupMetadataValue v3, its member with subscription and assignment).
// Each record's key and value decode to what was asked, and encode back to
// the bytes the broker wrote: on Kafka 4.4 and on the embedded broker (3
// brokers: the records are read from the group's coordinator, the leader of
// its partition), with the same assertions.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeRecordSet, loadCodecs } from '../../src/codec/index.js'
import {
  CreateTopics,
  GroupMetadataKey,
  GroupMetadataValue,
  JoinGroup,
  Metadata,
  OffsetCommit,
  OffsetCommitKey,
  OffsetCommitValue,
  OffsetFetch,
  SyncGroup,
} from '../../src/protocol/messages/index.js'
import { Kafka } from '../../src/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { coordinatorClient, fetchOffsetsPartition, partitionOf, readOffsetsPartition, roundTrip } from './offsets-topic-records.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const PARTITIONS = 10
const GROUP = 'records-group'
const TXN_GROUP = 'records-txn-group'

const config = { 'offsets.topic.num.partitions': String(PARTITIONS) }

for (const target of brokerTargets({ kafka: { config }, embedded: { config } }))
  describe.skipIf(!target.available)(`the group coordinator’s records in __consumer_offsets, as ${target.name} writes them`, () => {
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

    it('an offset commit and a classic group’s metadata decode, and encode back byte for byte', async () => {
      // The coordinator: the leader of the group's partition, whose log the records are read from.
      c = await coordinatorClient(bootstrap, GROUP)
      // A member joins and syncs (its generation, protocol, subscription and assignment go into the group's record).
      const subscription = Buffer.from('subscription-bytes')
      const assignment = Buffer.from('assignment-bytes')
      const join = {
        groupId: GROUP,
        sessionTimeoutMs: 30_000,
        rebalanceTimeoutMs: 30_000,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: subscription }],
        reason: null,
      }
      let joined = await c.request(JoinGroup, 9, { ...join, memberId: '' })
      await until(
        async () => {
          if (joined.errorCode === 0) return true
          // MEMBER_ID_REQUIRED hands out the id; COORDINATOR_LOAD_IN_PROGRESS while the partition loads.
          joined = await c.request(JoinGroup, 9, { ...join, memberId: joined.memberId })
          return joined.errorCode === 0
        },
        30_000,
        () => `JoinGroup: ${joined.errorCode}`,
      )
      const synced = await c.request(SyncGroup, 5, {
        groupId: GROUP,
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [{ memberId: joined.memberId, assignment }],
      })
      expect(synced.errorCode).toBe(0)
      const committedAt = Date.now()
      const commit = await c.request(OffsetCommit, 8, {
        groupId: GROUP,
        generationIdOrMemberEpoch: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
        topics: [
          { name: 't', partitions: [{ partitionIndex: 1, committedOffset: 42n, committedLeaderEpoch: 3, committedMetadata: 'meta' }] },
        ],
      })
      expect(commit.topics[0].partitions[0].errorCode).toBe(0)

      const records = await readOffsetsPartition(c, partitionOf(GROUP, PARTITIONS))

      const offsets = records.filter((r) => r.key.readInt16BE(0) === 1)
      expect(offsets).toHaveLength(1)
      expect(roundTrip(OffsetCommitKey, offsets[0].key)).toEqual({ version: 1, value: { group: GROUP, topic: 't', partition: 1 } })
      const offset = roundTrip(OffsetCommitValue, offsets[0].value!)
      // v4: flexible, with the topic's id as a tagged field.
      expect(offset.version).toBe(4)
      const tId = (await c.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })).topics[0].topicId
      expect(offset.value).toMatchObject({ offset: 42n, leaderEpoch: 3, metadata: 'meta', expireTimestamp: -1n, topicId: tId })
      expect(Number(offset.value.commitTimestamp)).toBeGreaterThanOrEqual(committedAt - 1000)

      const groups = records.filter((r) => r.key.readInt16BE(0) === 2)
      expect(groups.length).toBeGreaterThan(0)
      for (const g of groups) expect(roundTrip(GroupMetadataKey, g.key)).toEqual({ version: 2, value: { group: GROUP } })
      // The last one: after the sync, the member with its assignment.
      const group = roundTrip(GroupMetadataValue, groups.at(-1)!.value!)
      expect(group.version).toBe(3)
      expect(group.value).toMatchObject({
        protocolType: 'consumer',
        generation: joined.generationId,
        protocol: 'range',
        leader: joined.memberId,
      })
      expect(group.value.members).toHaveLength(1)
      expect(group.value.members[0]).toMatchObject({
        memberId: joined.memberId,
        groupInstanceId: null,
        clientId: 'raw',
        rebalanceTimeout: 30_000,
        sessionTimeout: 30_000,
      })
      expect(Buffer.from(group.value.members[0].subscription).equals(subscription)).toBe(true)
      expect(Buffer.from(group.value.members[0].assignment).equals(assignment)).toBe(true)
    })
    it('transactional offset commits: a transactional batch of the producer, resolved by its COMMIT or ABORT marker', async () => {
      const tc = await coordinatorClient(bootstrap, TXN_GROUP)
      const kafka = new Kafka({ clientId: 'records', brokers: cluster.bootstrap.split(','), logLevel: 0 })
      const p = kafka.producer({ transactionalId: 'records-txn' })
      try {
        await p.connect()
        for (const [offset, commit] of [
          [7, true],
          [9, false],
        ] as const) {
          const t = await p.transaction()
          await t.send({ topic: 't', messages: [{ value: 'x', partition: 0 }] })
          await t.sendOffsets({
            consumerGroupId: TXN_GROUP,
            topics: [{ topic: 't', partitions: [{ partition: 0, offset: String(offset) }] }],
          })
          if (commit) await t.commit()
          else await t.abort()
        }
        // Kafka writes the markers after EndTxn is answered: read until both are there.
        let seen: (number | string)[] = []
        let producerIds = new Set<bigint>()
        await until(
          async () => {
            const part = await fetchOffsetsPartition(tc, partitionOf(TXN_GROUP, PARTITIONS))
            if (part.errorCode !== 0 || !part.records) return false
            const batches = decodeRecordSet(part.records).batches.filter((b) => b.isTransactional)
            producerIds = new Set(batches.map((b) => b.producerId))
            seen = batches.map((b) => {
              if (b.isControl) return b.controlType as string
              const r = b.records[0]
              expect(roundTrip(OffsetCommitKey, Buffer.from(r.key!)).value).toEqual({ group: TXN_GROUP, topic: 't', partition: 0 })
              return Number(roundTrip(OffsetCommitValue, Buffer.from(r.value!)).value.offset)
            })
            return seen.length >= 4
          },
          30_000,
          () => `the transactional batches and markers: ${seen.join()}`,
        )
        expect(seen).toEqual([7, 'COMMIT', 9, 'ABORT'])
        // One producer wrote them all.
        expect(producerIds.size).toBe(1)
        const fetched = await tc.request(OffsetFetch, 7, {
          groupId: TXN_GROUP,
          topics: [{ name: 't', partitionIndexes: [0] }],
          requireStable: true,
        })
        expect(fetched.topics[0].partitions[0].committedOffset).toBe(7n)
      } finally {
        await p.disconnect()
        tc.close()
      }
    })
  })
