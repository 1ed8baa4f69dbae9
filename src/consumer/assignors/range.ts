import type { AssignContext, MemberAssignment, MemberSubscription, PartitionAssignor } from './assignor.js'
import { AssignmentBuilder, assignableTopics, compareMembers } from './shared.js'

/**
 * Java's RangeAssignor: topic by topic, the members subscribed to it in
 * member order (static members by group.instance.id first), each given a
 * contiguous range of partitions; the first (count % members) get one more.
 * Topics with the same partition count and subscribers are co-partitioned:
 * partition i of each lands on the same member.
 *
 * Two members, t0 and t1 with 3 partitions each: C0 [t0p0, t0p1, t1p0, t1p1], C1 [t0p2, t1p2].
 */
export const rangeAssignor: PartitionAssignor = {
  name: 'range',
  rebalanceProtocol: 'eager',

  assign({ members, partitionCounts }: AssignContext): Map<string, MemberAssignment> {
    const result = new AssignmentBuilder(members.map((m) => m.memberId))
    const subscribers = new Map<string, MemberSubscription[]>()
    for (const member of members) {
      for (const topic of assignableTopics(member, partitionCounts)) {
        let list = subscribers.get(topic)
        if (list === undefined) subscribers.set(topic, (list = []))
        list.push(member)
      }
    }
    for (const [topic, list] of subscribers) {
      list.sort(compareMembers)
      const count = partitionCounts.get(topic)!
      const base = Math.floor(count / list.length)
      const extra = count % list.length
      let next = 0
      list.forEach((member, i) => {
        const size = base + (i < extra ? 1 : 0)
        result.addRange(member.memberId, topic, next, next + size)
        next += size
      })
    }
    return result.build()
  },
}
