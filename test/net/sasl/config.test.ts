import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/errors.js'
import { Kafka } from '../../../src/kafka.js'
import { saslMechanism } from '../../../src/net/sasl/config.js'
import { oauthbearerInitialResponse } from '../../../src/net/sasl/oauthbearer.js'

const SECRET = 'hunter2-s3cr3t'
const kafka = (extra: object) => () => new Kafka({ brokers: ['127.0.0.1:9092'], ...extra } as any)

describe('security options', () => {
  it('accepts the KafkaJS shapes', () => {
    for (const sasl of [
      { mechanism: 'plain', username: 'u', password: SECRET },
      { mechanism: 'scram-sha-256', username: 'u', password: SECRET },
      { mechanism: 'SCRAM-SHA-512', username: 'u', password: SECRET },
      { mechanism: 'scram-sha-512', username: 'token-id', password: SECRET, tokenAuth: true },
      { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: 'tok' }) },
      { mechanism: 'aws', authenticationProvider: () => ({ authenticate: async () => {} }) },
      async () => ({ mechanism: 'plain', username: 'u', password: SECRET }),
    ]) {
      expect(kafka({ sasl, ssl: true })).not.toThrow()
    }
    expect(kafka({ ssl: { ca: ['x'], servername: 'kafka.example', rejectUnauthorized: true } })).not.toThrow()
  })

  it('rejects bad options with ConfigErrors naming the option, never the secret', () => {
    const cases: Array<[object, RegExp]> = [
      [{ sasl: { mechanism: 'plain', username: 'u' } }, /sasl.password/],
      [{ sasl: { mechanism: 'scram-sha-256', password: SECRET } }, /sasl.username/],
      [{ sasl: { mechanism: 'scram-sha-1', username: 'u', password: SECRET } }, /not built in/],
      [{ sasl: { username: 'u', password: SECRET } }, /sasl.mechanism/],
      [{ sasl: { mechanism: 'plain', username: 'u', password: SECRET, tokenAuth: true } }, /tokenAuth .*needs scram/],
      [{ sasl: { mechanism: 'scram-sha-256', username: 'u', password: SECRET, tokenAuth: 'yes' } }, /sasl.tokenAuth must be a boolean/],
      [{ sasl: { mechanism: 'oauthbearer', token: SECRET } }, /oauthBearerProvider/],
      [{ sasl: { mechanism: 'x', authenticationProvider: SECRET } }, /authenticationProvider must be a function/],
      [{ sasl: SECRET }, /sasl must be an object/],
      [{ ssl: SECRET }, /ssl must be true, false or an object/],
      [{ ssl: { servername: 42 } }, /ssl.servername/],
      [{ ssl: { cert: SECRET } }, /cert and ssl.key go together/],
      [{ authenticationTimeoutMs: 0 }, /authenticationTimeoutMs/],
      [{ reauthenticationThresholdMs: -1 }, /reauthenticationThresholdMs/],
    ]
    for (const [options, message] of cases) {
      let caught: unknown
      try {
        kafka(options)()
      } catch (err) {
        caught = err
      }
      expect(caught, JSON.stringify(Object.keys(options))).toBeInstanceOf(ConfigError)
      expect((caught as Error).message).toMatch(message)
      expect(inspect(caught, { depth: 10 })).not.toContain(SECRET)
    }
  })

  it('names each built-in mechanism as the broker knows it', () => {
    expect(saslMechanism({ mechanism: 'plain', username: 'u', password: 'p' }).name).toBe('PLAIN')
    expect(saslMechanism({ mechanism: 'scram-sha-256', username: 'u', password: 'p' }).name).toBe('SCRAM-SHA-256')
    expect(saslMechanism({ mechanism: 'scram-sha-512', username: 'u', password: 'p' }).name).toBe('SCRAM-SHA-512')
    expect(saslMechanism({ mechanism: 'oauthbearer', oauthBearerProvider: () => ({ value: 't' }) }).name).toBe('OAUTHBEARER')
    expect(saslMechanism({ mechanism: 'aws_msk_iam', authenticationProvider: () => ({ authenticate: async () => {} }) }).name).toBe(
      'AWS_MSK_IAM',
    )
  })

  it('PLAIN sends NUL user NUL password', async () => {
    const sent: Buffer[] = []
    await saslMechanism({ mechanism: 'plain', username: 'alice', password: 'pw' }).authenticate(
      async (b) => (sent.push(b), Buffer.alloc(0)),
      { host: 'h', port: 1, broker: 'b' },
    )
    expect(sent.map(String)).toEqual(['\0alice\0pw'])
  })

  it("a custom provider drives exchanges through saslAuthenticate with KafkaJS's framing (auth_bytes length-prefixed both ways)", async () => {
    const seen: string[] = []
    const mechanism = saslMechanism({
      mechanism: 'custom',
      authenticationProvider: ({ host, port, saslAuthenticate }) => ({
        async authenticate() {
          const parsed = await saslAuthenticate({
            request: { encode: async () => lengthPrefixed(`hello ${host}:${port}`) },
            response: { decode: async (raw: Buffer) => raw.toString('hex'), parse: (s: string) => s.toUpperCase() },
          })
          seen.push(String(parsed))
          expect(await saslAuthenticate({ request: { encode: () => new Uint8Array(lengthPrefixed('bye')) } })).toBeUndefined()
        },
      }),
    })
    const sent: string[] = []
    await mechanism.authenticate(async (b) => (sent.push(b.toString()), Buffer.from('ok')), { host: 'h', port: 9, broker: 'b' })
    expect(sent).toEqual(['hello h:9', 'bye'])
    expect(seen).toEqual(['000000026F6B'])
  })

  it("a custom provider that gives bare bytes (not KafkaJS's framing) is told so; nothing is sent", async () => {
    const sent: Buffer[] = []
    const mechanism = saslMechanism({
      mechanism: 'custom',
      authenticationProvider: ({ saslAuthenticate }) => ({
        authenticate: async () => void (await saslAuthenticate({ request: { encode: () => Buffer.from('\0alice\0pw') } })),
      }),
    })
    await expect(mechanism.authenticate(async (b) => (sent.push(b), Buffer.alloc(0)), { host: 'h', port: 9, broker: 'b' })).rejects.toThrow(
      /without their length prefix/,
    )
    expect(sent).toEqual([])
  })
})

