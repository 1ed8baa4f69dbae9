import { ErrorCodes } from '../protocol/error-codes.js'

/** What a refusal carries beside its code and message. */
export interface BrokerErrorDetail {
  /** What the client is told where it differs from the message; null: the API's generic message (SCRAM's, say). */
  clientMessage?: string | null
  /** Produce v8+: which records of the batch were refused, and why (Kafka's record_errors). */
  recordErrors?: { batchIndex: number; batchIndexErrorMessage: string }[]
  cause?: unknown
}

/**
 * Something the broker refuses: the Kafka error code its answer carries and
 * why. Every refusal a handler, the controller, a group, a batch check or a
 * SASL exchange makes is one, so the request pipeline answers any of them
 * with its code; anything else thrown is a bug (UNKNOWN_SERVER_ERROR).
 */
export class BrokerError extends Error {
  readonly clientMessage: string | null
  readonly recordErrors: { batchIndex: number; batchIndexErrorMessage: string }[]

  constructor(
    readonly code: number,
    message: string,
    detail: BrokerErrorDetail = {},
  ) {
    super(message, detail.cause === undefined ? undefined : { cause: detail.cause })
    this.name = 'BrokerError'
    this.clientMessage = detail.clientMessage === undefined ? message : detail.clientMessage
    this.recordErrors = detail.recordErrors ?? []
  }
}

/** A SASL exchange refused (SASL_AUTHENTICATION_FAILED); `clientMessage` null: Kafka's generic "invalid credentials". */
export function saslRefusal(message: string, clientMessage: string | null = null): BrokerError {
  return new BrokerError(ErrorCodes.SASL_AUTHENTICATION_FAILED, message, { clientMessage })
}
