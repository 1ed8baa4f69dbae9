import { Buffer } from 'node:buffer'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { saslRefusal } from '../broker-error.js'
import type { SaslMechanismName, SaslUsers, ScramCredential } from './credentials.js'
import { readInitialResponse, TokenRefused } from './oauthbearer.js'

/** One server side of one SASL exchange: each client token in, the server's token out, until done. */
export interface ServerExchange {
  readonly mechanism: SaslMechanismName
  /** The server's answer to the client's next token; throws BrokerError (saslRefusal) when the client is refused. */
  evaluate(token: Buffer): Promise<Buffer>
  /** Set once the exchange has succeeded: the authenticated user. */
  readonly user: string | null
  /** When the credential itself expires (an OAUTHBEARER token, a delegation token), epoch ms; null when it does not. */
  readonly expiresAtMs: number | null
  /** Whether the client authenticated with a delegation token (SCRAM's tokenauth extension): Kafka's tokenAuthenticated principal. */
  readonly tokenAuthenticated: boolean
}

export function serverExchange(mechanism: SaslMechanismName, users: SaslUsers): ServerExchange {
  if (mechanism === 'PLAIN') return new PlainServer(users)
  if (mechanism === 'OAUTHBEARER') return new OauthbearerServer(users)
  return new ScramServer(mechanism, mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512', users)
}

/** RFC 4616: one message, `authzid NUL authcid NUL passwd`; an authzid, if any, must be the user (as Kafka's PlainSaslServer). */
class PlainServer implements ServerExchange {
  readonly mechanism = 'PLAIN' as const
  user: string | null = null
  readonly expiresAtMs = null
  readonly tokenAuthenticated = false

  constructor(private readonly users: SaslUsers) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    if (this.user !== null) throw saslRefusal('PLAIN: a token after the exchange completed')
    const parts = token.toString('utf8').split('\0')
    const visible = (m: string) => saslRefusal(m, m)
    if (parts.length !== 3) throw visible(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`)
    const [authzid, user, password] = parts
    if (!user) throw visible('Authentication failed: username not specified')
    if (!password) throw visible('Authentication failed: password not specified')
    if (authzid && authzid !== user)
      throw visible('Authentication failed: Client requested an authorization id that is different from username')
    if (!this.users.checkPlain(user, password)) throw visible('Authentication failed: Invalid username or password')
    this.user = user
    return Buffer.alloc(0)
  }
}

/** RFC 5802 section 5.1: '=2C' and '=3D' in a user name stand for ',' and '='; any other '=' is malformed. */
function unescapeUsername(s: string): string | null {
  if (/=(?!2C|3D)/.test(s)) return null
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=')
}

const hmac = (hash: 'sha256' | 'sha512', key: Buffer, data: string) => createHmac(hash, key).update(data).digest()

/** SCRAM extensions after the nonce (`,key=value` each), as Kafka's ScramExtensions reads them; null when malformed. */
function scramExtensions(s: string): Map<string, string> | null {
  const out = new Map<string, string>()
  for (const part of s.split(',').slice(1)) {
    const m = /^(\w+)=(.*)$/.exec(part)
    if (!m) return null
    out.set(m[1], m[2])
  }
  return out
}

/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677) over the
 * credentials the broker stores: client-first → server-first (the client's
 * nonce extended by 24 CSPRNG bytes, the salt, the iterations);
 * client-final → the proof checked against the stored key, and the server
 * signature sent back so the client can check the broker in turn. With
 * the `tokenauth=true` extension the user name is a delegation token's id
 * and the password its HMAC: the principal is the token's owner (Kafka's
 * ScramSaslServer). Other extensions are ignored, as Kafka's.
 */
class ScramServer implements ServerExchange {
  user: string | null = null
  expiresAtMs: number | null = null
  tokenAuthenticated = false
  private step: 'first' | 'final' | 'done' = 'first'
  private gs2Header = ''
  private clientFirstBare = ''
  private serverFirst = ''
  private nonce = ''
  private credential: ScramCredential | undefined
  /** The user named in client-first, authenticated once the proof checks. */
  private pendingUser = ''

  constructor(
    readonly mechanism: SaslMechanismName,
    private readonly hash: 'sha256' | 'sha512',
    private readonly users: SaslUsers,
  ) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    const message = token.toString('utf8')
    if (this.step === 'first') return Buffer.from(await this.first(message), 'utf8')
    if (this.step === 'final') return Buffer.from(this.final(message), 'utf8')
    throw saslRefusal(`${this.mechanism}: a token after the exchange completed`)
  }

  private async first(message: string): Promise<string> {
    // gs2-header: no channel binding ('n', or 'y': the client could but thinks we cannot), an optional authzid.
    const m = /^([ny]),(a=[^,]*)?,(n=[^,]*),(r=[^,]+)((?:,[^,]*)*)$/.exec(message)
    if (!m) throw saslRefusal(`${this.mechanism}: malformed client-first message`)
    const user = unescapeUsername(m[3].slice(2))
    if (!user) throw saslRefusal(`${this.mechanism}: malformed user name in the client-first message`)
    const extensions = scramExtensions(m[5])
    if (!extensions) throw saslRefusal(`${this.mechanism}: malformed SCRAM extensions`)
    const authzid = m[2] ? unescapeUsername(m[2].slice(2)) : ''
    if (extensions.get('tokenauth')?.toLowerCase() === 'true') {
      const token = await this.users.token?.(this.hash, user)
      if (!token) throw saslRefusal(`${this.mechanism}: Token Authentication failed: Invalid tokenId: ${JSON.stringify(user)}`)
      this.credential = token.credential
      this.tokenAuthenticated = true
      this.expiresAtMs = token.expiryTimestamp
      this.pendingUser = token.owner
    } else {
      this.credential = this.users.scramCredential(this.hash, user)
      if (!this.credential) throw saslRefusal(`${this.mechanism}: unknown user ${JSON.stringify(user)}`)
      this.pendingUser = user
    }
    if (authzid && authzid !== user) {
      const reason = 'Authentication failed: Client requested an authorization id that is different from username'
      throw saslRefusal(reason, reason)
    }
    this.gs2Header = `${m[1]},${m[2] ?? ''},`
    this.clientFirstBare = `${m[3]},${m[4]}${m[5]}`
    this.nonce = m[4].slice(2) + randomBytes(24).toString('base64')
    this.serverFirst = `r=${this.nonce},s=${this.credential.salt.toString('base64')},i=${this.credential.iterations}`
    this.step = 'final'
    return this.serverFirst
  }

  private final(message: string): string {
    const credential = this.credential!
    const m = /^c=([^,]*),r=([^,]*)((?:,[^,]*)*?),p=([^,]+)$/.exec(message)
    if (!m) throw saslRefusal(`${this.mechanism}: malformed client-final message`)
    if (Buffer.from(m[1], 'base64').toString('utf8') !== this.gs2Header)
      throw saslRefusal(`${this.mechanism}: the channel binding does not repeat the client-first header`)
    // endsWith, as Kafka's ScramSaslServer checked through 3.9: librdkafka (2.0.2 here) sends its own nonce again before the
    // combined one. Kafka 4.4 wants equality and so refuses its SCRAM; we keep those clients working. The proof still
    // covers the message as sent, and the server's fresh nonce must end it, so nothing old can be replayed.
    if (!m[2].endsWith(this.nonce)) throw saslRefusal(`${this.mechanism}: invalid client nonce in the final client message`)
    const withoutProof = message.slice(0, message.lastIndexOf(',p='))
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`
    const proof = Buffer.from(m[4], 'base64')
    const signature = hmac(this.hash, credential.storedKey, authMessage)
    if (proof.length !== signature.length)
      throw saslRefusal(`${this.mechanism}: invalid client proof for ${JSON.stringify(this.pendingUser)}`)
    const clientKey = Buffer.alloc(proof.length)
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i] ^ signature[i]
    if (!timingSafeEqual(createHash(this.hash).update(clientKey).digest(), credential.storedKey))
      throw saslRefusal(`${this.mechanism}: invalid client proof for ${JSON.stringify(this.pendingUser)}`)
    this.step = 'done'
    this.user = this.pendingUser
    return `v=${hmac(this.hash, credential.serverKey, authMessage).toString('base64')}`
  }
}

