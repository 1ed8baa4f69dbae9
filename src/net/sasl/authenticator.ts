import { Buffer } from 'node:buffer'
import { AuthenticationError, TimeoutError, UnsupportedApiError, WafkaError } from '../../errors.js'
import type { ApiSpec, Input } from '../../protocol/api.js'
import { ErrorCodes, errorCodeInfo } from '../../protocol/error-codes.js'
import { SaslAuthenticate, SaslHandshake } from '../../protocol/messages/index.js'
import { saslMechanism } from './config.js'
import type { SaslConfig, SaslOption } from './types.js'

const { UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE } = ErrorCodes
const codeName = (code: number) => errorCodeInfo(code)?.name ?? 'UNKNOWN_ERROR_CODE'

/** What a SASL session needs of its connection. */
export interface SaslTransport {
  readonly name: string
  readonly host: string
  readonly port: number
  supports(api: ApiSpec<any, any>, version?: number): boolean
  versionFor(api: ApiSpec<any, any>): number
  /** A request that does not wait for exclusive() to end (only SASL's own). */
  request<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: Input<Req>,
    options: { version?: number; timeoutMs?: number; exclusive?: boolean },
  ): Promise<Res>
  /** Runs fn once nothing else is in flight, holding other requests back until it ends. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  close(error?: Error): void
}

export interface SaslAuthenticatorOptions {
  sasl: SaslOption
  /** The whole authentication (handshake and every exchange) must end within this. */
  authenticationTimeoutMs: number
  /** Re-authenticate this long before the broker's session lifetime ends (KIP-368). */
  reauthenticationThresholdMs: number
}

/**
 * SASL on one connection: SaslHandshake v1 then SaslAuthenticate exchanges
 * driven by the mechanism, after ApiVersions. When the broker gives the
 * session a lifetime (connections.max.reauth.ms, or a token's expiry), the
 * session re-authenticates on the same connection before it ends, with
 * other requests held back meanwhile so nothing interleaves with the SASL
 * exchange and nothing is reordered.
 */
export class SaslAuthenticator {
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = false
  /** How many authentications completed (the first and each re-authentication). */
  authentications = 0

  constructor(
    private readonly conn: SaslTransport,
    private readonly options: SaslAuthenticatorOptions,
  ) {}

  /** The first authentication; rejects with an AuthenticationError (or TimeoutError, ConfigError). */
  async start(): Promise<void> {
    await this.authenticate()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private async authenticate(): Promise<void> {
    const started = Date.now()
    const deadline = started + this.options.authenticationTimeoutMs
    const config = typeof this.options.sasl === 'function' ? await this.credentials(this.options.sasl) : this.options.sasl
    const mechanism = saslMechanism(config)
    const broker = this.conn.name
    if (!this.conn.supports(SaslHandshake, 1) || !this.conn.supports(SaslAuthenticate)) {
      throw new UnsupportedApiError(
        `${broker} does not speak SaslHandshake v1 and SaslAuthenticate (Kafka 1.0+), which wafka needs for SASL`,
      )
    }
    const remaining = () => {
      const left = deadline - Date.now()
      if (left <= 0)
        throw new TimeoutError(
          `${mechanism.name} authentication with ${broker} took longer than authenticationTimeoutMs (${this.options.authenticationTimeoutMs} ms)`,
        )
      return left
    }
    const handshake = await this.conn.request(
      SaslHandshake,
      { mechanism: mechanism.name },
      { version: 1, timeoutMs: remaining(), exclusive: true },
    )
    if (handshake.errorCode !== 0) {
      const code = handshake.errorCode
      const enabled = handshake.mechanisms.length ? handshake.mechanisms.join(', ') : 'none'
      const why =
        code === UNSUPPORTED_SASL_MECHANISM
          ? `${broker} does not enable SASL mechanism ${mechanism.name}; it enables: ${enabled}`
          : code === ILLEGAL_SASL_STATE
            ? `${broker} refused SASL (${codeName(code)}): this listener does not use SASL (a PLAINTEXT or SSL one?)`
            : `SaslHandshake for ${mechanism.name} with ${broker} failed: ${codeName(code)} (${code})`
      throw new AuthenticationError(why, { code, type: codeName(code), mechanism: mechanism.name, broker, api: 'SaslHandshake' })
    }
    const version = this.conn.versionFor(SaslAuthenticate)
    let lifetimeMs = 0
    const exchange = async (authBytes: Buffer): Promise<Buffer> => {
      const res = await this.conn.request(SaslAuthenticate, { authBytes }, { version, timeoutMs: remaining(), exclusive: true })
      if (res.errorCode !== 0) {
        const said = res.errorMessage ? `: ${res.errorMessage}` : ''
        throw new AuthenticationError(`${mechanism.name} authentication with ${broker} failed${said}`, {
          code: res.errorCode,
          type: codeName(res.errorCode),
          mechanism: mechanism.name,
          broker,
          brokerMessage: res.errorMessage,
          api: 'SaslAuthenticate',
        })
      }
      if (res.sessionLifetimeMs > 0n) lifetimeMs = Number(res.sessionLifetimeMs)
      return res.authBytes ?? Buffer.alloc(0)
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TimeoutError(
              `${mechanism.name} authentication with ${broker} took longer than authenticationTimeoutMs (${this.options.authenticationTimeoutMs} ms)`,
            ),
          ),
        Math.max(0, deadline - Date.now()),
      )
    })
    try {
      await Promise.race([mechanism.authenticate(exchange, { host: this.conn.host, port: this.conn.port, broker }), timeout])
    } catch (err) {
      // A mechanism's own failure (a bug in a custom provider, a bad token) is not retriable either.
      if (err instanceof WafkaError) throw err
      throw new AuthenticationError(`${mechanism.name} authentication with ${broker} failed: ${(err as Error)?.message ?? String(err)}`, {
        mechanism: mechanism.name,
        broker,
        cause: err,
      })
    } finally {
      clearTimeout(timer)
    }
    this.authentications++
    if (lifetimeMs > 0) this.schedule(started, lifetimeMs)
  }

  private async credentials(fn: () => SaslConfig | Promise<SaslConfig>): Promise<SaslConfig> {
    try {
      return await fn()
    } catch (err) {
      if (err instanceof WafkaError) throw err
      throw new AuthenticationError(`the sasl function failed for ${this.conn.name}: ${(err as Error)?.message ?? String(err)}`, {
        broker: this.conn.name,
        cause: err,
      })
    }
  }

  /**
   * The session ends `lifetimeMs` after the broker checked it (measured from
   * before we asked, to be safe): re-authenticate `reauthenticationThresholdMs`
   * before that, but never in the first half of a short session.
   */
  private schedule(started: number, lifetimeMs: number): void {
    if (this.stopped) return
    const delay = Math.max(lifetimeMs / 2, lifetimeMs - this.options.reauthenticationThresholdMs)
    this.timer = setTimeout(() => this.reauthenticate(), Math.max(0, started + delay - Date.now()))
    this.timer.unref?.()
  }

  private reauthenticate(): void {
    if (this.stopped) return
    this.conn
      .exclusive(() => this.authenticate())
      .catch((err) => {
        // The broker closes a connection whose session ended; close it now, saying why.
        if (!this.stopped) this.conn.close(err as Error)
      })
  }
}
