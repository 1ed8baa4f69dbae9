// KIP-368 re-authentication against a real broker whose sessions last a few
// seconds (connections.max.reauth.ms): a producer and a consumer group keep
// working across many re-authentications on the same connections, nothing
// lost or reordered, and the credentials (OAUTHBEARER: the token provider)
// are asked again each time. Run against the embedded broker too (its
// connectionsMaxReauthMs).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { Connection } from '../../src/net/connection.js'
import { AuthenticationError } from '../../src/errors.js'
import { inspect } from 'node:util'
import { until } from '../consumer/support.js'
import { requireSecuredEmbedded, startSecuredEmbedded } from './secured-embedded.js'
import { requireSecuredKafka, startSecuredKafka, unsecuredJwt, USERS, type SecuredTarget } from './secured-kafka.js'

const SESSION_MS = 3000
const RUN_MS = Number(process.env.WAFKA_REAUTH_RUN_MS ?? 45_000)

const targets: Array<[string, () => boolean, () => Promise<SecuredTarget>]> = [
  ['real Kafka', () => requireSecuredKafka(), () => startSecuredKafka({ config: { 'connections.max.reauth.ms': String(SESSION_MS) } })],
  ['the embedded broker', () => requireSecuredEmbedded(), () => startSecuredEmbedded({ connectionsMaxReauthMs: SESSION_MS })],
]

