import { AUTHENTICATION, AUTHORIZATION } from './error-policy.js'
import { ErrorCodes, errorCodeInfo } from './protocol/error-codes.js'

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

  constructor(reason: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options)
    this.reason = reason
  }
}

/** A configuration value is missing, of the wrong type or out of range. */
export class ConfigError extends WafkaError {}

/** The broker does not support an API or version wafka needs (or no version both sides speak). */
export class UnsupportedApiError extends WafkaError {}

/** A connection could not be made, or broke; trying again (maybe elsewhere) may work. */
export class ConnectionError extends WafkaError {
  constructor(message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, { retriable: true, ...options })
  }
}

/** Something took longer than allowed (a connect, a request). */
export class TimeoutError extends WafkaError {
  constructor(message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, { retriable: true, ...options })
  }
}

/** An error code a broker answered with. `type` is its name in the spec, e.g. 'NOT_LEADER_OR_FOLLOWER'. */
export class KafkaError extends WafkaError {
  readonly code: number
  readonly type: string
  readonly api?: string
  readonly broker?: string

  constructor(
    message: string,
    options: { code: number; type: string; retriable: boolean; api?: string; broker?: string; cause?: unknown },
  ) {
    super(message, options)
    this.code = options.code
    this.type = options.type
    if (options.api !== undefined) this.api = options.api
    if (options.broker !== undefined) this.broker = options.broker
  }

  /**
   * Whether `err` is a KafkaError with `codes` (one code, e.g.
   * `ErrorCodes.NOT_COORDINATOR`, or a set from error-policy).
   */
  static is(err: unknown, codes: number | ReadonlySet<number>): err is KafkaError {
    return isKafkaError(err) && err.is(codes)
  }

  /** Whether this error's code is `codes` (one code or a set). */
  is(codes: number | ReadonlySet<number>): boolean {
    return typeof codes === 'number' ? this.code === codes : codes.has(this.code)
  }
}

/**
 * Authentication failed: bad credentials, a mechanism the broker does not
 * enable, a broker that could not prove it knows the password. Never
 * retriable: trying again with the same credentials fails the same way.
 * `brokerMessage` is what the broker said (never a secret of ours).
 */
// Outside the class: a class body that names its own class is renamed by the
// bundler (KafkaError became `_KafkaError` in dist/: test/built-names.test.ts).
function isKafkaError(err: unknown): err is KafkaError {
  return err instanceof KafkaError
}

export class AuthenticationError extends KafkaError {
  readonly mechanism?: string
  readonly brokerMessage?: string

  constructor(
    message: string,
    options: {
      code?: number
      type?: string
      mechanism?: string
      brokerMessage?: string | null
      api?: string
      broker?: string
      cause?: unknown
    } = {},
  ) {
    super(message, {
      code: options.code ?? ErrorCodes.SASL_AUTHENTICATION_FAILED,
      type: options.type ?? 'SASL_AUTHENTICATION_FAILED',
      retriable: false,
      api: options.api,
      broker: options.broker,
      cause: options.cause,
    })
    if (options.mechanism !== undefined) this.mechanism = options.mechanism
    if (options.brokerMessage) this.brokerMessage = options.brokerMessage
  }
}

/** The broker refused an operation on a topic, group, transactional id or the cluster (ACLs): not retriable. */
export class AuthorizationError extends KafkaError {}

/**
 * A TLS connection failed for a reason trying again will not fix: the
 * broker's certificate is not trusted, names another host, has expired, or
 * the broker wants a client certificate. `reason` is a stable word for it.
 */
export class TlsError extends WafkaError {
  readonly reason: TlsFailure
  readonly code?: string

  constructor(message: string, options: { reason: TlsFailure; code?: string; cause?: unknown }) {
    // Not a ConnectionError: callers retry those.
    super(message, { retriable: false, cause: options.cause })
    this.reason = options.reason
    if (options.code !== undefined) this.code = options.code
  }
}

export type TlsFailure =
  'untrusted-certificate' | 'hostname-mismatch' | 'expired-certificate' | 'client-certificate-rejected' | 'handshake-failed' | 'not-tls'

/**
 * A KafkaError for `code`, named and described from the spec's error table,
 * retriable as the Java client treats it; `detail` says what it was about
 * (a topic-partition, a group, the broker's error message).
 */
export function kafkaError(code: number, context: { api?: string; broker?: string; detail?: string; cause?: unknown } = {}): KafkaError {
  const info = errorCodeInfo(code)
  const type = info?.name ?? 'UNKNOWN_ERROR_CODE'
  const description = info?.description ?? 'An error code this client does not know (the broker may be newer).'
  const where = `${context.api ? ` in ${context.api}` : ''}${context.broker ? ` from ${context.broker}` : ''}`
  const detail = context.detail ? ` (${context.detail})` : ''
  const message = `${type} (${code})${where}: ${description}${detail}`
  if (AUTHENTICATION.has(code))
    return new AuthenticationError(message, { code, type, api: context.api, broker: context.broker, cause: context.cause })
  return new (AUTHORIZATION.has(code) ? AuthorizationError : KafkaError)(message, {
    code,
    type,
    retriable: info?.retriable ?? false,
    api: context.api,
    broker: context.broker,
    cause: context.cause,
  })
}
