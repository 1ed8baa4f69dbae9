import type { Buffer } from 'node:buffer'
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMemberMetadataValue,
  ConsumerGroupMetadataKey,
  ConsumerGroupMetadataValue,
  ConsumerGroupPartitionMetadataKey,
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMemberValue,
  ConsumerGroupTargetAssignmentMetadataKey,
  ConsumerGroupTargetAssignmentMetadataValue,
  decodeData,
  encodeData,
} from '../../protocol/messages/index.js'
import type {
  ConsumerGroupSnapshot,
  ConsumerMemberSnapshot,
  MemberState,
  TopicPartitionEpochs,
  TopicPartitionsIn,
} from './consumer-group.js'

/** A record of __consumer_offsets: a key, and a value (null: a tombstone); group-records.ts's GroupRecordBytes, which imports this module. */
interface RecordBytes {
  key: Buffer
  value: Buffer | null
}

/** What a member's ConsumerGroupMemberMetadata record holds: its subscription. */
type Subscription = Pick<
  ConsumerMemberSnapshot,
  | 'instanceId'
  | 'rackId'
  | 'clientId'
  | 'clientHost'
  | 'subscribedTopicNames'
  | 'subscribedTopicRegex'
  | 'rebalanceTimeoutMs'
  | 'serverAssignor'
>
/** What a member's ConsumerGroupCurrentMemberAssignment record holds: where it is. */
type Current = Pick<ConsumerMemberSnapshot, 'memberEpoch' | 'previousMemberEpoch' | 'state' | 'assigned' | 'pendingRevocation'>

/** A consumer group's record of __consumer_offsets (Kafka's record types 3 and 5 to 8), decoded; a null value is a tombstone. */
export type ConsumerGroupRecord =
  | { type: 'consumer-group'; group: string; epoch: number | null }
  | { type: 'consumer-member'; group: string; memberId: string; value: Subscription | null }
  | { type: 'consumer-target-epoch'; group: string; value: { assignmentEpoch: number; assignedAtMs: number } | null }
  | { type: 'consumer-target'; group: string; memberId: string; partitions: TopicPartitionsIn[] | null }
  | { type: 'consumer-current'; group: string; memberId: string; value: Current | null }

const CONSUMER_TYPES = new Set(['consumer-group', 'consumer-member', 'consumer-target-epoch', 'consumer-target', 'consumer-current'])

/** Whether a record read back is a consumer group's. */
export function isConsumerRecord(r: { type: string }): r is ConsumerGroupRecord {
  return CONSUMER_TYPES.has(r.type)
}

/** Kafka's MemberState values (the byte its records carry). */
const STATE_BYTES: Record<MemberState, number> = { stable: 0, unrevoked: 1, unreleased: 2 }
const STATES = new Map(Object.entries(STATE_BYTES).map(([k, v]) => [v, k as MemberState]))

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

function subscription(m: Subscription): Subscription {
  const { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor } = m
  return { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor }
}

function current(m: ConsumerMemberSnapshot): Current {
  const { memberEpoch, previousMemberEpoch, state, assigned, pendingRevocation } = m
  return { memberEpoch, previousMemberEpoch, state, assigned, pendingRevocation }
}

/**
 * The records that take a consumer group from `prev` to `next`, in the
 * order Kafka 4.4's coordinator writes them: a removed member's current
 * assignment, target assignment and subscription tombstoned, members'
 * changed subscriptions, the group epoch, the changed target assignments
 * then the assignment's epoch, the members' changed current assignments.
 * `next` null: the deleted group's tombstones (with its subscription
 * metadata's, type 4, as Kafka writes it still). The group's metadata hash
 * is written 0: the embedded broker does not compute Kafka's hash of the
 * subscribed topics.
 */
