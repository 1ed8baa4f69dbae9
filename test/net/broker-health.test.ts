// Never silent at the connection layer: a broker that goes away is one WARN
// naming it (not one per retry), each later failed attempt DEBUG, and one
// INFO when it answers again; a broker that refuses us (bad credentials) is
// an ERROR. Captured through the logCreator, against the fake broker and the
// embedded broker with SASL; no entry holds the password.
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { AuthenticationError, Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { FakeCluster } from '../hostile/fake-broker.js'
import { timed } from '../hostile/support.js'

const FAST = {
  requestTimeoutMs: 1500,
  connectTimeoutMs: 1000,
  retryBackoffMs: 50,
  retryBackoffMaxMs: 200,
  reconnectBackoffMs: 20,
  defaultApiTimeoutMs: 1000,
  reconnectBackoffMaxMs: 100,
}

let fake: FakeCluster | undefined
let embedded: RunningCluster | undefined
afterEach(async () => {
  await fake?.close()
  await embedded?.stop()
  fake = embedded = undefined
})

function capture() {
  const entries: LogEntry[] = []
  const about = (broker: string, label: LogEntry['label']) =>
    entries.filter((e) => e.label === label && e.namespace === 'Connection' && String(e.log.broker).includes(broker))
  return { entries, about, logCreator: () => (entry: LogEntry) => void entries.push(entry) }
}

describe('a broker that goes away and comes back', () => {
  it('is one WARN naming it, DEBUG for each failed retry, and one INFO when it is back', async () => {
    fake = await FakeCluster.start({ topics: { t: 1 } })
    const broker = fake.broker(1)
    const address = `127.0.0.1:${broker.port}`
    const log = capture()
    const admin = new Kafka({ brokers: fake.bootstrap, ...FAST, logLevel: logLevel.DEBUG, logCreator: log.logCreator }).admin()
    await admin.connect()
    expect(await admin.listTopics()).toEqual(['t'])
    expect(log.about(address, 'WARN')).toEqual([])

    await broker.close()
    // Several calls, each retrying its connection many times within its budget.
    for (let i = 0; i < 3; i++) {
      const { error } = await timed(() => admin.listTopics())
      expect(error).toBeDefined()
    }
    const warns = log.about(address, 'WARN')
    expect(warns.map((e) => e.log.message)).toEqual([`lost the connection to ${address}`])
    expect(warns[0].log.error).toMatch(/closed the connection|ECONNRESET/)
    const retries = log.about(address, 'DEBUG').filter((e) => e.log.message === `${address} is still unreachable`)
    expect(retries.length).toBeGreaterThan(3)
    expect(log.about(address, 'INFO')).toEqual([])

    await broker.listen(broker.port)
    expect(await admin.listTopics()).toEqual(['t'])
    const infos = log.about(address, 'INFO')
    // Back through its node id or its bootstrap entry: one broker either way.
    expect(infos).toHaveLength(1)
    expect(infos[0].log.message).toMatch(new RegExp(`${address.replace(/\./g, '\\.')}\\)? is reachable again$`))
    expect(infos[0].log.failures).toBeGreaterThan(3)
    expect(log.about(address, 'WARN')).toHaveLength(1)
    expect(log.entries.filter((e) => e.label === 'ERROR')).toEqual([])
    await admin.disconnect()
  })

  it('a broker that was never reachable is one WARN ("cannot reach"), whatever the retries', async () => {
    const log = capture()
    // Port 1 on loopback: refused at once, every time.
    const admin = new Kafka({ brokers: ['127.0.0.1:1'], ...FAST, logLevel: logLevel.INFO, logCreator: log.logCreator }).admin()
    for (let i = 0; i < 3; i++) expect((await timed(() => admin.connect())).error).toBeDefined()
    expect(log.about('127.0.0.1:1', 'WARN').map((e) => e.log.message)).toEqual(['cannot reach 127.0.0.1:1'])
    await admin.disconnect()
  })
})

describe('a broker that refuses us', () => {
  it('bad credentials: one ERROR naming the broker, never the password', async () => {
    const password = 'not-Alices-Pa55word!'
    embedded = await startCluster({ brokers: 1, sasl: { users: { alice: 'alice-Pa55word!' } } })
    const address = embedded.bootstrapServers
    const log = capture()
    const kafka = new Kafka({
      brokers: [address],
      ...FAST,
      sasl: { mechanism: 'plain', username: 'alice', password },
      logLevel: logLevel.DEBUG,
      logCreator: log.logCreator,
    })
    const admin = kafka.admin()
    for (let i = 0; i < 2; i++) {
      const { error } = await timed(() => admin.connect())
      expect(error).toBeInstanceOf(AuthenticationError)
    }
    const errors = log.about(address, 'ERROR')
    expect(errors.map((e) => e.log.message)).toEqual([`${address} refused the connection`])
    expect(errors[0].log.errorName).toBe('AuthenticationError')
    expect(log.about(address, 'WARN')).toEqual([])
    expect(log.entries.length).toBeGreaterThan(0)
    for (const entry of log.entries) expect(JSON.stringify(entry)).not.toContain(password)
    await admin.disconnect()
  })
})
