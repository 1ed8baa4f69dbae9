// KIP-848's consumer group protocol on the embedded broker. At the request
// level: member and group epochs, the target assignment and its
// reconciliation (a partition reaches its new owner only once the old one's
// heartbeat says it revoked it), leave (-1, static -2), session and rebalance
// timeouts, static members, the errors Kafka answers, ConsumerGroupDescribe,
// DescribeGroups/ListGroups, and offset commits checked against the member
// epoch. Then clients: wafka's consumer with groupProtocol 'consumer' (three
// members, one joining, one leaving, no partition ever owned twice, every
// message consumed once), and the Java client's (group.protocol=consumer) in
// the same group as wafka.
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Controller } from '../../src/broker/controller.js'
import { ConsumerGroup } from '../../src/broker/groups/consumer-group.js'
import { Kafka, type Consumer } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ConsumerGroupDescribe,
  ConsumerGroupHeartbeat,
  DeleteGroups,
  DescribeGroups,
  FindCoordinator,
  JoinGroup,
  ListGroups,
  Metadata,
  OffsetCommit,
  OffsetDelete,
  OffsetFetch,
} from '../../src/protocol/messages/index.js'
import { javaGroupMember } from '../peers/java-client.js'
import { javaPeer, requireKafka } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

let cluster: RunningCluster | undefined
const open: RawClient[] = []
const clients: Array<{ disconnect(): Promise<void> }> = []

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
})

const GROUP = 'kip848-raw'
/**
 * The request-level tests take each target at the heartbeat that follows
 * its cause, as Kafka does with the assignment interval at 0; the interval
 * itself (KIP-1263) is held to Kafka's in test/kafka/kip848-offsets-regex.test.ts.
 */
const PER_HEARTBEAT = { consumerGroupAssignmentIntervalMs: 0 }

async function start(options: Parameters<typeof startCluster>[0] = {}) {
  cluster = await startCluster({ brokers: 2, topics: [{ name: 't', partitions: 6 }], ...options })
  return cluster
}

/** A connection to GROUP's coordinator. */
async function coordinator(groupId = GROUP): Promise<RawClient> {
  const boot = await RawClient.open(cluster!.bootstrapServers.split(',')[0])
  open.push(boot)
  const { nodeId } = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]
  const b = cluster!.brokers[nodeId]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

async function topicId(c: RawClient, name = 't'): Promise<string> {
  const md = await c.request(Metadata, 12, { topics: [{ name }] })
  return md.topics[0].topicId
}

type Owned = Array<{ topicId: string; partitions: number[] }>

const join = (c: RawClient, memberId: string, o: { instanceId?: string; topics?: string[]; regex?: string; assignor?: string } = {}) =>
  c.request(ConsumerGroupHeartbeat, 1, {
    groupId: GROUP,
    memberId,
    memberEpoch: 0,
    instanceId: o.instanceId ?? null,
    rebalanceTimeoutMs: 10_000,
    subscribedTopicNames: o.regex ? null : (o.topics ?? ['t']),
    subscribedTopicRegex: o.regex ?? null,
    serverAssignor: o.assignor ?? null,
    topicPartitions: [],
  })

const beat = (c: RawClient, memberId: string, memberEpoch: number, owned: Owned | null, instanceId: string | null = null) =>
  c.request(ConsumerGroupHeartbeat, 1, {
    groupId: GROUP,
    memberId,
    memberEpoch,
    instanceId,
    subscribedTopicNames: null,
    topicPartitions: owned,
  })

const partitionsOf = (a: { topicPartitions: Owned } | null) => (a?.topicPartitions ?? []).flatMap((t) => t.partitions).sort((x, y) => x - y)

