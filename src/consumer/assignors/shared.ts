import type { MemberAssignment, MemberSubscription } from './assignor.js'

/**
 * Java's String.compareTo (UTF-16 code units), which JavaScript's `<` also
 * uses. Not localeCompare: every client in a group must sort the same way.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Java's member order (AbstractPartitionAssignor.MemberInfo): static members
 * first, by group.instance.id, so their assignment survives a restart that
 * hands out new member ids; then dynamic members by member id.
 */
export function compareMembers(a: MemberSubscription, b: MemberSubscription): number {
  const aStatic = a.groupInstanceId !== null
  const bStatic = b.groupInstanceId !== null
  if (aStatic && bStatic) return compareStrings(a.groupInstanceId!, b.groupInstanceId!)
  if (aStatic !== bStatic) return aStatic ? -1 : 1
  return compareStrings(a.memberId, b.memberId)
}

/** The member's topics that exist in metadata with at least one partition, each once. */
export function assignableTopics(member: MemberSubscription, partitionCounts: ReadonlyMap<string, number>): Set<string> {
  const topics = new Set<string>()
  for (const topic of member.topics) if ((partitionCounts.get(topic) ?? 0) > 0) topics.add(topic)
  return topics
}

/** Every topic some member can be given, sorted. */
export function topicsToAssign(subscriptions: Iterable<ReadonlySet<string>>): string[] {
  const all = new Set<string>()
  for (const topics of subscriptions) for (const topic of topics) all.add(topic)
  return [...all].sort(compareStrings)
}

/**
 * Collects partitions per member, then writes each member's assignment with
 * topics and partitions in ascending order (readable logs, stable bytes).
 * Every member gets an entry, empty when it is given nothing.
 */
export class AssignmentBuilder {
  private readonly byMember = new Map<string, Map<string, number[]>>()

  constructor(memberIds: Iterable<string>) {
    for (const id of memberIds) this.byMember.set(id, new Map())
  }

  add(memberId: string, topic: string, partition: number): void {
    const topics = this.byMember.get(memberId)!
    let partitions = topics.get(topic)
    if (partitions === undefined) topics.set(topic, (partitions = []))
    partitions.push(partition)
  }

  /** Partitions [from, to) of `topic`. */
  addRange(memberId: string, topic: string, from: number, to: number): void {
    for (let p = from; p < to; p++) this.add(memberId, topic, p)
  }

  build(): Map<string, MemberAssignment> {
    const result = new Map<string, MemberAssignment>()
    for (const [memberId, topics] of this.byMember) {
      const partitions = [...topics.keys()]
        .sort(compareStrings)
        .map((topic) => ({ topic, partitions: topics.get(topic)!.sort((a, b) => a - b) }))
      result.set(memberId, { partitions })
    }
    return result
  }
}
