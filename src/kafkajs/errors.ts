import {
  AuthenticationError,
  AuthorizationError,
  ConfigError,
  ConnectionError,
  KafkaError,
  TimeoutError,
  TlsError,
  UnsupportedApiError,
  WafkaError,
} from '../errors.js'

/**
 * KafkaJS's error classes, with its names, fields and inheritance, so code
 * that checks `instanceof KafkaJSProtocolError` or `e.name` and reads
 * `e.retriable`, `e.type`, `e.code` or `e.broker` keeps working. wafka's own
 * errors are translated into them at the compatibility layer's edge
 * (`toKafkaJSError`); the original stays as `cause`.
 */
type Input = string | Error | { message?: string; [field: string]: unknown }

const messageOf = (e: Input): string => (typeof e === 'string' ? e : String(e.message ?? e))

/**
 * The end of every KafkaJS error's constructor: its own fields, each an own
 * property even when undefined (as KafkaJS assigns them), then its name.
 */
function own<F extends object>(e: Error & Partial<F>, name: string, fields: F): void {
  Object.assign(e, fields)
  e.name = name
}

export class KafkaJSError extends Error {
  retriable: boolean
  helpUrl?: string
  override cause?: unknown

  constructor(e: Input, { retriable = true, cause }: { retriable?: boolean; cause?: unknown } = {}) {
    super(messageOf(e), cause === undefined ? undefined : { cause })
    this.name = 'KafkaJSError'
    this.retriable = retriable
    this.helpUrl = typeof e === 'object' ? (e as { helpUrl?: string }).helpUrl : undefined
    this.cause = cause
  }
}

export class KafkaJSNonRetriableError extends KafkaJSError {
  constructor(e: Input, { cause }: { cause?: unknown } = {}) {
    super(e, { retriable: false, cause })
    this.name = 'KafkaJSNonRetriableError'
  }
}

export class KafkaJSProtocolError extends KafkaJSError {
  type: string
  code: number

  constructor(e: Input & { type?: string; code?: number; retriable?: boolean }, options: { retriable?: boolean; cause?: unknown } = {}) {
    const fields = typeof e === 'object' ? e : {}
    // KafkaJS: the error's own retriability, else KafkaJSError's default (retriable).
    super(e, { retriable: options.retriable ?? (fields as { retriable?: boolean }).retriable ?? true, cause: options.cause })
    this.type = String((fields as { type?: string }).type ?? 'UNKNOWN')
    this.code = Number((fields as { code?: number }).code ?? -1)
    this.name = 'KafkaJSProtocolError'
  }
}

export class KafkaJSOffsetOutOfRange extends KafkaJSProtocolError {
  topic?: string
  partition?: number
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], { topic, partition }: { topic?: string; partition?: number } = {}) {
    super(e)
    own(this, 'KafkaJSOffsetOutOfRange', { topic, partition })
  }
}

export class KafkaJSMemberIdRequired extends KafkaJSProtocolError {
  memberId?: string
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], { memberId }: { memberId?: string } = {}) {
    super(e)
    own(this, 'KafkaJSMemberIdRequired', { memberId })
  }
}

export class KafkaJSNumberOfRetriesExceeded extends KafkaJSNonRetriableError {
  retryCount!: number
  retryTime!: number
  constructor(e: Input, { retryCount, retryTime, cause }: { retryCount: number; retryTime: number; cause?: unknown }) {
    super(e, { cause: cause ?? e })
    own(this, 'KafkaJSNumberOfRetriesExceeded', { retryCount, retryTime })
  }
}

export class KafkaJSConnectionError extends KafkaJSError {
  broker?: string
  code?: string
  constructor(e: Input, { broker, code, cause }: { broker?: string; code?: string; cause?: unknown } = {}) {
    super(e, { cause })
    own(this, 'KafkaJSConnectionError', { broker, code })
  }
}

export class KafkaJSConnectionClosedError extends KafkaJSConnectionError {
  host?: string
  port?: number
  constructor(e: Input, { host, port }: { host?: string; port?: number } = {}) {
    super(e, { broker: `${host}:${port}` })
    own(this, 'KafkaJSConnectionClosedError', { host, port })
  }
}

export class KafkaJSRequestTimeoutError extends KafkaJSError {
  broker?: string
  correlationId?: number
  createdAt?: number
  sentAt?: number
  pendingDuration?: number
  constructor(
    e: Input,
    {
      broker,
      correlationId,
      createdAt,
      sentAt,
      pendingDuration,
      cause,
    }: { broker?: string; correlationId?: number; createdAt?: number; sentAt?: number; pendingDuration?: number; cause?: unknown } = {},
  ) {
    super(e, { cause })
    own(this, 'KafkaJSRequestTimeoutError', { broker, correlationId, createdAt, sentAt, pendingDuration })
  }
}