describe('ConsumerGroupHeartbeat: epochs, target assignment, reconciliation', () => {
  it('a second member gets partitions only after the first has revoked them; both end at the new epoch, disjoint', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const id = await topicId(c)
    const a = await join(c, 'member-a')
    expect(a.errorCode).toBe(0)
    expect(a.memberId).toBe('member-a')
    expect(a.memberEpoch).toBe(2)
    expect(a.heartbeatIntervalMs).toBe(5000)
    expect(partitionsOf(a.assignment)).toEqual([0, 1, 2, 3, 4, 5])

    // b joins: group epoch 3, but every partition is still a's.
    const b = await join(c, 'member-b')
    expect(b.memberEpoch).toBe(3)
    expect(partitionsOf(b.assignment)).toEqual([])

    // a's heartbeat asks it to give three up; it stays at epoch 2 while it still owns them.
    const a2 = await beat(c, 'member-a', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])
    expect(a2.memberEpoch).toBe(2)
    const aKeeps = partitionsOf(a2.assignment)
    expect(aKeeps).toHaveLength(3)
    // Not yet revoked: b still gets nothing, however often it asks.
    expect(partitionsOf((await beat(c, 'member-b', 3, [])).assignment)).toEqual([])
    // Still owning them (and saying so), a stays put.
    expect((await beat(c, 'member-a', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])).memberEpoch).toBe(2)

    // a says it now owns only what it keeps: epoch 3 (its partitions unchanged, so no assignment), and b gets the other three.
    const a3 = await beat(c, 'member-a', 2, [{ topicId: id, partitions: aKeeps }])
    expect(a3.memberEpoch).toBe(3)
    expect(a3.assignment).toBeNull()
    const b2 = await beat(c, 'member-b', 3, [])
    expect(b2.memberEpoch).toBe(3)
    const bGets = partitionsOf(b2.assignment)
    expect(bGets).toHaveLength(3)
    expect([...aKeeps, ...bGets].sort()).toEqual([0, 1, 2, 3, 4, 5])

    const d = (await c.request(ConsumerGroupDescribe, 1, { groupIds: [GROUP], includeAuthorizedOperations: false })).groups[0]
    expect(d).toMatchObject({ errorCode: 0, groupState: 'Stable', groupEpoch: 3, assignmentEpoch: 3, assignorName: 'uniform' })
    expect(d.members.map((m) => [m.memberId, m.memberEpoch, m.memberType]).sort()).toEqual([
      ['member-a', 3, 1],
      ['member-b', 3, 1],
    ])
    const described = d.members.find((m) => m.memberId === 'member-b')!
    expect(described.assignment.topicPartitions).toEqual([{ topicId: id, topicName: 't', partitions: bGets }])
    expect(described.targetAssignment.topicPartitions).toEqual([{ topicId: id, topicName: 't', partitions: bGets }])
    expect(described.subscribedTopicNames).toEqual(['t'])
  })

  it('the epoch is checked: ahead or stale is FENCED_MEMBER_EPOCH, one behind with a subset is accepted, unknown members are UNKNOWN_MEMBER_ID', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const id = await topicId(c)
    expect((await join(c, 'm')).memberEpoch).toBe(2)
    expect((await beat(c, 'm', 3, null)).errorCode).toBe(ErrorCodes.FENCED_MEMBER_EPOCH)
    expect((await beat(c, 'other', 2, null)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    // A second member moves m to epoch 4 once m revokes.
    await join(c, 'n')
    const revoking = await beat(c, 'm', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])
    const keeps = partitionsOf(revoking.assignment)
    expect((await beat(c, 'm', 2, [{ topicId: id, partitions: keeps }])).memberEpoch).toBe(3)
    // The response with epoch 3 was lost: epoch 2 again, owning a subset of its assignment, is fine.
    const retried = await beat(c, 'm', 2, [{ topicId: id, partitions: keeps }])
    expect(retried.errorCode).toBe(0)
    expect(retried.memberEpoch).toBe(3)
    // Epoch 2 claiming partitions it does not have is fenced.
    expect((await beat(c, 'm', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])).errorCode).toBe(ErrorCodes.FENCED_MEMBER_EPOCH)
    // A group that does not exist: the member must join again.
    const gone = await c.request(ConsumerGroupHeartbeat, 1, { groupId: 'no-such', memberId: 'x', memberEpoch: 4, topicPartitions: null })
    expect(gone.errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('bad requests: INVALID_REQUEST for a join without its fields or an empty member id, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const base = {
      groupId: GROUP,
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    }
    const code = async (o: Record<string, unknown>, version = 1) =>
      (await c.request(ConsumerGroupHeartbeat, version, { ...base, ...o } as typeof base)).errorCode
    expect(await code({ memberId: '' })).toBe(ErrorCodes.INVALID_REQUEST)
    expect(await code({ rebalanceTimeoutMs: -1 })).toBe(ErrorCodes.INVALID_REQUEST)
    expect(await code({ subscribedTopicNames: null })).toBe(ErrorCodes.INVALID_REQUEST)
    expect(await code({ topicPartitions: null })).toBe(ErrorCodes.INVALID_REQUEST)
    expect(await code({ memberEpoch: -2, instanceId: null })).toBe(ErrorCodes.INVALID_REQUEST)
    expect(await code({ serverAssignor: 'sticky' })).toBe(ErrorCodes.UNSUPPORTED_ASSIGNOR)
    expect(await code({ subscribedTopicNames: null, subscribedTopicRegex: '(' })).toBe(ErrorCodes.INVALID_REGULAR_EXPRESSION)
    // v0: the coordinator names the member.
    const v0 = await c.request(ConsumerGroupHeartbeat, 0, { ...base, memberId: '' })
    expect(v0.errorCode).toBe(0)
    expect(v0.memberId).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it("refuses the heartbeats Kafka 4.4 refuses, with Kafka's messages: blank ids, a v0 heartbeat without its member id, librdkafka's rejoin without its join fields", async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const base = {
      groupId: GROUP,
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    }
    const refusal = async (o: Record<string, unknown>, version = 1) => {
      const r = await c.request(ConsumerGroupHeartbeat, version, { ...base, ...o } as typeof base)
      return [r.errorCode, r.errorMessage]
    }
    const invalid = (message: string) => [ErrorCodes.INVALID_REQUEST, message]
    // Kafka trims: a blank id is an empty one.
    expect(await refusal({ memberId: '  ' })).toEqual(invalid("MemberId can't be empty."))
    expect(await refusal({ instanceId: ' ' })).toEqual(invalid("InstanceId can't be empty."))
    expect(await refusal({ rackId: ' ' })).toEqual(invalid("RackId can't be empty."))
    expect(await refusal({ groupId: ' ' })).toEqual(invalid("GroupId can't be empty."))
    // v0 names a joining member itself, but a heartbeat or a leave must carry the id.
    expect(await refusal({ memberId: '', memberEpoch: 4, topicPartitions: null }, 0)).toEqual(invalid("MemberId can't be empty."))
    expect(await refusal({ memberId: '', memberEpoch: -1, topicPartitions: null }, 0)).toEqual(invalid("MemberId can't be empty."))
    expect(await refusal({ subscribedTopicNames: null })).toEqual(
      invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.'),
    )
    expect(await refusal({ memberEpoch: -3 })).toEqual(invalid('MemberEpoch is invalid.'))
    // librdkafka 2.15 (0045_subscribe_many_updates): after a leave that raced an unsubscribe during a revocation, it
    // rejoins with epoch 0 but without the join's fields. Kafka 4.4 refuses it the same way (the client treats it as fatal).
    expect((await join(c, 'm')).errorCode).toBe(0)
    expect(
      (await c.request(ConsumerGroupHeartbeat, 1, { groupId: GROUP, memberId: 'm', memberEpoch: -1, topicPartitions: null })).errorCode,
    ).toBe(0)
    expect(await refusal({ rebalanceTimeoutMs: -1, topicPartitions: null })).toEqual(
      invalid('RebalanceTimeoutMs must be provided in first request.'),
    )
  })

  it('leave with epoch -1: the member is gone and its partitions go to the others', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const id = await topicId(c)
    await join(c, 'a')
    await join(c, 'b')
    const keeps = partitionsOf((await beat(c, 'a', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])).assignment)
    await beat(c, 'a', 2, [{ topicId: id, partitions: keeps }])
    const bHas = partitionsOf((await beat(c, 'b', 3, [])).assignment)
    expect(bHas).toHaveLength(3)
    const left = await beat(c, 'b', -1, null)
    expect(left).toMatchObject({ errorCode: 0, memberId: 'b', memberEpoch: -1 })
    const a = await beat(c, 'a', 3, [{ topicId: id, partitions: keeps }])
    expect(a.memberEpoch).toBe(4)
    expect(partitionsOf(a.assignment)).toEqual([0, 1, 2, 3, 4, 5])
    expect((await beat(c, 'b', 3, null)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    expect((await beat(c, 'b', -1, null)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('static members: -2 keeps the partitions for the instance, which rejoins under a new member id with them; a second live instance is UNRELEASED_INSTANCE_ID', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const id = await topicId(c)
    const first = await join(c, 'incarnation-1', { instanceId: 'instance' })
    expect(partitionsOf(first.assignment)).toEqual([0, 1, 2, 3, 4, 5])
    expect((await join(c, 'intruder', { instanceId: 'instance' })).errorCode).toBe(ErrorCodes.UNRELEASED_INSTANCE_ID)
    // A heartbeat naming the instance with the wrong member id is fenced.
    expect((await beat(c, 'intruder', 2, null, 'instance')).errorCode).toBe(ErrorCodes.FENCED_INSTANCE_ID)
    const left = await beat(c, 'incarnation-1', -2, null, 'instance')
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -2 })
    // While it is away, a dynamic member gets nothing of what the instance holds.
    const other = await join(c, 'dynamic')
    expect(partitionsOf(other.assignment)).toEqual([])
    const back = await join(c, 'incarnation-2', { instanceId: 'instance' })
    expect(back.errorCode).toBe(0)
    expect(back.memberId).toBe('incarnation-2')
    // It holds them again at once (the dynamic member's share is revoked from it the normal way).
    expect(partitionsOf(back.assignment).length).toBeGreaterThanOrEqual(3)
    const d = (await c.request(ConsumerGroupDescribe, 1, { groupIds: [GROUP], includeAuthorizedOperations: false })).groups[0]
    expect(d.members.map((m) => m.memberId).sort()).toEqual(['dynamic', 'incarnation-2'])
    expect(d.members.find((m) => m.memberId === 'incarnation-2')!.instanceId).toBe('instance')
    expect((await beat(c, 'incarnation-1', 2, null, 'instance')).errorCode).toBe(ErrorCodes.FENCED_INSTANCE_ID)
    void id
  })

  it('session timeout: a silent member is fenced and its partitions go to the one that heartbeats', async () => {
    await start({ ...PER_HEARTBEAT, consumerGroupSessionTimeoutMs: 600, consumerGroupHeartbeatIntervalMs: 100 })
    const c = await coordinator()
    const id = await topicId(c)
    await join(c, 'alive')
    await join(c, 'silent')
    const keeps = partitionsOf((await beat(c, 'alive', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])).assignment)
    await beat(c, 'alive', 2, [{ topicId: id, partitions: keeps }])
    expect(partitionsOf((await beat(c, 'silent', 3, [])).assignment)).toHaveLength(3)
    // 'silent' stops; 'alive' keeps heartbeating until it has everything.
    let owned = keeps
    let epoch = 3
    await until(
      async () => {
        const r = await beat(c, 'alive', epoch, [{ topicId: id, partitions: owned }])
        expect(r.errorCode).toBe(0)
        epoch = r.memberEpoch
        if (r.assignment) owned = partitionsOf(r.assignment)
        return owned.length === 6
      },
      5000,
      () => `alive owns ${owned}`,
    )
    expect(epoch).toBe(4)
    expect((await beat(c, 'silent', 3, [])).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('rebalance timeout: a member that does not revoke in time is fenced, and the partitions move on', async () => {
    await start({ ...PER_HEARTBEAT, consumerGroupSessionTimeoutMs: 30_000 })
    const c = await coordinator()
    const id = await topicId(c)
    const slow = await c.request(ConsumerGroupHeartbeat, 1, {
      groupId: GROUP,
      memberId: 'slow',
      memberEpoch: 0,
      rebalanceTimeoutMs: 300,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    })
    expect(slow.memberEpoch).toBe(2)
    await join(c, 'quick')
    // Asked to revoke, 'slow' keeps everything.
    await beat(c, 'slow', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])
    await new Promise((r) => setTimeout(r, 600))
    expect((await beat(c, 'slow', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    const quick = await beat(c, 'quick', 3, [])
    expect(quick.memberEpoch).toBe(4)
    expect(partitionsOf(quick.assignment)).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('subscriptions: a regex (resolved a moment after the join, as Kafka does), and the range assignor', async () => {
    await start({
      ...PER_HEARTBEAT,
      topics: [
        { name: 't', partitions: 6 },
        { name: 'orders-eu', partitions: 2 },
        { name: 'orders-us', partitions: 2 },
        { name: 'other', partitions: 2 },
      ],
    })
    const c = await coordinator()
    const r = await join(c, 'rx', { regex: 'orders-.*' })
    expect(r.errorCode).toBe(0)
    const ids = new Map<string, string>()
    for (const n of ['orders-eu', 'orders-us', 'other']) ids.set(await topicId(c, n), n)
    const named = (a: { topicPartitions: Owned } | null) =>
      (a?.topicPartitions ?? []).flatMap((t) => t.partitions.map((p) => `${ids.get(t.topicId)}:${p}`)).sort()
    // The regex is new to the group: the join is no new epoch (the member is at the group's first, 1), and it
    // matches nothing until its resolution lands, with group epoch 2 (Kafka 4.4: test/kafka/kip848-epochs.test.ts).
    expect([r.memberEpoch, named(r.assignment)]).toEqual([1, []])
    let next = r
    await until(
      async () => ((next = await beat(c, 'rx', next.memberEpoch, [])), next.assignment !== null),
      5000,
      () => JSON.stringify(next),
    )
    expect(next.memberEpoch).toBe(2)
    expect(named(next.assignment)).toEqual(['orders-eu:0', 'orders-eu:1', 'orders-us:0', 'orders-us:1'])
    // Topics created later: test/broker/consumer-group-regex.test.ts.

    // range: contiguous ranges per topic, in member id order.
    const g2 = 'kip848-range'
    const rc = await coordinator(g2)
    const rangeJoin = (memberId: string) =>
      rc.request(ConsumerGroupHeartbeat, 1, {
        groupId: g2,
        memberId,
        memberEpoch: 0,
        rebalanceTimeoutMs: 10_000,
        subscribedTopicNames: ['t'],
        serverAssignor: 'range',
        topicPartitions: [],
      })
    await rangeJoin('m1')
    await rangeJoin('m2')
    const d = (await rc.request(ConsumerGroupDescribe, 1, { groupIds: [g2], includeAuthorizedOperations: false })).groups[0]
    expect(d.assignorName).toBe('range')
    const target = (m: string) => d.members.find((x) => x.memberId === m)!.targetAssignment.topicPartitions[0].partitions
    expect(target('m1')).toEqual([0, 1, 2])
    expect(target('m2')).toEqual([3, 4, 5])
  })
})

describe('consumer groups beside classic ones', () => {
  it('DescribeGroups says not a classic group, ListGroups lists both types, ConsumerGroupDescribe refuses a classic group; one id cannot be both', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    await join(c, 'm')
    const dg = (await c.request(DescribeGroups, 6, { groups: [GROUP] })).groups[0]
    expect(dg).toMatchObject({
      errorCode: ErrorCodes.GROUP_ID_NOT_FOUND,
      groupState: 'Dead',
      errorMessage: `Group ${GROUP} is not a classic group.`,
    })
    expect((await c.request(DescribeGroups, 5, { groups: [GROUP] })).groups[0]).toMatchObject({ errorCode: 0, groupState: 'Dead' })
    // A classic member cannot join it.
    const jg = await c.request(JoinGroup, 9, {
      groupId: GROUP,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('x') }],
    })
    expect(jg.errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)

    // A classic group of another id, with a member.
    const CLASSIC = 'kip848-classic'
    const cc = await coordinator(CLASSIC)
    const j = { groupId: CLASSIC, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, groupInstanceId: null, protocolType: 'consumer' }
    const protocols = [{ name: 'range', metadata: Buffer.from('x') }]
    const first = await cc.request(JoinGroup, 9, { ...j, memberId: '', protocols })
    expect((await cc.request(JoinGroup, 9, { ...j, memberId: first.memberId, protocols })).errorCode).toBe(0)
    const hb = await cc.request(ConsumerGroupHeartbeat, 1, {
      groupId: CLASSIC,
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 1000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    })
    expect(hb).toMatchObject({ errorCode: ErrorCodes.GROUP_ID_NOT_FOUND, errorMessage: `Group ${CLASSIC} is not a consumer group.` })
    const cgd = (await cc.request(ConsumerGroupDescribe, 1, { groupIds: [CLASSIC, 'nothing'], includeAuthorizedOperations: false })).groups
    expect(cgd.map((g) => [g.errorCode, g.errorMessage])).toEqual([
      [ErrorCodes.GROUP_ID_NOT_FOUND, `Group ${CLASSIC} is not a consumer group.`],
      [ErrorCodes.GROUP_ID_NOT_FOUND, 'Group nothing not found.'],
    ])

    const listed = new Map<string, { groupType: string; protocolType: string; groupState: string }>()
    for (const b of cluster!.brokers) {
      const l = await RawClient.open(`${b.host}:${b.port}`)
      open.push(l)
      for (const g of (await l.request(ListGroups, 5, { statesFilter: [], typesFilter: [] })).groups) listed.set(g.groupId, g)
      const consumerOnly = (await l.request(ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] })).groups
      expect(consumerOnly.every((g) => g.groupType === 'consumer')).toBe(true)
    }
    expect(listed.get(GROUP)).toMatchObject({ groupType: 'consumer', protocolType: 'consumer', groupState: 'Stable' })
    expect(listed.get(CLASSIC)).toMatchObject({ groupType: 'classic', protocolType: 'consumer' })
  })

  it('an empty group of either type becomes the other when a member of the other protocol comes, keeping its offsets', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    // A simple (classic, memberless) group's commit.
    const commit = await c.request(OffsetCommit, 9, {
      groupId: GROUP,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 42n, committedMetadata: null }] }],
    })
    expect(commit.topics[0].partitions[0].errorCode).toBe(0)
    expect((await join(c, 'm')).errorCode).toBe(0)
    const fetched = await c.request(OffsetFetch, 9, {
      groups: [{ groupId: GROUP, memberId: 'm', memberEpoch: 2, topics: [{ name: 't', partitionIndexes: [0] }] }],
      requireStable: false,
    })
    expect(fetched.groups[0].topics[0].partitions[0].committedOffset).toBe(42n)
  })
  it('OffsetDelete keeps what members subscribe to; DeleteGroups refuses a group with members and deletes an empty one', async () => {
    await start({
      ...PER_HEARTBEAT,
      topics: [
        { name: 't', partitions: 6 },
        { name: 'u', partitions: 1 },
      ],
    })
    const c = await coordinator()
    await join(c, 'm')
    for (const name of ['t', 'u'])
      await c.request(OffsetCommit, 9, {
        groupId: GROUP,
        generationIdOrMemberEpoch: 2,
        memberId: 'm',
        topics: [{ name, partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }],
      })
    const del = await c.request(OffsetDelete, 0, {
      groupId: GROUP,
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0 }] },
        { name: 'u', partitions: [{ partitionIndex: 0 }] },
      ],
    })
    expect(del.topics.map((t) => [t.name, t.partitions[0].errorCode])).toEqual([
      ['t', ErrorCodes.GROUP_SUBSCRIBED_TO_TOPIC],
      ['u', 0],
    ])
    expect((await c.request(DeleteGroups, 2, { groupsNames: [GROUP] })).results[0].errorCode).toBe(ErrorCodes.NON_EMPTY_GROUP)
    await beat(c, 'm', -1, null)
    expect((await c.request(DeleteGroups, 2, { groupsNames: [GROUP] })).results[0].errorCode).toBe(0)
    const d = (await c.request(ConsumerGroupDescribe, 1, { groupIds: [GROUP], includeAuthorizedOperations: false })).groups[0]
    expect(d.errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
  })
})

