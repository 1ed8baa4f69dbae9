import type { Buffer } from 'node:buffer'

/** PLAIN and SCRAM: a user name and password. */
export interface PasswordSaslConfig {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'
  username: string
  password: string
  /**
   * SCRAM only: authenticate with a delegation token (KIP-48), as Java's
   * ScramLoginModule `tokenauth=true`: username is the token id, password
   * its HMAC in base64; the broker takes the connection as the token's owner.
   */
  tokenAuth?: boolean
}

/** KafkaJS's AWS mechanism: an identity and AWS credentials, sent as one SASL message. */
export interface AwsSaslConfig {
  mechanism: 'aws'
  authorizationIdentity: string
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

/** What an OAUTHBEARER token provider returns (KafkaJS's shape, plus KIP-342 extensions). */
export interface OauthbearerToken {
  /** The bearer token (e.g. a JWT). */
  value: string
  /** SASL extensions sent beside the token (KIP-342), e.g. { logicalCluster: 'lkc-123' }. */
  extensions?: Record<string, string>
}

/** OAUTHBEARER: the provider is asked for a token on every authentication, re-authentications included. */
export interface OauthbearerSaslConfig {
  mechanism: 'oauthbearer'
  oauthBearerProvider: () => OauthbearerToken | Promise<OauthbearerToken>
}

/**
 * One SaslAuthenticate round trip, as KafkaJS's custom mechanisms see it:
 * `request.encode()` gives the bytes to send, length-prefixed as KafkaJS's
 * `new Encoder().writeBytes(bytes).buffer` gives them; the broker's bytes,
 * length-prefixed the same way, go through `response.decode` then
 * `response.parse`, whose result is returned.
 */
export type SaslAuthenticateFn = <T = unknown>(exchange: {
  request: { encode(): Buffer | Uint8Array | Promise<Buffer | Uint8Array> }
  response?: { decode(raw: Buffer): unknown | Promise<unknown>; parse(data: any): T }
}) => Promise<T | undefined>

/** What a custom mechanism's provider is given (KafkaJS's shape). */
export interface AuthenticationProviderArgs {
  host: string
  port: number
  logger: SaslLogger
  saslAuthenticate: SaslAuthenticateFn
}

export interface SaslLogger {
  debug(message: string, extra?: object): void
  info(message: string, extra?: object): void
  warn(message: string, extra?: object): void
  error(message: string, extra?: object): void
}

/** A mechanism wafka does not build in (AWS MSK IAM, ...): KafkaJS's authenticationProvider shape. */
export interface CustomSaslConfig {
  /** The SASL mechanism name the broker knows (sent upper-cased, as SASL names are). */
  mechanism: string
  authenticationProvider: (args: AuthenticationProviderArgs) => { authenticate(): Promise<void> }
}

export type SaslConfig = PasswordSaslConfig | AwsSaslConfig | OauthbearerSaslConfig | CustomSaslConfig

/**
 * The `sasl` option: a config, or a function giving one (called on every
 * authentication, so credentials can rotate without a new client).
 */
export type SaslOption = SaslConfig | (() => SaslConfig | Promise<SaslConfig>)

/**
 * A mechanism's side of the conversation. `exchange` sends bytes in one
 * SaslAuthenticate and resolves to the broker's answer (a broker error
 * rejects it with an AuthenticationError).
 */
export interface SaslMechanism {
  /** The name sent in SaslHandshake, e.g. 'SCRAM-SHA-512'. */
  readonly name: string
  authenticate(exchange: (bytes: Buffer) => Promise<Buffer>, context: { host: string; port: number; broker: string }): Promise<void>
}
