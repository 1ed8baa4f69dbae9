import { Buffer } from 'node:buffer'
import type { MemberSubscription } from './assignor.js'

/** Java's AbstractStickyAssignor.DEFAULT_GENERATION: a member that has never been assigned anything. */
export const NO_GENERATION = -1

/**
 * The userData Java's CooperativeStickyAssignor sends: a Struct with one
 * int32 field, "generation" — four big-endian bytes. Members from before
 * ConsumerProtocolSubscription v2 carry their generation only here.
 */
export function encodeGenerationUserData(generationId: number): Buffer {
  const bytes = Buffer.alloc(4)
  bytes.writeInt32BE(generationId)
  return bytes
}

/**
 * The generation a member's ownedPartitions date from: the v2+ field when
 * set, else the int32 at the start of its userData, else NO_GENERATION (as
 * Java does, also for userData too short to hold one).
 */
export function ownedGeneration(member: MemberSubscription): number {
  if (member.generationId >= 0) return member.generationId
  const data = member.userData
  return data !== null && data.length >= 4 ? data.readInt32BE(0) : NO_GENERATION
}

/** One string per topic-partition; the number comes first, so no topic name can make two keys collide. */
export function ownershipKey(topic: string, partition: number): string {
  return `${partition}:${topic}`
}

export interface PreviousOwners {
  /** Partition -> index of the member that keeps its claim to it. Absent when no valid claim, or a tie. */
  owner: Map<string, number>
  /** Per member: every partition it said it owns, valid or not (it revokes those it is not given). */
  claims: Array<Set<string>>
  /** Every partition some member said it owns. */
  claimed: Set<string>
}

/**
 * Who owned what before this rebalance. A claim counts when the member still
 * subscribes to the topic and the partition exists. When members claim the
 * same partition, the one with the newest generation keeps it (the others
 * are stale: they missed a rebalance); claims tied on generation cancel out
 * and the partition is treated as unowned, as in Java.
 */
export function previousOwners(
  members: readonly MemberSubscription[],
  subscriptions: ReadonlyArray<ReadonlySet<string>>,
  partitionCounts: ReadonlyMap<string, number>,
): PreviousOwners {
  const best = new Map<string, { member: number; generation: number }>()
  const claims = members.map(() => new Set<string>())
  const claimed = new Set<string>()
  members.forEach((member, index) => {
    const generation = ownedGeneration(member)
    for (const { topic, partitions } of member.ownedPartitions) {
      const count = partitionCounts.get(topic) ?? 0
      const subscribed = subscriptions[index].has(topic)
      for (const partition of partitions) {
        const key = ownershipKey(topic, partition)
        claims[index].add(key)
        claimed.add(key)
        if (!subscribed || !Number.isInteger(partition) || partition < 0 || partition >= count) continue
        const current = best.get(key)
        if (current === undefined || generation > current.generation) best.set(key, { member: index, generation })
        else if (generation === current.generation && current.member !== index) current.member = -1
      }
    }
  })
  const owner = new Map<string, number>()
  for (const [key, { member }] of best) if (member >= 0) owner.set(key, member)
  return { owner, claims, claimed }
}