/**
 * The server side of OAUTHBEARER (RFC 7628, KIP-255), as Kafka's
 * OAuthBearerSaslServer: the initial response's bearer token checked by the
 * configured validator. A token refused is answered with RFC 7628's JSON
 * error challenge; the client acknowledges it with a lone %x01 and the
 * exchange then fails with that status. A malformed response fails at once.
 * Extensions are accepted as Kafka's default validators accept them.
 */
class OauthbearerServer implements ServerExchange {
  readonly mechanism = 'OAUTHBEARER' as const
  user: string | null = null
  expiresAtMs: number | null = null
  readonly tokenAuthenticated = false
  private refused: TokenRefused | null = null

  constructor(private readonly users: SaslUsers) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    if (this.user !== null) throw saslRefusal('OAUTHBEARER: a token after the exchange completed')
    if (this.refused) {
      const refused = this.refused
      if (token.length === 1 && token[0] === 1) throw saslRefusal(`OAUTHBEARER: ${refused.reason}`, refused.challenge)
      throw saslRefusal('OAUTHBEARER: the client went on after the error challenge instead of acknowledging it')
    }
    let response: ReturnType<typeof readInitialResponse>
    try {
      response = readInitialResponse(token.toString('utf8'))
    } catch (err) {
      if (err instanceof TokenRefused) throw saslRefusal(`OAUTHBEARER: ${err.reason}`)
      throw err
    }
    try {
      const valid = await this.users.validateToken(response.token)
      if (response.authzid && response.authzid !== valid.principal) {
        const reason = `Authentication failed: Client requested an authorization id (${response.authzid}) that is different from the token's principal name (${valid.principal})`
        throw saslRefusal(reason, reason)
      }
      this.user = valid.principal
      this.expiresAtMs = valid.expiresAtMs
      return Buffer.alloc(0)
    } catch (err) {
      if (!(err instanceof TokenRefused)) throw err
      this.refused = err
      return Buffer.from(err.challenge, 'utf8')
    }
  }
}
