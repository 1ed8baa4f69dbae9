// Java's CopartitionedTopicsEnforcer, for the topics the application does not
// make and the repartition topics whose count it was given: a join's two
// sides must read topics with the same partition count, or a key's records
// would land in different tasks and never meet. Java refuses such a topology
// when the group is assigned; here start() fails.
import { StreamsError } from './streams-error.js'

/** Throws naming the topics and their counts (Java's "Topics not co-partitioned: [{a=3, b=2}]"). */
export function checkCopartitioned(
  groups: string[][],
  partitions: ReadonlyMap<string, number>,
  topicName: (topic: string) => string = (t) => t,
): void {
  for (const group of groups) {
    const known = group.filter((t) => partitions.has(t))
    if (new Set(known.map((t) => partitions.get(t))).size <= 1) continue
    const counts = known.map((t) => `${topicName(t)}=${partitions.get(t)}`).join(', ')
    throw new StreamsError(
      `Topics not co-partitioned: [{${counts}}]: a join's sides must have the same number of partitions, so that a key's records meet in one task`,
    )
  }
}
