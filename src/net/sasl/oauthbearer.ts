import { Buffer } from 'node:buffer'
import { AuthenticationError, ConfigError } from '../../errors.js'
import type { OauthbearerToken, SaslMechanism } from './types.js'

const SEP = '\u0001'
/** RFC 6750 b64token. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
/** RFC 7628 section 3.1: key and value syntax of the key/value pairs. */
const EXTENSION_KEY = /^[A-Za-z]+$/
const EXTENSION_VALUE = /^[\x21-\x7E \t\r\n]+$/

/** The client's initial response (RFC 7628 section 3.1, KIP-342 extensions): the GS2 header, auth=Bearer, the extensions. */
export function oauthbearerInitialResponse(token: OauthbearerToken): Buffer {
  if (!token || typeof token.value !== 'string' || !BEARER_TOKEN.test(token.value)) {
    // Never the token itself: only that it is malformed.
    throw new ConfigError('oauthBearerProvider must resolve to { value } with a bearer token (RFC 6750 characters)')
  }
  let extensions = ''
  for (const [key, value] of Object.entries(token.extensions ?? {})) {
    if (key === 'auth' || !EXTENSION_KEY.test(key))
      throw new ConfigError(`OAUTHBEARER extension name '${key}' is not allowed (letters only, not 'auth')`)
    if (typeof value !== 'string' || !EXTENSION_VALUE.test(value))
      throw new ConfigError(`OAUTHBEARER extension '${key}' has a value with characters RFC 7628 does not allow`)
    extensions += `${SEP}${key}=${value}`
  }
  return Buffer.from(`n,,${SEP}auth=Bearer ${token.value}${extensions}${SEP}${SEP}`, 'utf8')
}

/** OAUTHBEARER (RFC 7628, KIP-255): the provider is called for each authentication, so re-authentications carry a fresh token. */
export function oauthbearerMechanism(provider: () => OauthbearerToken | Promise<OauthbearerToken>): SaslMechanism {
  return {
    name: 'OAUTHBEARER',
    async authenticate(exchange, context) {
      const answer = await exchange(oauthbearerInitialResponse(await provider()))
      if (answer.length === 0) return
      // A refusal comes as a JSON error status; RFC 7628 3.2.3: acknowledge it
      // with a lone separator, and the broker then fails the exchange.
      const status = answer.toString('utf8')
      await exchange(Buffer.from(SEP))
      throw new AuthenticationError(`OAUTHBEARER authentication with ${context.broker} failed: ${status}`, {
        mechanism: 'OAUTHBEARER',
        broker: context.broker,
        brokerMessage: status,
      })
    },
  }
}