export function consumerGroupRecords(group: string, prev: ConsumerGroupSnapshot | null, next: ConsumerGroupSnapshot | null): RecordBytes[] {
  const before = new Map((prev?.members ?? []).map((m) => [m.memberId, m]))
  const after = new Map((next?.members ?? []).map((m) => [m.memberId, m]))
  const out: RecordBytes[] = []
  const groupKey = { groupId: group }
  const currentKey = (memberId: string) => encodeData(ConsumerGroupCurrentMemberAssignmentKey, 8, { groupId: group, memberId })
  const targetKey = (memberId: string) => encodeData(ConsumerGroupTargetAssignmentMemberKey, 7, { groupId: group, memberId })
  const memberKey = (memberId: string) => encodeData(ConsumerGroupMemberMetadataKey, 5, { groupId: group, memberId })
  if (next === null) {
    for (const id of before.keys()) out.push({ key: currentKey(id), value: null })
    for (const id of before.keys()) out.push({ key: targetKey(id), value: null })
    out.push({ key: encodeData(ConsumerGroupTargetAssignmentMetadataKey, 6, groupKey), value: null })
    for (const id of before.keys()) out.push({ key: memberKey(id), value: null })
    out.push({ key: encodeData(ConsumerGroupPartitionMetadataKey, 4, groupKey), value: null })
    out.push({ key: encodeData(ConsumerGroupMetadataKey, 3, groupKey), value: null })
    return out
  }
  for (const id of before.keys())
    if (!after.has(id))
      out.push({ key: currentKey(id), value: null }, { key: targetKey(id), value: null }, { key: memberKey(id), value: null })
  for (const [id, m] of after) {
    const was = before.get(id)
    const sub = subscription(m)
    if (!was || !same(sub, subscription(was)))
      out.push({
        key: memberKey(id),
        // No regex is an empty string in Kafka's record.
        value: encodeData(ConsumerGroupMemberMetadataValue, 0, {
          ...sub,
          subscribedTopicRegex: sub.subscribedTopicRegex ?? '',
          classicMemberMetadata: null,
        }),
      })
  }
  if (prev?.groupEpoch !== next.groupEpoch)
    out.push({
      key: encodeData(ConsumerGroupMetadataKey, 3, groupKey),
      value: encodeData(ConsumerGroupMetadataValue, 0, { epoch: next.groupEpoch, metadataHash: 0n }),
    })
  // A member's target is written when an assignment gives it one (a member joining between two assignments has none yet).
  for (const [id, m] of after)
    if (!same(before.get(id)?.target ?? [], m.target))
      out.push({ key: targetKey(id), value: encodeData(ConsumerGroupTargetAssignmentMemberValue, 0, { topicPartitions: m.target }) })
  if (prev?.assignmentEpoch !== next.assignmentEpoch || prev?.assignedAtMs !== next.assignedAtMs)
    out.push({
      key: encodeData(ConsumerGroupTargetAssignmentMetadataKey, 6, groupKey),
      value: encodeData(ConsumerGroupTargetAssignmentMetadataValue, 0, {
        assignmentEpoch: next.assignmentEpoch,
        assignmentTimestamp: BigInt(next.assignedAtMs),
      }),
    })
  for (const [id, m] of after) {
    const was = before.get(id)
    if (was && same(current(was), current(m))) continue
    out.push({
      key: currentKey(id),
      value: encodeData(ConsumerGroupCurrentMemberAssignmentValue, 0, {
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: STATE_BYTES[m.state],
        assignedPartitions: m.assigned,
        partitionsPendingRevocation: m.pendingRevocation,
      }),
    })
  }
  return out
}

/** Partitions as a record holds them, each with its assignment epoch (that of the member's record when Kafka wrote none). */
function epochs(tps: ReadonlyArray<{ topicId: string; partitions: number[]; assignmentEpochs: number[] | null }>, memberEpoch: number) {
  return tps.map((t): TopicPartitionEpochs => ({
    topicId: t.topicId,
    partitions: t.partitions,
    assignmentEpochs: t.partitions.map((_, i) => t.assignmentEpochs?.[i] ?? memberEpoch),
  }))
}

