import type { AssignContext, MemberAssignment, PartitionAssignor } from './assignor.js'
import { AssignmentBuilder, assignableTopics, compareMembers, topicsToAssign } from './shared.js'

/**
 * Java's RoundRobinAssignor: every partition, sorted by topic then number,
 * dealt in turn to the members in member order (static members by
 * group.instance.id first), skipping a member not subscribed to the topic.
 * One cursor runs over all topics, so with equal subscriptions the counts
 * differ by at most one; with unequal ones the result can be lopsided, as in Java.
 *
 * Two members, t0 and t1 with 3 partitions each: C0 [t0p0, t0p2, t1p1], C1 [t0p1, t1p0, t1p2].
 */
export const roundRobinAssignor: PartitionAssignor = {
  name: 'roundrobin',
  rebalanceProtocol: 'eager',

  assign({ members, partitionCounts }: AssignContext): Map<string, MemberAssignment> {
    const result = new AssignmentBuilder(members.map((m) => m.memberId))
    const ordered = [...members].sort(compareMembers)
    const subscriptions = ordered.map((m) => assignableTopics(m, partitionCounts))
    let cursor = 0
    for (const topic of topicsToAssign(subscriptions)) {
      const count = partitionCounts.get(topic)!
      for (let partition = 0; partition < count; partition++) {
        // Terminates: the topic came from some member's subscription.
        while (!subscriptions[cursor].has(topic)) cursor = (cursor + 1) % ordered.length
        result.add(ordered[cursor].memberId, topic, partition)
        cursor = (cursor + 1) % ordered.length
      }
    }
    return result.build()
  },
}

/**
 * The same assignment under KafkaJS's protocol name, 'RoundRobinAssigner':
 * a group of KafkaJS and wafka members agrees on it (the broker picks a name
 * every member offers), so a team can move one instance at a time. KafkaJS
 * reads the v0 prefix of the subscription and assignment we write.
 */
export const kafkaJSRoundRobinAssignor: PartitionAssignor = { ...roundRobinAssignor, name: 'RoundRobinAssigner' }
