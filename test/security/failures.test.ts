// Wrong credentials and untrusted TLS against a real broker, and against the
// embedded broker as a second target: the right typed error, at once (well
// within authenticationTimeoutMs), after a bounded number of connection
// attempts, with no secret in it. The embedded broker has no OAUTHBEARER
// (secured-embedded.ts): that case runs on real Kafka only.
import { inspect } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { AuthenticationError, TimeoutError, TlsError, WafkaError } from '../../src/errors.js'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { Connection } from '../../src/net/connection.js'
import { kafkajsPlainProvider } from './kafkajs-plain-provider.js'
import { requireSecuredEmbedded, startSecuredEmbedded } from './secured-embedded.js'
import { requireSecuredKafka, startSecuredKafka, unsecuredJwt, USERS, type SecuredTarget } from './secured-kafka.js'

const AUTH_TIMEOUT = 5000

const targets: Array<[string, () => boolean, () => Promise<SecuredTarget>]> = [
  ['real Kafka', () => requireSecuredKafka(), () => startSecuredKafka()],
  ['the embedded broker', () => requireSecuredEmbedded(), () => startSecuredEmbedded()],
]

for (const [target, available, start] of targets)
  describe.skipIf(!available())(`authentication and TLS failures against ${target}`, () => {
    let k: SecuredTarget
    beforeAll(async () => {
      k = await start()
    })
    afterAll(async () => {
      await k?.stop()
    })
    afterEach(() => {
      vi.restoreAllMocks()
    })

    /** Runs `fn`, returning its error, the time it took and how many connections it opened. */
    async function failure(fn: () => Promise<unknown>) {
      const open = vi.spyOn(Connection, 'open')
      const started = Date.now()
      let error: unknown
      try {
        await fn()
      } catch (err) {
        error = err
      }
      const ms = Date.now() - started
      const attempts = open.mock.calls.length
      open.mockRestore()
      return { error: error as WafkaError, ms, attempts }
    }

    const kafka = (config: Omit<KafkaConfig, 'clientId'>) =>
      new Kafka({ clientId: 'failures', authenticationTimeoutMs: AUTH_TIMEOUT, ...config } as KafkaConfig)

    /** admin.connect, producer.send and a consumer's run all fail the same way, each after one connection attempt. */
    async function everyClientFails(config: Omit<KafkaConfig, 'clientId'>, check: (err: WafkaError) => void, secrets: string[] = []) {
      const client = kafka(config)
      const admin = client.admin()
      const producer = client.producer()
      const consumer = client.consumer({ groupId: 'failing-group' })
      const results = [
        await failure(() => admin.connect()),
        await failure(async () => {
          await producer.send({ topic: 'any-topic', messages: [{ value: 'v' }] })
        }),
        await failure(async () => {
          await consumer.connect()
          await consumer.subscribe({ topics: ['any-topic'] })
          await consumer.run({ eachMessage: async () => {} })
        }),
      ]
      for (const r of results) {
        expect(r.error, 'the call must fail').toBeInstanceOf(WafkaError)
        expect(r.error.retriable, r.error.message + ' cause: ' + (r.error.cause as any)?.code).toBe(false)
        check(r.error)
        expect(r.ms).toBeLessThan(AUTH_TIMEOUT)
        expect(r.attempts).toBe(1)
        const shown = inspect(r.error, { depth: 10 }) + JSON.stringify(r.error) + String(r.error.stack)
        for (const s of secrets) expect(shown).not.toContain(s)
      }
      // Nothing keeps trying in the background.
      const open = vi.spyOn(Connection, 'open')
      await new Promise((r) => setTimeout(r, 1000))
      expect(open).not.toHaveBeenCalled()
      await Promise.all([admin.disconnect(), producer.disconnect(), consumer.disconnect()])
    }

    it("wrong password (PLAIN): AuthenticationError naming the mechanism and broker, with the broker's message", async () => {
      const wrong = 'not-alices-password'
      await everyClientFails(
        { brokers: k.listener('SASL'), sasl: { mechanism: 'plain', username: 'alice', password: wrong } },
        (err) => {
          expect(err).toBeInstanceOf(AuthenticationError)
          const e = err as AuthenticationError
          expect(e.type).toBe('SASL_AUTHENTICATION_FAILED')
          expect(e.mechanism).toBe('PLAIN')
          expect(e.broker).toMatch(/127\.0\.0\.1:\d+/)
          expect(e.brokerMessage).toMatch(/Invalid username or password/)
          expect(e.message).toContain('PLAIN')
        },
        [wrong, USERS.alice],
      )
    })

    it('wrong password (SCRAM-SHA-512) and unknown user (SCRAM-SHA-256)', async () => {
      const wrong = 'Wr0ng-pa55word'
      for (const sasl of [
        { mechanism: 'scram-sha-512' as const, username: 'alice', password: wrong },
        { mechanism: 'scram-sha-256' as const, username: 'nobody', password: wrong },
      ]) {
        await everyClientFails(
          { brokers: k.listener('SASL'), sasl },
          (err) => {
            expect(err).toBeInstanceOf(AuthenticationError)
            expect((err as AuthenticationError).mechanism).toBe(sasl.mechanism.toUpperCase())
            expect((err as AuthenticationError).brokerMessage).toMatch(/invalid credentials/i)
          },
          [wrong],
        )
      }
    })

    it('an OAUTHBEARER token the broker refuses (expired)', async () => {
      const token = unsecuredJwt('alice', -600_000)
      await everyClientFails(
        { brokers: k.listener('SASL'), sasl: { mechanism: 'oauthbearer', oauthBearerProvider: () => ({ value: token }) } },
        (err) => {
          expect(err).toBeInstanceOf(AuthenticationError)
          expect((err as AuthenticationError).mechanism).toBe('OAUTHBEARER')
          expect(err.message).toMatch(/invalid_token/)
        },
        [token],
      )
    })

    it('a mechanism the listener does not enable: UNSUPPORTED_SASL_MECHANISM listing those it does', async () => {
      await everyClientFails(
        {
          brokers: k.listener('SASL_SSL'),
          ssl: { ca: [k.certs.ca] },
          sasl: { mechanism: 'scram-sha-256', username: 'alice', password: USERS.alice },
        },
        (err) => {
          expect(err).toBeInstanceOf(AuthenticationError)
          expect((err as AuthenticationError).type).toBe('UNSUPPORTED_SASL_MECHANISM')
          expect(err.message).toMatch(/enables: PLAIN, SCRAM-SHA-512, OAUTHBEARER$/)
        },
        [USERS.alice],
      )
    })

    const tlsCases: Array<[string, () => Omit<KafkaConfig, 'clientId'>, string, RegExp]> = [
      [
        'a CA we do not trust',
        () => ({ brokers: k.listener('SSL'), ssl: { ca: [k.certs.otherCa] } }),
        'untrusted-certificate',
        /not signed by a CA we trust/,
      ],
      [
        'no CA given (the system store does not know the test CA)',
        () => ({ brokers: k.listener('SSL'), ssl: true }),
        'untrusted-certificate',
        /CA/,
      ],
      [
        'a certificate for another host name',
        () => ({ brokers: k.listener('SSL'), ssl: { ca: [k.certs.ca], servername: 'kafka.wrong.example' } }),
        'hostname-mismatch',
        /does not name this host/,
      ],
      ['an expired certificate', () => ({ brokers: k.listener('EXPIRED'), ssl: { ca: [k.certs.ca] } }), 'expired-certificate', /expired/],
      [
        'no client certificate where one is required',
        () => ({ brokers: k.listener('MTLS'), ssl: { ca: [k.certs.ca] } }),
        'client-certificate-rejected',
        /client certificate/,
      ],
      [
        'TLS to a plaintext listener',
        () => ({ brokers: k.listener('RIG'), ssl: { ca: [k.certs.ca] } }),
        'handshake-failed',
        /closed the connection during the TLS handshake/,
      ],
    ]
    for (const [name, config, reason, message] of tlsCases) {
      it(`TLS: ${name} gives one TlsError naming the cause (${reason})`, async () => {
        await everyClientFails(
          config(),
          (err) => {
            expect(err).toBeInstanceOf(TlsError)
            expect((err as TlsError).reason).toBe(reason)
            expect(err.message).toMatch(message)
          },
          [k.certs.clientKey.split('\n')[1]],
        )
      })
    }

    it('a custom mechanism written for KafkaJS (its framing, its Encoder) authenticates against the broker; one that hangs ends at authenticationTimeoutMs', async () => {
      const plainProvider = (password: string) => kafkajsPlainProvider('alice', password) as KafkaConfig['sasl']
      const ok = kafka({ brokers: k.listener('SASL'), sasl: plainProvider(USERS.alice) }).admin()
      await ok.connect()
      expect((await ok.describeCluster()).brokers).toHaveLength(1)
      await ok.disconnect()
      const { error: refused } = await failure(() =>
        kafka({ brokers: k.listener('SASL'), sasl: plainProvider('wrong') })
          .admin()
          .connect(),
      )
      expect(refused).toBeInstanceOf(AuthenticationError)
      expect((refused as AuthenticationError).brokerMessage).toMatch(/Invalid username or password/)

      const [host, port] = k.listener('SASL')[0].split(':')
      const hanging = { mechanism: 'PLAIN', authenticationProvider: () => ({ authenticate: () => new Promise<void>(() => {}) }) }
      const { error, ms } = await failure(() => Connection.open({ host, port: Number(port), sasl: hanging, authenticationTimeoutMs: 1500 }))
      expect(error).toBeInstanceOf(TimeoutError)
      expect(error.message).toMatch(/PLAIN authentication with .* took longer than authenticationTimeoutMs \(1500 ms\)/)
      expect(ms).toBeGreaterThanOrEqual(1400)
      expect(ms).toBeLessThan(3000)
    })

    it('SASL on a listener without it: a typed error at once', async () => {
      const { error, ms, attempts } = await failure(() =>
        kafka({ brokers: k.listener('RIG'), sasl: { mechanism: 'plain', username: 'alice', password: USERS.alice } })
          .admin()
          .connect(),
      )
      expect(error, String(error)).toBeInstanceOf(AuthenticationError)
      expect((error as AuthenticationError).type).toBe('ILLEGAL_SASL_STATE')
      expect(error.message).toMatch(/does not use SASL/)
      expect(error.retriable).toBe(false)
      expect(ms).toBeLessThan(AUTH_TIMEOUT)
      expect(attempts).toBe(1)
      expect(inspect(error, { depth: 10 })).not.toContain(USERS.alice)
    })

    it('TLS with SASL: a wrong CA fails before any credential is sent', async () => {
      await everyClientFails(
        {
          brokers: k.listener('SASL_SSL'),
          ssl: { ca: [k.certs.otherCa] },
          sasl: { mechanism: 'plain', username: 'alice', password: USERS.alice },
        },
        (err) => {
          expect(err).toBeInstanceOf(TlsError)
        },
        [USERS.alice],
      )
    })
  })
