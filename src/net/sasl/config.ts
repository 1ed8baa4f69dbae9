import { ConfigError } from '../../errors.js'
import { awsMechanism } from './aws.js'
import { customMechanism } from './custom.js'
import { oauthbearerMechanism } from './oauthbearer.js'
import { plainMechanism } from './plain.js'
import { scramMechanism } from './scram.js'
import type {
  AwsSaslConfig,
  CustomSaslConfig,
  OauthbearerSaslConfig,
  PasswordSaslConfig,
  SaslConfig,
  SaslMechanism,
  SaslOption,
} from './types.js'

const BUILT_IN = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws']

/**
 * Checks a `sasl` option where it is given (a function is checked each time
 * it is called). Messages name the field, never its value: values are secrets.
 */
export function validateSaslOption(option: SaslOption | undefined): void {
  if (option === undefined || typeof option === 'function') return
  saslMechanism(option)
}

/** The mechanism a config describes, or a ConfigError saying what is wrong with it. */
export function saslMechanism(config: SaslConfig): SaslMechanism {
  if (config === null || typeof config !== 'object')
    throw new ConfigError('sasl must be an object { mechanism, ... } or a function returning one')
  const { mechanism } = config as { mechanism: unknown }
  if (typeof mechanism !== 'string' || mechanism === '') {
    throw new ConfigError(
      `sasl.mechanism must be one of ${BUILT_IN.map((m) => `'${m}'`).join(', ')} or a custom mechanism with an authenticationProvider`,
    )
  }
  const custom = (config as CustomSaslConfig).authenticationProvider
  if (custom !== undefined) {
    if (typeof custom !== 'function')
      throw new ConfigError('sasl.authenticationProvider must be a function ({ host, port, logger, saslAuthenticate }) => { authenticate }')
    return customMechanism(config as CustomSaslConfig)
  }
  switch (mechanism.toLowerCase()) {
    case 'plain':
    case 'scram-sha-256':
    case 'scram-sha-512': {
      const { username, password } = config as PasswordSaslConfig
      if (typeof username !== 'string' || username === '')
        throw new ConfigError(`sasl.username must be a non-empty string for ${mechanism}`)
      if (typeof password !== 'string' || password === '')
        throw new ConfigError(`sasl.password must be a non-empty string for ${mechanism}`)
      const lower = mechanism.toLowerCase()
      const { tokenAuth } = config as PasswordSaslConfig
      if (tokenAuth !== undefined && typeof tokenAuth !== 'boolean') throw new ConfigError('sasl.tokenAuth must be a boolean')
      if (lower === 'plain') {
        if (tokenAuth) throw new ConfigError('sasl.tokenAuth (a delegation token) needs scram-sha-256 or scram-sha-512, not plain')
        return plainMechanism(username, password)
      }
      return scramMechanism(lower === 'scram-sha-256' ? 'sha256' : 'sha512', username, password, tokenAuth === true)
    }
    case 'aws': {
      const { authorizationIdentity, accessKeyId, secretAccessKey, sessionToken } = config as AwsSaslConfig
      for (const [field, value] of Object.entries({ authorizationIdentity, accessKeyId, secretAccessKey }))
        if (typeof value !== 'string' || value === '') throw new ConfigError(`sasl.${field} must be a non-empty string for aws`)
      if (sessionToken !== undefined && typeof sessionToken !== 'string')
        throw new ConfigError('sasl.sessionToken must be a string for aws')
      return awsMechanism(authorizationIdentity, accessKeyId, secretAccessKey, sessionToken)
    }
    case 'oauthbearer': {
      const provider = (config as OauthbearerSaslConfig).oauthBearerProvider
      if (typeof provider !== 'function')
        throw new ConfigError('sasl.oauthBearerProvider must be a function returning (a promise of) { value, extensions? }')
      return oauthbearerMechanism(provider)
    }
    default:
      throw new ConfigError(
        `sasl.mechanism '${mechanism}' is not built in (${BUILT_IN.map((m) => `'${m}'`).join(', ')}): give an authenticationProvider for it`,
      )
  }
}
