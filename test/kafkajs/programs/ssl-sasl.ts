// SSL/SASL: TLS with the cluster's CA, SASL PLAIN / SCRAM-SHA-256 / SCRAM-SHA-512 / OAUTHBEARER,
// a custom mechanism through authenticationProvider, and the error for a wrong password.
import { Buffer } from 'node:buffer'
import { kafkajsPlainProvider } from '../../security/kafkajs-plain-provider.js'
import { errorShape, quiet, until, type Program } from './program.js'

export const sslSasl: Program = async ({ Kafka, logLevel }, env) => {
  const s = env.secured!
  const base = { clientId: 'secured', logLevel: logLevel.NOTHING, logCreator: quiet }
  const ssl = { ca: [s.ca], rejectUnauthorized: true }
  const jwt = (sub: string) => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const now = Math.floor(Date.now() / 1000)
    return `${b64({ alg: 'none' })}.${b64({ sub, iat: now, exp: now + 3600 })}.`
  }
  const clients = {
    ssl: new Kafka({ ...base, brokers: s.sslBrokers, ssl }),
    'sasl_ssl plain': new Kafka({
      ...base,
      brokers: s.saslSslBrokers,
      ssl,
      sasl: { mechanism: 'plain', username: 'alice', password: s.users.alice },
    }),
    'sasl scram-sha-256': new Kafka({
      ...base,
      brokers: s.saslBrokers,
      sasl: { mechanism: 'scram-sha-256', username: 'alice', password: s.users.alice },
    }),
    'sasl_ssl scram-sha-512': new Kafka({
      ...base,
      brokers: s.saslSslBrokers,
      ssl,
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: s.users.alice },
    }),
    'sasl oauthbearer': new Kafka({
      ...base,
      brokers: s.saslBrokers,
      sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: jwt('alice') }) },
    }),
    // PLAIN written by hand, as a custom mechanism is (AWS IAM and others are written this way):
    // the bytes go length-prefixed, as KafkaJS's Encoder.writeBytes writes them.
    'sasl custom provider': new Kafka({
      ...base,
      brokers: s.saslBrokers,
      sasl: kafkajsPlainProvider('alice', s.users.alice) as never,
    }),
  }
  const topic = env.name('topic')
  const results: Record<string, unknown> = {}
  for (const [name, kafka] of Object.entries(clients)) {
    const producer = kafka.producer()
    results[name] = await producer
      .connect()
      .then(() => producer.send({ topic, messages: [{ key: name, value: `over ${name}` }] }))
      .then(([meta]) => meta.errorCode, errorShape)
    await producer.disconnect()
  }
  const consumer = clients['sasl_ssl scram-sha-512'].consumer({ groupId: env.name('group') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const read: string[] = []
  await consumer.run({ eachMessage: async ({ message }) => void read.push(String(message.value)) })
  await until(() => read.length === Object.values(results).filter((r) => r === 0).length, 30_000, 'every message sent')
  await consumer.disconnect()

  const wrong = new Kafka({
    ...base,
    brokers: s.saslBrokers,
    sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'not-the-password' },
    retry: { retries: 0 },
  })
  const wrongPassword = await wrong
    .admin()
    .connect()
    .then(
      () => null,
      (e) => ({ ...errorShape(e), mentionsPassword: String(e.message).includes('not-the-password') }),
    )
  return { results, read: read.sort(), wrongPassword }
}
