import { Buffer } from 'node:buffer'
import type { CustomSaslConfig, SaslLogger, SaslMechanism } from './types.js'

const quiet: SaslLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** A user-supplied mechanism in KafkaJS's shape: its provider drives the exchanges through saslAuthenticate. */
export function customMechanism(config: CustomSaslConfig): SaslMechanism {
  return {
    name: config.mechanism.toUpperCase(),
    async authenticate(exchange, context) {
      const authenticator = config.authenticationProvider({
        host: context.host,
        port: context.port,
        logger: quiet,
        saslAuthenticate: async ({ request, response }) => {
          const bytes = await request.encode()
          const answer = await exchange(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes))
          if (!response) return undefined
          return response.parse(await response.decode(answer))
        },
      })
      await authenticator.authenticate()
    },
  }
}
