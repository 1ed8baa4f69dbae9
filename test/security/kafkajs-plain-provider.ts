// PLAIN as a custom mechanism, written in KafkaJS's documented shape
// (Custom Authentication Mechanisms): the request encoded with KafkaJS's own
// Encoder (auth_bytes length-prefixed), the response checked for KafkaJS's
// framing (the broker's bytes length-prefixed). A provider written for
// KafkaJS; the same object goes to kafkajs, wafka/kafkajs and wafka's main entry.
import { createRequire } from 'node:module'

const Encoder = createRequire(import.meta.url)('kafkajs/src/protocol/encoder') as new () => {
  writeBytes(value: string | Buffer): { buffer: Buffer }
}

export function kafkajsPlainProvider(username: string, password: string) {
  return {
    mechanism: 'PLAIN',
    authenticationProvider: ({ saslAuthenticate }: { saslAuthenticate: (x: object) => Promise<unknown> }) => ({
      authenticate: async () => {
        const answer = await saslAuthenticate({
          request: { encode: async () => new Encoder().writeBytes(['', username, password].join('\u0000')).buffer },
          response: {
            decode: async (raw: Buffer) => {
              const size = raw.readInt32BE(0)
              if (size !== raw.length - 4) throw new Error(`response bytes not length-prefixed: ${size} for ${raw.length - 4}`)
              return raw.subarray(4)
            },
            parse: (bytes: Buffer) => bytes,
          },
        })
        // PLAIN's success is an empty answer.
        if (!Buffer.isBuffer(answer) || answer.length !== 0) throw new Error(`unexpected PLAIN answer ${String(answer)}`)
      },
    }),
  }
}
