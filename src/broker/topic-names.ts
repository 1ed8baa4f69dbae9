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
