// KIP-1071's streams group protocol at the request level, the same requests
// against Apache Kafka 4.4 and the embedded broker with the same assertions:
// the topology's internal topics created by the broker (MISSING_INTERNAL_TOPICS
// first, their partition counts derived as Kafka derives them), the statuses
// for missing source topics and wrongly partitioned internal topics, task
// assignment and revocation ordering (a task reaches its new owner only once
// the old one's heartbeat no longer lists it), the initial rebalance delay,
// standby tasks, fencing (a newer epoch, a session that ran out), unknown members,
// leaving, StreamsGroupDescribe, ListGroups, DescribeGroups and DeleteGroups, and
// OffsetCommit by a streams member's id and epoch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  CreateTopics,
  DeleteGroups,
  DescribeGroups,
  FindCoordinator,
  IncrementalAlterConfigs,
  ListGroups,
  Metadata,
  OffsetCommit,
  StreamsGroupDescribe,
  StreamsGroupHeartbeat,
} from '../../src/protocol/messages/index.js'
import type { StreamsGroupHeartbeatRequestTopology } from '../../src/protocol/messages/StreamsGroupHeartbeat.js'
import type { Input } from '../../src/protocol/api.js'
import { requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'

const GROUP_RESOURCE = 32
const [MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS] = [1, 2, 3]

interface Target {
  client: RawClient
  stop(): Promise<void>
}

const targets: Array<[string, () => Promise<Target>, boolean]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({
        config: { 'group.streams.min.session.timeout.ms': '1000', 'group.streams.min.heartbeat.interval.ms': '500' },
      })
      const client = await RawClient.open(k.bootstrap)
      return { client, stop: async () => (client.close(), await k.stop()) }
    },
    // False only on a machine without Java: requireKafka() throws under CI, so Kafka's half never skips there.
    requireKafka(),
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, streamsGroupMinSessionTimeoutMs: 1000, streamsGroupMinHeartbeatIntervalMs: 500 })
      const client = await RawClient.open(c.bootstrapServers)
      return { client, stop: async () => (client.close(), await c.stop()) }
    },
    true,
  ],
]

// Both brokers let a group lower its session timeout (the session-timeout test) below Kafka's 45 s minimum.

