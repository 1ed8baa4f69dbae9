import { Buffer } from 'node:buffer'
import { builtin } from '../../node-builtins.js'
import { AuthenticationError } from '../../errors.js'
import type { SaslMechanism } from './types.js'

export type ScramHash = 'sha1' | 'sha256' | 'sha512'

const KEY_BYTES: Record<ScramHash, number> = { sha1: 20, sha256: 32, sha512: 64 }
/** RFC 7677 and Kafka's broker both want at least 4096 iterations; a higher bound keeps a hostile broker from burning our CPU. */
const MIN_ITERATIONS = 4096
const MAX_ITERATIONS = 1_000_000
/** No channel binding, no authzid (RFC 5802 section 7): base64 of it is 'biws'. */
const GS2_HEADER = 'n,,'

/** RFC 5802 section 5.1: ',' and '=' in a user name are written as '=2C' and '=3D'. */
export function escapeUsername(username: string): string {
  return username.replace(/=/g, '=3D').replace(/,/g, '=2C')
}

/** The attributes of a SCRAM message (`a=value,b=value`); values may contain '='. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of message.split(',')) {
    const eq = part.indexOf('=')
    if (eq !== 1) continue
    out.set(part[0], part.slice(2))
  }
  return out
}

/** SaltedPassword := Hi(password, salt, i), PBKDF2 with HMAC over the password's UTF-8 bytes (Kafka does no SASLprep). */
export function saltedPassword(hash: ScramHash, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    builtin('node:crypto').pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, KEY_BYTES[hash], hash, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

const hmac = (hash: ScramHash, key: Buffer, data: string | Buffer) => builtin('node:crypto').createHmac(hash, key).update(data).digest()

/**
 * The client side of one SCRAM exchange (RFC 5802, RFC 7677), as a state
 * machine over the three messages so it can be checked against the RFCs'
 * published conversations. The nonce is 24 bytes from the CSPRNG unless a
 * test supplies one.
 */
export class ScramClient {
  private readonly clientFirstBare: string
  private serverSignature: Buffer | undefined

  constructor(
    private readonly hash: ScramHash,
    username: string,
    private readonly password: string,
    private readonly nonce: string = builtin('node:crypto').randomBytes(24).toString('base64'),
    private readonly fail: (message: string) => Error = (m) => new Error(m),
    /** SCRAM extensions for the client-first message (KIP-48's `tokenauth=true`), in order. */
    extensions: Record<string, string> = {},
  ) {
    const ext = Object.entries(extensions)
      .map(([k, v]) => `,${k}=${v}`)
      .join('')
    this.clientFirstBare = `n=${escapeUsername(username)},r=${nonce}${ext}`
  }

  firstMessage(): string {
    return GS2_HEADER + this.clientFirstBare
  }

  /** The client-final message (with the proof) for the server-first message. */
  async finalMessage(serverFirst: string): Promise<string> {
    const attrs = attributes(serverFirst)
    if (attrs.has('m')) throw this.fail('the broker asked for a SCRAM extension this client does not know')
    const serverNonce = attrs.get('r')
    const salt = attrs.get('s')
    const iterations = Number(attrs.get('i'))
    if (!serverNonce || !serverNonce.startsWith(this.nonce) || serverNonce.length <= this.nonce.length) {
      throw this.fail("the broker's SCRAM nonce does not extend ours")
    }
    if (!salt) throw this.fail('the broker sent no SCRAM salt')
    if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
      throw this.fail(`the broker asked for ${attrs.get('i')} SCRAM iterations (accepted: ${MIN_ITERATIONS}-${MAX_ITERATIONS})`)
    }
    const salted = await saltedPassword(this.hash, this.password, Buffer.from(salt, 'base64'), iterations)
    const clientKey = hmac(this.hash, salted, 'Client Key')
    const storedKey = builtin('node:crypto').createHash(this.hash).update(clientKey).digest()
    const withoutProof = `c=${Buffer.from(GS2_HEADER).toString('base64')},r=${serverNonce}`
    const authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`
    const clientSignature = hmac(this.hash, storedKey, authMessage)
    const proof = Buffer.alloc(clientKey.length)
    for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i] ^ clientSignature[i]
    this.serverSignature = hmac(this.hash, hmac(this.hash, salted, 'Server Key'), authMessage)
    return `${withoutProof},p=${proof.toString('base64')}`
  }

  /** Checks the server-final message: the broker proves it knows the password, or the exchange fails. */
  verify(serverFinal: string): void {
    const attrs = attributes(serverFinal)
    const error = attrs.get('e')
    if (error !== undefined) throw this.fail(`the broker refused the SCRAM proof: ${error}`)
    const verifier = Buffer.from(attrs.get('v') ?? '', 'base64')
    if (
      !this.serverSignature ||
      verifier.length !== this.serverSignature.length ||
      !builtin('node:crypto').timingSafeEqual(verifier, this.serverSignature)
    ) {
      throw this.fail('the broker could not prove it knows the password (bad SCRAM server signature): refusing it')
    }
  }
}

/** SCRAM with a user's password, or (`tokenAuth`) a delegation token's id and HMAC, sent with Kafka's `tokenauth=true` extension. */
export function scramMechanism(hash: 'sha256' | 'sha512', username: string, password: string, tokenAuth = false): SaslMechanism {
  const name = hash === 'sha256' ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512'
  return {
    name,
    async authenticate(exchange, context) {
      const client = new ScramClient(
        hash,
        username,
        password,
        undefined,
        (message) =>
          new AuthenticationError(`${name} authentication with ${context.broker} failed: ${message}`, {
            mechanism: name,
            broker: context.broker,
          }),
        tokenAuth ? { tokenauth: 'true' } : {},
      )
      const serverFirst = await exchange(Buffer.from(client.firstMessage(), 'utf8'))
      const serverFinal = await exchange(Buffer.from(await client.finalMessage(serverFirst.toString('utf8')), 'utf8'))
      client.verify(serverFinal.toString('utf8'))
    },
  }
}
