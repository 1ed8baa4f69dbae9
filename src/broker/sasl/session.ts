import { Buffer } from 'node:buffer'
import type { ApiSpec } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import type { RequestHeader } from '../../protocol/header.js'
import { ApiKeys } from '../../protocol/messages/api-keys.js'
import { apis } from '../../protocol/messages/index.js'
import { SaslAuthenticate } from '../../protocol/messages/SaslAuthenticate.js'
import { SaslHandshake } from '../../protocol/messages/SaslHandshake.js'
import type { Reader } from '../../protocol/reader.js'
import { handlers } from '../dispatch.js'
import type { SaslMechanismName, SaslUsers } from './credentials.js'
import { BrokerError, saslRefusal } from '../broker-error.js'
import { serverExchange, type ServerExchange } from './exchanges.js'

/** What the broker does with a request frame on a SASL listener. */
export type SaslVerdict =
  /** Authenticated (or ApiVersions before it): serve it as usual. */
  | { kind: 'pass' }
  /** Close without an answer. */
  | { kind: 'close'; why: string }
  /** Answer with this response, then close if `thenClose` says why. */
  | { kind: 'reply'; spec: ApiSpec; version: number; body: unknown; thenClose?: string }
  /** Answer with the request's own error response carrying `code`, then close. */
  | { kind: 'refuse'; code: number; thenClose: string }

/** Kafka refuses to start a re-authentication within a second of the last one (KafkaChannel). */
const MIN_REAUTH_INTERVAL_MS = 1000

/**
 * One connection's SASL state, as Kafka's SaslServerAuthenticator and
 * SocketServer keep it. Before authentication only ApiVersions (once, first)
 * and SaslHandshake are read; anything else closes the connection unanswered.
 * After the handshake only SaslAuthenticate (v1 handshake) or raw tokens (v0)
 * are; any other request is answered ILLEGAL_SASL_STATE, then closed. A
 * failed exchange is answered SASL_AUTHENTICATION_FAILED with a message, then
 * closed. Once authenticated, with connections.max.reauth.ms set, a session
 * lasts that long, or until its credential (a token) expires if sooner (sent as
 * session_lifetime_ms, as Kafka does with or without the setting): a SaslHandshake then starts
 * a re-authentication (KIP-368, same mechanism and user), and a request on an
 * expired session closes the connection.
 */
export class SaslSession {
  private state: 'initial' | 'handshake' | 'authenticate' | 'complete' | 'failed' = 'initial'
  private exchange: ServerExchange | null = null
  /** SaslHandshake v0: the tokens come as bare size-prefixed frames, not SaslAuthenticate requests. */
  private raw = false
  private mechanism: SaslMechanismName | null = null
  /** The authenticated user (Kafka's principal User:name). */
  user: string | null = null
  /** Whether it authenticated with a delegation token (Kafka's KafkaPrincipal.tokenAuthenticated). */
  tokenAuthenticated = false
  private expiresAt: number | null = null
  private reauthStartedAt = 0
  private reauthenticating = false
  private failedWhy = ''

  constructor(
    private readonly users: SaslUsers,
    private readonly maxReauthMs: number,
    /** Called at each completed authentication (the first lifts the pre-authentication request size limit). */
    private readonly onAuthenticated: () => void = () => {},
  ) {}

  /** Whether the connection has authenticated (a re-authentication in progress keeps it so). */
  get authenticated(): boolean {
    return this.user !== null
  }

  get expectsRawTokens(): boolean {
    return this.raw && this.state === 'authenticate'
  }

  private get what(): string {
    return this.reauthenticating ? 're-authentication' : 'authentication'
  }

  /** A raw SASL token (after a v0 handshake): the server's token as a size-prefixed frame, or a close. */
  async rawToken(token: Buffer): Promise<{ kind: 'raw'; bytes: Buffer } | { kind: 'close'; why: string }> {
    try {
      const out = await this.exchange!.evaluate(token)
      this.maybeComplete()
      const bytes = Buffer.alloc(4 + out.length)
      bytes.writeInt32BE(out.length, 0)
      out.copy(bytes, 4)
      return { kind: 'raw', bytes }
    } catch (err) {
      this.state = 'failed'
      if (!(err instanceof BrokerError)) throw err
      return { kind: 'close', why: `SASL ${this.mechanism} ${this.what} failed: ${err.message}` }
    }
  }

  async intercept(header: RequestHeader, r: Reader, now = Date.now()): Promise<SaslVerdict> {
    const { apiKey, apiVersion } = header
    const name = apis[apiKey]?.name ?? `API key ${apiKey}`
    switch (this.state) {
      case 'initial':
      case 'handshake':
        if (apiKey === ApiKeys.ApiVersions) {
          if (this.state !== 'initial') return { kind: 'close', why: 'ApiVersions again during the SASL handshake' }
          this.apiVersionsServed(apiVersion)
          return { kind: 'pass' }
        }
        if (apiKey === ApiKeys.SaslHandshake) return this.handshake(header, r)
        return { kind: 'close', why: `${name} before SASL authentication` }
      case 'authenticate':
        if (apiKey !== ApiKeys.SaslAuthenticate)
          return { kind: 'refuse', code: ErrorCodes.ILLEGAL_SASL_STATE, thenClose: `${name} during SASL ${this.what}` }
        return this.authenticate(header, r)
      case 'failed':
        return { kind: 'close', why: this.failedWhy }
      case 'complete':
        if (
          apiKey === ApiKeys.SaslHandshake &&
          this.expiresAt !== null &&
          (this.reauthStartedAt === 0 || now - this.reauthStartedAt >= MIN_REAUTH_INTERVAL_MS)
        ) {
          this.reauthStartedAt = now
          this.reauthenticating = true
          return this.handshake(header, r)
        }
        if (this.expiresAt !== null && now > this.expiresAt)
          return {
            kind: 'close',
            why: `${name} on an expired SASL session (connections.max.reauth.ms ${this.maxReauthMs}, or its credential's expiry)`,
          }
        return { kind: 'pass' }
    }
  }

