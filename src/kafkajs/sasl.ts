import { Buffer } from 'node:buffer'
import type { CustomSaslConfig, SaslAuthenticateFn } from '../net/sasl/types.js'
import type { SASLOptions } from './options.js'

/**
 * KafkaJS hands a custom mechanism's bytes to SaslAuthenticate as its
 * encoded `bytes` field: `request.encode()` returns them length-prefixed
 * (KafkaJS's Encoder.writeBytes) and `response.decode` gets the broker's
 * bytes length-prefixed too. Published providers (AWS MSK IAM, ...) are
 * written to that framing; the engine exchanges the bare bytes, so the
 * framing is taken off and put back here.
 */
export function kafkajsSasl(sasl: SASLOptions | undefined): SASLOptions | undefined {
  const provider = (sasl as CustomSaslConfig | undefined)?.authenticationProvider
  if (typeof provider !== 'function') return sasl
  return {
    ...(sasl as CustomSaslConfig),
    authenticationProvider: (args) =>
      provider({
        ...args,
        saslAuthenticate: (async ({ request, response }) =>
          args.saslAuthenticate({
            request: { encode: async () => unframe(Buffer.from(await request.encode())) },
            response: response && {
              decode: (raw: Buffer) => response.decode(frame(raw)),
              parse: (data: unknown) => response.parse(data),
            },
          })) as SaslAuthenticateFn,
      }),
  } as SASLOptions
}

function unframe(bytes: Buffer): Buffer {
  // A provider that returns bare bytes (no length prefix that matches) is taken as it is.
  return bytes.length >= 4 && bytes.readInt32BE(0) === bytes.length - 4 ? bytes.subarray(4) : bytes
}

function frame(bytes: Buffer): Buffer {
  const out = Buffer.alloc(bytes.length + 4)
  out.writeInt32BE(bytes.length)
  bytes.copy(out, 4)
  return out
}
