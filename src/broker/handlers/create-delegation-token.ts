import { Buffer } from 'node:buffer'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  CreateDelegationToken,
  type CreateDelegationTokenRequest,
  type CreateDelegationTokenResponse,
} from '../../protocol/messages/CreateDelegationToken.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'
import type { TokenPrincipal } from '../metadata-records.js'
import { ANONYMOUS } from '../principal.js'
import { principalText } from '../sasl/delegation-tokens.js'
import { requestPrincipal, tokenRequestsAllowed } from './token-common.js'

/** An answer without a token: Kafka's prepareResponse(error, owner, requester) (-1 timestamps, no id, no HMAC; the requester from v3). */
const refusal = (version: number, errorCode: number, owner: TokenPrincipal, requester: TokenPrincipal) => ({
  errorCode,
  principalType: owner.type,
  principalName: owner.name,
  ...(version >= 3 ? { tokenRequesterPrincipalType: requester.type, tokenRequesterPrincipalName: requester.name } : {}),
  issueTimestampMs: -1n,
  expiryTimestampMs: -1n,
  maxTimestampMs: -1n,
  tokenId: '',
  hmac: Buffer.alloc(0),
})

/**
 * CreateDelegationToken (KIP-48; an owner other than the requester since
 * v3, KIP-373): checked as Kafka's broker and controller check it, in
 * their order: the connection may ask (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED),
 * CREATE_TOKENS on the owner's USER resource when it is not the requester
 * (DELEGATION_TOKEN_AUTHORIZATION_FAILED), tokens enabled, renewers Users.
 */
export const createDelegationTokenHandler = defineHandler<CreateDelegationTokenRequest, CreateDelegationTokenResponse>({
  spec: CreateDelegationToken,
  minVersion: CreateDelegationToken.minVersion,
  maxVersion: CreateDelegationToken.maxVersion,
  handle(req, ctx) {
    const requester = requestPrincipal(ctx)
    const owner = req.ownerPrincipalName ? { type: req.ownerPrincipalType ?? 'User', name: req.ownerPrincipalName } : requester
    if (!tokenRequestsAllowed(ctx)) return refusal(ctx.version, ErrorCodes.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, owner, requester)
    const self = owner.type === requester.type && owner.name === requester.name
    if (!self && !allowed(ctx, AclOperationTypes.CREATE_TOKENS, AclResourceTypes.USER, principalText(owner)))
      return refusal(ctx.version, ErrorCodes.DELEGATION_TOKEN_AUTHORIZATION_FAILED, owner, requester)
    const renewers = req.renewers.map((r) => ({ type: r.principalType, name: r.principalName }))
    const made = ctx.cluster.delegationTokens.create(requester, owner, renewers, Number(req.maxLifetimeMs))
    if (!made.token) return refusal(ctx.version, made.errorCode, owner, requester)
    const t = made.token
    return {
      ...refusal(ctx.version, ErrorCodes.NONE, owner, requester),
      issueTimestampMs: BigInt(t.issueTimestamp),
      expiryTimestampMs: BigInt(t.expiryTimestamp),
      maxTimestampMs: BigInt(t.maxTimestamp),
      tokenId: t.tokenId,
      hmac: made.hmac,
    }
  },
  // As Kafka's getErrorResponse: both principals User:ANONYMOUS.
  errorResponse: (_req, code, ctx) => refusal(ctx.version, code, ANONYMOUS, ANONYMOUS),
})