/** Subtopology 0 reads `in` (4 partitions) into a store and writes a repartition topic, which subtopology 1 reads. */
const topology = (app: string, source = 'in'): Input<StreamsGroupHeartbeatRequestTopology> => ({
  epoch: 0,
  subtopologies: [
    {
      subtopologyId: '0',
      sourceTopics: [source],
      sourceTopicRegex: [],
      stateChangelogTopics: [{ name: `${app}-store-changelog`, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      repartitionSinkTopics: [`${app}-by-key-repartition`],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    },
    {
      subtopologyId: '1',
      sourceTopics: [],
      sourceTopicRegex: [],
      stateChangelogTopics: [],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [{ name: `${app}-by-key-repartition`, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      copartitionGroups: [],
    },
  ],
})

type Tasks = Array<{ subtopologyId: string; partitions: number[] }>
const ALL: Tasks = [
  { subtopologyId: '0', partitions: [0, 1, 2, 3] },
  { subtopologyId: '1', partitions: [0, 1, 2, 3] },
]
const DELAYED = { statusCode: 5, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' }
const count = (t: Tasks | null) => (t ?? []).reduce((n, x) => n + x.partitions.length, 0)

// `available` is false only for Kafka on a machine without Java (see targets): each it.skipIf below never skips under CI.
describe.each(targets)('streams group heartbeats on %s', (_name, start, available) => {
  let t: Target
  beforeAll(async () => {
    if (!available) return
    t = await start()
    await t.client.request(CreateTopics, 7, {
      topics: [
        { name: 'in', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'cp-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'cp-b', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] },
        // app-d's changelog, with fewer partitions than its subtopology has tasks (created early: Kafka's coordinator sees new topics a moment later).
        { name: 'app-d-store-changelog', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    })
  }, 120_000)
  afterAll(async () => t?.stop())

  /** Until the group's coordinator has loaded (the first FindCoordinator creates __consumer_offsets; Kafka then loads its partition). */
  const coordinatorReady = async (group: string) => {
    const loading: number[] = [ErrorCodes.COORDINATOR_NOT_AVAILABLE, ErrorCodes.COORDINATOR_LOAD_IN_PROGRESS, ErrorCodes.NOT_COORDINATOR]
    for (let i = 0; i < 100; i++) {
      await t.client.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [group] })
      const d = await t.client.request(StreamsGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false })
      if (!loading.includes(d.groups[0].errorCode)) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`no coordinator for ${group}`)
  }

  /** The group's first target at once: its initial rebalance delay set to 0, as a group config. */
  const noDelay = async (group: string) => {
    await coordinatorReady(group)
    const r = await t.client.request(IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: GROUP_RESOURCE,
          resourceName: group,
          configs: [{ name: 'streams.initial.rebalance.delay.ms', configOperation: 0, value: '0' }],
        },
      ],
      validateOnly: false,
    })
    expect(r.responses[0].errorCode).toBe(ErrorCodes.NONE)
  }
  const beat = (
    group: string,
    memberId: string,
    memberEpoch: number,
    o: { processId?: string; owned?: Tasks | null; topology?: Input<StreamsGroupHeartbeatRequestTopology>; instanceId?: string } = {},
  ) =>
    t.client.request(StreamsGroupHeartbeat, 0, {
      groupId: group,
      memberId,
      memberEpoch,
      instanceId: o.instanceId ?? null,
      endpointInformationEpoch: -1,
      rebalanceTimeoutMs: memberEpoch === 0 ? 60_000 : -1,
      topology: memberEpoch === 0 ? (o.topology ?? topology(group)) : null,
      activeTasks: o.owned === null ? null : (o.owned ?? []),
      standbyTasks: o.owned === null ? null : [],
      warmupTasks: o.owned === null ? null : [],
      processId: memberEpoch === 0 ? (o.processId ?? `process-${memberId}`) : null,
      shutdownApplication: false,
    })
  const partitions = async (topic: string) =>
    (await t.client.request(Metadata, 12, { topics: [{ name: topic }] })).topics[0].partitions.length

  it.skipIf(!available)('creates the internal topics (MISSING_INTERNAL_TOPICS until then), then assigns every task', async () => {
    const g = 'app-a'
    await noDelay(g)
    const first = await beat(g, 'm1', 0)
    expect(first.errorCode).toBe(ErrorCodes.NONE)
    expect(first.status?.map((s) => s.statusCode)).toEqual([MISSING_INTERNAL_TOPICS])
    expect(first.status?.[0].statusDetail).toMatch(/^Internal topics are missing: /)
    expect(count(first.activeTasks)).toBe(0)
    // The repartition topic takes the partitions of the source topic of the subtopology writing it; the changelog its subtopology's.
    let second = first
    for (let i = 0; i < 50 && count(second.activeTasks) === 0; i++) {
      await new Promise((r) => setTimeout(r, 100))
      second = await beat(g, 'm1', second.memberEpoch, { owned: [] })
    }
    expect(await partitions(`${g}-by-key-repartition`)).toBe(4)
    expect(await partitions(`${g}-store-changelog`)).toBe(4)
    expect(second.status).toEqual([])
    expect(second.activeTasks).toEqual(ALL)
    expect(second.memberEpoch).toBeGreaterThan(first.memberEpoch)

    const d = (await t.client.request(StreamsGroupDescribe, 0, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]
    expect(d.groupState).toBe('Stable')
    expect(
      d.topology?.subtopologies.map((s) => [s.subtopologyId, s.sourceTopics, s.repartitionSourceTopics.map((r) => [r.name, r.partitions])]),
    ).toEqual([
      ['0', ['in'], []],
      ['1', [], [[`${g}-by-key-repartition`, 4]]],
    ])
    expect(d.topology?.subtopologies[0].stateChangelogTopics.map((c) => [c.name, c.partitions])).toEqual([[`${g}-store-changelog`, 4]])
    expect(
      d.members.map((m) => [m.memberId, m.memberEpoch, m.processId, m.assignment.activeTasks, m.targetAssignment.activeTasks]),
    ).toEqual([['m1', second.memberEpoch, 'process-m1', ALL, ALL]])
    // Reported task offsets are kept and described (sorted); a task twice is refused.
    const report = (taskOffsets: Array<{ subtopologyId: string; partition: number; offset: bigint }>) =>
      t.client.request(StreamsGroupHeartbeat, 0, {
        groupId: g,
        memberId: 'm1',
        memberEpoch: second.memberEpoch,
        endpointInformationEpoch: -1,
        rebalanceTimeoutMs: -1,
        taskOffsets,
        taskEndOffsets: taskOffsets.map((o) => ({ ...o, offset: o.offset + 10n })),
        shutdownApplication: false,
      })
    expect(
      (
        await report([
          { subtopologyId: '0', partition: 3, offset: 7n },
          { subtopologyId: '0', partition: 1, offset: 5n },
        ])
      ).errorCode,
    ).toBe(ErrorCodes.NONE)
    const dup = await report([
      { subtopologyId: '0', partition: 1, offset: 5n },
      { subtopologyId: '0', partition: 1, offset: 6n },
    ])
    expect([dup.errorCode, dup.errorMessage]).toEqual([
      ErrorCodes.INVALID_REQUEST,
      'Task offsets contain a duplicate entry for subtopology 0 and partition 1.',
    ])
    const reported = (await t.client.request(StreamsGroupDescribe, 0, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]
      .members[0]
    expect([reported.taskOffsets, reported.taskEndOffsets]).toEqual([
      [
        { subtopologyId: '0', partition: 1, offset: 5n },
        { subtopologyId: '0', partition: 3, offset: 7n },
      ],
      [
        { subtopologyId: '0', partition: 1, offset: 15n },
        { subtopologyId: '0', partition: 3, offset: 17n },
      ],
    ])
    const listed = (await t.client.request(ListGroups, 5, { statesFilter: [], typesFilter: ['streams'] })).groups.find(
      (x) => x.groupId === g,
    )
    expect(listed).toMatchObject({ groupId: g, protocolType: 'streams', groupState: 'Stable', groupType: 'streams' })
    expect((await t.client.request(DeleteGroups, 2, { groupsNames: [g] })).results[0].errorCode).toBe(ErrorCodes.NON_EMPTY_GROUP)
    const classic = (await t.client.request(DescribeGroups, 6, { groups: [g], includeAuthorizedOperations: false })).groups[0]
    expect([classic.errorCode, classic.errorMessage, classic.groupState]).toEqual([
      ErrorCodes.GROUP_ID_NOT_FOUND,
      `Group ${g} is not a classic group.`,
      'Dead',
    ])

    // Offsets commit at the member's epoch; a newer one is STALE_MEMBER_EPOCH, another member id UNKNOWN_MEMBER_ID.
    const commit = (memberId: string, epoch: number) =>
      t.client.request(OffsetCommit, 9, {
        groupId: g,
        generationIdOrMemberEpoch: epoch,
        memberId,
        groupInstanceId: null,
        topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      })
    expect((await commit('m1', second.memberEpoch)).topics[0].partitions[0].errorCode).toBe(ErrorCodes.NONE)
    expect((await commit('m1', second.memberEpoch + 1)).topics[0].partitions[0].errorCode).toBe(ErrorCodes.STALE_MEMBER_EPOCH)
    expect((await commit('nobody', second.memberEpoch)).topics[0].partitions[0].errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)

    // Fencing: an epoch ahead of the member's, an unknown member, a member gone after it left.
    expect((await beat(g, 'm1', second.memberEpoch + 1, { owned: ALL })).errorCode).toBe(ErrorCodes.FENCED_MEMBER_EPOCH)
    expect((await beat(g, 'nobody', 3, { owned: [] })).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    const left = await beat(g, 'm1', -1, { owned: null })
    expect([left.errorCode, left.memberId, left.memberEpoch]).toEqual([ErrorCodes.NONE, 'm1', -1])
    expect((await beat(g, 'm1', second.memberEpoch, { owned: [] })).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
    const after = (await t.client.request(StreamsGroupDescribe, 0, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]
    expect([after.groupState, after.members.length, after.groupEpoch > d.groupEpoch]).toEqual(['Empty', 0, true])
    expect((await beat('no-such-group', 'm1', 1, { owned: [] })).errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
    // A join refused (a changelog with a partition count) leaves no group behind.
    const bad = topology('app-x')
    bad.subtopologies![0].stateChangelogTopics![0].partitions = 3
    const refused = await beat('app-x', 'm1', 0, { topology: bad })
    expect([refused.errorCode, refused.errorMessage]).toEqual([
      ErrorCodes.STREAMS_INVALID_TOPOLOGY,
      'Changelog topic app-x-store-changelog must have an undefined partition count, but it is set to 3.',
    ])
    const none = (await t.client.request(StreamsGroupDescribe, 0, { groupIds: ['app-x'], includeAuthorizedOperations: false })).groups[0]
    expect(none.errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
    expect((await t.client.request(DeleteGroups, 2, { groupsNames: [g] })).results[0].errorCode).toBe(ErrorCodes.NONE)
  })

  it.skipIf(!available)('moves a task to a new member only once its owner has revoked it', async () => {
    const g = 'app-b'
    await noDelay(g)
    let a = await beat(g, 'a', 0)
    for (let i = 0; i < 50 && count(a.activeTasks) === 0; i++) {
      await new Promise((r) => setTimeout(r, 100))
      a = await beat(g, 'a', a.memberEpoch, { owned: [] })
    }
    expect(a.activeTasks).toEqual(ALL)
    const aEpoch = a.memberEpoch
    // b (another process) joins: the target splits the tasks, but b gets none while a holds them.
    let b = await beat(g, 'b', 0)
    expect([b.errorCode, count(b.activeTasks)]).toEqual([ErrorCodes.NONE, 0])
    // The new target waits for the assignment interval (streams.assignment.interval.ms, 1 s) since a's.
    for (let i = 0; i < 40 && b.memberEpoch <= aEpoch; i++) {
      await new Promise((r) => setTimeout(r, 100))
      b = await beat(g, 'b', b.memberEpoch, { owned: [] })
    }
    expect(b.memberEpoch).toBeGreaterThan(aEpoch)
    expect(count(b.activeTasks)).toBe(0)
    // a is asked to give up half, keeping its epoch until it says it has.
    const revoking = await beat(g, 'a', aEpoch, { owned: ALL })
    expect(revoking.memberEpoch).toBe(aEpoch)
    expect(count(revoking.activeTasks)).toBe(4)
    const kept = revoking.activeTasks!
    expect(count((await beat(g, 'b', b.memberEpoch, { owned: [] })).activeTasks)).toBe(0)
    // Still owning everything: nothing moves.
    const still = await beat(g, 'a', aEpoch, { owned: ALL })
    expect([still.memberEpoch, still.activeTasks]).toEqual([aEpoch, null])
    expect(count((await beat(g, 'b', b.memberEpoch, { owned: [] })).activeTasks)).toBe(0)
    // Revoked: a takes the new epoch, and b its tasks at its next heartbeat.
    const done = await beat(g, 'a', aEpoch, { owned: kept })
    expect(done.memberEpoch).toBe(b.memberEpoch)
    const got = await beat(g, 'b', b.memberEpoch, { owned: [] })
    expect(count(got.activeTasks)).toBe(4)
    const owned = new Set([...kept, ...got.activeTasks!].flatMap((x) => x.partitions.map((p) => `${x.subtopologyId}_${p}`)))
    expect(owned.size).toBe(8)
    // One epoch behind is accepted while what it owns is within its assignment (the answer was lost).
    expect((await beat(g, 'a', aEpoch, { owned: kept })).errorCode).toBe(ErrorCodes.NONE)
    expect((await beat(g, 'a', aEpoch, { owned: ALL })).errorCode).toBe(ErrorCodes.FENCED_MEMBER_EPOCH)
  })

  it.skipIf(!available)(
    'waits the initial rebalance delay for both members, then gives each half the tasks and standbys of the other half',
    async () => {
      // app-a's topology again: its internal topics exist (app-a was deleted, its topics stay).
      const g = 'app-e'
      await coordinatorReady(g)
      const r = await t.client.request(IncrementalAlterConfigs, 1, {
        resources: [
          {
            resourceType: GROUP_RESOURCE,
            resourceName: g,
            configs: [{ name: 'streams.num.standby.replicas', configOperation: 0, value: '1' }],
          },
        ],
        validateOnly: false,
      })
      expect(r.responses[0].errorCode).toBe(ErrorCodes.NONE)
      const started = Date.now()
      const a = await beat(g, 'a', 0, { topology: topology('app-a') })
      const b = await beat(g, 'b', 0, { topology: topology('app-a') })
      for (const x of [a, b]) expect([x.status, count(x.activeTasks)]).toEqual([[DELAYED], 0])
      let [ra, rb] = [a, b]
      while (Date.now() - started < 10_000 && (count(ra.activeTasks) === 0 || count(rb.activeTasks) === 0)) {
        await new Promise((res) => setTimeout(res, 200))
        ra = await beat(g, 'a', ra.memberEpoch, { owned: ra.activeTasks ?? [] })
        rb = await beat(g, 'b', rb.memberEpoch, { owned: rb.activeTasks ?? [] })
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000)
      const tasks = (t: Tasks | null, sub: string) => t?.find((x) => x.subtopologyId === sub)?.partitions ?? []
      expect([count(ra.activeTasks), count(rb.activeTasks)]).toEqual([4, 4])
      // Subtopology 0 has a store: each of its tasks has a standby on the other process; subtopology 1 has none.
      expect(tasks(ra.standbyTasks, '0')).toEqual(tasks(rb.activeTasks, '0'))
      expect(tasks(rb.standbyTasks, '0')).toEqual(tasks(ra.activeTasks, '0'))
      expect([tasks(ra.standbyTasks, '1'), tasks(rb.standbyTasks, '1')]).toEqual([[], []])
      expect([...tasks(ra.activeTasks, '0'), ...tasks(rb.activeTasks, '0')].sort()).toEqual([0, 1, 2, 3])
    },
  )

  it.skipIf(!available)('fences a member whose session ran out: the other takes its tasks, it is an unknown member', async () => {
    const g = 'app-f'
    await noDelay(g)
    const r = await t.client.request(IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: GROUP_RESOURCE,
          resourceName: g,
          configs: [
            { name: 'streams.session.timeout.ms', configOperation: 0, value: '1500' },
            { name: 'streams.heartbeat.interval.ms', configOperation: 0, value: '500' },
          ],
        },
      ],
      validateOnly: false,
    })
    expect(r.responses[0].errorCode).toBe(ErrorCodes.NONE)
    // app-a's topology (its internal topics exist): a and b split the tasks, then a goes silent.
    const a = await beat(g, 'a', 0, { topology: topology('app-a') })
    expect(a.heartbeatIntervalMs).toBe(500)
    let b = await beat(g, 'b', 0, { topology: topology('app-a') })
    const started = Date.now()
    while (count(b.activeTasks) < 8 && Date.now() - started < 8000) {
      await new Promise((res) => setTimeout(res, 250))
      b = await beat(g, 'b', b.memberEpoch, { owned: b.activeTasks ?? [] })
    }
    // b has every task once a's session (1.5 s) has run out.
    expect(count(b.activeTasks)).toBe(8)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect((await beat(g, 'a', a.memberEpoch, { owned: [] })).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it.skipIf(!available)(
    'a static member leaves for a while (-2) keeping its tasks, and its instance comes back under a new member id',
    async () => {
      const g = 'app-g'
      await noDelay(g)
      const app = topology('app-a')
      let s1 = await beat(g, 's1', 0, { topology: app, instanceId: 'i1' })
      for (let i = 0; i < 40 && count(s1.activeTasks) === 0; i++) {
        await new Promise((res) => setTimeout(res, 100))
        s1 = await beat(g, 's1', s1.memberEpoch, { owned: [], instanceId: 'i1' })
      }
      expect(s1.activeTasks).toEqual(ALL)
      const describe1 = async () =>
        (await t.client.request(StreamsGroupDescribe, 0, { groupIds: [g], includeAuthorizedOperations: false })).groups[0]
      const before = await describe1()
      // A heartbeat of another member id with its instance id is fenced; an unknown instance is an unknown member.
      expect((await beat(g, 'other', s1.memberEpoch, { owned: ALL, instanceId: 'i1' })).errorCode).toBe(ErrorCodes.FENCED_INSTANCE_ID)
      expect((await beat(g, 'other', 0, { topology: app, instanceId: 'i1' })).errorCode).toBe(ErrorCodes.UNRELEASED_INSTANCE_ID)
      expect((await beat(g, 's9', 3, { owned: [], instanceId: 'i9' })).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
      const left = await beat(g, 's1', -2, { owned: null, instanceId: 'i1' })
      expect([left.errorCode, left.memberId, left.memberEpoch]).toEqual([ErrorCodes.NONE, 's1', -2])
      const away = await describe1()
      expect([away.groupEpoch, away.members.map((m) => [m.memberId, m.memberEpoch, count(m.assignment.activeTasks)])]).toEqual([
        before.groupEpoch,
        [['s1', -2, 8]],
      ])
      // Back under a new member id: it takes s1's place and tasks.
      const s2 = await beat(g, 's2', 0, { topology: app, instanceId: 'i1', processId: 'process-s1' })
      expect([s2.errorCode, s2.activeTasks]).toEqual([ErrorCodes.NONE, ALL])
      const back = await describe1()
      expect(
        back.members.map((m) => [m.memberId, m.instanceId, count(m.assignment.activeTasks), count(m.targetAssignment.activeTasks)]),
      ).toEqual([['s2', 'i1', 8, 8]])
      expect((await beat(g, 's1', s1.memberEpoch, { owned: ALL, instanceId: 'i1' })).errorCode).toBe(ErrorCodes.FENCED_INSTANCE_ID)
    },
  )

  it.skipIf(!available)('copartition groups: source topics must agree; a repartition topic takes their count', async () => {
    const sub = (id: string, o: Partial<NonNullable<Input<StreamsGroupHeartbeatRequestTopology>['subtopologies']>[number]>) => ({
      subtopologyId: id,
      sourceTopics: [],
      sourceTopicRegex: [],
      stateChangelogTopics: [],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [],
      copartitionGroups: [],
      ...o,
    })
    await coordinatorReady('app-i')
    const unequal = await beat('app-i', 'm', 0, {
      topology: {
        epoch: 0,
        subtopologies: [
          sub('0', {
            sourceTopics: ['cp-a', 'cp-b'],
            copartitionGroups: [{ sourceTopics: [0, 1], sourceTopicRegex: [], repartitionSourceTopics: [] }],
          }),
        ],
      },
    })
    expect(unequal.status).toEqual([
      DELAYED,
      {
        statusCode: INCORRECTLY_PARTITIONED_TOPICS,
        statusDetail: 'Following topics do not have the same number of partitions: [{cp-a=2, cp-b=4}]',
      },
    ])
    // in (4 partitions) is repartitioned to a topic joined with cp-a (2): the repartition topic gets 2, not its writer's 4.
    await noDelay('app-h')
    const joined = await beat('app-h', 'm', 0, {
      topology: {
        epoch: 0,
        subtopologies: [
          sub('0', { sourceTopics: ['in'], repartitionSinkTopics: ['app-h-rekeyed-repartition'] }),
          sub('1', {
            sourceTopics: ['cp-a'],
            repartitionSourceTopics: [{ name: 'app-h-rekeyed-repartition', partitions: 0, replicationFactor: 0, topicConfigs: [] }],
            copartitionGroups: [{ sourceTopics: [0], sourceTopicRegex: [], repartitionSourceTopics: [0] }],
          }),
        ],
      },
    })
    expect(joined.status).toEqual([
      { statusCode: MISSING_INTERNAL_TOPICS, statusDetail: 'Internal topics are missing: app-h-rekeyed-repartition' },
    ])
    let created = 0
    for (let i = 0; i < 50 && created === 0; i++) {
      await new Promise((res) => setTimeout(res, 100))
      const md = (await t.client.request(Metadata, 12, { topics: [{ name: 'app-h-rekeyed-repartition' }] })).topics[0]
      if (md.errorCode === ErrorCodes.NONE) created = md.partitions.length
    }
    expect(created).toBe(2)
  })

  it.skipIf(!available)('answers MISSING_SOURCE_TOPICS and INCORRECTLY_PARTITIONED_TOPICS as Kafka words them', async () => {
    await coordinatorReady('app-c')
    await coordinatorReady('app-d')
    const missing = await beat('app-c', 'm', 0, { topology: topology('app-c', 'no-such-topic') })
    expect(missing.errorCode).toBe(ErrorCodes.NONE)
    // The group's first member also waits for the initial rebalance delay (3 s by default).
    expect(missing.status).toEqual([
      DELAYED,
      { statusCode: MISSING_SOURCE_TOPICS, statusDetail: 'Source topics no-such-topic are missing.' },
    ])
    const wrong = await beat('app-d', 'm', 0)
    expect(wrong.status).toEqual([
      DELAYED,
      {
        statusCode: INCORRECTLY_PARTITIONED_TOPICS,
        statusDetail: 'Existing topic app-d-store-changelog has different number of partitions: expected 4, found 2',
      },
    ])
  })
})
