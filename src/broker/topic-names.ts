/** Kafka's rule for topic names (org.apache.kafka.common.internals.Topic.validate). */
const LEGAL = /^[a-zA-Z0-9._-]+$/
export const MAX_TOPIC_NAME_LENGTH = 249

/** Why a topic name is not legal, in the words Kafka's brokers answer with, or null when it is. */
export function topicNameProblem(name: string | null | undefined): string | null {
  const why = !name
    ? 'the empty string is not allowed'
    : name === '.' || name === '..'
      ? `'${name}' is not allowed`
      : name.length > MAX_TOPIC_NAME_LENGTH
        ? `the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`
        : !LEGAL.test(name)
          ? `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`
          : null
  return why === null ? null : `Topic name is invalid: ${why}`
}

/** The topic that holds the groups' state (Kafka's GROUP_METADATA_TOPIC_NAME). */
export const OFFSETS_TOPIC = '__consumer_offsets'

/** The topic that holds the transaction coordinator's state (Kafka's TRANSACTION_STATE_TOPIC_NAME). */
export const TRANSACTION_STATE_TOPIC = '__transaction_state'

/** Kafka's internal topics (Topic.isInternal): Metadata marks them, a client may not produce to them. */
const INTERNAL_TOPICS: ReadonlySet<string> = new Set([OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, '__share_group_state'])

export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPICS.has(name)
}
