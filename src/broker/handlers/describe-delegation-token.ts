import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeDelegationToken,
  type DescribeDelegationTokenRequest,
  type DescribeDelegationTokenResponse,
} from '../../protocol/messages/DescribeDelegationToken.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'
import { ownerOrRenewer, principalText, type Token } from '../sasl/delegation-tokens.js'
import { requestPrincipal, tokenRequestsAllowed } from './token-common.js'

/**
 * DescribeDelegationToken (KIP-48): the tokens of the owners asked for
 * (null: every owner; an empty list: none), each one the requester owns or
 * renews, may DESCRIBE as a DELEGATION_TOKEN resource, or may
 * DESCRIBE_TOKENS of its owner's USER resource (Kafka's filterToken).
 * Expired tokens are described until the expiry check removes them.
 */
export const describeDelegationTokenHandler = defineHandler<DescribeDelegationTokenRequest, DescribeDelegationTokenResponse>({
  spec: DescribeDelegationToken,
  minVersion: DescribeDelegationToken.minVersion,
  maxVersion: DescribeDelegationToken.maxVersion,
  handle(req, ctx) {
    if (!tokenRequestsAllowed(ctx)) return { errorCode: ErrorCodes.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, tokens: [] }
    const tokens = ctx.cluster.delegationTokens
    if (!tokens.enabled) return { errorCode: ErrorCodes.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [] }
    if (req.owners !== null && req.owners.length === 0) return { errorCode: ErrorCodes.NONE, tokens: [] }
    const owners = req.owners?.map((o) => ({ type: o.principalType, name: o.principalName })) ?? null
    const me = requestPrincipal(ctx)
    const eligible = (t: Token) =>
      (owners === null || owners.some((o) => ownerOrRenewer(t, o))) &&
      (ownerOrRenewer(t, me) ||
        allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.DELEGATION_TOKEN, t.tokenId) ||
        allowed(ctx, AclOperationTypes.DESCRIBE_TOKENS, AclResourceTypes.USER, principalText(t.owner)))
    return {
      errorCode: ErrorCodes.NONE,
      tokens: tokens.describe(eligible).map((t) => ({
        principalType: t.owner.type,
        principalName: t.owner.name,
        ...(ctx.version >= 3 ? { tokenRequesterPrincipalType: t.requester.type, tokenRequesterPrincipalName: t.requester.name } : {}),
        issueTimestamp: BigInt(t.issueTimestamp),
        expiryTimestamp: BigInt(t.expiryTimestamp),
        maxTimestamp: BigInt(t.maxTimestamp),
        tokenId: t.tokenId,
        hmac: t.hmac,
        renewers: t.renewers.map((r) => ({ principalType: r.type, principalName: r.name })),
      })),
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, tokens: [] }),
})
