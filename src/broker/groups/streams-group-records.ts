import type { Buffer } from 'node:buffer'
import {
  decodeData,
  encodeData,
  StreamsGroupCurrentMemberAssignmentKey,
  StreamsGroupCurrentMemberAssignmentValue,
  StreamsGroupMemberMetadataKey,
  StreamsGroupMemberMetadataValue,
  StreamsGroupMetadataKey,
  StreamsGroupMetadataValue,
  StreamsGroupTargetAssignmentMemberKey,
  StreamsGroupTargetAssignmentMemberValue,
  StreamsGroupTargetAssignmentMetadataKey,
  StreamsGroupTargetAssignmentMetadataValue,
  StreamsGroupTopologyKey,
  StreamsGroupTopologyValue,
} from '../../protocol/messages/index.js'
import type { StreamsMemberState } from './streams-reconcile.js'
import type { StreamsTopology } from './streams-topology.js'

/** Tasks of one subtopology; active ones with the member epoch each came at. */
export interface TaskIdsSnapshot {
  subtopologyId: string
  partitions: number[]
  assignmentEpochs?: number[]
}

/** What a member's StreamsGroupMemberMetadata record holds. */
export interface StreamsMemberMetadata {
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number
  topologyEpoch: number
  processId: string
  userEndpoint: { host: string; port: number } | null
  clientTags: Array<{ key: string; value: string }>
}

/** What a member's StreamsGroupCurrentMemberAssignment record holds (no warm-up tasks: none are assigned). */
export interface StreamsMemberCurrent {
  memberEpoch: number
  previousMemberEpoch: number
  state: StreamsMemberState
  active: TaskIdsSnapshot[]
  standby: TaskIdsSnapshot[]
  revokeActive: TaskIdsSnapshot[]
  revokeStandby: TaskIdsSnapshot[]
}

export interface StreamsTargetSnapshot {
  active: TaskIdsSnapshot[]
  standby: TaskIdsSnapshot[]
}

export type StreamsMemberSnapshot = { memberId: string } & StreamsMemberMetadata & StreamsMemberCurrent & { target: StreamsTargetSnapshot }

/** A streams group as __consumer_offsets keeps it (what a coordinator that loads the group goes on from). */
export interface StreamsGroupSnapshot {
  groupEpoch: number
  validatedTopologyEpoch: number
  /** streams.num.standby.replicas the last target was computed with (null: none yet). */
  standbyReplicas: number | null
  assignmentEpoch: number
  assignedAtMs: number
  topology: StreamsTopology | null
  members: StreamsMemberSnapshot[]
}

interface RecordBytes {
  key: Buffer
  value: Buffer | null
}

type GroupValue = Pick<StreamsGroupSnapshot, 'groupEpoch' | 'validatedTopologyEpoch' | 'standbyReplicas'>

/** A streams group's record of __consumer_offsets (Kafka's types 17 and 19 to 23), decoded; a null value is a tombstone. */
export type StreamsGroupRecord =
  | { type: 'streams-group'; group: string; value: GroupValue | null }
  | { type: 'streams-topology'; group: string; value: StreamsTopology | null }
  | { type: 'streams-member'; group: string; memberId: string; value: StreamsMemberMetadata | null }
  | { type: 'streams-target-epoch'; group: string; value: { assignmentEpoch: number; assignedAtMs: number } | null }
  | { type: 'streams-target'; group: string; memberId: string; value: StreamsTargetSnapshot | null }
  | { type: 'streams-current'; group: string; memberId: string; value: StreamsMemberCurrent | null }

const TYPES = new Set(['streams-group', 'streams-topology', 'streams-member', 'streams-target-epoch', 'streams-target', 'streams-current'])

export function isStreamsRecord(r: { type: string }): r is StreamsGroupRecord {
  return TYPES.has(r.type)
}

/** Kafka's streams MemberState bytes (UNKNOWN, 3, is never written here). */
const STATE_BYTES: Record<StreamsMemberState, number> = { stable: 0, unrevoked: 1, unreleased: 2 }
const STATES = new Map(Object.entries(STATE_BYTES).map(([k, v]) => [v, k as StreamsMemberState]))
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
const STANDBYS = 'num.standby.replicas'

