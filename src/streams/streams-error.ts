/** Kafka Streams could not start or go on (Java's StreamsException): the message names the topic, task or option at fault. */
export class StreamsError extends Error {
  override name = 'StreamsError'
}