describe('offsets of a consumer group: the member epoch is checked', () => {
  it('OffsetCommit v9 at the current epoch is accepted; stale is STALE_MEMBER_EPOCH, unknown UNKNOWN_MEMBER_ID, v8 UNSUPPORTED_VERSION, a non-member refused', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    await join(c, 'm')
    const commitAt = async (memberId: string, epoch: number, version = 9) =>
      (
        await c.request(OffsetCommit, version, {
          groupId: GROUP,
          generationIdOrMemberEpoch: epoch,
          memberId,
          topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 7n, committedMetadata: null }] }],
        })
      ).topics[0].partitions[0].errorCode
    expect(await commitAt('m', 2)).toBe(0)
    expect(await commitAt('m', 0)).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect(await commitAt('m', 3)).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect(await commitAt('nobody', 2)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    expect(await commitAt('m', 2, 8)).toBe(ErrorCodes.UNSUPPORTED_VERSION)
    expect(await commitAt('', -1)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    const fetchAt = async (memberId: string | null, memberEpoch: number) =>
      (
        await c.request(OffsetFetch, 9, {
          groups: [{ groupId: GROUP, memberId, memberEpoch, topics: [{ name: 't', partitionIndexes: [1] }] }],
          requireStable: false,
        })
      ).groups[0]
    expect((await fetchAt('m', 2)).topics[0].partitions[0].committedOffset).toBe(7n)
    expect((await fetchAt(null, -1)).topics[0].partitions[0].committedOffset).toBe(7n)
    expect((await fetchAt('m', 0)).errorCode).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect((await fetchAt('ghost', 2)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })
})

