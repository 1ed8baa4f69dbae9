import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  RenewDelegationToken,
  type RenewDelegationTokenRequest,
  type RenewDelegationTokenResponse,
} from '../../protocol/messages/RenewDelegationToken.js'
import { defineHandler } from '../handler.js'
import { ERROR_TIMESTAMP } from '../sasl/delegation-tokens.js'
import { requestPrincipal, tokenRequestsAllowed } from './token-common.js'

/** RenewDelegationToken (KIP-48): by the token's owner or a renewer, before it expires; never past its max lifetime. */
export const renewDelegationTokenHandler = defineHandler<RenewDelegationTokenRequest, RenewDelegationTokenResponse>({
  spec: RenewDelegationToken,
  minVersion: RenewDelegationToken.minVersion,
  maxVersion: RenewDelegationToken.maxVersion,
  handle(req, ctx) {
    if (!tokenRequestsAllowed(ctx))
      return { errorCode: ErrorCodes.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: BigInt(ERROR_TIMESTAMP) }
    const r = ctx.cluster.delegationTokens.renew(requestPrincipal(ctx), req.hmac, Number(req.renewPeriodMs))
    return { errorCode: r.errorCode, expiryTimestampMs: BigInt(r.expiryTimestamp) }
  },
  errorResponse: (_req, code) => ({ errorCode: code, expiryTimestampMs: BigInt(ERROR_TIMESTAMP) }),
})
