/** Kafka Streams could not start or go on (Java's StreamsException): the message names the topic, task or option at fault. */
export class StreamsError extends Error {
  override name = 'StreamsError'
}

/** Another instance of the application asked every instance to shut down (SHUTDOWN_APPLICATION through the streams group). */
export class ApplicationShutdownError extends StreamsError {
  override name = 'ApplicationShutdownError'
}