describe('offsets of a consumer group: commits at an older epoch (Kafka 4.4)', () => {
  it('a member commits at its previous epoch for a partition it has held since then; not for one it got later or gave up', async () => {
    await start(PER_HEARTBEAT)
    const c = await coordinator()
    const id = await topicId(c)
    const commitAt = async (memberId: string, epoch: number, partition: number) =>
      (
        await c.request(OffsetCommit, 9, {
          groupId: GROUP,
          generationIdOrMemberEpoch: epoch,
          memberId,
          topics: [{ name: 't', partitions: [{ partitionIndex: partition, committedOffset: 3n, committedMetadata: null }] }],
        })
      ).topics[0].partitions[0].errorCode
    await join(c, 'a')
    await join(c, 'b')
    const a1 = await beat(c, 'a', 2, [{ topicId: id, partitions: [0, 1, 2, 3, 4, 5] }])
    const kept = partitionsOf(a1.assignment)
    const gaveUp = [0, 1, 2, 3, 4, 5].filter((p) => !kept.includes(p))
    expect((await beat(c, 'a', 2, [{ topicId: id, partitions: kept }])).memberEpoch).toBe(3)
    const b = await beat(c, 'b', 3, [])
    expect(partitionsOf(b.assignment)).toEqual(gaveUp)

    // a is at epoch 3; it has held `kept` since epoch 2.
    expect(await commitAt('a', 2, kept[0])).toBe(ErrorCodes.NONE)
    expect(await commitAt('a', 3, kept[0])).toBe(ErrorCodes.NONE)
    expect(await commitAt('a', 2, gaveUp[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect(await commitAt('a', 4, kept[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    // b got its partitions at epoch 3.
    expect(await commitAt('b', 2, gaveUp[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect(await commitAt('b', 3, gaveUp[0])).toBe(ErrorCodes.NONE)
    expect(await commitAt('b', -1, gaveUp[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
  })
})

describe('timers', () => {
  it('closing a consumer group clears every member timer (session and rebalance)', () => {
    const controller = new Controller()
    controller.registerBroker(0, '127.0.0.1', 1)
    controller.createTopic('t', { partitions: 2, replicationFactor: 1 })
    const g = new ConsumerGroup('g', controller, { sessionTimeoutMs: 60_000, heartbeatIntervalMs: 1000, assignmentIntervalMs: 0 })
    const hb = (memberId: string, memberEpoch: number, owned: Owned | null) =>
      g.heartbeat({
        version: 1,
        memberId,
        memberEpoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: memberEpoch === 0 ? 60_000 : -1,
        subscribedTopicNames: memberEpoch === 0 ? ['t'] : null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: owned,
        clientId: 'c',
        clientHost: '/127.0.0.1',
      })
    hb('a', 0, [])
    hb('b', 0, [])
    const id = controller.topics.get('t')!.id
    hb('a', 2, [{ topicId: id, partitions: [0, 1] }]) // asked to revoke: a rebalance timer runs
    const a = g.members.get('a')!
    expect(a.state).toBe('unrevoked')
    expect(a.rebalanceTimer).not.toBeNull()
    expect(a.sessionTimer).not.toBeNull()
    g.close()
    for (const m of g.members.values()) {
      expect(m.sessionTimer).toBeNull()
      expect(m.rebalanceTimer).toBeNull()
    }
  })
})

/** The rig's Java helpers need only a bootstrap list and a way to start the JVM. */
const javaOn = (c: RunningCluster) => javaPeer(c.bootstrapServers)

/**
 * Who owns which partition, from the consumers' own events (emitted in one
 * process, so their order is the true order): a partition assigned to one
 * member while another still has it is a violation.
 */
function ownershipWatch() {
  const owner = new Map<number, string>()
  const violations: string[] = []
  return {
    owner,
    violations,
    watch(c: Consumer, name: string) {
      c.on(c.events.PARTITIONS_ASSIGNED, (e) => {
        for (const t of e.payload.partitions as Array<{ partitions: number[] }>)
          for (const p of t.partitions) {
            const holder = owner.get(p)
            if (holder !== undefined && holder !== name) violations.push(`partition ${p} assigned to ${name} while ${holder} owns it`)
            owner.set(p, name)
          }
      })
      c.on(c.events.PARTITIONS_REVOKED, (e) => {
        for (const t of e.payload.partitions as Array<{ partitions: number[] }>)
          for (const p of t.partitions) if (owner.get(p) === name) owner.delete(p)
      })
    },
  }
}

describe("wafka's consumer with groupProtocol 'consumer'", () => {
  it('three members share six partitions across one joining and one leaving: no partition owned twice at any moment, every message consumed exactly once', async () => {
    await start({ brokers: 3, topics: [{ name: 'shared', partitions: 6 }], consumerGroupHeartbeatIntervalMs: 200 })
    const kafka = new Kafka({ clientId: 'kip848-wafka', brokers: cluster!.bootstrapServers.split(',') })
    const producer = kafka.producer()
    clients.push(producer)
    await producer.connect()
    const consumedBy = new Map<string, string[]>()
    const ownership = ownershipWatch()
    const members = new Map<string, Consumer>()
    const member = async (name: string) => {
      const c = kafka.consumer({ groupId: 'kip848-wafka', groupProtocol: 'consumer', maxWaitTimeInMs: 100, autoCommitIntervalMs: 200 })
      clients.push(c)
      ownership.watch(c, name)
      members.set(name, c)
      await c.connect()
      await c.subscribe({ topics: ['shared'], fromBeginning: true })
      await c.run({
        eachMessage: async ({ partition, message }) => {
          const v = message.value!.toString()
          consumedBy.set(v, [...(consumedBy.get(v) ?? []), `${name}@${partition}`])
        },
      })
    }
    let sent = 0
    let producing = true
    const load = (async () => {
      while (producing) {
        const batch = Array.from({ length: 20 }, () => ({ key: `k${sent % 13}`, value: `m${sent++}` }))
        await producer.send({ topic: 'shared', messages: batch })
        await new Promise((r) => setTimeout(r, 20))
      }
    })()
    const assignment = () =>
      [...members.entries()].map(([n, c]) => `${n}: ${c.assignmentList().map((p) => p.partition)}`).join('; ') +
      ` owners ${JSON.stringify([...ownership.owner])}`
    const settled = (names: string[]) =>
      until(
        () => {
          const sizes = names.map((n) => members.get(n)!.assignmentList().length)
          return sizes.every((s) => s === 6 / names.length) && ownership.owner.size === 6
        },
        30_000,
        () => `an even split among ${names}: ${assignment()}`,
      )

    await member('a')
    await member('b')
    await settled(['a', 'b'])
    await member('c') // a member joins: three share six
    await settled(['a', 'b', 'c'])
    await members.get('b')!.disconnect() // one leaves
    members.delete('b')
    await settled(['a', 'c'])
    producing = false
    await load
    await until(
      () => consumedBy.size >= sent,
      30_000,
      () => `${consumedBy.size} of ${sent} consumed; ${assignment()}`,
    )
    await new Promise((r) => setTimeout(r, 300)) // a duplicate would show up now
    expect(ownership.violations).toEqual([])
    const twice = [...consumedBy].filter(([, by]) => by.length > 1)
    expect(twice.slice(0, 5)).toEqual([])
    expect(consumedBy.size).toBe(sent)
    // Every member consumed some: the work was shared.
    const byMember = new Set([...consumedBy.values()].flat().map((s) => s.split('@')[0]))
    expect([...byMember].sort()).toEqual(['a', 'b', 'c'])

    // ConsumerGroupDescribe through wafka's admin: a consumer-type group, its members and their assignments.
    const admin = kafka.admin()
    clients.push(admin)
    await admin.connect()
    const {
      groups: [g],
    } = await admin.describeGroups(['kip848-wafka'])
    expect(g).toMatchObject({ groupType: 'consumer', protocolType: 'consumer', protocol: 'uniform', state: 'Stable' })
    expect(g.members).toHaveLength(2)
    const described = g.members.flatMap((m) => m.assignment!.flatMap((t) => t.partitions.map((p) => `${t.topic}:${p}`))).sort()
    expect(described).toEqual(['shared:0', 'shared:1', 'shared:2', 'shared:3', 'shared:4', 'shared:5'])
    const listed = await admin.listGroups()
    expect(listed.groups.find((x) => x.groupId === 'kip848-wafka')).toMatchObject({ groupType: 'consumer', protocolType: 'consumer' })
  }, 120_000)
  it('a static member (groupInstanceId) that restarts within the session gets its partitions back; the other member never gets them meanwhile', async () => {
    await start({ brokers: 1, topics: [{ name: 'st', partitions: 4 }], consumerGroupHeartbeatIntervalMs: 200 })
    const kafka = new Kafka({ clientId: 'kip848-static', brokers: cluster!.bootstrapServers.split(',') })
    const ownership = ownershipWatch()
    const member = async (name: string, groupInstanceId?: string) => {
      const c = kafka.consumer({ groupId: 'kip848-static', groupProtocol: 'consumer', groupInstanceId, maxWaitTimeInMs: 100 })
      clients.push(c)
      ownership.watch(c, name)
      await c.connect()
      await c.subscribe({ topics: ['st'] })
      await c.run({ eachMessage: async () => {} })
      return c
    }
    const parts = (c: Consumer) =>
      c
        .assignmentList()
        .map((p) => p.partition)
        .sort()
    const first = await member('static', 'instance-1')
    const other = await member('dynamic')
    await until(
      () => parts(first).length === 2 && parts(other).length === 2,
      30_000,
      () => `static ${parts(first)} dynamic ${parts(other)}`,
    )
    const held = parts(first)
    await first.disconnect() // leaves with epoch -2: the instance will be back
    await new Promise((r) => setTimeout(r, 1000))
    expect(parts(other)).toHaveLength(2)
    const again = await member('static-again', 'instance-1')
    await until(
      () => parts(again).length === 2,
      30_000,
      () => `restarted static ${parts(again)}`,
    )
    expect(parts(again)).toEqual(held)
    expect(parts(other)).toHaveLength(2)
    expect(ownership.violations).toEqual([])
  }, 60_000)
})

describe.skipIf(!requireKafka())("the Java client's consumer (group.protocol=consumer) in a group with wafka's", () => {
  it('both share the partitions, every message is consumed once, and when Java leaves wafka takes them all', async () => {
    await start({ brokers: 3, topics: [{ name: 'mixed', partitions: 4 }], consumerGroupHeartbeatIntervalMs: 300 })
    const kafka = new Kafka({ clientId: 'kip848-mixed', brokers: cluster!.bootstrapServers.split(',') })
    const producer = kafka.producer()
    clients.push(producer)
    await producer.connect()
    const produce = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 50)
        await producer.send({
          topic: 'mixed',
          messages: Array.from({ length: Math.min(50, from + n - i) }, (_, k) => ({ key: `k${i + k}`, value: `v${i + k}` })),
        })
    }
    await produce(0, 200)
    const groupId = 'kip848-mixed'
    const byWafka: string[] = []
    const w = kafka.consumer({ groupId, groupProtocol: 'consumer', maxWaitTimeInMs: 100, autoCommitIntervalMs: 200 })
    clients.push(w)
    await w.connect()
    await w.subscribe({ topics: ['mixed'], fromBeginning: true })
    await w.run({ eachMessage: async ({ message }) => void byWafka.push(message.value!.toString()) })
    await until(
      () => w.assignmentList().length === 4,
      30_000,
      () => `wafka has ${JSON.stringify(w.assignmentList())}`,
    )
    const java = javaGroupMember(javaOn(cluster!), groupId, 'mixed', {
      props: { 'group.protocol': 'consumer', 'auto.offset.reset': 'earliest', 'client.id': 'java-848' },
      commit: 'sync',
    })
    try {
      await until(
        () => java.assignment().length > 0 && w.assignmentList().length > 0 && java.assignment().length + w.assignmentList().length === 4,
        60_000,
        () => `java ${JSON.stringify(java.assignment())} wafka ${JSON.stringify(w.assignmentList())}; ${java.stderr.join('\n')}`,
      )
      const javaParts = java.assignment().map((p) => p.partition)
      const wafkaParts = w.assignmentList().map((p) => p.partition)
      expect([...javaParts, ...wafkaParts].sort()).toEqual([0, 1, 2, 3])

      // The coordinator describes one consumer group of two members, one of them Java's.
      const admin = kafka.admin()
      clients.push(admin)
      await admin.connect()
      const {
        groups: [g],
      } = await admin.describeGroups([groupId])
      expect(g.groupType).toBe('consumer')
      expect(g.members.map((m) => m.clientId).sort()).toEqual(['java-848', 'kip848-mixed'])

      await produce(200, 200)
      const all = () => [...byWafka, ...java.records().map((r) => r.value!.toString())]
      await until(
        () => new Set(all()).size >= 400,
        60_000,
        () => `${new Set(all()).size} of 400 consumed (wafka ${byWafka.length}, java ${java.records().length})`,
      )
      expect(java.records().length).toBeGreaterThan(0)
      await java.stop() // leaves the group (epoch -1)
      await until(
        () => w.assignmentList().length === 4,
        30_000,
        () => `wafka has ${JSON.stringify(w.assignmentList())} after Java left`,
      )
      await produce(400, 100)
      await until(
        () => new Set(all()).size >= 500,
        30_000,
        () => `${new Set(all()).size} of 500 consumed`,
      )
      await new Promise((r) => setTimeout(r, 300))
      const values = all()
      expect(values.length).toBe(500)
      expect(new Set(values).size).toBe(500)
    } finally {
      await java.kill()
    }
  }, 180_000)
})