  /**
   * An ApiVersions is served at `version` (here, or by the network thread as
   * the connection's first request). A version not served gets its
   * UNSUPPORTED_VERSION answer and may be asked again lower, as Kafka allows.
   */
  apiVersionsServed(version: number): void {
    const served = handlers[ApiKeys.ApiVersions]
    if (this.state === 'initial' && version >= served.minVersion && version <= served.maxVersion) this.state = 'handshake'
  }

  private handshake(header: RequestHeader, r: Reader): SaslVerdict {
    const version = header.apiVersion
    if (version < SaslHandshake.minVersion || version > SaslHandshake.maxVersion)
      return { kind: 'close', why: `SaslHandshake v${version} is not served` }
    let mechanism: string
    try {
      mechanism = SaslHandshake.decodeRequest(r, version).mechanism
    } catch (err) {
      return { kind: 'close', why: `malformed SaslHandshake v${version} request: ${(err as Error).message}` }
    }
    const enabled = [...this.users.mechanisms]
    if (!enabled.includes(mechanism as SaslMechanismName)) {
      return {
        kind: 'reply',
        spec: SaslHandshake,
        version,
        body: { errorCode: ErrorCodes.UNSUPPORTED_SASL_MECHANISM, mechanisms: enabled },
        thenClose: `unsupported SASL mechanism ${JSON.stringify(mechanism)} (enabled: ${enabled.join(', ')})`,
      }
    }
    if (this.reauthenticating && mechanism !== this.mechanism) {
      // As Kafka: the handshake is answered, the exchange that follows is refused.
      this.state = 'failed'
      this.failedWhy = `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.mechanism}'`
    } else {
      this.mechanism = mechanism as SaslMechanismName
      this.exchange = serverExchange(this.mechanism, this.users)
      this.raw = version === 0
      this.state = 'authenticate'
    }
    return { kind: 'reply', spec: SaslHandshake, version, body: { errorCode: ErrorCodes.NONE, mechanisms: enabled } }
  }

  private async authenticate(header: RequestHeader, r: Reader): Promise<SaslVerdict> {
    const version = header.apiVersion
    if (version < SaslAuthenticate.minVersion || version > SaslAuthenticate.maxVersion)
      return { kind: 'close', why: `SaslAuthenticate v${version} is not served` }
    let authBytes: Buffer
    try {
      authBytes = SaslAuthenticate.decodeRequest(r, version).authBytes
    } catch (err) {
      return { kind: 'close', why: `malformed SaslAuthenticate v${version} request: ${(err as Error).message}` }
    }
    let out: Buffer
    try {
      out = await this.exchange!.evaluate(authBytes)
      if (this.exchange!.user !== null && this.reauthenticating && this.exchange!.user !== this.user) {
        const m = `Cannot change principals during re-authentication from User.${this.user}: User.${this.exchange!.user}`
        throw saslRefusal(m, m)
      }
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      this.state = 'failed'
      this.failedWhy = 'SASL authentication failed'
      const errorMessage =
        err.clientMessage ?? `Authentication failed during ${this.what} due to invalid credentials with SASL mechanism ${this.mechanism}`
      return {
        kind: 'reply',
        spec: SaslAuthenticate,
        version,
        body: { errorCode: ErrorCodes.SASL_AUTHENTICATION_FAILED, errorMessage, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n },
        thenClose: `SASL ${this.mechanism} ${this.what} failed: ${err.message}`,
      }
    }
    const lifetime = this.maybeComplete()
    return {
      kind: 'reply',
      spec: SaslAuthenticate,
      version,
      body: { errorCode: ErrorCodes.NONE, errorMessage: null, authBytes: out, sessionLifetimeMs: BigInt(lifetime) },
    }
  }

  /** After a token: if the exchange is done, the session starts (its lifetime, 0 for none, returned). */
  private maybeComplete(): number {
    const exchange = this.exchange
    const user = exchange?.user
    if (user == null) return 0
    this.user = user
    this.tokenAuthenticated = exchange!.tokenAuthenticated
    this.exchange = null
    this.state = 'complete'
    this.raw = false
    this.reauthenticating = false
    // KIP-368, as Kafka's SaslServerAuthenticator: a session lasts connections.max.reauth.ms (when set) or until its
    // credential (an OAUTHBEARER or delegation token) expires, whichever is sooner; one already expired gets 0 and
    // ends at once (its next request closes the connection), 0 being also what the client is told.
    const now = Date.now()
    const credentialEnd = exchange!.expiresAtMs
    let lifetime = 0
    if (credentialEnd !== null || this.maxReauthMs > 0) {
      const untilCredentialEnds = credentialEnd === null ? Infinity : credentialEnd - now
      lifetime = Math.max(0, Math.min(this.maxReauthMs > 0 ? this.maxReauthMs : Infinity, untilCredentialEnds))
      this.expiresAt = now + lifetime
    } else this.expiresAt = null
    this.onAuthenticated()
    return lifetime
  }
}
