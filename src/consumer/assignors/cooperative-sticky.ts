import type { Buffer } from 'node:buffer'
import type { AssignContext, MemberAssignment, PartitionAssignor, TopicPartitions } from './assignor.js'
import { LoadBuckets } from './load-buckets.js'
import { encodeGenerationUserData, ownershipKey, previousOwners } from './previous-owners.js'
import { dealUnowned, Holdings, rebalance } from './sticky-balance.js'
import { AssignmentBuilder, assignableTopics, compareStrings, topicsToAssign } from './shared.js'

/**
 * Java's CooperativeStickyAssignor (KIP-429, on the sticky assignor of KIP-54/KIP-341):
 *
 * - balanced: members with the same subscription hold counts that differ by
 *   at most one; in general no partition could move to a member subscribed
 *   to its topic that holds two or more fewer;
 * - sticky: members keep what they owned (ownedPartitions, the newest
 *   generation winning a dispute) as far as balance allows;
 * - cooperative: a partition taken from one member for another is left out
 *   of this round entirely. Its owner sees it missing, revokes it and
 *   rejoins; the follow-up rebalance, where nobody claims it, hands it over.
 *
 * Steps: keep every valid owned partition; deal the rest to the lightest
 * subscribed member, the topics with fewest subscribers first; then move
 * partitions from heavy members to light ones (newly dealt ones before owned
 * ones) until no move helps; finally drop what changes owner.
 * With equal subscriptions that is O(P log M) for P partitions, M members.
 */
export const cooperativeStickyAssignor: PartitionAssignor = {
  name: 'cooperative-sticky',
  rebalanceProtocol: 'cooperative',

  // What Java sends (the generation of its last assignment), so Java members
  // older than ConsumerProtocol v2 can read our generation too.
  subscriptionUserData({ generationId }: { owned: TopicPartitions[]; generationId: number }): Buffer {
    return encodeGenerationUserData(generationId)
  },

  assign({ members: unordered, partitionCounts }: AssignContext): Map<string, MemberAssignment> {
    const members = [...unordered].sort((a, b) => compareStrings(a.memberId, b.memberId))
    const subscriptions = members.map((m) => assignableTopics(m, partitionCounts))
    const { owner, claims, claimed } = previousOwners(members, subscriptions, partitionCounts)
    const holdings = members.map(() => new Holdings())

    const unowned = new Map<string, number[]>()
    for (const topic of topicsToAssign(subscriptions)) {
      const free: number[] = []
      for (let partition = 0; partition < partitionCounts.get(topic)!; partition++) {
        const kept = owner.get(ownershipKey(topic, partition))
        if (kept === undefined) free.push(partition)
        else holdings[kept].keep(topic, partition)
      }
      unowned.set(topic, free)
    }

    const loads = new LoadBuckets(holdings.map((h) => h.size))
    dealUnowned(unowned, subscriptions, holdings, loads)
    rebalance(subscriptions, holdings, loads)

    const result = new AssignmentBuilder(members.map((m) => m.memberId))
    holdings.forEach((holding, index) => {
      const memberId = members[index].memberId
      for (const [topic, partitions] of holding.owned) for (const p of partitions) result.add(memberId, topic, p)
      for (const [topic, partitions] of holding.added) {
        for (const p of partitions) {
          // The cooperative rule: someone else still owns it, so it waits for the next round.
          const key = ownershipKey(topic, p)
          if (claimed.has(key) && !claims[index].has(key)) continue
          result.add(memberId, topic, p)
        }
      }
    })
    return result.build()
  },
}
