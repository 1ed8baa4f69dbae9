import { Buffer } from 'node:buffer'
import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { ConfigError, kafkaError, UnsupportedApiError } from '../errors.js'
import { CreateDelegationToken, DescribeDelegationToken, ExpireDelegationToken, RenewDelegationToken } from '../protocol/messages/index.js'

/**
 * Delegation tokens (KIP-48, KIP-373), as Java's Admin calls them:
 * principals are written `User:alice` as ACLs write them; a token is its
 * information and its HMAC, the password a client authenticates with
 * (SCRAM with `tokenAuth: true`, the token id as user name).
 */

/** Java's TokenInformation: timestamps in epoch ms. */
export interface TokenInformation {
  tokenId: string
  owner: string
  tokenRequester: string
  renewers: string[]
  issueTimestamp: number
  maxTimestamp: number
  expiryTimestamp: number
}

/** Java's DelegationToken: the token's information and its HMAC (base64: the SCRAM password). */
export interface DelegationToken {
  tokenInfo: TokenInformation
  hmac: Buffer
}

/** `User:alice` as the protocol's type and name. */
function principal(what: string, p: unknown): { principalType: string; principalName: string } {
  const colon = typeof p === 'string' ? p.indexOf(':') : -1
  if (colon <= 0 || colon === (p as string).length - 1)
    throw new ConfigError(`${what} must be a principal 'Type:name' (e.g. 'User:alice'), not ${JSON.stringify(p)}`)
  return { principalType: (p as string).slice(0, colon), principalName: (p as string).slice(colon + 1) }
}

const text = (type: string, name: string) => `${type}:${name}`

function hmacOf(what: string, hmac: unknown): Buffer {
  if (!(hmac instanceof Uint8Array) || hmac.length === 0) throw new ConfigError(`${what} takes the token's HMAC as a Buffer or Uint8Array`)
  return Buffer.from(hmac)
}

const wholeMs = (what: string, v: number) => {
  if (!Number.isSafeInteger(v)) throw new ConfigError(`${what} must be a whole number of ms`)
  return BigInt(v)
}

export async function createDelegationToken(
  cluster: ClusterClient,
  options: { owner?: string; renewers?: string[]; maxLifetimeMs?: number; timeout?: number },
): Promise<DelegationToken> {
  const owner = options.owner === undefined ? null : principal('createDelegationToken() owner', options.owner)
  const renewers = (options.renewers ?? []).map((r) => principal('createDelegationToken() renewers entry', r))
  const maxLifetimeMs = wholeMs('createDelegationToken() maxLifetimeMs', options.maxLifetimeMs ?? -1)
  const { res } = await cluster.request(
    CreateDelegationToken,
    (v: number) => {
      // v3 (KIP-373) names an owner; before it the token is the requester's, as Java refuses an owner there.
      if (v < 3 && owner)
        throw new UnsupportedApiError(`createDelegationToken() owner needs CreateDelegationToken v3 (Kafka 3.3+); the broker speaks v${v}`)
      return {
        ...(v >= 3 ? { ownerPrincipalType: owner?.principalType ?? null, ownerPrincipalName: owner?.principalName ?? null } : {}),
        renewers,
        maxLifetimeMs,
      }
    },
    Routes.any(),
    {
      retryMs: options.timeout,
      check: (r, from) => {
        if (r.errorCode !== 0) throw kafkaError(r.errorCode, { api: 'CreateDelegationToken', broker: from.broker })
      },
    },
  )
  return {
    tokenInfo: {
      tokenId: res.tokenId,
      owner: text(res.principalType, res.principalName),
      // Before v3 the requester is the owner (Java's TokenInformation without one).
      tokenRequester: res.tokenRequesterPrincipalName
        ? text(res.tokenRequesterPrincipalType, res.tokenRequesterPrincipalName)
        : text(res.principalType, res.principalName),
      renewers: renewers.map((r) => text(r.principalType, r.principalName)),
      issueTimestamp: Number(res.issueTimestampMs),
      maxTimestamp: Number(res.maxTimestampMs),
      expiryTimestamp: Number(res.expiryTimestampMs),
    },
    hmac: Buffer.from(res.hmac),
  }
}

/** Renews the token (by its owner or a renewer); resolves to its new expiry timestamp. */
export async function renewDelegationToken(
  cluster: ClusterClient,
  hmac: unknown,
  options: { renewTimePeriodMs?: number; timeout?: number },
): Promise<number> {
  const { res } = await cluster.request(
    RenewDelegationToken,
    {
      hmac: hmacOf('renewDelegationToken()', hmac),
      renewPeriodMs: wholeMs('renewDelegationToken() renewTimePeriodMs', options.renewTimePeriodMs ?? -1),
    },
    Routes.any(),
    {
      retryMs: options.timeout,
      check: (r, from) => {
        if (r.errorCode !== 0) throw kafkaError(r.errorCode, { api: 'RenewDelegationToken', broker: from.broker })
      },
    },
  )
  return Number(res.expiryTimestampMs)
}

/** Expires the token: `expiryTimePeriodMs` from now (default -1: at once, the token removed); resolves to its expiry timestamp. */
export async function expireDelegationToken(
  cluster: ClusterClient,
  hmac: unknown,
  options: { expiryTimePeriodMs?: number; timeout?: number },
): Promise<number> {
  const { res } = await cluster.request(
    ExpireDelegationToken,
    {
      hmac: hmacOf('expireDelegationToken()', hmac),
      expiryTimePeriodMs: wholeMs('expireDelegationToken() expiryTimePeriodMs', options.expiryTimePeriodMs ?? -1),
    },
    Routes.any(),
    {
      retryMs: options.timeout,
      check: (r, from) => {
        if (r.errorCode !== 0) throw kafkaError(r.errorCode, { api: 'ExpireDelegationToken', broker: from.broker })
      },
    },
  )
  return Number(res.expiryTimestampMs)
}

/** The tokens the caller may see, of the owners named (default: every owner). */
export async function describeDelegationToken(
  cluster: ClusterClient,
  options: { owners?: string[]; timeout?: number },
): Promise<DelegationToken[]> {
  const owners = options.owners?.map((o) => principal('describeDelegationToken() owners entry', o)) ?? null
  const { res } = await cluster.request(DescribeDelegationToken, { owners }, Routes.any(), {
    retryMs: options.timeout,
    check: (r, from) => {
      if (r.errorCode !== 0) throw kafkaError(r.errorCode, { api: 'DescribeDelegationToken', broker: from.broker })
    },
  })
  return res.tokens.map((t) => ({
    tokenInfo: {
      tokenId: t.tokenId,
      owner: text(t.principalType, t.principalName),
      tokenRequester: t.tokenRequesterPrincipalName
        ? text(t.tokenRequesterPrincipalType, t.tokenRequesterPrincipalName)
        : text(t.principalType, t.principalName),
      renewers: t.renewers.map((r) => text(r.principalType, r.principalName)),
      issueTimestamp: Number(t.issueTimestamp),
      maxTimestamp: Number(t.maxTimestamp),
      expiryTimestamp: Number(t.expiryTimestamp),
    },
    hmac: Buffer.from(t.hmac),
  }))
}
