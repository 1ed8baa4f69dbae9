// brokers and tls/ssl are checked like every other option: brokers may be
// an array or one comma-separated string (as bootstrap.servers and the CLI's
// -b), anything else says what it must be; a tls/ssl object takes
// node:tls.connect()'s option names and refuses any other, naming the
// nearest. The KafkaJS drop-in does as KafkaJS 2.2.4 does (checked against
// KafkaJS itself): a string fails when a client connects, a key node:tls does
// not know is passed over (here with a WARN).
import { Kafka as RealKafkaJS, logLevel as kafkajsLevel } from 'kafkajs'
import { afterEach, describe, expect, it } from 'vitest'
import { parseBootstrap } from '../../src/cluster/broker-address.js'
import { Kafka } from '../../src/kafka.js'
import { Kafka as KafkaJS, logLevel, type LogEntry } from '../../src/kafkajs/index.js'
import { FakeCluster } from '../hostile/fake-broker.js'
import { refusal } from '../support/refusal.js'

let fake: FakeCluster | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

describe('brokers', () => {
  it('takes one comma-separated string, as bootstrap.servers and the CLI do', async () => {
    expect(parseBootstrap('a:1, b:2,,[::1]:3 ')).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
      { host: '::1', port: 3 },
    ])
    fake = await FakeCluster.start({ brokers: 2, topics: { t: 1 } })
    const admin = new Kafka({ brokers: fake.bootstrap.join(',') }).admin()
    await admin.connect()
    expect(await admin.listTopics()).toEqual(['t'])
    await admin.disconnect()
  })

  it('anything else says what brokers must be', () => {
    expect(refusal(() => new Kafka({ brokers: 9092 } as never))).toBe(
      'brokers must be an array of "host:port" strings (or one comma-separated string), not number',
    )
    expect(refusal(() => new Kafka({} as never))).toMatch(/^brokers must be an array .* not undefined$/)
    expect(refusal(() => new Kafka({ brokers: [] }))).toMatch(/^no brokers given/)
    expect(refusal(() => new Kafka({ brokers: ' , ' }))).toMatch(/^no brokers given/)
    expect(refusal(() => new Kafka({ brokers: ['a:1', 2] } as never))).toBe('brokers[1] must be a "host:port" string, not number')
    expect(refusal(() => new Kafka({ brokers: 'a:1,b:x' }))).toMatch(/broker address "b:x" is not host:port/)
  })
})

describe('tls / ssl', () => {
  const brokers = ['127.0.0.1:1']

  it('refuses a key node:tls does not know, naming the nearest', () => {
    expect(refusal(() => new Kafka({ brokers, tls: { rejectUnauthorised: false } as never }))).toMatch(
      /^unknown tls option rejectUnauthorised: did you mean rejectUnauthorized\?/,
    )
    expect(refusal(() => new Kafka({ brokers, ssl: { serverName: 'kafka' } as never }))).toMatch(
      /^unknown ssl option serverName: did you mean servername\?/,
    )
    expect(refusal(() => new Kafka({ brokers }).admin({ tls: { caFile: '/etc/ca.pem' } } as never))).toMatch(/^unknown tls option caFile/)
  })

  it('refuses what wafka sets for each broker', () => {
    expect(refusal(() => new Kafka({ brokers, tls: { host: 'kafka.example' } }))).toMatch(/^tls.host is set for each broker/)
    expect(refusal(() => new Kafka({ brokers, ssl: { port: 9093 } }))).toMatch(/^ssl.port is set for each broker/)
  })

  it("takes node:tls.connect()'s own names, and the socket options it passes on", () => {
    expect(
      () =>
        new Kafka({
          brokers,
          tls: {
            ca: ['pem'],
            cert: 'pem',
            key: 'pem',
            passphrase: 'p',
            servername: 'kafka.example',
            rejectUnauthorized: true,
            checkServerIdentity: () => undefined,
            minVersion: 'TLSv1.2',
            ciphers: 'HIGH',
            session: undefined,
            ALPNProtocols: ['kafka'],
            secureContext: undefined,
            keepAlive: true,
            family: 4,
            lookup: undefined,
          },
        }),
    ).not.toThrow()
  })
})

describe('the KafkaJS drop-in, as KafkaJS 2.2.4', () => {
  const quiet = { logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 300 }

  it('brokers as a string: the constructor takes it, connect() fails (at once, saying why)', async () => {
    // KafkaJS itself: no error until connect, which then cannot make sense of it.
    const real = new RealKafkaJS({ brokers: '127.0.0.1:1' as never, ...quiet, logLevel: kafkajsLevel.NOTHING })
    await expect(real.admin().connect()).rejects.toThrow(/Failed to connect/)

    const admin = new KafkaJS({ brokers: '127.0.0.1:1,127.0.0.1:2' as never, ...quiet }).admin()
    const started = Date.now()
    const error = await admin.connect().then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.name).toBe('KafkaJSNonRetriableError')
    expect(error?.message).toBe(
      'Failed to connect: brokers must be an array of "host:port" strings, not a string (KafkaJS does not split one): ["127.0.0.1:1","127.0.0.1:2"]',
    )
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it("no brokers: KafkaJS's own message, when connecting", async () => {
    const real = new RealKafkaJS({ ...quiet, logLevel: kafkajsLevel.NOTHING } as never)
    const expected = await real
      .admin()
      .connect()
      .then(
        () => undefined,
        (e: Error) => e.message,
      )
    const ours = await new KafkaJS({ ...quiet } as never)
      .admin()
      .connect()
      .then(
        () => undefined,
        (e: Error) => e.message,
      )
    expect(ours).toBe(expected)
  })

  it('an ssl key node:tls does not know is passed over as KafkaJS does, with a WARN naming the nearest', () => {
    const entries: LogEntry[] = []
    expect(
      () =>
        new KafkaJS({
          brokers: ['127.0.0.1:1'],
          ssl: { rejectUnauthorised: false } as never,
          logLevel: logLevel.WARN,
          logCreator: () => (e) => void entries.push(e),
        }),
    ).not.toThrow()
    expect(entries.map((e) => [e.label, e.log.message])).toEqual([
      ['WARN', 'ssl option rejectUnauthorised is not a node:tls option: ignored (did you mean rejectUnauthorized?)'],
    ])
  })
})
