import { Buffer } from 'node:buffer'
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { saltedPassword } from '../../net/sasl/scram.js'
import type { Controller } from '../controller.js'
import type { DelegationTokenRecord, TokenPrincipal } from '../metadata-records.js'
import type { ScramCredential } from './credentials.js'

/**
 * Delegation tokens (KIP-48, KIP-373) as Kafka's controller
 * (DelegationTokenControlManager) and brokers (DelegationTokenManager) keep
 * them: a token is an id, its owner, requester and renewers and three
 * times, kept as metadata records; its HMAC (HmacSHA512 of the id under
 * delegation.token.secret.key) is never stored but made again, and is the
 * password a client authenticates with over SCRAM (`tokenauth=true`, the id
 * as user name). Disabled without a secret key.
 */

export type Token = DelegationTokenRecord['token']

/** Kafka's answer timestamp for a refused renew or expire (DelegationTokenManager.ErrorTimestamp). */
export const ERROR_TIMESTAMP = -1
/** SCRAM's minimum iterations, which Kafka's token credentials use (ScramMechanism.minIterations). */
const TOKEN_ITERATIONS = 4096

export interface TokenSettings {
  /** delegation.token.secret.key: undefined or empty disables tokens. */
  secretKey: string | undefined
  /** delegation.token.max.lifetime.ms */
  maxLifetimeMs: number
  /** delegation.token.expiry.time.ms */
  expiryTimeMs: number
}

/** now + duration, capped as Kafka's sum() caps at Long.MAX_VALUE (here the largest exact number). */
const sum = (now: number, duration: number) => Math.min(now + duration, Number.MAX_SAFE_INTEGER)

export const principalText = (p: TokenPrincipal) => `${p.type}:${p.name}`
const samePrincipal = (a: TokenPrincipal, b: TokenPrincipal) => a.type === b.type && a.name === b.name

export class DelegationTokens {
  private readonly key: Buffer | null
  /** Each token's SCRAM credential per hash, made once (PBKDF2) the first time it authenticates, by `${hash}/${tokenId}`. */
  private readonly credentials = new Map<string, Promise<ScramCredential>>()

  constructor(
    private readonly controller: Controller,
    private readonly settings: TokenSettings,
    /** The logger's INFO: each token swept. */
    private readonly info: (message: string) => void = () => {},
  ) {
    this.key = settings.secretKey ? Buffer.from(settings.secretKey, 'utf8') : null
    // A removed token's cached credentials go with it (and a token id is never reused: a UUID).
    controller.onRecord((r) => {
      if (r.type === 'remove-delegation-token') for (const h of ['sha256', 'sha512']) this.credentials.delete(`${h}/${r.tokenId}`)
    })
  }

  /** Whether tokens are enabled (a secret key is set), as Kafka's tokenAuthEnabled. */
  get enabled(): boolean {
    return this.key !== null
  }

  /** The token's HMAC: HmacSHA512 of its id (UTF-8) under the secret key. */
  hmac(tokenId: string): Buffer {
    return createHmac('sha512', this.key!).update(tokenId, 'utf8').digest()
  }

  /** The token whose HMAC this is, if any (compared in constant time). */
  private byHmac(hmac: Uint8Array): Token | undefined {
    const given = Buffer.from(hmac)
    for (const t of this.controller.delegationTokens.values()) {
      const h = this.hmac(t.tokenId)
      if (h.length === given.length && timingSafeEqual(h, given)) return t
    }
    return undefined
  }

  /** CreateDelegationToken once the broker's checks passed: the token, or Kafka's controller's refusal. */
  create(requester: TokenPrincipal, owner: TokenPrincipal, renewers: TokenPrincipal[], maxLifetimeMs: number, now = Date.now()) {
    if (!this.enabled) return { errorCode: ErrorCodes.DELEGATION_TOKEN_AUTH_DISABLED }
    if (renewers.some((r) => r.type !== 'User')) return { errorCode: ErrorCodes.INVALID_PRINCIPAL_TYPE }
    const maxLife = maxLifetimeMs > 0 ? Math.min(this.settings.maxLifetimeMs, maxLifetimeMs) : this.settings.maxLifetimeMs
    const maxTimestamp = sum(now, maxLife)
    const token: Token = {
      tokenId: randomUUID(),
      owner: { ...owner },
      requester: { ...requester },
      renewers: renewers.map((r) => ({ ...r })),
      issueTimestamp: now,
      maxTimestamp,
      expiryTimestamp: Math.min(maxTimestamp, sum(now, this.settings.expiryTimeMs)),
    }
    this.controller.append({ type: 'delegation-token', token })
    return { errorCode: ErrorCodes.NONE, token, hmac: this.hmac(token.tokenId) }
  }

