// The SSL/SASL section of KafkaJS's docs, run unchanged on kafkajs 2.2.4 and
// wafka/kafkajs against one real broker with secured listeners.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { requireSecuredKafka, startSecuredKafka, USERS, type SecuredKafka } from '../security/secured-kafka.js'
import type { KafkaJSModule, ProgramEnv } from './programs/program.js'
import { sslSasl } from './programs/ssl-sasl.js'

const ok = requireSecuredKafka()

describe.skipIf(!ok)('SSL/SASL: the same results on kafkajs and wafka/kafkajs', () => {
  let kafka: SecuredKafka
  beforeAll(async () => {
    kafka = await startSecuredKafka()
  }, 180_000)
  afterAll(async () => {
    await kafka?.stop()
  })

  const env = (client: string): ProgramEnv => ({
    brokers: kafka.listener('RIG'),
    name: (what) => `${client}-secured-${what}`,
    secured: {
      saslBrokers: kafka.listener('SASL'),
      saslSslBrokers: kafka.listener('SASL_SSL'),
      sslBrokers: kafka.listener('SSL'),
      ca: kafka.certs.ca,
      users: USERS,
    },
  })

  it('SSL/SASL', async () => {
    const expected = await sslSasl(kafkajs as unknown as KafkaJSModule, env('kafkajs'))
    const actual = await sslSasl(wafkajs as unknown as KafkaJSModule, env('wafka'))
    if (process.env.KAFKAJS_PROGRAMS_PRINT) console.log(JSON.stringify(expected))
    expect(actual).toEqual(expected)
  }, 180_000)
})
