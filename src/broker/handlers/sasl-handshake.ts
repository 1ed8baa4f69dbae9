import { ErrorCodes } from '../../protocol/error-codes.js'
import { SaslHandshake, type SaslHandshakeRequest, type SaslHandshakeResponse } from '../../protocol/messages/SaslHandshake.js'
import { defineHandler } from '../handler.js'

/**
 * SaslHandshake reaching the API layer: the connection needs none (a
 * plaintext listener) or is already authenticated and not due for a
 * re-authentication. Kafka answers ILLEGAL_SASL_STATE; the SASL exchange
 * itself is served before dispatch (sasl/session.ts).
 */
export const saslHandshakeHandler = defineHandler<SaslHandshakeRequest, SaslHandshakeResponse>({
  spec: SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  handle: () => ({ errorCode: ErrorCodes.ILLEGAL_SASL_STATE, mechanisms: [] }),
  errorResponse: (_req, code) => ({ errorCode: code, mechanisms: [] }),
})
