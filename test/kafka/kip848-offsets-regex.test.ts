// What Kafka 4.4's group coordinator answers, and the embedded broker with
// it, at the request level (the same assertions on both): OffsetCommit
// outside group management (member epoch -1, whatever member id: a group
// that does not exist is created as a simple group; a group with members
// refuses a stranger), a positive generation to a group that does not exist,
// a KIP-848 member's commit at its previous epoch (taken for partitions held
// since then), and regex subscriptions (a regex new to the group is resolved
// after the heartbeat that brings it: the literal topic first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ConsumerGroupDescribe,
  ConsumerGroupHeartbeat,
  DescribeGroups,
  Metadata,
  OffsetCommit,
  OffsetFetch,
} from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { openCoordinator, until } from '../broker/support.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

type Owned = Array<{ topicId: string; partitions: number[] }>

for (const target of brokerTargets({ kafka: { brokers: 1 }, embedded: { brokers: 1 } }))
  describe.skipIf(!target.available)(`KIP-848 offsets and regexes on ${target.name}`, () => {
    let cluster: RunningTarget
    const open: RawClient[] = []
    let names = new Map<string, string>()

    beforeAll(async () => {
      cluster = await target.start()
      const admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
      await admin.createTopics({
        topics: [
          { topic: 't', numPartitions: 6, replicationFactor: 1 },
          { topic: 'topic_regex1', numPartitions: 4, replicationFactor: 1 },
          { topic: 'topic_regex2', numPartitions: 4, replicationFactor: 1 },
          { topic: 'topic_a', numPartitions: 2, replicationFactor: 1 },
        ],
      })
      await admin.disconnect()
    }, 120_000)
    afterAll(async () => {
      for (const c of open.splice(0)) c.close()
      await cluster?.stop()
    })

    async function coordinator(groupId: string): Promise<RawClient> {
      const c = await openCoordinator(cluster.bootstrap, groupId, open)
      const md = await c.request(Metadata, 12, { topics: null })
      names = new Map(md.topics.map((t) => [t.topicId, t.name!]))
      return c
    }

    const commit = async (c: RawClient, groupId: string, memberId: string, epoch: number, partition = 0, version = 9) =>
      (
        await c.request(OffsetCommit, version, {
          groupId,
          generationIdOrMemberEpoch: epoch,
          memberId,
          topics: [{ name: 't', partitions: [{ partitionIndex: partition, committedOffset: 5n, committedMetadata: null }] }],
        })
      ).topics[0].partitions[0].errorCode

    const heartbeat = (
      c: RawClient,
      groupId: string,
      memberId: string,
      memberEpoch: number,
      owned: Owned | null,
      sub: { topics?: string[]; regex?: string } = {},
    ) =>
      c.request(ConsumerGroupHeartbeat, 1, {
        groupId,
        memberId,
        memberEpoch,
        instanceId: null,
        rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
        subscribedTopicNames: sub.topics ?? null,
        subscribedTopicRegex: sub.regex ?? null,
        serverAssignor: null,
        topicPartitions: owned,
      })
    const named = (owned: Owned) => owned.flatMap((t) => t.partitions.map((p) => `${names.get(t.topicId)}:${p}`)).sort()

    it('epoch -1 with a member id creates a simple group that does not exist; a positive generation is GROUP_ID_NOT_FOUND (v9) / ILLEGAL_GENERATION (v8)', async () => {
      const c = await coordinator('simple-new')
      expect(await commit(c, 'simple-new', 'own-member-id', -1)).toBe(ErrorCodes.NONE)
      const fetched = await c.request(OffsetFetch, 9, {
        groups: [{ groupId: 'simple-new', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }],
        requireStable: false,
      })
      expect(fetched.groups[0].topics[0].partitions[0].committedOffset).toBe(5n)
      expect((await c.request(DescribeGroups, 5, { groups: ['simple-new'] })).groups[0]).toMatchObject({
        errorCode: 0,
        groupState: 'Empty',
        protocolType: '',
      })
      const c2 = await coordinator('nothing-here')
      expect(await commit(c2, 'nothing-here', 'm', 3)).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
      expect(await commit(c2, 'nothing-here', 'm', 3, 0, 8)).toBe(ErrorCodes.ILLEGAL_GENERATION)
    })

    it('a KIP-848 group: a stranger at -1 is UNKNOWN_MEMBER_ID; a member commits at its previous epoch for partitions held since', async () => {
      const g = 'kip848-epochs'
      const c = await coordinator(g)
      const tId = [...names].find(([, n]) => n === 't')![0]
      const a0 = await heartbeat(c, g, 'member-a', 0, [], { topics: ['t'] })
      expect(a0.errorCode).toBe(0)
      expect(await commit(c, g, 'stranger', -1)).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
      const a = { memberEpoch: a0.memberEpoch, owned: a0.assignment?.topicPartitions ?? [] }
      await until(
        async () => {
          const r = await heartbeat(c, g, 'member-a', a.memberEpoch, a.owned)
          a.memberEpoch = r.memberEpoch
          if (r.assignment) a.owned = r.assignment.topicPartitions
          return named(a.owned).length === 6
        },
        10_000,
        () => JSON.stringify(a),
      )
      const epochA = a.memberEpoch
      const b0 = await heartbeat(c, g, 'member-b', 0, [], { topics: ['t'] })
      expect(b0.errorCode).toBe(0)
      // a is asked to give some up, then confirms (owning only what it keeps), and moves to the new epoch.
      const all: Owned = [{ topicId: tId, partitions: [0, 1, 2, 3, 4, 5] }]
      // Kafka computes the new target at most once a second (group.consumer.assignment.interval.ms): heartbeat until it comes.
      const askedToRevoke = () => a1.assignment !== null && named(a1.assignment.topicPartitions).length < 6
      let a1 = await heartbeat(c, g, 'member-a', epochA, all)
      await until(
        async () => askedToRevoke() || ((a1 = await heartbeat(c, g, 'member-a', epochA, all)), askedToRevoke()),
        10_000,
        () => JSON.stringify(a1),
      )
      const kept = a1.assignment!.topicPartitions[0].partitions
      const gaveUp = [0, 1, 2, 3, 4, 5].filter((p) => !kept.includes(p))
      const a2 = await heartbeat(c, g, 'member-a', epochA, [{ topicId: tId, partitions: kept }])
      expect(a2.memberEpoch).toBeGreaterThan(epochA)
      expect(await commit(c, g, 'member-a', epochA, kept[0])).toBe(ErrorCodes.NONE)
      expect(await commit(c, g, 'member-a', a2.memberEpoch, kept[0])).toBe(ErrorCodes.NONE)
      expect(await commit(c, g, 'member-a', epochA, gaveUp[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
      expect(await commit(c, g, 'member-a', a2.memberEpoch + 1, kept[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
      expect(await commit(c, g, 'member-a', -1, kept[0])).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
      for (const m of ['member-a', 'member-b']) await heartbeat(c, g, m, -1, null)
      // Empty again: a stranger at -1 commits.
      expect(await commit(c, g, 'stranger', -1)).toBe(ErrorCodes.NONE)
    })

    it('a regex beside a literal topic: the literal topic first, the regex’s after its resolution; then regex to a topic list', async () => {
      const g = 'kip848-regex-real'
      const c = await coordinator(g)
      let epoch = 0
      let owned: Owned = []
      const beat = async (sub: { topics?: string[]; regex?: string } = {}) => {
        const r = await heartbeat(c, g, 'rx', epoch, owned, sub)
        expect(r.errorCode).toBe(0)
        epoch = r.memberEpoch
        if (r.assignment) owned = r.assignment.topicPartitions
        return named(owned)
      }
      expect(await beat({ topics: ['topic_a'], regex: '^.*topic_regex.*' })).toEqual(['topic_a:0', 'topic_a:1'])
      await until(
        async () => (await beat()).length === 10,
        20_000,
        () => named(owned).join(),
      )
      await beat({ topics: ['topic_a'], regex: '' })
      await until(
        async () => (await beat()).join() === 'topic_a:0,topic_a:1',
        20_000,
        () => named(owned).join(),
      )
    })

    it('the target assignment is computed at most once a second (KIP-1263): a member joining meanwhile waits at the last target, the group Assigning; the answer carries the assignment on a join, a full heartbeat or a change, not for a new epoch alone', async () => {
      const g = 'kip848-answers'
      const c = await coordinator(g)
      const tId = [...names].find(([, n]) => n === 't')![0]
      const parts = (r: { assignment: { topicPartitions: Owned } | null }) =>
        r.assignment === null ? null : r.assignment.topicPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y)
      const own = (p: number[]): Owned => [{ topicId: tId, partitions: p }]
      const described = async () => {
        const d = (await c.request(ConsumerGroupDescribe, 1, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]
        return { state: d.groupState, behind: d.groupEpoch - d.assignmentEpoch }
      }
      /** Sleeps until `ms` after `since`. */
      const sleepUntil = (since: number, ms: number) => new Promise((r) => setTimeout(r, Math.max(0, since + ms - Date.now())))

      // The group's first target is computed at once.
      const a0 = await heartbeat(c, g, 'member-a', 0, [], { topics: ['t'] })
      const firstTarget = Date.now()
      expect(parts(a0)).toEqual([0, 1, 2, 3, 4, 5])
      // Owning all it was given, at its epoch: nothing changed, no assignment.
      const a1 = await heartbeat(c, g, 'member-a', a0.memberEpoch, own([0, 1, 2, 3, 4, 5]))
      expect([a1.errorCode, a1.memberEpoch, parts(a1)]).toEqual([0, a0.memberEpoch, null])
      // A full heartbeat (rebalance timeout, subscription and owned partitions) gets it again.
      const full = await c.request(ConsumerGroupHeartbeat, 1, {
        groupId: g,
        memberId: 'member-a',
        memberEpoch: a0.memberEpoch,
        instanceId: null,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['t'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: own([0, 1, 2, 3, 4, 5]),
      })
      expect(parts(full)).toEqual([0, 1, 2, 3, 4, 5])

      // b joins within the second: a new group epoch, but no new target yet. b stays at the last one (nothing for it).
      const b0 = await heartbeat(c, g, 'member-b', 0, [], { topics: ['t'] })
      expect([b0.errorCode, b0.memberEpoch, parts(b0)]).toEqual([0, a0.memberEpoch, []])
      expect(await described()).toEqual({ state: 'Assigning', behind: 1 })
      expect(parts(await heartbeat(c, g, 'member-a', a0.memberEpoch, own([0, 1, 2, 3, 4, 5])))).toBeNull()

      // The first heartbeat a second after the last target computes the next: a is asked to give three up, keeping its epoch until it has.
      await sleepUntil(firstTarget, 1100)
      const a2 = await heartbeat(c, g, 'member-a', a0.memberEpoch, own([0, 1, 2, 3, 4, 5]))
      const secondTarget = Date.now()
      expect(a2.memberEpoch).toBe(a0.memberEpoch)
      const aKeeps = parts(a2)!
      expect(aKeeps).toHaveLength(3)
      expect(await described()).toEqual({ state: 'Reconciling', behind: 0 })
      // It says it gave them up: the new epoch, the same partitions, so no assignment.
      const a3 = await heartbeat(c, g, 'member-a', a2.memberEpoch, own(aKeeps))
      expect(a3.memberEpoch).toBeGreaterThan(a0.memberEpoch)
      expect(parts(a3)).toBeNull()
      // b's next heartbeat gets the other three.
      const b1 = await heartbeat(c, g, 'member-b', b0.memberEpoch, own([]))
      expect(b1.memberEpoch).toBe(a3.memberEpoch)
      const bGets = parts(b1)!
      expect([...aKeeps, ...bGets].sort()).toEqual([0, 1, 2, 3, 4, 5])

      // a leaves within the second: b keeps its three until a heartbeat a second after the last target.
      expect((await heartbeat(c, g, 'member-a', -1, null)).errorCode).toBe(0)
      const b2 = await heartbeat(c, g, 'member-b', b1.memberEpoch, own(bGets))
      expect([b2.memberEpoch, parts(b2)]).toEqual([b1.memberEpoch, null])
      expect(await described()).toEqual({ state: 'Assigning', behind: 1 })
      await sleepUntil(secondTarget, 1100)
      const b3 = await heartbeat(c, g, 'member-b', b1.memberEpoch, own(bGets))
      expect(b3.memberEpoch).toBeGreaterThan(b1.memberEpoch)
      expect(parts(b3)).toEqual([0, 1, 2, 3, 4, 5])
      expect(await described()).toEqual({ state: 'Stable', behind: 0 })
    })

    it('a member that changes its subscription within the interval gives up the topics it left at once; the new ones come with the next target', async () => {
      const g = 'kip848-resubscribe'
      const c = await coordinator(g)
      const named2 = (r: { assignment: { topicPartitions: Owned } | null }) =>
        r.assignment === null ? null : named(r.assignment.topicPartitions)
      const m0 = await heartbeat(c, g, 'member-m', 0, [], { topics: ['t'] })
      const firstTarget = Date.now()
      expect(named2(m0)).toEqual(['t:0', 't:1', 't:2', 't:3', 't:4', 't:5'])
      // To topic_a within the second: t's partitions are taken back now, topic_a's wait for the next target.
      const m1 = await heartbeat(c, g, 'member-m', m0.memberEpoch, m0.assignment!.topicPartitions, { topics: ['topic_a'] })
      expect([m1.errorCode, m1.memberEpoch, named2(m1)]).toEqual([0, m0.memberEpoch, []])
      const m2 = await heartbeat(c, g, 'member-m', m1.memberEpoch, [])
      expect([m2.memberEpoch, named2(m2)]).toEqual([m0.memberEpoch, null])
      await new Promise((r) => setTimeout(r, Math.max(0, firstTarget + 1100 - Date.now())))
      const m3 = await heartbeat(c, g, 'member-m', m2.memberEpoch, [])
      expect(m3.memberEpoch).toBeGreaterThan(m0.memberEpoch)
      expect(named2(m3)).toEqual(['topic_a:0', 'topic_a:1'])
    })

    it('a group left empty assigns the next join at once, within the interval (librdkafka leaves on unsubscribe and joins on subscribe)', async () => {
      const g = 'kip848-empty-again'
      const c = await coordinator(g)
      const m0 = await heartbeat(c, g, 'member-e', 0, [], { topics: ['t'] })
      expect(m0.assignment!.topicPartitions.flatMap((t) => t.partitions)).toHaveLength(6)
      expect((await heartbeat(c, g, 'member-e', -1, null)).errorCode).toBe(0)
      const again = await heartbeat(c, g, 'member-e', 0, [], { topics: ['topic_a'] })
      expect(again.memberEpoch).toBeGreaterThan(m0.memberEpoch)
      expect(named(again.assignment!.topicPartitions)).toEqual(['topic_a:0', 'topic_a:1'])
    })
  })
