import type { Admin } from '../admin/admin.js'
import type { StreamsTasks } from '../admin/streams-groups.js'
import { groupLag } from './group-lag.js'
import { show } from './table-output.js'
import type { Io } from './io.js'

/** Kafka's answer for a group that does not exist, or is not a streams group. */
const GROUP_ID_NOT_FOUND = 69

/** Tasks as kafka-streams-groups.sh prints them: `ACTIVE: 0:[0,1]; 1:[0,1]; STANDBY: ...`. */
export function tasksText(t: StreamsTasks): string {
  const kind = (list: StreamsTasks['activeTasks'], name: string) =>
    list.length === 0 ? '' : `${name}: ${list.map((x) => `${x.subtopologyId}:[${x.partitions.join(',')}];`).join(' ')} `
  return (kind(t.activeTasks, 'ACTIVE') + kind(t.standbyTasks, 'STANDBY') + kind(t.warmupTasks, 'WARMUP')).trimEnd()
}

/**
 * A streams group (KIP-1071) as `wafka groups describe` shows it, from
 * StreamsGroupDescribe as kafka-streams-groups.sh --describe reads it: its
 * state, assignor and epochs, each member's process, endpoint and tasks, and
 * per partition its sub-topologies read (source and repartition topics) the
 * committed offset, the log end, the lag and the member whose active task
 * reads it. Undefined when there is no streams group of that id.
 */
export async function streamsGroupView(admin: Admin, groupId: string) {
  const described = await admin.describeStreamsGroups([groupId]).catch((err: { code?: number }) => {
    if (err.code === GROUP_ID_NOT_FOUND) return undefined
    throw err
  })
  if (!described) return undefined
  const g = described.groups[0]
  const reads = new Map(g.subtopologies.map((s) => [s.subtopologyId, [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)]]))
  const owner = new Map<string, string>()
  for (const m of g.members)
    for (const t of m.assignment.activeTasks)
      for (const topic of reads.get(t.subtopologyId) ?? []) for (const p of t.partitions) owner.set(`${topic}/${p}`, m.memberId)
  // As kafka-streams-groups.sh: the offsets of the topics the sub-topologies read (not of other topics the group committed to).
  const read = new Set([...reads.values()].flat())
  const offsets = (await groupLag(admin, groupId, owner)).filter((o) => read.size === 0 || read.has(o.topic))
  const members = g.members.map((m) => ({
    memberId: m.memberId,
    memberEpoch: m.memberEpoch,
    processId: m.processId,
    clientId: m.clientId,
    host: m.clientHost,
    endpoint: m.userEndpoint ? `${m.userEndpoint.host}:${m.userEndpoint.port}` : null,
    assignment: m.assignment,
    targetAssignment: m.targetAssignment,
  }))
  return {
    groupId,
    state: g.state,
    type: 'streams' as const,
    assignor: g.assignor,
    groupEpoch: g.groupEpoch,
    targetAssignmentEpoch: g.targetAssignmentEpoch,
    topologyEpoch: g.topologyEpoch,
    members,
    offsets,
  }
}

export function showStreamsGroup(io: Io, json: boolean, data: NonNullable<Awaited<ReturnType<typeof streamsGroupView>>>): void {
  if (json) {
    io.out(JSON.stringify(data) + '\n')
    return
  }
  const { groupId, state, assignor, members, offsets } = data
  io.out(`group ${groupId}: ${state}, streams${assignor ? `, ${assignor}` : ''}, ${members.length} member(s)\n`)
  if (members.length > 0) {
    io.out('\n')
    show(
      io,
      false,
      members,
      ['member', 'process', 'client', 'host', 'endpoint', 'assignments'],
      members.map((m) => [m.memberId, m.processId, m.clientId, m.host, m.endpoint, tasksText(m.assignment)]),
    )
  }
  if (offsets.length > 0) {
    io.out('\n')
    show(
      io,
      false,
      offsets,
      ['topic', 'partition', 'committed', 'log end', 'lag', 'member'],
      offsets.map((o) => [o.topic, o.partition, o.committed, o.logEnd, o.lag, o.member]),
    )
  }
}
