import type { Buffer } from 'node:buffer'
import {
  decodeData,
  encodeData,
  ShareGroupCurrentMemberAssignmentKey,
  ShareGroupCurrentMemberAssignmentValue,
  ShareGroupMemberMetadataKey,
  ShareGroupMemberMetadataValue,
  ShareGroupMetadataKey,
  ShareGroupMetadataValue,
  ShareGroupStatePartitionMetadataKey,
  ShareGroupTargetAssignmentMemberKey,
  ShareGroupTargetAssignmentMemberValue,
  ShareGroupTargetAssignmentMetadataKey,
  ShareGroupTargetAssignmentMetadataValue,
} from '../../protocol/messages/index.js'
import type { ShareGroupSnapshot } from './share-group.js'

/** A record of __consumer_offsets: a key, and a value (null: a tombstone); group-records.ts's GroupRecordBytes, which imports this module. */
interface RecordBytes {
  key: Buffer
  value: Buffer | null
}

type Partitions = Array<[string, number[]]>
type Member = ShareGroupSnapshot['members'][number]

/** A share group's record of __consumer_offsets (Kafka's record types 10 to 14), decoded; a null value is a tombstone. */
export type ShareGroupRecord =
  | {
      type: 'share-member'
      group: string
      memberId: string
      value: Pick<Member, 'rackId' | 'clientId' | 'clientHost' | 'subscribedTopicNames'> | null
    }
  | { type: 'share-group'; group: string; epoch: number | null }
  | { type: 'share-target-epoch'; group: string; assignmentEpoch: number | null }
  | { type: 'share-target'; group: string; memberId: string; partitions: Partitions | null }
  | { type: 'share-current'; group: string; memberId: string; value: { memberEpoch: number; assigned: Partitions } | null }

const SHARE_TYPES = new Set(['share-member', 'share-group', 'share-target-epoch', 'share-target', 'share-current'])

/** Whether a record read back is a share group's. */
export function isShareRecord(r: { type: string }): r is ShareGroupRecord {
  return SHARE_TYPES.has(r.type)
}

/** Kafka's MemberState.STABLE: a share member has nothing to revoke first, so it is always stable. */
const STABLE = 0

const topicPartitions = (p: Partitions) => p.map(([topicId, partitions]) => ({ topicId, partitions }))
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The records that take a share group from `prev` to `next`, in the order
 * Kafka 4.4's coordinator writes them: members' subscriptions (a removed
 * member's current assignment, target assignment and subscription
 * tombstoned), the group epoch, the target assignment then its epoch, the
 * members' current assignments. `next` null: the deleted group's
 * tombstones. The group's metadata hash is written 0: the embedded broker
 * does not compute Kafka's hash of the subscribed topics.
 */
export function shareGroupRecords(
  group: string,
  prev: ShareGroupSnapshot | null,
  next: ShareGroupSnapshot | null,
  now: number,
): RecordBytes[] {
  const before = new Map((prev?.members ?? []).map((m) => [m.memberId, m]))
  const after = new Map((next?.members ?? []).map((m) => [m.memberId, m]))
  const out: RecordBytes[] = []
  const groupKey = { groupId: group }
  const current = (memberId: string) => encodeData(ShareGroupCurrentMemberAssignmentKey, 14, { groupId: group, memberId })
  const target = (memberId: string) => encodeData(ShareGroupTargetAssignmentMemberKey, 13, { groupId: group, memberId })
  const subscription = (memberId: string) => encodeData(ShareGroupMemberMetadataKey, 10, { groupId: group, memberId })
  if (next === null) {
    for (const id of before.keys()) out.push({ key: current(id), value: null })
    for (const id of before.keys()) out.push({ key: target(id), value: null })
    out.push({ key: encodeData(ShareGroupTargetAssignmentMetadataKey, 12, groupKey), value: null })
    for (const id of before.keys()) out.push({ key: subscription(id), value: null })
    out.push({ key: encodeData(ShareGroupStatePartitionMetadataKey, 15, groupKey), value: null })
    out.push({ key: encodeData(ShareGroupMetadataKey, 11, groupKey), value: null })
    return out
  }
  for (const id of before.keys())
    if (!after.has(id))
      out.push({ key: current(id), value: null }, { key: target(id), value: null }, { key: subscription(id), value: null })
  for (const [id, m] of after) {
    const was = before.get(id)
    const meta = { rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, subscribedTopicNames: m.subscribedTopicNames }
    if (
      !was ||
      !same(meta, {
        rackId: was.rackId,
        clientId: was.clientId,
        clientHost: was.clientHost,
        subscribedTopicNames: was.subscribedTopicNames,
      })
    )
      out.push({ key: subscription(id), value: encodeData(ShareGroupMemberMetadataValue, 0, meta) })
  }
  if (prev?.groupEpoch !== next.groupEpoch)
    out.push({
      key: encodeData(ShareGroupMetadataKey, 11, groupKey),
      value: encodeData(ShareGroupMetadataValue, 0, { epoch: next.groupEpoch, metadataHash: 0n }),
    })
  for (const [id, m] of after)
    if (!same(before.get(id)?.target, m.target))
      out.push({
        key: target(id),
        value: encodeData(ShareGroupTargetAssignmentMemberValue, 0, { topicPartitions: topicPartitions(m.target) }),
      })
  if (prev?.assignmentEpoch !== next.assignmentEpoch)
    out.push({
      key: encodeData(ShareGroupTargetAssignmentMetadataKey, 12, groupKey),
      value: encodeData(ShareGroupTargetAssignmentMetadataValue, 0, {
        assignmentEpoch: next.assignmentEpoch,
        assignmentTimestamp: BigInt(now),
      }),
    })
  for (const [id, m] of after) {
    const was = before.get(id)
    if (was && was.memberEpoch === m.memberEpoch && same(was.assigned, m.assigned)) continue
    out.push({
      key: current(id),
      value: encodeData(ShareGroupCurrentMemberAssignmentValue, 0, {
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: was?.memberEpoch ?? 0,
        state: STABLE,
        assignedPartitions: topicPartitions(m.assigned),
      }),
    })
  }
  return out
}

