import { Buffer } from 'node:buffer'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { nearest } from '../../config/option.js'
import { saltedPassword, type ScramHash } from '../../net/sasl/scram.js'
import { jwksValidator, unsecuredValidator, type OauthbearerOptions, type TokenValidator } from './oauthbearer.js'

export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER'
/** The mechanisms served. */
export const MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER']
/** Those enabled when none are named: the password ones (OAUTHBEARER needs its validator chosen). */
const DEFAULT_MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']
const SASL_KEYS = ['mechanisms', 'users', 'scramIterations', 'oauthbearer']

export interface BrokerSaslOptions {
  /** Enabled mechanisms (sasl.enabled.mechanisms). Default PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. */
  mechanisms?: SaslMechanismName[]
  /** The users and their passwords; each may authenticate with every enabled password mechanism. */
  users: Record<string, string>
  /**
   * How OAUTHBEARER tokens are checked, when it is enabled: signed tokens
   * from a JWKS, or Kafka's default unsecured validator (unsigned tokens,
   * for tests only), which is what enabling OAUTHBEARER without this gives.
   */
  oauthbearer?: OauthbearerOptions
  /** SCRAM iterations for the stored credentials (RFC 7677 and Kafka: at least 4096). Default 4096. */
  scramIterations?: number
}

/** What a SCRAM server keeps of a password (RFC 5802 section 3): never the password itself. */
export interface ScramCredential {
  salt: Buffer
  iterations: number
  storedKey: Buffer
  serverKey: Buffer
}

/** What authenticates a delegation token over SCRAM: the credential of its HMAC, and who it stands for until when. */
export interface TokenCredential {
  /** The token owner's name: the connection's principal. */
  owner: string
  /** Epoch ms. */
  expiryTimestamp: number
  credential: ScramCredential
}

const hmac = (hash: ScramHash, key: Buffer, data: string | Buffer) => createHmac(hash, key).update(data).digest()

/**
 * The broker's user store, made once at start: for PLAIN a keyed hash of
 * each password (compared in constant time), for SCRAM the salted keys per
 * hash. The passwords themselves are not kept, so nothing can print them.
 */
export class SaslUsers {
  private constructor(
    readonly mechanisms: readonly SaslMechanismName[],
    private readonly plainKey: Buffer,
    private readonly plain: Map<string, Buffer>,
    private readonly scram: Map<string, ScramCredential>,
    /** OAUTHBEARER's token check; throws TokenRefused. */
    readonly validateToken: TokenValidator,
  ) {}

  static async create(options: BrokerSaslOptions): Promise<SaslUsers> {
    const unknown = Object.keys(options).find((k) => !SASL_KEYS.includes(k))
    if (unknown !== undefined) {
      const near = nearest(unknown, SASL_KEYS)
      throw new RangeError(`startCluster: unknown sasl option ${unknown}${near ? ` (did you mean ${near}?)` : ''}`)
    }
    const mechanisms = options.mechanisms ?? [...DEFAULT_MECHANISMS]
    if (!Array.isArray(mechanisms) || mechanisms.length === 0)
      throw new RangeError('startCluster: sasl.mechanisms must list at least one mechanism')
    for (const m of mechanisms)
      if (!MECHANISMS.includes(m)) throw new RangeError(`startCluster: unknown SASL mechanism ${m} (served: ${MECHANISMS.join(', ')})`)
    const iterations = options.scramIterations ?? 4096
    if (!Number.isInteger(iterations) || iterations < 4096 || iterations > 1_000_000)
      throw new RangeError(`startCluster: sasl.scramIterations must be an integer from 4096 to 1000000, not ${iterations}`)
    const users = options.users
    if (!users || typeof users !== 'object') throw new TypeError('startCluster: sasl.users must map user names to passwords')
    const plainKey = randomBytes(32)
    const plain = new Map<string, Buffer>()
    const scram = new Map<string, ScramCredential>()
    for (const [name, password] of Object.entries(users)) {
      if (!name) throw new RangeError('startCluster: sasl.users has an empty user name')
      if (typeof password !== 'string' || !password) throw new RangeError(`startCluster: sasl.users: user ${name} has no password`)
      plain.set(name, hmac('sha256', plainKey, password))
      for (const hash of ['sha256', 'sha512'] as const) {
        const salt = randomBytes(24)
        const salted = await saltedPassword(hash, password, salt, iterations)
        scram.set(`${hash}/${name}`, {
          salt,
          iterations,
          storedKey: createHash(hash)
            .update(hmac(hash, salted, 'Client Key'))
            .digest(),
          serverKey: hmac(hash, salted, 'Server Key'),
        })
      }
    }
    return new SaslUsers(mechanisms, plainKey, plain, scram, tokenValidator(mechanisms, options.oauthbearer))
  }

  /** Whether `password` is `user`'s, in constant time for users that exist. */
  checkPlain(user: string, password: string): boolean {
    const expected = this.plain.get(user)
    const given = hmac('sha256', this.plainKey, password)
    return expected !== undefined && timingSafeEqual(expected, given)
  }

  /**
   * Credentials set or deleted since start (AlterUserScramCredentials, kept
   * by the controller): undefined when none was, null when deleted. Set by
   * the cluster.
   */
  changed: ((hash: 'sha256' | 'sha512', user: string) => ScramCredential | null | undefined) | null = null

  /**
   * A delegation token's owner, expiry and SCRAM credential, for a SCRAM
   * exchange with `tokenauth=true` (undefined: no such token). Set by the
   * cluster (src/broker/sasl/delegation-tokens.ts).
   */
  token: ((hash: 'sha256' | 'sha512', tokenId: string) => Promise<TokenCredential | undefined>) | null = null

  scramCredential(hash: 'sha256' | 'sha512', user: string): ScramCredential | undefined {
    const changed = this.changed?.(hash, user)
    if (changed !== undefined) return changed ?? undefined
    return this.scram.get(`${hash}/${user}`)
  }

  /** The SCRAM credentials the broker was started with: hash, user and iterations. */
  *startingScram(): Iterable<{ hash: 'sha256' | 'sha512'; user: string; iterations: number }> {
    for (const [key, c] of this.scram) {
      const slash = key.indexOf('/')
      yield { hash: key.slice(0, slash) as 'sha256' | 'sha512', user: key.slice(slash + 1), iterations: c.iterations }
    }
  }
}

function tokenValidator(mechanisms: readonly SaslMechanismName[], options: OauthbearerOptions | undefined): TokenValidator {
  if (!mechanisms.includes('OAUTHBEARER')) {
    if (options) throw new RangeError('startCluster: sasl.oauthbearer is set but sasl.mechanisms does not enable OAUTHBEARER')
    return async () => {
      throw new Error('OAUTHBEARER is not enabled')
    }
  }
  if (options === undefined || 'unsecured' in options) return unsecuredValidator(options?.unsecured)
  if ('jwks' in options && options.jwks && typeof options.jwks.jwksUrl === 'string') {
    try {
      new URL(options.jwks.jwksUrl)
    } catch {
      throw new RangeError(`startCluster: sasl.oauthbearer.jwks.jwksUrl is not a URL: ${options.jwks.jwksUrl}`)
    }
    return jwksValidator(options.jwks)
  }
  throw new TypeError('startCluster: sasl.oauthbearer must be { unsecured: {...} } or { jwks: { jwksUrl, ... } }')
}
