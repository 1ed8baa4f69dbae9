import type { Assignment, AssignorInput } from './assignors.js'

/**
 * The share groups' assignor, after Kafka's SimpleAssignor: a partition
 * may go to several members (they share its records), so every subscribing
 * member gets partitions of each topic it subscribes to. With at least as
 * many members as partitions, each member gets one partition (partitions
 * taken round and round, so several members share each); with more
 * partitions than members, each partition goes to one member, spread evenly.
 */
export function assignShares(input: AssignorInput): Map<string, Assignment> {
  const out = new Map<string, Assignment>(input.members.map((m) => [m.memberId, new Map()]))
  for (const [topicId, count] of input.partitions) {
    const subscribers = input.members.filter((m) => m.topics.has(topicId))
    if (subscribers.length === 0 || count === 0) continue
    const give = (memberId: string, partition: number) => {
      const a = out.get(memberId)!
      let s = a.get(topicId)
      if (!s) a.set(topicId, (s = new Set()))
      s.add(partition)
    }
    if (subscribers.length >= count) subscribers.forEach((m, i) => give(m.memberId, i % count))
    else for (let p = 0; p < count; p++) give(subscribers[p % subscribers.length].memberId, p)
  }
  return out
}
