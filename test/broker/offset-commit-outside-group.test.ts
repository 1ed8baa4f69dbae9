// OffsetCommit with a negative generation (member epoch -1): a commit
// outside group management. Kafka 4's coordinator takes it whatever member
// id it names — librdkafka's KIP-848 consumer names its own before it has
// joined — when the group does not exist (it creates a "simple" classic
// group) or is empty, of either type; a group with members refuses a
// stranger. A positive generation to an unknown group is GROUP_ID_NOT_FOUND
// from v9, ILLEGAL_GENERATION before.
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ConsumerGroupHeartbeat,
  DescribeGroups,
  FindCoordinator,
  JoinGroup,
  OffsetCommit,
  OffsetFetch,
} from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster | undefined
const open: RawClient[] = []

afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
})

async function coordinator(groupId: string): Promise<RawClient> {
  cluster ??= await startCluster({ brokers: 1, topics: [{ name: 't', partitions: 2 }] })
  const c = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  open.push(c)
  expect((await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0].errorCode).toBe(0)
  return c
}

const commit = async (c: RawClient, groupId: string, memberId: string, epoch: number, version = 9, offset = 5n) =>
  (
    await c.request(OffsetCommit, version, {
      groupId,
      generationIdOrMemberEpoch: epoch,
      memberId,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedMetadata: null }] }],
    })
  ).topics[0].partitions[0].errorCode

const committed = async (c: RawClient, groupId: string) =>
  (
    await c.request(OffsetFetch, 9, {
      groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }],
      requireStable: false,
    })
  ).groups[0].topics[0].partitions[0].committedOffset

describe('OffsetCommit with a negative generation', () => {
  it('creates the group when it does not exist, whatever member id it names (a KIP-848 consumer before it joins)', async () => {
    const c = await coordinator('simple-new')
    expect(await commit(c, 'simple-new', 'rdkafka-own-member-id', -1)).toBe(ErrorCodes.NONE)
    expect(await committed(c, 'simple-new')).toBe(5n)
    // Kafka's "simple" group: classic, empty, no protocol.
    expect((await c.request(DescribeGroups, 5, { groups: ['simple-new'] })).groups[0]).toMatchObject({
      errorCode: 0,
      groupState: 'Empty',
      protocolType: '',
    })
    // An older version too (the member id of a v1-v8 commit is free as well).
    expect(await commit(c, 'simple-new', 'someone', -1, 2, 6n)).toBe(ErrorCodes.NONE)
    expect(await committed(c, 'simple-new')).toBe(6n)
  })

  it('is taken by an empty consumer group and by an empty classic group, with a member id', async () => {
    const c = await coordinator('empty-groups')
    // A KIP-848 member joins and leaves: the consumer group stays, empty.
    const hb = {
      groupId: 'empty-groups',
      memberId: 'm',
      instanceId: null,
      rebalanceTimeoutMs: 10_000,
      subscribedTopicNames: ['t'],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
    }
    expect((await c.request(ConsumerGroupHeartbeat, 1, { ...hb, memberEpoch: 0 })).errorCode).toBe(0)
    // While m is a member, a stranger at epoch -1 is refused, as Kafka does.
    expect(await commit(c, 'empty-groups', 'stranger', -1)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    expect((await c.request(ConsumerGroupHeartbeat, 1, { ...hb, memberEpoch: -1, topicPartitions: null })).errorCode).toBe(0)
    expect(await commit(c, 'empty-groups', 'stranger', -1)).toBe(ErrorCodes.NONE)

    // An empty classic group (the simple group of the test before, made here by a commit without member id).
    expect(await commit(c, 'empty-classic', '', -1)).toBe(ErrorCodes.NONE)
    expect(await commit(c, 'empty-classic', 'rdkafka-own-member-id', -1, 9, 8n)).toBe(ErrorCodes.NONE)
    expect(await committed(c, 'empty-classic')).toBe(8n)
  })

  it('is refused by a classic group with members (UNKNOWN_MEMBER_ID), named or not', async () => {
    const c = await coordinator('busy-classic')
    const join = await c.request(JoinGroup, 9, {
      groupId: 'busy-classic',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      reason: null,
    })
    expect(join.errorCode).toBe(ErrorCodes.MEMBER_ID_REQUIRED)
    const joined = await c.request(JoinGroup, 9, {
      groupId: 'busy-classic',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: join.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      reason: null,
    })
    expect(joined.errorCode).toBe(0)
    expect(await commit(c, 'busy-classic', '', -1)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    expect(await commit(c, 'busy-classic', 'stranger', -1)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('a positive generation to a group that does not exist: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION before; no group is created', async () => {
    const c = await coordinator('nothing-here')
    expect(await commit(c, 'nothing-here', 'm', 3)).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
    expect(await commit(c, 'nothing-here', 'm', 3, 8)).toBe(ErrorCodes.ILLEGAL_GENERATION)
    expect((await c.request(DescribeGroups, 5, { groups: ['nothing-here'] })).groups[0]).toMatchObject({ groupState: 'Dead' })
  })
})
