/** Kafka's rule for topic names (org.apache.kafka.common.internals.Topic.validate). */
const LEGAL = /^[a-zA-Z0-9._-]+$/
export const MAX_TOPIC_NAME_LENGTH = 249

/** Why a topic name is not legal, or null when it is. */
export function topicNameProblem(name: string | null | undefined): string | null {
  if (!name) return 'topic name is empty'
  if (name === '.' || name === '..') return `topic name cannot be "${name}"`
  if (name.length > MAX_TOPIC_NAME_LENGTH) return `topic name is longer than ${MAX_TOPIC_NAME_LENGTH} characters`
  if (!LEGAL.test(name)) return `topic name ${JSON.stringify(name)} has characters other than ASCII letters, digits, '.', '_' and '-'`
  return null
}
