// The epochs of a KIP-848 group as Kafka 4.4's coordinator counts them, and
// the embedded broker with it (the same assertions on both): the group epoch,
// the assignment epoch and each member's epoch after the first join, a
// second member, an empty group's first member and a subscription change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { ConsumerGroupDescribe, ConsumerGroupHeartbeat } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { openCoordinator, until } from '../broker/support.js'
import { brokerTargets, type BrokerTarget, type RunningTarget } from '../peers/targets.js'

type Owned = Array<{ topicId: string; partitions: number[] }>

/** The target started for a describe block with its topics made, and a client on a group's coordinator. */
function startedWith(target: BrokerTarget, topics: string[], numPartitions: number) {
  let cluster: RunningTarget
  const open: RawClient[] = []
  beforeAll(async () => {
    cluster = await target.start()
    const admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
    await admin.connect()
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor: 1 })) })
    await admin.disconnect()
  }, 120_000)
  afterAll(async () => {
    for (const c of open.splice(0)) c.close()
    await cluster?.stop()
  })
  return { coordinator: (groupId: string) => openCoordinator(cluster.bootstrap, groupId, open) }
}

for (const target of brokerTargets({ kafka: { brokers: 1 }, embedded: { brokers: 1 } }))
  describe.skipIf(!target.available)(`KIP-848 group epochs on ${target.name}`, () => {
    const { coordinator } = startedWith(target, ['ep-a', 'ep-b'], 2)

    const heartbeat = (
      c: RawClient,
      groupId: string,
      memberId: string,
      memberEpoch: number,
      owned: Owned | null,
      topics: string[] | null = null,
    ) =>
      c.request(ConsumerGroupHeartbeat, 1, {
        groupId,
        memberId,
        memberEpoch,
        instanceId: null,
        rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
        subscribedTopicNames: topics,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: owned,
      })
    const epochs = async (c: RawClient, groupId: string) => {
      const d = (await c.request(ConsumerGroupDescribe, 0, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
      return {
        group: d.groupEpoch,
        assignment: d.assignmentEpoch,
        members: Object.fromEntries(d.members.map((m) => [m.memberId, m.memberEpoch]).sort()),
      }
    }

    it('the first member joins at epoch 2 (the group is made at 1 with an empty target), each change is one epoch more, and a member at its target keeps its epoch', async () => {
      const g = 'ep-group'
      const c = await coordinator(g)
      const a0 = await heartbeat(c, g, 'member-a', 0, [], ['ep-a'])
      expect([a0.errorCode, a0.memberEpoch]).toEqual([0, 2])
      expect(await epochs(c, g)).toEqual({ group: 2, assignment: 2, members: { 'member-a': 2 } })
      const a1 = await heartbeat(c, g, 'member-a', 2, a0.assignment!.topicPartitions)
      expect([a1.errorCode, a1.memberEpoch]).toEqual([0, 2])
      // Past group.consumer.assignment.interval.ms (1 s), so that the next target is computed at once.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      // A second member: epoch 3 for the group and for it; the first stays at 2 until it gives a partition up.
      const b0 = await heartbeat(c, g, 'member-b', 0, [], ['ep-a'])
      expect([b0.errorCode, b0.memberEpoch]).toEqual([0, 3])
      expect(await epochs(c, g)).toEqual({ group: 3, assignment: 3, members: { 'member-a': 2, 'member-b': 3 } })
      const a2 = await heartbeat(c, g, 'member-a', 2, a0.assignment!.topicPartitions)
      expect([a2.errorCode, a2.memberEpoch, a2.assignment?.topicPartitions.flatMap((t) => t.partitions)]).toEqual([0, 2, [0]])
      // Both leave: each a new group epoch, and the empty group's target is at it.
      expect((await heartbeat(c, g, 'member-a', -1, null)).errorCode).toBe(0)
      expect((await heartbeat(c, g, 'member-b', -1, null)).errorCode).toBe(0)
      expect(await epochs(c, g)).toEqual({ group: 5, assignment: 5, members: {} })
      // The empty group's next member: one epoch more.
      const c0 = await heartbeat(c, g, 'member-c', 0, [], ['ep-b'])
      expect([c0.errorCode, c0.memberEpoch]).toEqual([0, 6])
    })

    it('a group whose member subscribes to no topic that exists still starts at epoch 2', async () => {
      const c = await coordinator('ep-empty')
      const e0 = await heartbeat(c, 'ep-empty', 'member-e', 0, [], ['ep-nothing'])
      expect([e0.errorCode, e0.memberEpoch]).toEqual([0, 2])
      expect(await epochs(c, 'ep-empty')).toEqual({ group: 2, assignment: 2, members: { 'member-e': 2 } })
    })
  })

// A regex new to the group is no new epoch while it is being resolved: the
// member joins at the group's first epoch (1) with nothing, and the epoch the
// resolution makes is assigned at the member's next heartbeat, since no target
// was computed before it (group.consumer.assignment.interval.ms, here 15 s,
// counts from the last computed target). A member by topic names joining
// inside the interval waits for it, as Kafka's canComputeNextTargetAssignment.
const PACED = { 'group.consumer.assignment.interval.ms': '15000' }
for (const target of brokerTargets({ kafka: { brokers: 1, config: PACED }, embedded: { brokers: 1, config: PACED } }))
  describe.skipIf(!target.available)(`KIP-848 regex resolution and the assignment interval on ${target.name}`, () => {
    const { coordinator } = startedWith(target, ['rx-a', 'rx-b'], 1)

    const beat = (c: RawClient, memberId: string, memberEpoch: number, subscription: { names?: string[]; regex?: string }) =>
      c.request(ConsumerGroupHeartbeat, 1, {
        groupId: 'rx-group',
        memberId,
        memberEpoch,
        instanceId: null,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: subscription.names ?? null,
        subscribedTopicRegex: subscription.regex ?? null,
        serverAssignor: null,
        topicPartitions: [],
      })
    const partitions = (r: { assignment: { topicPartitions: Array<{ partitions: number[] }> } | null }) =>
      r.assignment?.topicPartitions.flatMap((t) => t.partitions).length ?? null

    it("a regex member gets the regex's partitions at its next heartbeat after the resolution; a member by names waits for the interval", async () => {
      const c = await coordinator('rx-group')
      const a0 = await beat(c, 'member-regex', 0, { regex: 'rx-.*' })
      expect([a0.errorCode, a0.memberEpoch, partitions(a0)]).toEqual([0, 1, 0])
      // The resolution runs off the heartbeat path; well inside the 15 s interval its epoch is assigned.
      let a = a0
      await until(
        async () => ((a = await beat(c, 'member-regex', a.memberEpoch, { regex: 'rx-.*' })), partitions(a) === 2),
        8_000,
        () => `the regex member's heartbeat: ${JSON.stringify({ error: a.errorCode, epoch: a.memberEpoch, partitions: partitions(a) })}`,
      )
      expect(a.memberEpoch).toBe(2)
      // Now a target was computed: the next one waits for the interval.
      const b0 = await beat(c, 'member-names', 0, { names: ['rx-a', 'rx-b'] })
      expect([b0.errorCode, b0.memberEpoch, partitions(b0)]).toEqual([0, 2, 0])
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const b1 = await beat(c, 'member-names', 2, { names: ['rx-a', 'rx-b'] })
      expect([b1.errorCode, b1.memberEpoch, partitions(b1)]).toEqual([0, 2, 0])
    })
  })
