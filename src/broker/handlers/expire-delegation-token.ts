import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ExpireDelegationToken,
  type ExpireDelegationTokenRequest,
  type ExpireDelegationTokenResponse,
} from '../../protocol/messages/ExpireDelegationToken.js'
import { defineHandler } from '../handler.js'
import { ERROR_TIMESTAMP } from '../sasl/delegation-tokens.js'
import { requestPrincipal, tokenRequestsAllowed } from './token-common.js'

/** ExpireDelegationToken (KIP-48): by the token's owner or a renewer; a negative period removes it at once. */
export const expireDelegationTokenHandler = defineHandler<ExpireDelegationTokenRequest, ExpireDelegationTokenResponse>({
  spec: ExpireDelegationToken,
  minVersion: ExpireDelegationToken.minVersion,
  maxVersion: ExpireDelegationToken.maxVersion,
  handle(req, ctx) {
    if (!tokenRequestsAllowed(ctx))
      return { errorCode: ErrorCodes.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: BigInt(ERROR_TIMESTAMP) }
    const r = ctx.cluster.delegationTokens.expire(requestPrincipal(ctx), req.hmac, Number(req.expiryTimePeriodMs))
    return { errorCode: r.errorCode, expiryTimestampMs: BigInt(r.expiryTimestamp) }
  },
  errorResponse: (_req, code) => ({ errorCode: code, expiryTimestampMs: BigInt(ERROR_TIMESTAMP) }),
})