  /** RenewDelegationToken: a new expiry, at most the renew period (or expiry.time.ms) from now, never past the token's max. */
  renew(
    principal: TokenPrincipal,
    hmac: Uint8Array,
    renewPeriodMs: number,
    now = Date.now(),
  ): { errorCode: number; expiryTimestamp: number } {
    const refused = (errorCode: number) => ({ errorCode, expiryTimestamp: ERROR_TIMESTAMP })
    if (!this.enabled) return refused(ErrorCodes.DELEGATION_TOKEN_AUTH_DISABLED)
    const token = this.byHmac(hmac)
    if (!token) return refused(ErrorCodes.DELEGATION_TOKEN_NOT_FOUND)
    if (expired(token, now)) return refused(ErrorCodes.DELEGATION_TOKEN_EXPIRED)
    if (!ownerOrRenewer(token, principal)) return refused(ErrorCodes.DELEGATION_TOKEN_OWNER_MISMATCH)
    const period = renewPeriodMs > 0 ? Math.min(this.settings.expiryTimeMs, renewPeriodMs) : this.settings.expiryTimeMs
    const expiryTimestamp = Math.min(token.maxTimestamp, now + period)
    this.controller.append({ type: 'delegation-token', token: { ...token, expiryTimestamp } })
    return { errorCode: ErrorCodes.NONE, expiryTimestamp }
  }

  /** ExpireDelegationToken: a negative period removes the token at once; else its expiry moves to now + period (at most its max). */
  expire(principal: TokenPrincipal, hmac: Uint8Array, periodMs: number, now = Date.now()): { errorCode: number; expiryTimestamp: number } {
    const refused = (errorCode: number) => ({ errorCode, expiryTimestamp: ERROR_TIMESTAMP })
    if (!this.enabled) return refused(ErrorCodes.DELEGATION_TOKEN_AUTH_DISABLED)
    const token = this.byHmac(hmac)
    if (!token) return refused(ErrorCodes.DELEGATION_TOKEN_NOT_FOUND)
    if (!ownerOrRenewer(token, principal)) return refused(ErrorCodes.DELEGATION_TOKEN_OWNER_MISMATCH)
    if (periodMs < 0) {
      this.controller.append({ type: 'remove-delegation-token', tokenId: token.tokenId })
      return { errorCode: ErrorCodes.NONE, expiryTimestamp: now }
    }
    if (expired(token, now)) return refused(ErrorCodes.DELEGATION_TOKEN_EXPIRED)
    const expiryTimestamp = Math.min(token.maxTimestamp, sum(now, periodMs))
    this.controller.append({ type: 'delegation-token', token: { ...token, expiryTimestamp } })
    return { errorCode: ErrorCodes.NONE, expiryTimestamp }
  }

  /** Every token `include` keeps, with its HMAC (DescribeDelegationToken). */
  describe(include: (t: Token) => boolean): Array<Token & { hmac: Buffer }> {
    return [...this.controller.delegationTokens.values()].filter(include).map((t) => ({ ...t, hmac: this.hmac(t.tokenId) }))
  }

  /** The expiry check (delegation.token.expiry.check.interval.ms): each token past its expiry or max removed, in one write. */
  sweep(now = Date.now()): void {
    const gone = [...this.controller.delegationTokens.values()].filter((t) => expired(t, now))
    if (!gone.length) return
    this.controller.atomically(() => {
      for (const t of gone) {
        this.info(`Delegation token expired for token: ${t.tokenId} for owner: ${principalText(t.owner)}`)
        this.controller.append({ type: 'remove-delegation-token', tokenId: t.tokenId })
      }
    })
  }

  /**
   * What a SCRAM exchange with `tokenauth=true` checks for token `tokenId`:
   * its owner (the connection's principal), its expiry (the session's end
   * under connections.max.reauth.ms) and a SCRAM credential of the HMAC's
   * base64, as Kafka's DelegationTokenCache holds; undefined for a token
   * there is not (or with tokens disabled).
   */
  async scram(
    hash: 'sha256' | 'sha512',
    tokenId: string,
  ): Promise<{ owner: string; expiryTimestamp: number; credential: ScramCredential } | undefined> {
    const token = this.enabled ? this.controller.delegationTokens.get(tokenId) : undefined
    if (!token) return undefined
    const key = `${hash}/${tokenId}`
    let credential = this.credentials.get(key)
    if (!credential) {
      credential = scramCredential(hash, this.hmac(tokenId).toString('base64'))
      this.credentials.set(key, credential)
      // A failed derivation is not kept: the next attempt makes it again.
      credential.catch(() => this.credentials.delete(key))
    }
    const made = await credential
    // Removed while the credential was made: refused as if never there.
    const now = this.controller.delegationTokens.get(tokenId)
    return now ? { owner: now.owner.name, expiryTimestamp: now.expiryTimestamp, credential: made } : undefined
  }
}

/** Past its expiry or its max (Kafka's `maxTimestamp < now || expiryTimestamp < now`). */
function expired(t: Token, now: number): boolean {
  return t.maxTimestamp < now || t.expiryTimestamp < now
}

/** Whether `p` owns or may renew the token (TokenInformation.ownerOrRenewer): who may renew, expire and always describe it. */
export function ownerOrRenewer(t: Token, p: TokenPrincipal): boolean {
  return samePrincipal(t.owner, p) || t.renewers.some((r) => samePrincipal(r, p))
}

async function scramCredential(hash: 'sha256' | 'sha512', password: string): Promise<ScramCredential> {
  const salt = randomBytes(24)
  const salted = await saltedPassword(hash, password, salt, TOKEN_ITERATIONS)
  const clientKey = createHmac(hash, salted).update('Client Key').digest()
  return {
    salt,
    iterations: TOKEN_ITERATIONS,
    storedKey: createHash(hash).update(clientKey).digest(),
    serverKey: createHmac(hash, salted).update('Server Key').digest(),
  }
}
