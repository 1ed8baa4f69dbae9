import { ConfigError } from '../errors.js'
import { positive } from '../config/option.js'
import { checkTlsKeys } from './tls-options.js'
import { validateSaslOption } from './sasl/config.js'
import type { SaslOption } from './sasl/types.js'

/**
 * Checks ssl, sasl and the authentication timeouts where they are given,
 * with ConfigErrors naming the option (never a value: those may be secrets).
 */
export function validateSecurityOptions(options: {
  ssl?: unknown
  tls?: unknown
  sasl?: SaslOption
  authenticationTimeoutMs?: number
  reauthenticationThresholdMs?: number
}): void {
  for (const name of ['ssl', 'tls'] as const) {
    const value = options[name]
    if (value !== undefined && typeof value !== 'boolean' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new ConfigError(
        `${name} must be true, false or an object of node:tls options ({ ca, cert, key, passphrase, servername, rejectUnauthorized, ... })`,
      )
    }
    if (value && typeof value === 'object') {
      checkTlsKeys(name, value)
      const o = value as Record<string, unknown>
      if (o.servername !== undefined && typeof o.servername !== 'string')
        throw new ConfigError(`${name}.servername must be a string (the host name the broker's certificate names)`)
      if (o.rejectUnauthorized !== undefined && typeof o.rejectUnauthorized !== 'boolean')
        throw new ConfigError(`${name}.rejectUnauthorized must be a boolean`)
      if ((o.cert === undefined) !== (o.key === undefined) && o.pfx === undefined)
        throw new ConfigError(`${name}.cert and ${name}.key go together: a client certificate needs its private key`)
    }
  }
  validateSaslOption(options.sasl)
  positive('authenticationTimeoutMs', options.authenticationTimeoutMs, 0, 1)
  positive('reauthenticationThresholdMs', options.reauthenticationThresholdMs, 0, 0)
}