for (const [target, available, start] of targets)
  describe.skipIf(!available())(`re-authentication against ${target}`, () => {
    let k: SecuredTarget
    beforeAll(async () => {
      k = await start()
    })
    afterAll(async () => {
      await k?.stop()
    })

    it(
      `a producer and a consumer keep working for ${RUN_MS / 1000} s of ${SESSION_MS} ms sessions (SCRAM-SHA-512 and OAUTHBEARER)`,
      async () => {
        const calls = { scram: 0, oauth: 0 }
        const clients: Array<[keyof typeof calls, KafkaConfig]> = [
          [
            'scram',
            {
              clientId: 'reauth-scram',
              brokers: k.listener('SASL'),
              // A function: asked on every authentication, so credentials may rotate.
              sasl: async () => (calls.scram++, { mechanism: 'scram-sha-512', username: 'alice', password: USERS.alice }),
            },
          ],
          [
            'oauth',
            {
              clientId: 'reauth-oauth',
              brokers: k.listener('SASL_SSL'),
              ssl: { ca: [k.certs.ca] },
              // Tokens that expire soon after the session would: an old one reused would be refused.
              sasl: {
                mechanism: 'oauthbearer',
                oauthBearerProvider: async () => (calls.oauth++, { value: unsecuredJwt('alice', SESSION_MS * 3) }),
              },
            },
          ],
        ] as Array<[keyof typeof calls, KafkaConfig]>
        const setup = new Kafka({ clientId: 'reauth-setup', brokers: k.listener('RIG') }).admin()
        await setup.connect()
        await setup.createTopics({ topics: clients.map(([name]) => ({ topic: `reauth-${name}`, numPartitions: 2 })) })
        await setup.disconnect()

        const runs = clients.map(([name, config]) => {
          const topic = `reauth-${name}`
          const kafka = new Kafka(config)
          const producer = kafka.producer({ idempotent: true, maxInFlight: 5 })
          const consumer = kafka.consumer({ groupId: `reauth-${name}`, maxWaitTimeInMs: 200, heartbeatIntervalMs: 500 })
          const received: Array<{ partition: number; offset: bigint; value: string }> = []
          const sent: string[] = []
          const sendErrors: unknown[] = []
          return { name, topic, producer, consumer, received, sent, sendErrors }
        })
        for (const r of runs) {
          await r.producer.connect()
          await r.consumer.connect()
          await r.consumer.subscribe({ topics: [r.topic], fromBeginning: true })
          await r.consumer.run({
            eachMessage: async ({ partition, message }) =>
              void r.received.push({ partition, offset: message.offsetBigInt, value: message.value!.toString() }),
          })
        }
        // Warm: each client has every connection it needs.
        for (const r of runs) {
          await r.producer.send({ topic: r.topic, messages: [{ key: 'warm', value: `${r.name}-warm` }] })
          r.sent.push(`${r.name}-warm`)
          await until(
            () => r.received.length > 0,
            30_000,
            () => `${r.name}: nothing consumed`,
          )
        }
        const opens = vi.spyOn(Connection, 'open')
        const before = { ...calls }

        const deadline = Date.now() + RUN_MS
        await Promise.all(
          runs.map(async (r) => {
            let i = 0
            const pending: Promise<unknown>[] = []
            while (Date.now() < deadline) {
              // Several sends in flight at once: re-authentication must hold them back, not reorder or fail them.
              for (let j = 0; j < 5; j++, i++) {
                const value = `${r.name}-${i}`
                r.sent.push(value)
                pending.push(
                  r.producer.send({ topic: r.topic, messages: [{ key: `k${i % 4}`, value }] }).catch((err) => r.sendErrors.push(err)),
                )
              }
              await new Promise((res) => setTimeout(res, 20))
            }
            await Promise.all(pending)
          }),
        )
        for (const r of runs) {
          await until(
            () => r.received.length >= r.sent.length,
            30_000,
            () => `${r.name}: received ${r.received.length} of ${r.sent.length}`,
          )
        }
        const reconnects = opens.mock.calls.length
        opens.mockRestore()
        for (const r of runs) {
          await r.producer.disconnect()
          await r.consumer.disconnect()
        }

        for (const r of runs) {
          expect(r.sendErrors, `${r.name} send errors`).toEqual([])
          // Nothing lost, nothing twice.
          expect(r.received.map((m) => m.value).sort()).toEqual([...r.sent].sort())
          // Per partition: offsets consecutive, and each key's values in the order sent.
          for (const p of [0, 1]) {
            const offsets = r.received.filter((m) => m.partition === p).map((m) => m.offset)
            offsets.forEach((o, i) => i > 0 && expect(o).toBe(offsets[i - 1] + 1n))
          }
          const index = (v: string) => Number(v.split('-')[1])
          for (let key = 0; key < 4; key++) {
            const seq = r.received.filter((m) => !m.value.endsWith('warm') && index(m.value) % 4 === key).map((m) => index(m.value))
            expect(seq).toEqual([...seq].sort((a, b) => a - b))
          }
        }
        // Re-authenticated on the same connections: none was opened again.
        expect(reconnects).toBe(0)
        // Each client's connections re-authenticated many times, asking for credentials each time.
        const expected = Math.floor(RUN_MS / SESSION_MS)
        expect(calls.scram - before.scram).toBeGreaterThanOrEqual(expected)
        expect(calls.oauth - before.oauth).toBeGreaterThanOrEqual(expected)
        console.log(
          `re-authentications in ${RUN_MS} ms: SCRAM ${calls.scram - before.scram}, OAUTHBEARER ${calls.oauth - before.oauth}; messages: ${runs.map((r) => `${r.name} ${r.sent.length}`).join(', ')}`,
        )
      },
      RUN_MS + 120_000,
    )

    it('credentials that go bad mid-run: the re-authentication fails, sends fail with AuthenticationError, and the client does not reconnect in a loop', async () => {
      let password: string = USERS.alice
      const kafka = new Kafka({
        clientId: 'reauth-rotated',
        brokers: k.listener('SASL'),
        sasl: async () => ({ mechanism: 'scram-sha-256', username: 'alice', password }),
      })
      const topic = 'reauth-rotated'
      const producer = kafka.producer()
      await producer.connect()
      const consumer = kafka.consumer({ groupId: topic, maxWaitTimeInMs: 200 })
      const crashes: unknown[] = []
      consumer.on('consumer.crash', (e: any) => crashes.push(e.payload?.error ?? e.error ?? e))
      await consumer.connect()
      const setup = new Kafka({ clientId: 'setup', brokers: k.listener('RIG') }).admin()
      await setup.connect()
      await setup.createTopics({ topics: [{ topic }] })
      await setup.disconnect()
      await producer.send({ topic, messages: [{ value: 'before' }] })
      await consumer.subscribe({ topics: [topic], fromBeginning: true })
      const read: string[] = []
      await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
      await until(
        () => read.includes('before'),
        30_000,
        () => 'nothing read',
      )

      password = 'rotated-wrongly'
      const opens = vi.spyOn(Connection, 'open')
      // Past the next re-authentication of every connection.
      await new Promise((r) => setTimeout(r, SESSION_MS * 2))
      const started = Date.now()
      const error = await producer.send({ topic, messages: [{ value: 'after' }] }).then(
        () => null,
        (err) => err,
      )
      expect(error).toBeInstanceOf(AuthenticationError)
      expect(Date.now() - started).toBeLessThan(5000)
      expect(inspect(error, { depth: 10 })).not.toContain('rotated-wrongly')
      const perSecond: number[] = []
      for (let i = 0; i < 6; i++) {
        const n = opens.mock.calls.length
        await new Promise((r) => setTimeout(r, 1000))
        perSecond.push(opens.mock.calls.length - n)
      }
      const attempts = opens.mock.calls.length
      opens.mockRestore()
      // A few reconnects (the producer's and the consumer's connections), each refused once; then the attempts stop.
      expect(attempts).toBeGreaterThan(0)
      expect(attempts, `attempts per second after the failure: ${perSecond}`).toBeLessThan(15)
      expect(
        perSecond.slice(2).reduce((a, b) => a + b, 0),
        `attempts per second after the failure: ${perSecond}`,
      ).toBeLessThanOrEqual(1)
      expect(
        crashes.some((e) => e instanceof AuthenticationError),
        'the consumer reports the AuthenticationError',
      ).toBe(true)
      await producer.disconnect()
      await consumer.disconnect()
      console.log(
        `after the credentials went bad: ${attempts} connection attempts in ${SESSION_MS * 2 + 6000} ms (per second after the failed send: ${perSecond}); consumer crashes: ${crashes.length}`,
      )
    }, 60_000)
  })