/** What KafkaJS's `new Encoder().writeBytes(s).buffer` gives. */
function lengthPrefixed(s: string): Buffer {
  const payload = Buffer.from(s)
  const out = Buffer.alloc(4 + payload.length)
  out.writeInt32BE(payload.length)
  payload.copy(out, 4)
  return out
}

describe('OAUTHBEARER initial response (RFC 7628, KIP-342)', () => {
  it('has the GS2 header, auth=Bearer, the extensions and the closing separators', () => {
    expect(oauthbearerInitialResponse({ value: 'abc.def.ghi' }).toString()).toBe('n,,\x01auth=Bearer abc.def.ghi\x01\x01')
    expect(oauthbearerInitialResponse({ value: 'tok', extensions: { traceId: '123', logicalCluster: 'lkc-1' } }).toString()).toBe(
      'n,,\x01auth=Bearer tok\x01traceId=123\x01logicalCluster=lkc-1\x01\x01',
    )
  })

  it('refuses malformed tokens and extensions without printing the token', () => {
    const bad = `${SECRET} with spaces`
    expect(() => oauthbearerInitialResponse({ value: bad })).toThrow(ConfigError)
    try {
      oauthbearerInitialResponse({ value: bad })
    } catch (err) {
      expect(inspect(err)).not.toContain(SECRET)
    }
    expect(() => oauthbearerInitialResponse({ value: 't', extensions: { auth: 'x' } })).toThrow(/not 'auth'/)
    expect(() => oauthbearerInitialResponse({ value: 't', extensions: { 'a-b': 'x' } })).toThrow(/letters only/)
    expect(() => oauthbearerInitialResponse({ value: 't', extensions: { a: 'x\x01y' } })).toThrow(/value/)
    expect(() => oauthbearerInitialResponse(undefined as any)).toThrow(ConfigError)
  })
})
