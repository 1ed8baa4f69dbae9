/**
 * Every error wafka throws is a WafkaError. `retriable` says whether trying
 * the same thing again may succeed; callers (and the retry policy) read it
 * instead of matching on classes or messages.
 */
export class WafkaError extends Error {
  readonly retriable: boolean

  constructor(message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.retriable = options.retriable ?? false
  }
}

/** Bytes that cannot be decoded: a malformed frame, response or record set. */
export class ProtocolError extends WafkaError {}

/**
 * A record batch (or legacy message) failed validation: bad CRC, lengths that
 * do not add up, malformed compressed data, a decompression bomb. `reason` is
 * a stable machine-readable word (e.g. 'checksum', 'truncated').
 */
export class CorruptRecordError extends ProtocolError {
  readonly reason: string

  constructor(reason: string, message: string) {
    super(message)
    this.reason = reason
  }
}

/** A configuration value is missing, of the wrong type or out of range. */
export class ConfigError extends WafkaError {}
