// The classic streams assignor's leader side on its own (what the group
// tests cannot pin down): a task's co-partitioned partitions go to one
// consumer with the AssignmentInfo's active tasks aligned to the sorted
// partitions, as Java's onAssignment reads them; tasks are balanced over
// processes by their consumers; a process keeps the tasks it ran while it
// has room; a task another consumer still owns is left out with a
// follow-up rebalance asked for (cooperative); numStandbyReplicas standby
// copies of each stateful task, never on the process running it, spread by
// load and written with every host's standby partitions; a shutdown request
// and a missing source topic answer every member with Java's error codes.
// Lag-aware (Java's HighAvailabilityTaskAssignor, the end offsets fed as the
// leader's ListOffsets gives them): lags, warm-ups instead of actives within
// maxWarmupReplicas, the probe time on the leader's client, caught-up and
// least-lagging preference, standby swaps; standbys spread by client tags.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MemberSubscription, TopicPartitions } from '../../src/consumer/assignors/index.js'
import { decodeAssignmentInfo, NO_REBALANCE } from '../../src/streams/assignment-info.js'
import { StreamsPartitionAssignor, type StreamsAssignorOptions } from '../../src/streams/streams-partition-assignor.js'
import { taskLags } from '../../src/streams/task-movement.js'
import { writeCheckpoint } from '../../src/streams/offset-checkpoint.js'
import { decodeSubscriptionInfo, encodeSubscriptionInfo, type TaskOffsetSum } from '../../src/streams/subscription-info.js'
import { StateDirectory } from '../../src/streams/state-directory.js'
import { createLogger, logLevel } from '../../src/logger.js'

const P = (n: number) => `00000000-0000-0000-0000-00000000000${n}`

function assignor(
  subtopologies: Array<{ id: number; sourceTopics: string[]; stateful?: boolean; changelogTopics?: string[] }>,
  numStandbyReplicas = 0,
  more: Partial<StreamsAssignorOptions> = {},
) {
  return new StreamsPartitionAssignor({
    processId: P(9),
    numStandbyReplicas,
    subtopologies: subtopologies.map((s) => ({ stateful: false, ...s })),
    errorCode: () => 0,
    onError: () => {},
    ...more,
  })
}

function member(
  memberId: string,
  process: number,
  owned: TopicPartitions[] = [],
  errorCode = 0,
  taskOffsetSums: TaskOffsetSum[] = [],
  clientTags: Record<string, string> = {},
): MemberSubscription {
  return {
    memberId,
    groupInstanceId: null,
    topics: [],
    ownedPartitions: owned,
    generationId: 1,
    rackId: null,
    userData: encodeSubscriptionInfo({
      version: 11,
      latestSupportedVersion: 11,
      processId: P(process),
      userEndpoint: `host-${process}:80`,
      taskOffsetSums,
      uniqueField: 0,
      errorCode,
      clientTags,
    }),
  }
}