export class KafkaJSMetadataNotLoaded extends KafkaJSError {
  constructor(e: Input, options?: { retriable?: boolean; cause?: unknown }) {
    super(e, options)
    this.name = 'KafkaJSMetadataNotLoaded'
  }
}

export class KafkaJSTopicMetadataNotLoaded extends KafkaJSMetadataNotLoaded {
  topic?: string
  constructor(e: Input, { topic }: { topic?: string } = {}) {
    super(e)
    own(this, 'KafkaJSTopicMetadataNotLoaded', { topic })
  }
}

export class KafkaJSStaleTopicMetadataAssignment extends KafkaJSError {
  topic?: string
  unknownPartitions?: number[]
  constructor(e: Input, { topic, unknownPartitions }: { topic?: string; unknownPartitions?: number[] } = {}) {
    super(e)
    own(this, 'KafkaJSStaleTopicMetadataAssignment', { topic, unknownPartitions })
  }
}

export class KafkaJSDeleteGroupsError extends KafkaJSError {
  groups!: unknown[]
  constructor(e: Input, groups: unknown[] = []) {
    super(e)
    own(this, 'KafkaJSDeleteGroupsError', { groups })
  }
}

export class KafkaJSServerDoesNotSupportApiKey extends KafkaJSNonRetriableError {
  apiKey?: number
  apiName?: string
  constructor(e: Input, { apiKey, apiName, cause }: { apiKey?: number; apiName?: string; cause?: unknown } = {}) {
    super(e, { cause })
    own(this, 'KafkaJSServerDoesNotSupportApiKey', { apiKey, apiName })
  }
}

/** A KafkaJS error class that adds only its name to its parent. */
function named<P extends new (...args: any[]) => KafkaJSError>(parent: P, name: string, className = name): P {
  const cls = class extends parent {
    constructor(...args: any[]) {
      super(...args)
      this.name = name
    }
  }
  Object.defineProperty(cls, 'name', { value: className })
  return cls
}

export const KafkaJSBrokerNotFound = named(KafkaJSError, 'KafkaJSBrokerNotFound')
export const KafkaJSPartialMessageError = named(KafkaJSNonRetriableError, 'KafkaJSPartialMessageError')
export const KafkaJSSASLAuthenticationError = named(KafkaJSNonRetriableError, 'KafkaJSSASLAuthenticationError')
export const KafkaJSGroupCoordinatorNotFound = named(KafkaJSNonRetriableError, 'KafkaJSGroupCoordinatorNotFound')
export const KafkaJSNotImplemented = named(KafkaJSNonRetriableError, 'KafkaJSNotImplemented')
export const KafkaJSTimeout = named(KafkaJSNonRetriableError, 'KafkaJSTimeout')
export const KafkaJSLockTimeout = named(KafkaJSTimeout, 'KafkaJSLockTimeout')
export const KafkaJSUnsupportedMagicByteInMessageSet = named(KafkaJSNonRetriableError, 'KafkaJSUnsupportedMagicByteInMessageSet')
export const KafkaJSInvariantViolation = named(KafkaJSNonRetriableError, 'KafkaJSInvariantViolation')
// KafkaJS names these two KafkaJSNonRetriableError too.
export const KafkaJSInvalidVarIntError = named(KafkaJSNonRetriableError, 'KafkaJSNonRetriableError', 'KafkaJSInvalidVarIntError')
export const KafkaJSInvalidLongError = named(KafkaJSNonRetriableError, 'KafkaJSNonRetriableError', 'KafkaJSInvalidLongError')

export class KafkaJSDeleteTopicRecordsError extends KafkaJSError {
  partitions!: Array<{ partition: number; offset?: string; error?: KafkaJSError | null }>
  constructor({ partitions }: { partitions: KafkaJSDeleteTopicRecordsError['partitions'] }) {
    super('Error while deleting records', {
      retriable: partitions.filter((p) => p.error != null).every((p) => p.error!.retriable === true),
    })
    own(this, 'KafkaJSDeleteTopicRecordsError', { partitions })
  }
}

export class KafkaJSCreateTopicError extends KafkaJSProtocolError {
  topic?: string
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], topicName?: string) {
    super(e)
    own(this, 'KafkaJSCreateTopicError', { topic: topicName })
  }
}