function metadata(m: StreamsMemberMetadata): StreamsMemberMetadata {
  const { instanceId, rackId, clientId, clientHost, rebalanceTimeoutMs, topologyEpoch, processId, userEndpoint, clientTags } = m
  return { instanceId, rackId, clientId, clientHost, rebalanceTimeoutMs, topologyEpoch, processId, userEndpoint, clientTags }
}

function current(m: StreamsMemberCurrent): StreamsMemberCurrent {
  const { memberEpoch, previousMemberEpoch, state, active, standby, revokeActive, revokeStandby } = m
  return { memberEpoch, previousMemberEpoch, state, active, standby, revokeActive, revokeStandby }
}

const plain = (t: TaskIdsSnapshot[]) => t.map(({ subtopologyId, partitions }) => ({ subtopologyId, partitions }))
const withEpochs = (t: TaskIdsSnapshot[]) =>
  t.map(({ subtopologyId, partitions, assignmentEpochs }) => ({ subtopologyId, partitions, assignmentEpochs: assignmentEpochs ?? null }))

/**
 * The records that take a streams group from `prev` to `next`, in the
 * order Kafka 4.4's coordinator writes them: a removed member's current
 * assignment, target and metadata tombstoned; members' changed metadata;
 * the topology when it is first set; the group's epoch; changed targets,
 * then the target's epoch; members' changed current assignments. `next`
 * null: the deleted group's tombstones. The metadata hash is written 0
 * (the embedded broker does not compute Kafka's hash of the topics).
 */
export function streamsGroupRecords(group: string, prev: StreamsGroupSnapshot | null, next: StreamsGroupSnapshot | null): RecordBytes[] {
  const before = new Map((prev?.members ?? []).map((m) => [m.memberId, m]))
  const after = new Map((next?.members ?? []).map((m) => [m.memberId, m]))
  const out: RecordBytes[] = []
  const groupKey = { groupId: group }
  const currentKey = (memberId: string) => encodeData(StreamsGroupCurrentMemberAssignmentKey, 22, { groupId: group, memberId })
  const targetKey = (memberId: string) => encodeData(StreamsGroupTargetAssignmentMemberKey, 21, { groupId: group, memberId })
  const memberKey = (memberId: string) => encodeData(StreamsGroupMemberMetadataKey, 19, { groupId: group, memberId })
  if (next === null) {
    for (const id of before.keys()) out.push({ key: currentKey(id), value: null })
    for (const id of before.keys()) out.push({ key: targetKey(id), value: null })
    out.push({ key: encodeData(StreamsGroupTargetAssignmentMetadataKey, 20, groupKey), value: null })
    for (const id of before.keys()) out.push({ key: memberKey(id), value: null })
    out.push({ key: encodeData(StreamsGroupTopologyKey, 23, groupKey), value: null })
    out.push({ key: encodeData(StreamsGroupMetadataKey, 17, groupKey), value: null })
    return out
  }
  for (const id of before.keys())
    if (!after.has(id))
      out.push({ key: currentKey(id), value: null }, { key: targetKey(id), value: null }, { key: memberKey(id), value: null })
  for (const [id, m] of after) {
    const was = before.get(id)
    if (!was || !same(metadata(was), metadata(m)))
      out.push({ key: memberKey(id), value: encodeData(StreamsGroupMemberMetadataValue, 0, metadata(m)) })
  }
  if (next.topology && !same(prev?.topology ?? null, next.topology))
    out.push({ key: encodeData(StreamsGroupTopologyKey, 23, groupKey), value: encodeData(StreamsGroupTopologyValue, 0, next.topology) })
  if (
    prev?.groupEpoch !== next.groupEpoch ||
    prev.validatedTopologyEpoch !== next.validatedTopologyEpoch ||
    prev.standbyReplicas !== next.standbyReplicas
  )
    out.push({
      key: encodeData(StreamsGroupMetadataKey, 17, groupKey),
      value: encodeData(StreamsGroupMetadataValue, 0, {
        epoch: next.groupEpoch,
        metadataHash: 0n,
        validatedTopologyEpoch: next.validatedTopologyEpoch,
        lastAssignmentConfigs: next.standbyReplicas === null ? null : [{ key: STANDBYS, value: String(next.standbyReplicas) }],
      }),
    })
  for (const [id, m] of after)
    if (!same(before.get(id)?.target ?? null, m.target))
      out.push({
        key: targetKey(id),
        value: encodeData(StreamsGroupTargetAssignmentMemberValue, 0, {
          activeTasks: m.target.active,
          standbyTasks: m.target.standby,
          warmupTasks: [],
        }),
      })
  if (prev?.assignmentEpoch !== next.assignmentEpoch || prev?.assignedAtMs !== next.assignedAtMs)
    out.push({
      key: encodeData(StreamsGroupTargetAssignmentMetadataKey, 20, groupKey),
      value: encodeData(StreamsGroupTargetAssignmentMetadataValue, 0, {
        assignmentEpoch: next.assignmentEpoch,
        assignmentTimestamp: BigInt(next.assignedAtMs),
      }),
    })
  for (const [id, m] of after) {
    const was = before.get(id)
    if (was && same(current(was), current(m))) continue
    out.push({
      key: currentKey(id),
      value: encodeData(StreamsGroupCurrentMemberAssignmentValue, 0, {
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: STATE_BYTES[m.state],
        activeTasks: withEpochs(m.active),
        standbyTasks: plain(m.standby),
        warmupTasks: [],
        activeTasksPendingRevocation: withEpochs(m.revokeActive),
        standbyTasksPendingRevocation: plain(m.revokeStandby),
        warmupTasksPendingRevocation: [],
      }),
    })
  }
  return out
}

