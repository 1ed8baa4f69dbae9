import { Buffer } from 'node:buffer'
import { ProtocolError } from '../../errors.js'
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription, decodeData, encodeData } from '../../protocol/messages/index.js'
import type { MemberAssignment, MemberSubscription, PartitionAssignor, TopicPartitions } from './assignor.js'
import { compareStrings } from './shared.js'

/**
 * The versions written, as the Java client 3.x writes them for every assignor
 * (eager ones included): subscription v3 (owned partitions, generation, rack),
 * assignment v3 (same layout as v0). Readers of older versions are fine:
 * Java and librdkafka read any newer version as the newest they know (later
 * versions only append fields), KafkaJS reads only the v0 prefix.
 */
export const SUBSCRIPTION_VERSION = 3
export const ASSIGNMENT_VERSION = 3

export interface OwnSubscription {
  /** The topics this member subscribes to. */
  topics: readonly string[]
  /** What it owns now: for an eager assignor nothing (it revoked everything before rejoining, as Java does). */
  owned: readonly TopicPartitions[]
  /** The generation of the member's last assignment, -1 before the first. */
  generationId: number
  /** client.rack; null or '' for none. */
  rackId?: string | null
}

/** JoinGroup protocol metadata for one assignor this member offers. */
export function encodeSubscription(assignor: PartitionAssignor, state: OwnSubscription): Buffer {
  const owned = state.owned.map((tp) => ({ topic: tp.topic, partitions: tp.partitions }))
  return encodeData(ConsumerProtocolSubscription, SUBSCRIPTION_VERSION, {
    // Sorted, as Java writes them, so the bytes do not depend on insertion order.
    topics: [...new Set(state.topics)].sort(compareStrings),
    userData: assignor.subscriptionUserData?.({ owned, generationId: state.generationId }) ?? null,
    ownedPartitions: sortedPartitions(owned),
    generationId: state.generationId,
    rackId: state.rackId ? state.rackId : null,
  })
}

/**
 * A member's JoinGroup metadata, as the group leader gets it. Any version
 * 0..3 (and newer ones, read as 3); fields a version lacks take their
 * defaults (no owned partitions, generation -1, no rack).
 * Throws ProtocolError when the bytes are not a subscription.
 */
export function decodeSubscription(memberId: string, groupInstanceId: string | null, bytes: Uint8Array | null): MemberSubscription {
  if (bytes === null || bytes.length === 0) {
    throw new ProtocolError(`member ${memberId} sent no subscription metadata`)
  }
  try {
    const { value } = decodeData(ConsumerProtocolSubscription, asBuffer(bytes))
    return {
      memberId,
      groupInstanceId,
      topics: value.topics,
      userData: value.userData,
      ownedPartitions: value.ownedPartitions,
      generationId: value.generationId,
      // Java treats an empty rack as none.
      rackId: value.rackId ? value.rackId : null,
    }
  } catch (err) {
    throw rethrow(err, `the subscription of member ${memberId}`)
  }
}

/** SyncGroup assignment bytes for one member. */
export function encodeAssignment(assignment: MemberAssignment): Buffer {
  return encodeData(ConsumerProtocolAssignment, ASSIGNMENT_VERSION, {
    assignedPartitions: assignment.partitions.map((tp) => ({ topic: tp.topic, partitions: tp.partitions })),
    userData: assignment.userData ?? null,
  })
}

/**
 * This member's assignment from SyncGroup. Empty bytes mean no partitions
 * (what the coordinator sends a member the leader gave nothing).
 * Throws ProtocolError when the bytes are not an assignment.
 */
export function decodeAssignment(bytes: Uint8Array | null): MemberAssignment {
  if (bytes === null || bytes.length === 0) return { partitions: [], userData: null }
  try {
    const { value } = decodeData(ConsumerProtocolAssignment, asBuffer(bytes))
    return { partitions: value.assignedPartitions, userData: value.userData }
  } catch (err) {
    throw rethrow(err, 'the assignment')
  }
}

/** By topic, then partition; one entry per topic. */
function sortedPartitions(list: readonly TopicPartitions[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>()
  for (const { topic, partitions } of list) {
    const merged = byTopic.get(topic)
    if (merged === undefined) byTopic.set(topic, [...partitions])
    else merged.push(...partitions)
  }
  return [...byTopic.keys()]
    .sort(compareStrings)
    .map((topic) => ({ topic, partitions: [...new Set(byTopic.get(topic))].sort((a, b) => a - b) }))
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

// Decode failures say whose bytes they were; anything else is a bug and passes through.
function rethrow(err: unknown, what: string): unknown {
  return err instanceof ProtocolError ? new ProtocolError(`cannot decode ${what}: ${err.message}`, { cause: err }) : err
}