export class KafkaJSAlterPartitionReassignmentsError extends KafkaJSProtocolError {
  topic?: string
  partition?: number
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], topicName?: string, partition?: number) {
    super(e)
    own(this, 'KafkaJSAlterPartitionReassignmentsError', { topic: topicName, partition })
  }
}

export class KafkaJSAggregateError extends Error {
  errors!: unknown[]
  constructor(message: string, errors: unknown[]) {
    super(message)
    own(this, 'KafkaJSAggregateError', { errors })
  }
}

export class KafkaJSFetcherRebalanceError extends Error {}

export class KafkaJSNoBrokerAvailableError extends KafkaJSError {
  constructor() {
    super('No broker available')
    this.name = 'KafkaJSNoBrokerAvailableError'
  }
}

/**
 * The KafkaJS error for a wafka error (a KafkaJS error, or an error that is
 * not wafka's, passes as it is). The wafka error is the `cause`.
 */
export function toKafkaJSError(err: unknown): unknown {
  if (!(err instanceof WafkaError)) return err
  const cause = err
  if (err instanceof AuthenticationError) return new KafkaJSSASLAuthenticationError(err.message, { cause })
  if (err instanceof KafkaError) {
    if (err.type === 'OFFSET_OUT_OF_RANGE')
      return new KafkaJSOffsetOutOfRange({ message: err.message, type: err.type, code: err.code, retriable: err.retriable })
    return protocolError(err)
  }
  if (err instanceof TlsError) return new KafkaJSConnectionError(err.message, { broker: brokerOf(err), code: err.code, cause })
  if (err instanceof ConnectionError) {
    const e = new KafkaJSConnectionError(err.message, { broker: brokerOf(err), code: socketCodeOf(err), cause })
    // Retriable as wafka judged it (a client that was disconnected is not).
    e.retriable = err.retriable
    return e
  }
  if (err instanceof TimeoutError) {
    return err.retriable
      ? new KafkaJSRequestTimeoutError(err.message, { broker: brokerOf(err), cause })
      : new KafkaJSTimeout(err.message, { cause })
  }
  if (err instanceof UnsupportedApiError) return new KafkaJSServerDoesNotSupportApiKey(err.message, { cause })
  if (err instanceof ConfigError) return new KafkaJSNonRetriableError(err.message, { cause })
  return new KafkaJSError(err.message, { retriable: err.retriable, cause })
}

/**
 * A broker's error code as KafkaJS's `createErrorFromCode` gives it: a
 * KafkaJSProtocolError, whatever the code (the admin's OFFSET_OUT_OF_RANGE
 * too: only KafkaJS's fetch says KafkaJSOffsetOutOfRange). The wafka error is the `cause`.
 */
export function protocolError(err: KafkaError): KafkaJSProtocolError {
  const e = new KafkaJSProtocolError({ message: err.message, type: err.type, code: err.code, retriable: err.retriable }, { cause: err })
  return err instanceof AuthorizationError ? Object.assign(e, { retriable: false }) : e
}

/**
 * KafkaJS's `broker` of a connection error, "host:port": the socket's
 * address, else the first host:port the messages down the cause chain name
 * (wafka names the broker it was connecting to in each).
 */
function brokerOf(err: Error): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const { address, port } = e as { address?: unknown; port?: unknown }
    if (typeof address === 'string' && typeof port === 'number')
      return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`
  }
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const named = /(\[[0-9a-fA-F:.]+\]|[\w.-]+):(\d{1,5})\b/.exec(e.message)
    if (named) return `${named[1]}:${named[2]}`
  }
  return undefined
}

/** KafkaJS's `code` of a connection error: the socket's (ECONNREFUSED, ECONNRESET, ...) down the cause chain. */
function socketCodeOf(err: Error): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
  }
  return undefined
}

/**
 * What KafkaJS's retrier names as the cause of the error it ends with: the
 * failure's own cause, else the failure (`e.cause || e`). A translated
 * error's cause is wafka's original, which KafkaJS code does not know: the
 * translated error is the cause then.
 */
export function kafkajsCause(e: Error & { cause?: unknown }): unknown {
  return e.cause === undefined || e.cause === null || e.cause instanceof WafkaError ? e : e.cause
}

/** `fn`'s rejection translated to KafkaJS's class. */
export async function translated<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    throw toKafkaJSError(err)
  }
}

export const isRebalancing = (e: { type?: string }): boolean =>
  e.type === 'REBALANCE_IN_PROGRESS' || e.type === 'NOT_COORDINATOR_FOR_GROUP' || e.type === 'ILLEGAL_GENERATION'
export const isKafkaJSError = (e: unknown): e is KafkaJSError => e instanceof KafkaJSError
