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
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MemberSubscription, TopicPartitions } from '../../src/consumer/assignors/index.js'
import { decodeAssignmentInfo, NO_REBALANCE } from '../../src/streams/assignment-info.js'
import { StreamsPartitionAssignor } from '../../src/streams/streams-partition-assignor.js'
import { writeCheckpoint } from '../../src/streams/offset-checkpoint.js'
import { decodeSubscriptionInfo, encodeSubscriptionInfo, type TaskOffsetSum } from '../../src/streams/subscription-info.js'
import { StateDirectory } from '../../src/streams/state-directory.js'
import { createLogger, logLevel } from '../../src/logger.js'

const P = (n: number) => `00000000-0000-0000-0000-00000000000${n}`

function assignor(subtopologies: Array<{ id: number; sourceTopics: string[]; stateful?: boolean }>, numStandbyReplicas = 0) {
  return new StreamsPartitionAssignor({
    processId: P(9),
    numStandbyReplicas,
    subtopologies: subtopologies.map((s) => ({ stateful: false, ...s })),
    errorCode: () => 0,
    onError: () => {},
  })
}

function member(
  memberId: string,
  process: number,
  owned: TopicPartitions[] = [],
  errorCode = 0,
  taskOffsetSums: TaskOffsetSum[] = [],
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
      clientTags: {},
    }),
  }
}

function run(a: StreamsPartitionAssignor, members: MemberSubscription[], counts: Record<string, number>) {
  const result = a.assign({ members, partitionCounts: new Map(Object.entries(counts)), generationId: 2 })
  return new Map(
    [...result].map(([id, m]) => {
      const info = decodeAssignmentInfo(m.userData!)
      const partitions = m.partitions.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`))
      return [id, { partitions, tasks: info.activeTasks.map((t) => `${t.subtopology}_${t.partition}`), info }]
    }),
  )
}

describe("the classic streams assignor's task assignment", () => {
  it("keeps a task's co-partitioned partitions on one consumer, tasks aligned with the sorted partitions", () => {
    const out = run(assignor([{ id: 0, sourceTopics: ['b', 'a'] }]), [member('m1', 1), member('m2', 2)], { a: 3, b: 3 })
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

  it('balances tasks over processes by their consumers, each consumer its share', () => {
    const out = run(assignor([{ id: 0, sourceTopics: ['t'] }]), [member('a1', 1), member('a2', 1), member('b1', 2)], { t: 6 })
    expect(['a1', 'a2', 'b1'].map((id) => out.get(id)!.tasks.length)).toEqual([2, 2, 2])
    const out2 = run(
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

  it('keeps tasks with their previous owner; a task another consumer owns waits for a follow-up rebalance', () => {
    const a = assignor([{ id: 0, sourceTopics: ['t'] }])
    // m1 ran 0_2 and 0_3: it keeps them, the newcomer gets the rest.
    const sticky = run(a, [member('m1', 1, [{ topic: 't', partitions: [2, 3] }]), member('m2', 2)], { t: 4 })
    expect(sticky.get('m1')!.tasks).toEqual(['0_2', '0_3'])
    expect(sticky.get('m2')!.tasks).toEqual(['0_0', '0_1'])
    // m1 ran every task: it keeps half; the other half is m2's once m1 has revoked it.
    const moving = run(a, [member('m1', 1, [{ topic: 't', partitions: [0, 1, 2, 3] }]), member('m2', 2)], { t: 4 })
    expect(moving.get('m1')!.tasks).toHaveLength(2)
    expect(moving.get('m2')!.tasks).toEqual([])
    expect(moving.get('m2')!.info.nextRebalanceMs).toBe(0n)
    const next = run(
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

  it('subscribes with -2 for running tasks and the checkpointed offset sums of tasks with state on disk, which a leader prefers', () => {
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
      const out = run(a, [member('m1', 1), member('m2', 2, [], 0, [{ subtopology: 0, partition: 0, offsetSum: 15n }])], { t: 2 })
      expect(out.get('m2')!.tasks).toEqual(['0_0'])
    } finally {
      rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('gives each stateful task numStandbyReplicas standbys, never where it runs, spread by load, with every host’s standby partitions', () => {
    const subs = [
      { id: 0, sourceTopics: ['t'] },
      { id: 1, sourceTopics: ['r', 's'], stateful: true },
    ]
    const standbysOf = (m: { info: ReturnType<typeof decodeAssignmentInfo> }) =>
      m.info.standbyTasks.map((t) => `${t.task.subtopology}_${t.task.partition}`)
    // Three processes, one with two consumers; six stateful tasks, one standby each.
    const members = [member('a1', 1), member('a2', 1), member('b1', 2), member('c1', 3)]
    const out = run(assignor(subs, 1), members, { t: 6, r: 6, s: 6 })
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
    const two = run(assignor(subs, 2), [member('a1', 1), member('b1', 2)], { t: 2, r: 2, s: 2 })
    for (const id of ['a1', 'b1']) {
      const m = two.get(id)!
      expect(standbysOf(m)).toEqual(['1_0', '1_1'].filter((t) => !m.tasks.includes(t)))
      expect(standbysOf(m)).toHaveLength(1)
    }
    // None asked for: none given.
    expect([...run(assignor(subs), members, { t: 6, r: 6, s: 6 }).values()].flatMap(standbysOf)).toEqual([])
  })

  it('answers a shutdown request and a missing source topic with Java’s error codes for every member', () => {
    const a = assignor([{ id: 0, sourceTopics: ['t'] }])
    const shut = run(a, [member('m1', 1), member('m2', 2, [], 4)], { t: 2 })
    expect([...shut.values()].map((m) => [m.partitions.length, m.info.errorCode])).toEqual([
      [0, 4],
      [0, 4],
    ])
    const missing = run(a, [member('m1', 1)], {})
    expect(missing.get('m1')!.info.errorCode).toBe(1)
  })
})
