import type { Buffer } from 'node:buffer'
import type { Logger } from './logger.js'

/** KafkaJS's SASL vocabulary, for programs that name these types. */

export interface OauthbearerProviderResponse {
  value: string
  /** KIP-342 extensions sent beside the token (wafka sends them; KafkaJS 2.2.4 does not). */
  extensions?: Record<string, string>
}

/** The mechanisms KafkaJS builds in, with the options each takes. */
export interface SASLMechanismOptionsMap {
  plain: { username: string; password: string }
  'scram-sha-256': { username: string; password: string }
  'scram-sha-512': { username: string; password: string }
  /** KafkaJS's AWS mechanism (not Amazon MSK IAM: for that, see oauthbearer in the README). */
  aws: { authorizationIdentity: string; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  oauthbearer: { oauthBearerProvider: () => Promise<OauthbearerProviderResponse> }
}

export type SASLMechanism = keyof SASLMechanismOptionsMap
type MechanismOptions<T> = T extends SASLMechanism ? { mechanism: T } & SASLMechanismOptionsMap[T] : never
export type SASLOptions = MechanismOptions<SASLMechanism>

/** A custom mechanism's side of the conversation (KafkaJS's shapes). */
export interface Authenticator {
  authenticate: () => Promise<void>
}

export interface SaslAuthenticateArgs<ParseResult> {
  request: { encode: () => Buffer | Promise<Buffer> }
  response?: { decode: (rawResponse: Buffer) => Buffer | Promise<Buffer>; parse: (data: Buffer) => ParseResult }
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s AuthenticationProviderArgs. */
export interface AuthenticationProviderArgs {
  host: string
  port: number
  logger: Logger
  saslAuthenticate: <ParseResult>(args: SaslAuthenticateArgs<ParseResult>) => Promise<ParseResult | void>
}

export interface Mechanism {
  mechanism: string
  authenticationProvider: (args: AuthenticationProviderArgs) => Authenticator
}
