// KafkaJS's built-in SASL mechanism `aws`: accepted by new Kafka(), sent as
// KafkaJS sends it (one SaslAuthenticate of authorizationIdentity NUL
// accessKeyId NUL secretAccessKey NUL sessionToken on mechanism AWS), and
// refused by a broker without it the way KafkaJS is refused.
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { saslMechanism } from '../../src/net/sasl/config.js'

const require = createRequire(import.meta.url)
const credentials = {
  authorizationIdentity: 'AIDAEXAMPLE',
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI-secret',
  sessionToken: 'FwoGZXIvYXdzEXAMPLE',
}

describe("sasl: { mechanism: 'aws' }", () => {
  it('is accepted by new Kafka(), as KafkaJS accepts it', () => {
    for (const sasl of [
      { mechanism: 'aws' as const, ...credentials },
      { mechanism: 'aws' as const, ...credentials, sessionToken: undefined },
    ])
      expect(() => new wafkajs.Kafka({ brokers: ['127.0.0.1:9092'], sasl })).not.toThrow()
  })

  it("sends KafkaJS's bytes under KafkaJS's mechanism name", async () => {
    // KafkaJS's own encoder for the message (a length-prefixed bytes field; the prefix is the frame's).
    const request = require('kafkajs/src/protocol/sasl/awsIam/request.js') as (c: object) => { encode(): Promise<Buffer> }
    for (const c of [credentials, { ...credentials, sessionToken: undefined }]) {
      const expected = (await request(c).encode()).subarray(4)
      const sent: Buffer[] = []
      const mechanism = saslMechanism({ mechanism: 'aws', ...c })
      await mechanism.authenticate(async (bytes) => (sent.push(bytes), Buffer.alloc(0)), { host: 'h', port: 1, broker: 'h:1' })
      expect(mechanism.name).toBe('AWS')
      expect(sent).toEqual([expected])
    }
  })

  it('names a missing credential, never a secret', () => {
    const { secretAccessKey: _s, ...noSecret } = credentials
    expect(() => new wafkajs.Kafka({ brokers: ['127.0.0.1:9092'], sasl: { mechanism: 'aws', ...noSecret } as never })).toThrow(
      /sasl.secretAccessKey/,
    )
    try {
      new wafkajs.Kafka({ brokers: ['127.0.0.1:9092'], sasl: { mechanism: 'aws', ...credentials, accessKeyId: '' } })
    } catch (e) {
      expect(String((e as Error).message)).not.toContain(credentials.secretAccessKey)
    }
  })

  describe('against a broker that does not serve AWS (the embedded broker, SASL PLAIN/SCRAM)', () => {
    let cluster: RunningCluster
    beforeAll(async () => {
      cluster = await startCluster({ brokers: 1, sasl: { users: { alice: 'alice-secret' } } } as never)
    })
    afterAll(() => cluster?.stop())

    it('connect fails at once, as with KafkaJS, with an error naming the mechanism', async () => {
      const attempt = async (lib: typeof kafkajs | typeof wafkajs) => {
        const admin = new lib.Kafka({
          brokers: cluster.bootstrapServers.split(','),
          sasl: { mechanism: 'aws', ...credentials },
          retry: { retries: 0 },
          logLevel: lib.logLevel.NOTHING,
        }).admin()
        try {
          await admin.connect()
          return 'connected'
        } catch (e) {
          const err = e as Error & { cause?: Error }
          return { name: err.name, message: err.message }
        } finally {
          await admin.disconnect().catch(() => {})
        }
      }
      const expected = await attempt(kafkajs)
      const actual = await attempt(wafkajs)
      // KafkaJS reports the handshake's UNSUPPORTED_SASL_MECHANISM as such; wafka as the authentication
      // failure it is, naming the mechanism and what the broker enables (both are KafkaJSErrors, neither retried).
      expect(expected).toEqual({ name: 'KafkaJSProtocolError', message: 'The broker does not support the requested SASL mechanism' })
      expect(actual).toEqual({
        name: 'KafkaJSSASLAuthenticationError',
        message: expect.stringMatching(/does not enable SASL mechanism AWS; it enables: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512$/),
      })
      expect(JSON.stringify(actual)).not.toContain(credentials.secretAccessKey)
    })
  })
})
