import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { ProtocolError, UnsupportedApiError } from '../../src/errors.js'
import { decodeRequestHeader, decodeResponseHeader } from '../../src/protocol/header.js'
import { apis, ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'
import { seedFromEnv } from '../prng.js'
import { randomMessage } from './support/random-value.js'
import { message } from './support/spec.js'

/**
 * Cut-short, corrupted and random frames: decoding either gives a value or
 * throws ProtocolError, never a RangeError or TypeError, a hang or a huge
 * allocation. Every strict prefix of a valid encoding must throw.
 */

const seed = seedFromEnv('WAFKA_HOSTILE_SEED')
console.log(`hostile-input seed ${seed} (replay: WAFKA_HOSTILE_SEED=${seed})`)

function decodeOrProtocolError(decode: () => unknown): 'ok' | 'error' {
  try {
    decode()
    return 'ok'
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err
    return 'error'
  }
}

let caseIndex = 0
describe('every API: prefixes, flipped bytes, random bytes', () => {
  for (const api of Object.values(apis)) {
    const versions = [
      ...new Set([api.minVersion, Math.floor((api.minVersion + api.maxVersion) / 2), api.flexibleFrom, api.maxVersion]),
    ].filter((v) => v >= api.minVersion && v <= api.maxVersion)
    for (const version of versions) {
      for (const side of ['Request', 'Response'] as const) {
        const caseSeed = Prng.derive(seed, caseIndex++)
        it(`${api.name} v${version} ${side.toLowerCase()}`, () => {
          const prng = new Prng(caseSeed)
          const encode = side === 'Request' ? api.encodeRequest : api.encodeResponse
          const decode = side === 'Request' ? api.decodeRequest : api.decodeResponse
          const w = new Writer()
          for (let round = 0; round < 5; round++) {
            w.reset()
            encode(w, version, randomMessage(message(`${api.name}${side}`), version, prng).input)
            const bytes = Buffer.from(w.finish())
            // Every prefix (sampled when long) fails, with a ProtocolError that says where.
            const step = Math.max(1, Math.floor(bytes.length / 80))
            for (let cut = 0; cut < bytes.length; cut += step) {
              expect(() => decode(new Reader(bytes.subarray(0, cut)), version), `cut at ${cut} of ${bytes.length}`).toThrow(ProtocolError)
            }
            // Flipped bytes: anything but a non-protocol error.
            for (let i = 0; i < 40 && bytes.length > 0; i++) {
              const bad = Buffer.from(bytes)
              for (let k = prng.between(1, 3); k > 0; k--) bad[prng.int(bad.length)] = prng.pick([0x00, 0xff, 0x7f, 0x80, prng.int(256)])
              decodeOrProtocolError(() => decode(new Reader(bad), version))
            }
          }
          for (let i = 0; i < 40; i++) decodeOrProtocolError(() => decode(new Reader(prng.bytes(prng.int(64))), version))
        })
      }
    }
  }
})

describe('messages that name what was being read', () => {
  it('a truncated frame names the API, version, field and position', () => {
    const w = new Writer()
    apis[3].encodeResponse(w, 1, { brokers: [{ nodeId: 1, host: 'broker-1', port: 9092 }] })
    const bytes = Buffer.from(w.finish())
    expect(() => apis[3].decodeResponse(new Reader(bytes.subarray(0, 10)), 1)).toThrow(
      /^Metadata v1 response: truncated MetadataResponseBroker.Host \(string\): needs 8 bytes at byte 10, 0 left$/,
    )
  })

  it('a length larger than the frame is an error, not an allocation', () => {
    // Fetch v4 response (throttle time, then topics) claiming 2^31-1 topics in an 8-byte frame.
    expect(() => apis[1].decodeResponse(new Reader(Buffer.from('000000007fffffff', 'hex')), 4)).toThrow(
      /malformed FetchResponse.Responses \(array\) at byte 8: 2147483647 elements but 0 bytes left/,
    )
    // A compact string claiming 2^32-2 bytes.
    expect(() => apis[18].decodeRequest(new Reader(Buffer.from('ffffffff0f', 'hex')), 3)).toThrow(
      /truncated ApiVersionsRequest.ClientSoftwareName/,
    )
  })

  it('a null in a field that cannot be null', () => {
    expect(() => apis[3].decodeRequest(new Reader(Buffer.from('ffffffff', 'hex')), 0)).toThrow(
      /MetadataRequest.Topics \(array\) at byte 4: null, which this field does not allow/,
    )
  })

  it('a tagged field whose value is shorter or longer than its size', () => {
    // ApiVersions v3 response, tag 1 (an int64) said to be 9 bytes long.
    expect(() => apis[18].decodeResponse(new Reader(Buffer.from('00000100000000010109000000000000000500', 'hex')), 3)).toThrow(
      /tagged field 1: 1 of its bytes were left unread/,
    )
    // ... or 7 bytes long: the int64 cannot read past the field.
    expect(() => apis[18].decodeResponse(new Reader(Buffer.from('00000100000000010107000000000000050000', 'hex')), 3)).toThrow(
      /truncated ApiVersionsResponse.FinalizedFeaturesEpoch \(int64\)/,
    )
  })

  it('headers and consumer-protocol payloads too', () => {
    const prng = new Prng(seed)
    for (let i = 0; i < 500; i++) {
      const bytes = prng.bytes(prng.int(24))
      try {
        decodeRequestHeader(new Reader(bytes))
      } catch (err) {
        // An API key outside the spec is unsupported rather than malformed.
        if (!(err instanceof ProtocolError || err instanceof UnsupportedApiError)) throw err
      }
      decodeOrProtocolError(() => decodeResponseHeader(new Reader(bytes), 1))
      decodeOrProtocolError(() => ConsumerProtocolSubscription.decode(new Reader(bytes)))
      decodeOrProtocolError(() => ConsumerProtocolAssignment.decode(new Reader(bytes)))
    }
    expect(() => decodeResponseHeader(new Reader(Buffer.from('0000', 'hex')), 0)).toThrow(/^response header: truncated/)
  })
})
