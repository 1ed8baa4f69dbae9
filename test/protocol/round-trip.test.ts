import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { apis, type ApiSpec } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'
import { seedFromEnv } from '../prng.js'
import { randomMessage } from './support/random-value.js'
import { message } from './support/spec.js'

/**
 * Every API, every version, request and response: a random value built from
 * the spec is encoded, decoded, and compared with what the spec says the
 * version keeps (fields it lacks at their defaults, unknown tagged fields
 * preserved); decoding reads every byte, and encoding the decoded value gives
 * the same bytes. Replay a failure with WAFKA_PROTOCOL_SEED.
 */

const seed = seedFromEnv('WAFKA_PROTOCOL_SEED')
const rounds = Number(process.env.WAFKA_PROTOCOL_ROUNDS ?? 30)
console.log(`protocol round-trip seed ${seed}, ${rounds} values per API version and direction (replay: WAFKA_PROTOCOL_SEED=${seed})`)

const w = new Writer(64)

function roundTrip(api: ApiSpec, side: 'Request' | 'Response', version: number, caseSeed: number): void {
  const msg = message(`${api.name}${side}`)
  const encode = side === 'Request' ? api.encodeRequest : api.encodeResponse
  const decode = side === 'Request' ? api.decodeRequest : api.decodeResponse
  for (let i = 0; i < rounds; i++) {
    const prng = new Prng(Prng.derive(caseSeed, i))
    const { input, expected } = randomMessage(msg, version, prng)
    w.reset()
    encode(w, version, input)
    const bytes = Buffer.from(w.finish())
    const r = new Reader(bytes)
    const decoded = decode(r, version)
    expect(r.remaining, `round ${i}: bytes left after decoding`).toBe(0)
    expect(decoded, `round ${i}`).toEqual(expected)
    w.reset()
    encode(w, version, decoded)
    expect(Buffer.from(w.finish()).equals(bytes), `round ${i}: re-encoding the decoded value`).toBe(true)
  }
}

let caseIndex = 0
for (const api of Object.values(apis)) {
  describe(`${api.name} (key ${api.apiKey})`, () => {
    for (let version = api.minVersion; version <= api.maxVersion; version++) {
      for (const side of ['Request', 'Response'] as const) {
        const caseSeed = Prng.derive(seed, caseIndex++)
        it(`v${version} ${side.toLowerCase()}`, () => roundTrip(api, side, version, caseSeed))
      }
    }
  })
}