const tasksOf = (t: ReadonlyArray<{ subtopologyId: string; partitions: number[]; assignmentEpochs?: number[] | null }>, epoch?: number) =>
  t.map((x): TaskIdsSnapshot => {
    const base = { subtopologyId: x.subtopologyId, partitions: [...x.partitions] }
    return epoch === undefined ? base : { ...base, assignmentEpochs: x.partitions.map((_, i) => x.assignmentEpochs?.[i] ?? epoch) }
  })

/** Decodes a streams group's record (`recordType` 17 or 19 to 23); undefined for another type. */
export function readStreamsGroupRecord(recordType: number, k: Buffer, v: Buffer | null): StreamsGroupRecord | undefined {
  switch (recordType) {
    case 17: {
      const { groupId: group } = decodeData(StreamsGroupMetadataKey, k).value
      if (!v) return { type: 'streams-group', group, value: null }
      const g = decodeData(StreamsGroupMetadataValue, v).value
      const standbys = g.lastAssignmentConfigs?.find((c) => c.key === STANDBYS)
      return {
        type: 'streams-group',
        group,
        value: {
          groupEpoch: g.epoch,
          validatedTopologyEpoch: g.validatedTopologyEpoch,
          standbyReplicas: standbys ? Number(standbys.value) : null,
        },
      }
    }
    case 19: {
      const { groupId: group, memberId } = decodeData(StreamsGroupMemberMetadataKey, k).value
      if (!v) return { type: 'streams-member', group, memberId, value: null }
      const m = decodeData(StreamsGroupMemberMetadataValue, v).value
      return {
        type: 'streams-member',
        group,
        memberId,
        value: metadata({
          ...m,
          userEndpoint: m.userEndpoint ? { host: m.userEndpoint.host, port: m.userEndpoint.port } : null,
          clientTags: m.clientTags.map(({ key, value }) => ({ key, value })),
        }),
      }
    }
    case 20: {
      const { groupId: group } = decodeData(StreamsGroupTargetAssignmentMetadataKey, k).value
      if (!v) return { type: 'streams-target-epoch', group, value: null }
      const t = decodeData(StreamsGroupTargetAssignmentMetadataValue, v).value
      return {
        type: 'streams-target-epoch',
        group,
        value: { assignmentEpoch: t.assignmentEpoch, assignedAtMs: Number(t.assignmentTimestamp) },
      }
    }
    case 21: {
      const { groupId: group, memberId } = decodeData(StreamsGroupTargetAssignmentMemberKey, k).value
      if (!v) return { type: 'streams-target', group, memberId, value: null }
      const t = decodeData(StreamsGroupTargetAssignmentMemberValue, v).value
      return { type: 'streams-target', group, memberId, value: { active: tasksOf(t.activeTasks), standby: tasksOf(t.standbyTasks) } }
    }
    case 22: {
      const { groupId: group, memberId } = decodeData(StreamsGroupCurrentMemberAssignmentKey, k).value
      if (!v) return { type: 'streams-current', group, memberId, value: null }
      const c = decodeData(StreamsGroupCurrentMemberAssignmentValue, v).value
      return {
        type: 'streams-current',
        group,
        memberId,
        value: {
          memberEpoch: c.memberEpoch,
          previousMemberEpoch: c.previousMemberEpoch,
          state: STATES.get(c.state) ?? 'stable',
          active: tasksOf(c.activeTasks, c.memberEpoch),
          standby: tasksOf(c.standbyTasks),
          revokeActive: tasksOf(c.activeTasksPendingRevocation, c.memberEpoch),
          revokeStandby: tasksOf(c.standbyTasksPendingRevocation),
        },
      }
    }
    case 23: {
      const { groupId: group } = decodeData(StreamsGroupTopologyKey, k).value
      if (!v) return { type: 'streams-topology', group, value: null }
      const t = decodeData(StreamsGroupTopologyValue, v).value
      const info = (i: {
        name: string
        partitions: number
        replicationFactor: number
        topicConfigs: Array<{ key: string; value: string }>
      }) => ({
        name: i.name,
        partitions: i.partitions,
        replicationFactor: i.replicationFactor,
        topicConfigs: i.topicConfigs.map(({ key, value }) => ({ key, value })),
      })
      return {
        type: 'streams-topology',
        group,
        value: {
          epoch: t.epoch,
          subtopologies: t.subtopologies.map((s) => ({
            subtopologyId: s.subtopologyId,
            sourceTopics: s.sourceTopics,
            sourceTopicRegex: s.sourceTopicRegex,
            stateChangelogTopics: s.stateChangelogTopics.map(info),
            repartitionSinkTopics: s.repartitionSinkTopics,
            repartitionSourceTopics: s.repartitionSourceTopics.map(info),
            copartitionGroups: s.copartitionGroups.map(({ sourceTopics, sourceTopicRegex, repartitionSourceTopics }) => ({
              sourceTopics,
              sourceTopicRegex,
              repartitionSourceTopics,
            })),
          })),
        },
      }
    }
    default:
      return undefined
  }
}