async function run(a: StreamsPartitionAssignor, members: MemberSubscription[], counts: Record<string, number>) {
  const result = await a.assign({ members, partitionCounts: new Map(Object.entries(counts)), generationId: 2 })
  return new Map(
    [...result].map(([id, m]) => {
      const info = decodeAssignmentInfo(m.userData!)
      const partitions = m.partitions.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`))
      return [id, { partitions, tasks: info.activeTasks.map((t) => `${t.subtopology}_${t.partition}`), info }]
    }),
  )
}

describe("the classic streams assignor's task assignment", () => {
  it("keeps a task's co-partitioned partitions on one consumer, tasks aligned with the sorted partitions", async () => {
    const out = await run(assignor([{ id: 0, sourceTopics: ['b', 'a'] }]), [member('m1', 1), member('m2', 2)], { a: 3, b: 3 })
    const all = [...out.values()]
    expect(all.map((m) => m.partitions.length).sort()).toEqual([2, 4])
    for (const m of all) {
      expect(m.partitions).toEqual([...m.partitions].sort())
      // Each partition's task is the partition's number: a-p and b-p together.
      m.partitions.forEach((p, i) => expect(m.tasks[i]).toBe(`0_${p.slice(2)}`))
      expect(new Set(m.partitions.map((p) => p.slice(2))).size * 2).toBe(m.partitions.length)
      expect(m.info.nextRebalanceMs).toBe(NO_REBALANCE)
      // Every instance's partitions by its endpoint.
      expect(m.info.partitionsByHost.map((h) => `${h.host}:${h.port}`).sort()).toEqual(['host-1:80', 'host-2:80'])
    }
  })

  it('balances tasks over processes by their consumers, each consumer its share', async () => {
    const out = await run(assignor([{ id: 0, sourceTopics: ['t'] }]), [member('a1', 1), member('a2', 1), member('b1', 2)], { t: 6 })
    expect(['a1', 'a2', 'b1'].map((id) => out.get(id)!.tasks.length)).toEqual([2, 2, 2])
    const out2 = await run(
      assignor([
        { id: 0, sourceTopics: ['t'] },
        { id: 1, sourceTopics: ['r'], stateful: true },
      ]),
      [member('a1', 1), member('b1', 2)],
      {
        t: 4,
        r: 4,
      },
    )
    // Stateful and stateless tasks each balanced.
    for (const id of ['a1', 'b1']) {
      const tasks = out2.get(id)!.tasks
      expect([tasks.filter((t) => t.startsWith('0_')).length, tasks.filter((t) => t.startsWith('1_')).length]).toEqual([2, 2])
    }
  })

  it('keeps tasks with their previous owner; a task another consumer owns waits for a follow-up rebalance', async () => {
    const a = assignor([{ id: 0, sourceTopics: ['t'] }])
    // m1 ran 0_2 and 0_3: it keeps them, the newcomer gets the rest.
    const sticky = await run(a, [member('m1', 1, [{ topic: 't', partitions: [2, 3] }]), member('m2', 2)], { t: 4 })
    expect(sticky.get('m1')!.tasks).toEqual(['0_2', '0_3'])
    expect(sticky.get('m2')!.tasks).toEqual(['0_0', '0_1'])
    // m1 ran every task: it keeps half; the other half is m2's once m1 has revoked it.
    const moving = await run(a, [member('m1', 1, [{ topic: 't', partitions: [0, 1, 2, 3] }]), member('m2', 2)], { t: 4 })
    expect(moving.get('m1')!.tasks).toHaveLength(2)
    expect(moving.get('m2')!.tasks).toEqual([])
    expect(moving.get('m2')!.info.nextRebalanceMs).toBe(0n)
    const next = await run(
      a,
      [member('m1', 1, [{ topic: 't', partitions: moving.get('m1')!.partitions.map((p) => Number(p.slice(2))) }]), member('m2', 2)],
      {
        t: 4,
      },
    )
    expect(next.get('m1')!.tasks).toEqual(moving.get('m1')!.tasks)
    expect(next.get('m2')!.tasks).toHaveLength(2)
    expect(next.get('m2')!.info.nextRebalanceMs).toBe(NO_REBALANCE)
  })

  it('subscribes with -2 for running tasks and the checkpointed offset sums of tasks with state on disk, which a leader prefers', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'assignor-sums-'))
    const appDir = join(stateDir, 'app')
    mkdirSync(appDir)
    try {
      for (const task of ['0_1', '0_2', '0_3', 'not-a-task']) mkdirSync(join(appDir, task))
      writeCheckpoint(join(appDir, '0_1', '.checkpoint'), [{ topic: 'c', partition: 1, offset: 7n }])
      writeCheckpoint(join(appDir, '0_2', '.checkpoint'), [
        { topic: 'c', partition: 2, offset: 10n },
        { topic: 'd', partition: 2, offset: 5n },
      ])
      const a = new StreamsPartitionAssignor({
        processId: P(1),
        subtopologies: [{ id: 0, sourceTopics: ['t'], stateful: true }],
        localOffsetSums: () => new StateDirectory(stateDir, 'app', createLogger({ logLevel: logLevel.NOTHING })).taskOffsetSums(),
        errorCode: () => 0,
        onError: () => {},
      })
      const info = decodeSubscriptionInfo(a.subscriptionUserData({ owned: [{ topic: 't', partitions: [1] }], generationId: 1 }))
      // 0_3 has no checkpoint (a task closed uncleanly, or under exactly_once_v2 while running): not offered.
      expect(info.taskOffsetSums).toEqual([
        { subtopology: 0, partition: 1, offsetSum: -2n },
        // Java's changelogOffsets: each checkpointed offset plus one (the next to read), summed.
        { subtopology: 0, partition: 2, offsetSum: 17n },
      ])
      // The leader gives a task to the process holding its state.
      const out = await run(a, [member('m1', 1), member('m2', 2, [], 0, [{ subtopology: 0, partition: 0, offsetSum: 15n }])], { t: 2 })
      expect(out.get('m2')!.tasks).toEqual(['0_0'])
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('gives each stateful task numStandbyReplicas standbys, never where it runs, spread by load, with every host’s standby partitions', async () => {
    const subs = [
      { id: 0, sourceTopics: ['t'] },
      { id: 1, sourceTopics: ['r', 's'], stateful: true },
    ]
    const standbysOf = (m: { info: ReturnType<typeof decodeAssignmentInfo> }) =>
      m.info.standbyTasks.map((t) => `${t.task.subtopology}_${t.task.partition}`)
    // Three processes, one with two consumers; six stateful tasks, one standby each.
    const members = [member('a1', 1), member('a2', 1), member('b1', 2), member('c1', 3)]
    const out = await run(assignor(subs, 1), members, { t: 6, r: 6, s: 6 })
    const byProcess = (ids: string[]) => ({
      // One active task per partition: a stateful task (r-p and s-p) is named twice.
      active: [...new Set(ids.flatMap((id) => out.get(id)!.tasks).filter((t) => t.startsWith('1_')))],
      standby: ids.flatMap((id) => standbysOf(out.get(id)!)),
    })
    const processes = [byProcess(['a1', 'a2']), byProcess(['b1']), byProcess(['c1'])]
    for (const p of processes) {
      expect(p.standby.filter((t) => p.active.includes(t))).toEqual([])
      expect(p.standby.every((t) => t.startsWith('1_'))).toBe(true)
    }
    expect(processes.flatMap((p) => p.standby).sort()).toEqual(['1_0', '1_1', '1_2', '1_3', '1_4', '1_5'])
    // By load (tasks per consumer): the two-consumer process holds twice the tasks, each consumer some.
    expect(processes.map((p) => p.active.length + p.standby.length)).toEqual([6, 3, 3])
    expect(standbysOf(out.get('a1')!).length).toBeGreaterThan(0)
    expect(standbysOf(out.get('a2')!).length).toBeGreaterThan(0)
    // A standby task carries its source partitions; each host's standby partitions are its standby tasks'.
    const b1 = out.get('b1')!.info
    for (const t of b1.standbyTasks)
      expect(t.partitions).toEqual([
        { topic: 'r', partitions: [t.task.partition] },
        { topic: 's', partitions: [t.task.partition] },
      ])
    const host = b1.standbyPartitionsByHost.find((h) => h.host === 'host-2')!
    expect(host.partitions).toEqual(
      ['r', 's'].map((topic) => ({ topic, partitions: b1.standbyTasks.map((t) => t.task.partition).sort((x, y) => x - y) })),
    )
    expect(out.get('c1')!.info.standbyPartitionsByHost).toEqual(b1.standbyPartitionsByHost)
    // Two standbys asked for with two processes: one each, as no third process is left to hold one.
    const two = await run(assignor(subs, 2), [member('a1', 1), member('b1', 2)], { t: 2, r: 2, s: 2 })
    for (const id of ['a1', 'b1']) {
      const m = two.get(id)!
      expect(standbysOf(m)).toEqual(['1_0', '1_1'].filter((t) => !m.tasks.includes(t)))
      expect(standbysOf(m)).toHaveLength(1)
    }
    // None asked for: none given.
    expect([...(await run(assignor(subs), members, { t: 6, r: 6, s: 6 })).values()].flatMap(standbysOf)).toEqual([])
  })

  it('answers a shutdown request and a missing source topic with Java’s error codes for every member', async () => {
    const a = assignor([{ id: 0, sourceTopics: ['t'] }])
    const shut = await run(a, [member('m1', 1), member('m2', 2, [], 4)], { t: 2 })
    expect([...shut.values()].map((m) => [m.partitions.length, m.info.errorCode])).toEqual([
      [0, 4],
      [0, 4],
    ])
    const missing = await run(a, [member('m1', 1)], {})
    expect(missing.get('m1')!.info.errorCode).toBe(1)
  })
})

describe("the classic streams assignor's lag-aware placement (Java's HighAvailabilityTaskAssignor)", () => {
  const subs = [{ id: 0, sourceTopics: ['t'], stateful: true, changelogTopics: ['c', 'd'] }]
  // The changelogs' end offsets, as the leader's ListOffsets would give them: task 0_p's end offset sum is 1000.
  const ends =
    (partitions = 4) =>
    async () =>
      new Map(['c', 'd'].map((topic) => [topic, new Map(Array.from({ length: partitions }, (_, p) => [p, 500n] as const))]))
  const lagAware = (more: Partial<StreamsAssignorOptions> = {}, replicas = 0) =>
    assignor(subs, replicas, {
      processId: P(1),
      changelogEndOffsets: ends(),
      acceptableRecoveryLag: 100,
      probingRebalanceIntervalMs: 60_000,
      ...more,
    })
  const sums = (list: Record<string, bigint>): TaskOffsetSum[] =>
    Object.entries(list).map(([task, offsetSum]) => ({ subtopology: 0, partition: Number(task.slice(2)), offsetSum }))
  const standbysOf = (m: { info: ReturnType<typeof decodeAssignmentInfo> }) =>
    m.info.standbyTasks.map((t) => `${t.task.subtopology}_${t.task.partition}`).sort()
  // Running tasks are subscribed with offset sum -2 (as subscriptionUserData writes them).
  const running = (id: string, partitions: number[]) =>
    member(id, 1, [{ topic: 't', partitions }], 0, sums(Object.fromEntries(partitions.map((p) => [`0_${p}`, -2n]))))
  const runsAll = (id: string) => running(id, [0, 1, 2, 3])

  it('counts lags as Java’s ClientState.computeTaskLags: running -2, unknown -3, none held the whole end, a sum past the end the whole end', () => {
    const ends = new Map([
      ['0_0', 1000n],
      ['0_1', 1000n],
      ['0_2', 1000n],
      ['0_3', 1000n],
      ['0_4', 1000n],
    ])
    const lags = taskLags(
      new Map([
        ['0_0', -2n],
        ['0_1', -3n],
        ['0_3', 1200n],
        ['0_4', 940n],
        ['9_9', 5n],
      ]),
      ends,
    )
    expect(Object.fromEntries(lags)).toEqual({ '0_0': -2n, '0_1': -3n, '0_2': 1000n, '0_3': 1000n, '0_4': 60n })
  })

  it('keeps every active task on the caught-up client, gives the empty newcomer warm-ups, and asks the leader for a probing rebalance', async () => {
    const before = Date.now()
    const out = await run(lagAware(), [runsAll('m1'), member('m2', 2)], { t: 4 })
    expect(out.get('m1')!.tasks).toEqual(['0_0', '0_1', '0_2', '0_3'])
    expect(out.get('m2')!.tasks).toEqual([])
    // The tasks balancing would have given m2 (sticky: m1 keeps the first half) are warmed up there.
    expect(standbysOf(out.get('m2')!)).toEqual(['0_2', '0_3'])
    expect(standbysOf(out.get('m1')!)).toEqual([])
    // Only the leader's client (process 1) schedules the probing rebalance, probingRebalanceIntervalMs from now.
    const at = Number(out.get('m1')!.info.nextRebalanceMs)
    expect(at).toBeGreaterThanOrEqual(before + 60_000)
    expect(at).toBeLessThanOrEqual(Date.now() + 60_000)
    expect(out.get('m2')!.info.nextRebalanceMs).toBe(NO_REBALANCE)
    // The host maps name the warm-ups as m2's standby partitions.
    expect(out.get('m1')!.info.standbyPartitionsByHost.find((h) => h.host === 'host-2')!.partitions).toEqual([
      { topic: 't', partitions: [2, 3] },
    ])
  })

  it('gives at most maxWarmupReplicas warm-ups in one rebalance, still keeping the actives on the caught-up client', async () => {
    const out = await run(lagAware({ maxWarmupReplicas: 1 }), [runsAll('m1'), member('m2', 2)], { t: 4 })
    expect(out.get('m1')!.tasks).toEqual(['0_0', '0_1', '0_2', '0_3'])
    expect(standbysOf(out.get('m2')!)).toEqual(['0_2'])
    expect(out.get('m1')!.info.nextRebalanceMs).not.toBe(NO_REBALANCE)
  })

  it('moves a task once its warm-up is within acceptableRecoveryLag: the probing rebalance balances, with no further probe', async () => {
    // m2's warm-ups caught up to lag 50 on 0_2 and 150 on 0_3 (acceptableRecoveryLag 100).
    const m2 = member('m2', 2, [], 0, sums({ '0_2': 950n, '0_3': 850n }))
    const out = await run(lagAware(), [runsAll('m1'), m2], { t: 4 })
    // 0_2 is m2's once m1 revokes it (kept warm as a standby meanwhile); 0_3 is still too far behind: m1 keeps it, m2 warms it.
    expect(out.get('m1')!.tasks).toEqual(['0_0', '0_1', '0_3'])
    expect(out.get('m2')!.tasks).toEqual([])
    expect(out.get('m2')!.info.nextRebalanceMs).toBe(0n)
    expect(standbysOf(out.get('m2')!)).toEqual(['0_2', '0_3'])
    expect(out.get('m1')!.info.nextRebalanceMs).not.toBe(NO_REBALANCE)
    // The probing rebalance, after the revocation, with 0_3 caught up too: balanced, and no probe asked.
    const m1 = running('m1', [0, 1, 3])
    const settled = await run(lagAware(), [m1, member('m2', 2, [], 0, sums({ '0_2': 1000n, '0_3': 990n }))], { t: 4 })
    // m1 revoked 0_2 already: it is m2's now; 0_3 (caught up too) once m1 revokes it.
    expect(settled.get('m1')!.tasks).toEqual(['0_0', '0_1'])
    expect(settled.get('m2')!.tasks).toEqual(['0_2'])
    expect(standbysOf(settled.get('m2')!)).toEqual(['0_3'])
    expect(settled.get('m2')!.info.nextRebalanceMs).toBe(0n)
    expect(settled.get('m1')!.info.nextRebalanceMs).toBe(NO_REBALANCE)
    const done = await run(lagAware(), [running('m1', [0, 1]), member('m2', 2, [], 0, sums({ '0_2': 1000n, '0_3': 990n }))], { t: 4 })
    expect(done.get('m2')!.tasks).toEqual(['0_2', '0_3'])
    for (const m of done.values()) expect(m.info.nextRebalanceMs).toBe(NO_REBALANCE)
  })

  it('with nobody caught up, gives a task to the least lagging client; an unknown end offset asks for a retry, not movements', async () => {
    // No client runs anything; m2 holds 0_0 at lag 400 and m1 0_1 at lag 600, both over the bound.
    const m1 = member('m1', 1, [], 0, sums({ '0_0': 100n, '0_1': 400n }))
    const m2 = member('m2', 2, [], 0, sums({ '0_0': 600n, '0_1': 300n }))
    const out = await run(lagAware(), [m1, m2], { t: 2 })
    // Balanced by state, then each to the less lagging: 0_0 on m2 (lag 400 < 900), 0_1 on m1 (600 < 700).
    expect(out.get('m2')!.tasks).toEqual(['0_0'])
    expect(out.get('m1')!.tasks).toEqual(['0_1'])
    const failing = lagAware({
      changelogEndOffsets: async () => {
        throw new Error('no leader for c-0')
      },
    })
    const retry = await run(failing, [runsAll('m1'), member('m2', 2)], { t: 4 })
    // Every client counts as caught up: balanced (m2's half pending revocation), and a follow-up probe scheduled.
    expect(retry.get('m1')!.tasks).toHaveLength(2)
    expect(standbysOf(retry.get('m2')!)).toEqual([])
    expect(retry.get('m1')!.info.nextRebalanceMs).not.toBe(NO_REBALANCE)
    expect(retry.get('m1')!.info.nextRebalanceMs).not.toBe(0n)
  })

  it('a caught-up standby takes the active over (a swap) before a less loaded caught-up client', async () => {
    // m1 and m3 hold every task's state caught up (not running them); m2 has none. One standby each.
    const caught = sums({ '0_0': 1000n, '0_1': 1000n, '0_2': 1000n })
    const members = [member('m1', 1, [], 0, caught), member('m2', 2), member('m3', 3, [], 0, caught)]
    const out = await run(lagAware({}, 1), members, { t: 3 })
    // Balanced: 0_0 on m1, 0_1 on m3, 0_2 on m2 (not caught up), standbys 0_0 on m2, 0_1 on m1, 0_2 on m3.
    // m1 and m3 are equally loaded and m1 goes first, but m3 has 0_2's standby: the two swap.
    expect(out.get('m1')!.tasks).toEqual(['0_0'])
    expect(out.get('m3')!.tasks).toEqual(['0_1', '0_2'])
    expect(out.get('m2')!.tasks).toEqual([])
    expect(standbysOf(out.get('m2')!)).toEqual(['0_0', '0_2'])
    // m2's standbys, not caught up, get caught-up copies on the least loaded clients not holding them
    // (Java's assignStandbyTaskMovements), m2 keeping its own as warm-ups within maxWarmupReplicas.
    expect(standbysOf(out.get('m3')!)).toEqual(['0_0'])
    expect(standbysOf(out.get('m1')!)).toEqual(['0_1', '0_2'])
  })

  it('with rackAwareAssignmentTags, spreads each task’s standbys over distinct tag values before load', async () => {
    const tagged = [
      member('a', 1, [], 0, [], { zone: 'z1', cluster: 'k1' }),
      member('b', 2, [], 0, [], { zone: 'z1', cluster: 'k2' }),
      member('c', 3, [], 0, [], { zone: 'z2', cluster: 'k1' }),
      member('d', 4, [], 0, [], { zone: 'z2', cluster: 'k2' }),
    ]
    const tagOf = (id: string) => (['a', 'b'].includes(id) ? 'z1' : 'z2')
    const out = await run(assignor(subs, 1, { rackAwareAssignmentTags: ['zone'] }), tagged, { t: 8 })
    for (let p = 0; p < 8; p++) {
      const task = `0_${p}`
      const active = [...out].find(([, m]) => m.tasks.includes(task))![0]
      const standby = [...out].filter(([, m]) => standbysOf(m).includes(task)).map(([id]) => id)
      expect(standby).toHaveLength(1)
      expect(tagOf(standby[0])).not.toBe(tagOf(active))
    }
    // Two tags, two standbys: each copy on another zone and another cluster where one is left, then by load.
    const two = await run(assignor(subs, 2, { rackAwareAssignmentTags: ['zone', 'cluster'] }), tagged, { t: 4 })
    const tags = { a: 'z1k1', b: 'z1k2', c: 'z2k1', d: 'z2k2' } as Record<string, string>
    for (let p = 0; p < 4; p++) {
      const task = `0_${p}`
      const active = [...two].find(([, m]) => m.tasks.includes(task))![0]
      const standby = [...two].filter(([, m]) => standbysOf(m).includes(task)).map(([id]) => id)
      expect(standby).toHaveLength(2)
      // The first standby shares neither zone nor cluster with the active.
      const differ = standby.filter(
        (id) => tags[id].slice(0, 2) !== tags[active].slice(0, 2) && tags[id].slice(2) !== tags[active].slice(2),
      )
      expect(differ).toHaveLength(1)
    }
    // Without the option, the default assignor ignores tags (by load alone): some standby shares its active's zone.
    const plain = await run(assignor(subs, 1), tagged, { t: 8 })
    const same = Array.from({ length: 8 }, (_, p) => `0_${p}`).filter((task) => {
      const active = [...plain].find(([, m]) => m.tasks.includes(task))![0]
      const standby = [...plain].find(([, m]) => standbysOf(m).includes(task))![0]
      return tagOf(active) === tagOf(standby)
    })
    expect(same.length).toBeGreaterThan(0)
  })
})
