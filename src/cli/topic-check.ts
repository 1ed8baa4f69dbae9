import type { Admin } from '../admin/admin.js'

/** A topic named on the command line that the cluster does not have: exit 1 with one line, at once (not after retries). */
export class MissingTopicError extends Error {
  constructor(topic: string) {
    super(`topic ${JSON.stringify(topic)} does not exist`)
  }
}

/** The topic's partition ids, or MissingTopicError. */
export async function topicPartitions(admin: Admin, topic: string): Promise<number[]> {
  const topics = await admin.listTopics()
  if (!topics.includes(topic)) throw new MissingTopicError(topic)
  const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics
  return meta.partitions.map((p: { partitionId: number }) => p.partitionId).sort((a: number, b: number) => a - b)
}