/** A streams group as its records read back so far (each part replaced by its latest record). */
export interface StreamsGroupImage {
  group: GroupValue | null
  topology: StreamsTopology | null
  target: { assignmentEpoch: number; assignedAtMs: number } | null
  members: Map<string, StreamsMemberMetadata>
  currents: Map<string, StreamsMemberCurrent>
  targets: Map<string, StreamsTargetSnapshot>
}

export function applyStreamsRecord(images: Map<string, StreamsGroupImage>, r: StreamsGroupRecord): void {
  let g = images.get(r.group)
  if (!g)
    images.set(r.group, (g = { group: null, topology: null, target: null, members: new Map(), currents: new Map(), targets: new Map() }))
  const put = <T>(m: Map<string, T>, id: string, v: T | null) => (v === null ? m.delete(id) : m.set(id, v))
  switch (r.type) {
    case 'streams-group':
      g.group = r.value
      break
    case 'streams-topology':
      g.topology = r.value
      break
    case 'streams-target-epoch':
      g.target = r.value
      break
    case 'streams-member':
      put(g.members, r.memberId, r.value)
      break
    case 'streams-target':
      put(g.targets, r.memberId, r.value)
      break
    case 'streams-current':
      put(g.currents, r.memberId, r.value)
      break
  }
}

/** The group an image describes (its members: those with a metadata record), or null for a deleted group. */
export function streamsImageSnapshot(g: StreamsGroupImage): StreamsGroupSnapshot | null {
  if (g.group === null) return null
  const members: StreamsMemberSnapshot[] = []
  for (const [memberId, meta] of g.members) {
    const c = g.currents.get(memberId)
    members.push({
      memberId,
      ...meta,
      memberEpoch: c?.memberEpoch ?? 0,
      previousMemberEpoch: c?.previousMemberEpoch ?? 0,
      state: c?.state ?? 'stable',
      active: c?.active ?? [],
      standby: c?.standby ?? [],
      revokeActive: c?.revokeActive ?? [],
      revokeStandby: c?.revokeStandby ?? [],
      target: g.targets.get(memberId) ?? { active: [], standby: [] },
    })
  }
  return {
    ...g.group,
    assignmentEpoch: g.target?.assignmentEpoch ?? g.group.groupEpoch,
    assignedAtMs: g.target?.assignedAtMs ?? 0,
    topology: g.topology,
    members,
  }
}
