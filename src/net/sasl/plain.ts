import { Buffer } from 'node:buffer'
import type { SaslMechanism } from './types.js'

/** RFC 4616: one message, `authzid NUL authcid NUL password`, with an empty authzid. */
export function plainMechanism(username: string, password: string): SaslMechanism {
  return {
    name: 'PLAIN',
    async authenticate(exchange) {
      await exchange(Buffer.from(`\u0000${username}\u0000${password}`, 'utf8'))
    },
  }
}
