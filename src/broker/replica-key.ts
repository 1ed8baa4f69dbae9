import type { TopicImage } from './controller.js'

/**
 * The key of a partition's replica in a broker's replica map,
 * `${topicId}/${partition}`, made once per partition of a topic image: Fetch
 * and Produce look replicas up per partition of every request, and a new
 * template string per look-up (made, then hashed) was a tenth of the
 * broker's CPU under franz-go's ETL load (bench/results/broker-load.md).
 * Held by the image (a WeakMap), so a deleted topic's keys go with it.
 */
const keysByTopic = new WeakMap<TopicImage, string[]>()

export function replicaKey(t: TopicImage, partition: number): string {
  let keys = keysByTopic.get(t)
  if (!keys) keysByTopic.set(t, (keys = []))
  return (keys[partition] ??= `${t.id}/${partition}`)
}
