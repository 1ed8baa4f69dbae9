// Broker quotas, client side (KIP-219): a broker over a client's quota answers
// with throttle_time_ms and, from the API versions where it answers before
// throttling, the connection must send nothing more until that time has
// passed. Against the project's fake broker, which answers Metadata with the
// throttle time a test sets.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Connection, type RequestEvent } from '../../src/net/connection.js'
import { ThrottleGate } from '../../src/net/throttle.js'
import { createLogger, logLevel, type LogEntry } from '../../src/logger.js'
import { ApiVersions, Metadata } from '../../src/protocol/messages/index.js'
import { FAKE_VERSIONS, FakeCluster, type FakeBroker, type FakeRequest } from '../hostile/fake-broker.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

interface Answered {
  req: FakeRequest
  /** Epoch ms the answer was written. */
  at: number
}

/**
 * A broker that speaks Metadata up to v6 (the first version after KIP-219)
 * and answers each Metadata with the next of `throttles` (then 0), `delayMs`
 * after reading it.
 */
async function throttlingBroker(throttles: number[], delayMs = 0): Promise<{ broker: FakeBroker; answered: Answered[] }> {
  cluster = await FakeCluster.start()
  const broker = cluster.broker(1)
  const answered: Answered[] = []
  broker.on(ApiVersions, (req, s) =>
    s.answer(req, {
      errorCode: 0,
      apiKeys: FAKE_VERSIONS.map(([api, min, max]) => ({ apiKey: api.apiKey, minVersion: min, maxVersion: api === Metadata ? 6 : max })),
    }),
  )
  broker.on(Metadata, (req, s) => {
    const throttleTimeMs = throttles.shift() ?? 0
    setTimeout(() => {
      answered.push({ req, at: Date.now() })
      s.answer(req, { throttleTimeMs, brokers: [], clusterId: null, controllerId: 1, topics: [] })
    }, delayMs)
  })
  return { broker, answered }
}

const metadata = (conn: Connection, version: number) =>
  conn.request(Metadata, { topics: null, allowAutoTopicCreation: false } as any, { version })

describe('a throttled connection (KIP-219)', () => {
  it('holds the next request back until the throttle has passed, and says so in its events and logs', async () => {
    const { broker, answered } = await throttlingBroker([400])
    const events: RequestEvent[] = []
    const logs: LogEntry[] = []
    const conn = await Connection.open({
      host: '127.0.0.1',
      port: broker.port,
      onRequest: (e) => void events.push(e),
      logger: createLogger({ logLevel: logLevel.DEBUG, logCreator: () => (e) => void logs.push(e) }),
    })
    try {
      await metadata(conn, 6)
      expect(conn.throttledUntil).toBeGreaterThan(Date.now())
      // Two more while throttled: both wait (the queue says so), neither fails.
      await Promise.all([metadata(conn, 6), metadata(conn, 6)])
    } finally {
      conn.close()
    }
    const asked = broker.requests.filter((r) => r.apiKey === Metadata.apiKey)
    expect(asked).toHaveLength(3)
    // Nothing reached the broker before the throttle it announced had passed.
    expect(asked[1].at - answered[0].at).toBeGreaterThanOrEqual(400)
    expect(asked[2].at - answered[0].at).toBeGreaterThanOrEqual(400)
    const requests = events.filter((e) => e.type === 'request' && e.apiName === 'Metadata') as Array<RequestEvent & { type: 'request' }>
    expect(requests.map((e) => e.throttleTimeMs)).toEqual([400, 0, 0])
    expect(requests[1].pendingDuration).toBeGreaterThanOrEqual(390)
    expect(events.filter((e) => e.type === 'queueSize').map((e) => (e as { queueSize: number }).queueSize)).toEqual([1, 2, 1, 0])
    const said = logs.find((l) => l.log.message.startsWith('throttled by the broker'))
    expect(said).toMatchObject({ label: 'DEBUG', log: { api: 'Metadata', throttleTimeMs: 400, waitMs: 400 } })
    expect(said!.log.broker).toContain(`127.0.0.1:${broker.port}`)
  })

  it('does not count the wait against the request timeout (as Java: the timeout starts at the send)', async () => {
    const { broker } = await throttlingBroker([280], 150)
    const conn = await Connection.open({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 300 })
    try {
      await metadata(conn, 6)
      const started = Date.now()
      await metadata(conn, 6)
      // 280 ms throttled plus 150 ms for the answer: past 300 ms since asked, well within it since sent.
      expect(Date.now() - started).toBeGreaterThanOrEqual(430)
    } finally {
      conn.close()
    }
  })

  it('does not wait again on an older version, where the broker delayed the answer itself', async () => {
    const { broker, answered } = await throttlingBroker([400])
    const events: RequestEvent[] = []
    const conn = await Connection.open({ host: '127.0.0.1', port: broker.port, onRequest: (e) => void events.push(e) })
    try {
      await metadata(conn, 5)
      expect(conn.throttledUntil).toBe(0)
      await metadata(conn, 5)
    } finally {
      conn.close()
    }
    const asked = broker.requests.filter((r) => r.apiKey === Metadata.apiKey)
    expect(asked[1].at - answered[0].at).toBeLessThan(200)
    // The broker's throttle time is still reported.
    expect(events.filter((e) => e.type === 'request' && e.apiName === 'Metadata').map((e) => (e as any).throttleTimeMs)).toEqual([400, 0])
  })

  it('caps a throttle past all reason at the request timeout, rather than stalling the connection', async () => {
    const { broker, answered } = await throttlingBroker([2 ** 31 - 1])
    const conn = await Connection.open({ host: '127.0.0.1', port: broker.port, requestTimeoutMs: 300 })
    try {
      await metadata(conn, 6)
      await metadata(conn, 6)
    } finally {
      conn.close()
    }
    const asked = broker.requests.filter((r) => r.apiKey === Metadata.apiKey)
    const waited = asked[1].at - answered[0].at
    expect(waited).toBeGreaterThanOrEqual(300)
    expect(waited).toBeLessThan(2_000)
  })

  it('fails the requests waiting behind a throttle when the connection closes', async () => {
    const { broker } = await throttlingBroker([5_000])
    const conn = await Connection.open({ host: '127.0.0.1', port: broker.port })
    await metadata(conn, 6)
    const waiting = metadata(conn, 6)
    waiting.catch(() => {})
    await new Promise((r) => setTimeout(r, 100))
    expect(broker.requests.filter((r) => r.apiKey === Metadata.apiKey)).toHaveLength(1)
    conn.close()
    await expect(waiting).rejects.toThrow(/closed/)
  })

  it('wakes a request queued behind the gate even when the clock ticks past the throttle between the checks', async () => {
    // The connection saw the gate closed and queued its request; by the time the gate armed its
    // timer the clock had reached the throttle's end. A gate that read the clock again found
    // itself open and set no timer, so the request waited for ever (a throttled consumer stalled in CI).
    let woken = 0
    const gate = new ThrottleGate(30_000, () => void woken++)
    gate.throttle(100, 1_000)
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_099)
    try {
      expect(gate.closed).toBe(true)
      now.mockReturnValue(1_100)
      gate.arm()
    } finally {
      now.mockRestore()
    }
    await new Promise((r) => setTimeout(r, 50))
    expect(woken).toBe(1)
    expect(gate.closed).toBe(false)
  })
})
