// The engine's per-request listener (onRequest), which wafka/kafkajs turns
// into KafkaJS's network events: answered requests with their timing,
// requests queueing behind maxInFlight, and a request that times out.
import * as net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { Connection, type RequestEvent } from '../../src/net/connection.js'
import { Metadata } from '../../src/protocol/messages/index.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'

const kafkaOk = requireKafka()

describe.skipIf(!kafkaOk)('onRequest against real Kafka', () => {
  let cluster: KafkaCluster
  beforeAll(async () => {
    cluster = await startKafka()
  }, 120_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it('reports each answered request and the queue behind maxInFlight', async () => {
    const [host, port] = cluster.bootstrap.split(',')[0].split(':')
    const events: RequestEvent[] = []
    const conn = await Connection.open({
      host,
      port: Number(port),
      clientId: 'probe',
      maxInFlight: 1,
      onRequest: (e) => void events.push(e),
    })
    try {
      await Promise.all([1, 2, 3].map(() => conn.request(Metadata, { topics: [] } as any)))
    } finally {
      conn.close()
    }
    const answered = events.filter((e) => e.type === 'request')
    expect(answered.map((e) => e.apiName)).toEqual(['ApiVersions', 'Metadata', 'Metadata', 'Metadata'])
    for (const e of answered) {
      expect(e).toMatchObject({ broker: `${host}:${port}`, clientId: 'probe' })
      expect(e.size).toBeGreaterThan(0)
      expect(e.sentAt).toBeGreaterThanOrEqual(e.createdAt)
      expect(e.pendingDuration).toBe(e.sentAt - e.createdAt)
      expect(e.duration).toBeGreaterThanOrEqual(0)
    }
    // With one in flight, the second and third wait: queue 1, 2, then drained to 1, 0.
    expect(events.filter((e) => e.type === 'queueSize').map((e) => (e as { queueSize: number }).queueSize)).toEqual([1, 2, 1, 0])
  })

  it('a listener that throws breaks nothing; a client without one still works', async () => {
    const kafka = new Kafka({
      brokers: cluster.bootstrap.split(','),
      onRequest: () => {
        throw new Error('observer')
      },
    })
    const admin = kafka.admin()
    await admin.connect()
    try {
      expect(Array.isArray(await admin.listTopics())).toBe(true)
    } finally {
      await admin.disconnect()
    }
  })
})

describe('onRequest on a broker that never answers', () => {
  it('reports the request that timed out with its timing', async () => {
    const sockets: net.Socket[] = []
    const silent = net.createServer((s) => void sockets.push(s))
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    const port = (silent.address() as net.AddressInfo).port
    const events: RequestEvent[] = []
    try {
      await expect(
        Connection.open({ host: '127.0.0.1', port, requestTimeoutMs: 200, onRequest: (e) => void events.push(e) }),
      ).rejects.toThrow(/no response within 200 ms/)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise((r) => silent.close(r))
    }
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: 'timeout', apiName: 'ApiVersions', apiKey: 18, broker: `127.0.0.1:${port}` })
    const e = events[0] as Extract<RequestEvent, { type: 'timeout' }>
    expect(e.pendingDuration).toBe(e.sentAt - e.createdAt)
  })
})
