// Each SASL mechanism and each TLS mode against a real broker, and against
// the embedded broker as a second target: connect, produce in every codec,
// consume in a group, admin calls.
import { afterAll, beforeAll, describe, it } from 'vitest'
import type { KafkaConfig } from '../../src/kafka.js'
import { requireSecuredEmbedded, startSecuredEmbedded } from './secured-embedded.js'
import { requireSecuredKafka, startSecuredKafka, unsecuredJwt, USERS, type SecuredTarget } from './secured-kafka.js'
import { roundTrip } from './support.js'

const targets: Array<[string, () => boolean, () => Promise<SecuredTarget>]> = [
  ['real Kafka', () => requireSecuredKafka(), () => startSecuredKafka()],
  ['the embedded broker', () => requireSecuredEmbedded(), () => startSecuredEmbedded()],
]

for (const [target, available, start] of targets)
  describe.skipIf(!available())(`secured connections against ${target}`, () => {
    let k: SecuredTarget
    beforeAll(async () => {
      k = await start()
    })
    afterAll(async () => {
      await k?.stop()
    })

    const alice = (mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512') => ({ mechanism, username: 'alice', password: USERS.alice })
    const cases: Array<[string, () => Omit<KafkaConfig, 'clientId'>]> = [
      ['SASL_PLAINTEXT PLAIN', () => ({ brokers: k.listener('SASL'), sasl: alice('plain') })],
      ['SASL_PLAINTEXT SCRAM-SHA-256', () => ({ brokers: k.listener('SASL'), sasl: alice('scram-sha-256') })],
      ['SASL_PLAINTEXT SCRAM-SHA-512', () => ({ brokers: k.listener('SASL'), sasl: alice('scram-sha-512') })],
      [
        'SASL_PLAINTEXT OAUTHBEARER',
        () => ({
          brokers: k.listener('SASL'),
          sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJwt('alice') }) },
        }),
      ],
      ['SSL', () => ({ brokers: k.listener('SSL'), ssl: { ca: [k.certs.ca] } })],
      [
        'SSL with a client certificate (mTLS)',
        () => ({ brokers: k.listener('MTLS'), ssl: { ca: [k.certs.ca], cert: k.certs.clientCert, key: k.certs.clientKey } }),
      ],
      [
        'SSL by host name (SNI and hostname verification against DNS:localhost)',
        () => ({ brokers: k.listener('SSL').map((b) => b.replace('127.0.0.1', 'localhost')), ssl: { ca: [k.certs.ca] } }),
      ],
      [
        'SASL_SSL PLAIN (Confluent Cloud style)',
        () => ({ brokers: k.listener('SASL_SSL'), ssl: { ca: [k.certs.ca] }, sasl: alice('plain') }),
      ],
      ['SASL_SSL SCRAM-SHA-512', () => ({ brokers: k.listener('SASL_SSL'), ssl: { ca: [k.certs.ca] }, sasl: alice('scram-sha-512') })],
      [
        'SASL_SSL OAUTHBEARER with extensions',
        () => ({
          brokers: k.listener('SASL_SSL'),
          ssl: { ca: [k.certs.ca] },
          sasl: {
            mechanism: 'oauthbearer',
            oauthBearerProvider: () => ({ value: unsecuredJwt('alice'), extensions: { traceId: 'abc123' } }),
          },
        }),
      ],
      [
        'SASL_SSL SCRAM-SHA-512 from an async credentials function',
        () => ({ brokers: k.listener('SASL_SSL'), ssl: { ca: [k.certs.ca] }, sasl: async () => alice('scram-sha-512') }),
      ],
    ]
    cases.forEach(([name, config], i) => {
      it(name, async () => {
        await roundTrip(config() as KafkaConfig, `mech-${i}`)
      })
    })
  })

// The 3.9 line (ZooKeeper's last, run in KRaft mode here): the same protocol, older broker code.
describe.skipIf(!requireSecuredKafka('3.9'))('secured connections against real Kafka 3.9', () => {
  let k: SecuredKafka
  beforeAll(async () => {
    k = await startSecuredKafka({ version: '3.9' })
  })
  afterAll(async () => {
    await k?.stop()
  })
  const cases: Array<[string, () => Omit<KafkaConfig, 'clientId'>]> = [
    [
      'SASL_SSL SCRAM-SHA-512',
      () => ({
        brokers: k.listener('SASL_SSL'),
        ssl: { ca: [k.certs.ca] },
        sasl: { mechanism: 'scram-sha-512', username: 'alice', password: USERS.alice },
      }),
    ],
    [
      'SASL_PLAINTEXT OAUTHBEARER',
      () => ({
        brokers: k.listener('SASL'),
        sasl: { mechanism: 'oauthbearer', oauthBearerProvider: () => ({ value: unsecuredJwt('alice') }) },
      }),
    ],
    ['mTLS', () => ({ brokers: k.listener('MTLS'), ssl: { ca: [k.certs.ca], cert: k.certs.clientCert, key: k.certs.clientKey } })],
  ]
  cases.forEach(([name, config], i) => {
    it(name, async () => {
      await roundTrip(config() as KafkaConfig, `mech39-${i}`)
    })
  })
})
