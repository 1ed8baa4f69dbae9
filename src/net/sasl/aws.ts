import { Buffer } from 'node:buffer'
import type { SaslMechanism } from './types.js'

/**
 * KafkaJS's built-in mechanism AWS: one message, the identity and the
 * credentials joined by NUL (`authorizationIdentity NUL accessKeyId NUL
 * secretAccessKey NUL sessionToken`), for brokers or proxies that implement
 * it. Amazon MSK's IAM auth is not this: it is AWS_MSK_IAM, or OAUTHBEARER
 * with a signed token (see the README).
 */
export function awsMechanism(
  authorizationIdentity: string,
  accessKeyId: string,
  secretAccessKey: string,
  sessionToken = '',
): SaslMechanism {
  return {
    name: 'AWS',
    async authenticate(exchange) {
      await exchange(Buffer.from([authorizationIdentity, accessKeyId, secretAccessKey, sessionToken].join('\u0000'), 'utf8'))
    },
  }
}
