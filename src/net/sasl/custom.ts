import { Buffer } from 'node:buffer'
import type { CustomSaslConfig, SaslLogger, SaslMechanism } from './types.js'

const quiet: SaslLogger = { debug() {}, info() {}, warn() {}, error() {} }

/**
 * A user-supplied mechanism in KafkaJS's shape: its provider drives the
 * exchanges through saslAuthenticate, with KafkaJS's framing, so a provider
 * written for KafkaJS (AWS MSK IAM, ...) works unchanged: `request.encode()`
 * returns the bytes as SaslAuthenticate's `auth_bytes` field is encoded
 * (length-prefixed, KafkaJS's `new Encoder().writeBytes(...).buffer`), and
 * `response.decode` is given the broker's bytes length-prefixed the same way.
 * The engine sends and receives the bare bytes, so the prefix comes off and
 * goes back on here.
 */
export function customMechanism(config: CustomSaslConfig): SaslMechanism {
  const name = config.mechanism.toUpperCase()
  return {
    name,
    async authenticate(exchange, context) {
      const authenticator = config.authenticationProvider({
        host: context.host,
        port: context.port,
        logger: quiet,
        saslAuthenticate: async ({ request, response }) => {
          const encoded = await request.encode()
          const answer = await exchange(unframe(Buffer.isBuffer(encoded) ? encoded : Buffer.from(encoded)))
          if (!response) return undefined
          return response.parse(await response.decode(frame(answer)))
        },
      })
      await authenticator.authenticate()
    },
  }
}

function unframe(bytes: Buffer): Buffer {
  if (bytes.length < 4 || bytes.readInt32BE(0) !== bytes.length - 4)
    throw new Error(
      `the provider's request.encode() gave ${bytes.length} bytes without their length prefix: give them as KafkaJS does, length-prefixed (new Encoder().writeBytes(bytes).buffer)`,
    )
  return bytes.subarray(4)
}

function frame(bytes: Buffer): Buffer {
  const out = Buffer.alloc(bytes.length + 4)
  out.writeInt32BE(bytes.length)
  bytes.copy(out, 4)
  return out
}
