import { Buffer } from 'node:buffer'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { SaslAuthenticate, type SaslAuthenticateRequest, type SaslAuthenticateResponse } from '../../protocol/messages/SaslAuthenticate.js'
import { defineHandler } from '../handler.js'

/** SaslAuthenticate reaching the API layer (no exchange under way): ILLEGAL_SASL_STATE, with Kafka's message. */
export const saslAuthenticateHandler = defineHandler<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  spec: SaslAuthenticate,
  minVersion: 0,
  maxVersion: 2,
  handle: () => ({
    errorCode: ErrorCodes.ILLEGAL_SASL_STATE,
    errorMessage: 'SaslAuthenticate request received after successful authentication',
    authBytes: Buffer.alloc(0),
    sessionLifetimeMs: 0n,
  }),
  errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n }),
})