/** Decodes a consumer group's record (`recordType` 3 or 5 to 8); undefined for another type (4, the subscription metadata Kafka 4.1 retired, included). */
export function readConsumerGroupRecord(recordType: number, k: Buffer, v: Buffer | null): ConsumerGroupRecord | undefined {
  switch (recordType) {
    case 3: {
      const { groupId: group } = decodeData(ConsumerGroupMetadataKey, k).value
      return { type: 'consumer-group', group, epoch: v ? decodeData(ConsumerGroupMetadataValue, v).value.epoch : null }
    }
    case 5: {
      const { groupId: group, memberId } = decodeData(ConsumerGroupMemberMetadataKey, k).value
      if (!v) return { type: 'consumer-member', group, memberId, value: null }
      const m = decodeData(ConsumerGroupMemberMetadataValue, v).value
      return {
        type: 'consumer-member',
        group,
        memberId,
        value: subscription({ ...m, subscribedTopicRegex: m.subscribedTopicRegex || null }),
      }
    }
    case 6: {
      const { groupId: group } = decodeData(ConsumerGroupTargetAssignmentMetadataKey, k).value
      if (!v) return { type: 'consumer-target-epoch', group, value: null }
      const t = decodeData(ConsumerGroupTargetAssignmentMetadataValue, v).value
      return {
        type: 'consumer-target-epoch',
        group,
        value: { assignmentEpoch: t.assignmentEpoch, assignedAtMs: Number(t.assignmentTimestamp) },
      }
    }
    case 7: {
      const { groupId: group, memberId } = decodeData(ConsumerGroupTargetAssignmentMemberKey, k).value
      const partitions = v
        ? decodeData(ConsumerGroupTargetAssignmentMemberValue, v).value.topicPartitions.map(({ topicId, partitions }) => ({
            topicId,
            partitions,
          }))
        : null
      return { type: 'consumer-target', group, memberId, partitions }
    }
    case 8: {
      const { groupId: group, memberId } = decodeData(ConsumerGroupCurrentMemberAssignmentKey, k).value
      if (!v) return { type: 'consumer-current', group, memberId, value: null }
      const c = decodeData(ConsumerGroupCurrentMemberAssignmentValue, v).value
      const value: Current = {
        memberEpoch: c.memberEpoch,
        previousMemberEpoch: c.previousMemberEpoch,
        state: STATES.get(c.state) ?? 'stable',
        assigned: epochs(c.assignedPartitions, c.memberEpoch),
        pendingRevocation: epochs(c.partitionsPendingRevocation, c.memberEpoch),
      }
      return { type: 'consumer-current', group, memberId, value }
    }
    default:
      return undefined
  }
}

/** A consumer group as its records read back so far (each part replaced by its latest record). */
export interface ConsumerGroupImage {
  epoch: number | null
  target: { assignmentEpoch: number; assignedAtMs: number } | null
  subscriptions: Map<string, Subscription>
  currents: Map<string, Current>
  targets: Map<string, TopicPartitionsIn[]>
}

/** Applies one consumer group record to the images of the groups read back. */
export function applyConsumerRecord(images: Map<string, ConsumerGroupImage>, r: ConsumerGroupRecord): void {
  let g = images.get(r.group)
  if (!g) images.set(r.group, (g = { epoch: null, target: null, subscriptions: new Map(), currents: new Map(), targets: new Map() }))
  const put = <T>(m: Map<string, T>, id: string, v: T | null) => (v === null ? m.delete(id) : m.set(id, v))
  switch (r.type) {
    case 'consumer-group':
      g.epoch = r.epoch
      break
    case 'consumer-target-epoch':
      g.target = r.value
      break
    case 'consumer-member':
      put(g.subscriptions, r.memberId, r.value)
      break
    case 'consumer-target':
      put(g.targets, r.memberId, r.partitions)
      break
    case 'consumer-current':
      put(g.currents, r.memberId, r.value)
      break
  }
}

/** The group an image describes (its members: those with a subscription record), or null for a deleted group. */
export function consumerImageSnapshot(g: ConsumerGroupImage): ConsumerGroupSnapshot | null {
  if (g.epoch === null) return null
  const members: ConsumerMemberSnapshot[] = []
  for (const [memberId, sub] of g.subscriptions) {
    const c = g.currents.get(memberId)
    members.push({
      memberId,
      ...sub,
      memberEpoch: c?.memberEpoch ?? 0,
      previousMemberEpoch: c?.previousMemberEpoch ?? 0,
      state: c?.state ?? 'stable',
      assigned: c?.assigned ?? [],
      pendingRevocation: c?.pendingRevocation ?? [],
      target: g.targets.get(memberId) ?? [],
    })
  }
  return {
    groupEpoch: g.epoch,
    assignmentEpoch: g.target?.assignmentEpoch ?? 0,
    assignedAtMs: g.target?.assignedAtMs ?? 0,
    members,
  }
}