const pairs = (tps: ReadonlyArray<{ topicId: string; partitions: number[] }>): Partitions => tps.map((t) => [t.topicId, t.partitions])

/** Decodes a share group's record (`recordType` 10 to 14); undefined for another type. */
export function readShareGroupRecord(recordType: number, k: Buffer, v: Buffer | null): ShareGroupRecord | undefined {
  switch (recordType) {
    case 10: {
      const { groupId: group, memberId } = decodeData(ShareGroupMemberMetadataKey, k).value
      if (!v) return { type: 'share-member', group, memberId, value: null }
      const { rackId, clientId, clientHost, subscribedTopicNames } = decodeData(ShareGroupMemberMetadataValue, v).value
      return { type: 'share-member', group, memberId, value: { rackId, clientId, clientHost, subscribedTopicNames } }
    }
    case 11: {
      const { groupId: group } = decodeData(ShareGroupMetadataKey, k).value
      return { type: 'share-group', group, epoch: v ? decodeData(ShareGroupMetadataValue, v).value.epoch : null }
    }
    case 12: {
      const { groupId: group } = decodeData(ShareGroupTargetAssignmentMetadataKey, k).value
      const assignmentEpoch = v ? decodeData(ShareGroupTargetAssignmentMetadataValue, v).value.assignmentEpoch : null
      return { type: 'share-target-epoch', group, assignmentEpoch }
    }
    case 13: {
      const { groupId: group, memberId } = decodeData(ShareGroupTargetAssignmentMemberKey, k).value
      const partitions = v ? pairs(decodeData(ShareGroupTargetAssignmentMemberValue, v).value.topicPartitions) : null
      return { type: 'share-target', group, memberId, partitions }
    }
    case 14: {
      const { groupId: group, memberId } = decodeData(ShareGroupCurrentMemberAssignmentKey, k).value
      if (!v) return { type: 'share-current', group, memberId, value: null }
      const c = decodeData(ShareGroupCurrentMemberAssignmentValue, v).value
      return { type: 'share-current', group, memberId, value: { memberEpoch: c.memberEpoch, assigned: pairs(c.assignedPartitions) } }
    }
    default:
      return undefined
  }
}

/** A share group as its records read back so far (each part replaced by its latest record). */
export interface ShareGroupImage {
  epoch: number | null
  assignmentEpoch: number
  members: Map<string, Partial<Member>>
  targets: Map<string, Partitions>
}

/** Applies one share record to the images of the groups read back. */
export function applyShareRecord(images: Map<string, ShareGroupImage>, r: ShareGroupRecord): void {
  let g = images.get(r.group)
  if (!g) images.set(r.group, (g = { epoch: null, assignmentEpoch: 0, members: new Map(), targets: new Map() }))
  const member = (id: string) => {
    let m = g.members.get(id)
    if (!m) g.members.set(id, (m = { memberId: id }))
    return m
  }
  switch (r.type) {
    case 'share-group':
      g.epoch = r.epoch
      break
    case 'share-target-epoch':
      g.assignmentEpoch = r.assignmentEpoch ?? 0
      break
    case 'share-target':
      if (r.partitions) g.targets.set(r.memberId, r.partitions)
      else g.targets.delete(r.memberId)
      break
    case 'share-member':
      if (r.value) Object.assign(member(r.memberId), r.value)
      else g.members.delete(r.memberId)
      break
    case 'share-current':
      if (r.value) Object.assign(member(r.memberId), r.value)
      else if (g.members.has(r.memberId)) Object.assign(member(r.memberId), { memberEpoch: undefined, assigned: undefined })
      break
  }
}

/** The group an image describes (members with a subscription record), or null for a deleted group. */
export function imageSnapshot(g: ShareGroupImage): ShareGroupSnapshot | null {
  if (g.epoch === null) return null
  const members: Member[] = []
  for (const [memberId, m] of g.members) {
    if (m.clientId === undefined || m.subscribedTopicNames === undefined) continue
    members.push({
      memberId,
      memberEpoch: m.memberEpoch ?? 0,
      rackId: m.rackId ?? null,
      clientId: m.clientId,
      clientHost: m.clientHost ?? '',
      subscribedTopicNames: m.subscribedTopicNames,
      assigned: m.assigned ?? [],
      target: g.targets.get(memberId) ?? [],
    })
  }
  return { groupEpoch: g.epoch, assignmentEpoch: g.assignmentEpoch, members }
}
