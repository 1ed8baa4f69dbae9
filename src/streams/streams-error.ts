/** Kafka Streams could not start or go on (Java's StreamsException): the message names the topic, task or option at fault. */
export class StreamsError extends Error {
  override name = 'StreamsError'
}

/** Another instance of the application asked every instance to shut down (SHUTDOWN_APPLICATION through the streams group). */
export class ApplicationShutdownError extends StreamsError {
  override name = 'ApplicationShutdownError'
}

/** Java's StreamsNotStartedException: a call that needs a started application, before start(). */
export class StreamsNotStartedError extends StreamsError {
  override name = 'StreamsNotStartedError'
}

/** Java's IllegalStateException from KafkaStreams: the call does not fit the application's state (cleanUp() while running, a metadata query when not running). */
export class IllegalStateError extends StreamsError {
  override name = 'IllegalStateError'
}

/** Java's UnsupportedOperationException: what this configuration of wafka cannot do (the message says what would). */
export class UnsupportedOperationError extends StreamsError {
  override name = 'UnsupportedOperationError'
}
