// Connection limits as Kafka's (issue 23): connections.max.idle.ms,
// max.connections.per.ip, a bound on authentication, and a muted channel
// while a request is served. Idle and half-authenticated connections are
// closed on time while a well-behaved client keeps being served.
import { Buffer } from 'node:buffer'
import { duplexPair } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { SASL_AUTHENTICATION_TIMEOUT_MS } from '../../src/broker/broker.js'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { ClientConnection } from '../../src/broker/listener.js'
import { Kafka } from '../../src/index.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { SaslHandshake } from '../../src/protocol/messages/SaslHandshake.js'
import { RawClient } from './raw-client.js'
import { keepLog } from './support.js'

const running: RunningCluster[] = []
const raws: RawClient[] = []
afterEach(async () => {
  for (const r of raws.splice(0)) r.socket.destroy()
  for (const c of running.splice(0)) await c.stop()
})

async function cluster(options: StartClusterOptions): Promise<{ c: RunningCluster; problems: string[] }> {
  const problems: string[] = []
  const c = await startCluster({ brokers: 1, ...options, ...keepLog(problems) })
  running.push(c)
  return { c, problems }
}

async function open(c: RunningCluster): Promise<RawClient> {
  const r = await RawClient.open(c.bootstrapServers)
  raws.push(r)
  return r
}

const metadata = (r: RawClient) => r.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A client that produces and reads its record back, on its own connections. */
async function wellBehaved(c: RunningCluster, options: Record<string, unknown> = {}): Promise<void> {
  const kafka = new Kafka({ clientId: 'well-behaved', brokers: c.bootstrapServers.split(','), logLevel: 0, ...options })
  const producer = kafka.producer()
  await producer.connect()
  try {
    const [r] = await producer.send({ topic: 'limits', messages: [{ value: 'ok' }] })
    expect(r.errorCode).toBe(0)
  } finally {
    await producer.disconnect()
  }
}

describe('connection limits', () => {
  it('connections.max.idle.ms: a connection with no request is closed on time, one in use is kept, and a client goes on', async () => {
    const { c, problems } = await cluster({ connectionsMaxIdleMs: 600, topics: [{ name: 'limits', partitions: 1 }] })
    const idle = await open(c)
    const busy = await open(c)
    const started = Date.now()
    for (let i = 0; i < 8; i++) {
      await sleep(200)
      expect((await metadata(busy)).brokers).toHaveLength(1)
    }
    // 1.6 s of requests every 200 ms: the busy one lives, the idle one was closed after its 600 ms.
    expect(busy.closed).toBe(false)
    expect(idle.closed).toBe(true)
    await idle.whenClosed
    expect(Date.now() - started).toBeGreaterThanOrEqual(600)
    expect(problems.join('\n')).toMatch(/idle for 600 ms \(connections\.max\.idle\.ms\); connection closed/)
    await wellBehaved(c)
  })

  it('a request being served is not idleness: a long poll past connections.max.idle.ms is answered', async () => {
    const { c } = await cluster({ connectionsMaxIdleMs: 300, topics: [{ name: 'limits', partitions: 1 }] })
    const kafka = new Kafka({ clientId: 'long-poll', brokers: c.bootstrapServers.split(','), logLevel: 0 })
    const consumer = kafka.consumer({ groupId: 'long-poll', maxWaitTimeInMs: 1000, autoOffsetReset: 'earliest' })
    const got: string[] = []
    await consumer.connect()
    try {
      await consumer.subscribe({ topic: 'limits' })
      await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) })
      await sleep(1500)
      await wellBehaved(c)
      for (let i = 0; i < 50 && got.length === 0; i++) await sleep(100)
      expect(got).toEqual(['ok'])
    } finally {
      await consumer.disconnect()
    }
  })

  it('max.connections.per.ip: one past it is closed at once and said; a slot freed is taken again', async () => {
    const { c, problems } = await cluster({ maxConnectionsPerIp: 2 })
    const first = await open(c)
    await open(c)
    const third = await open(c)
    await third.whenClosed
    expect(problems.join('\n')).toMatch(/past max\.connections\.per\.ip \(2 from 127\.0\.0\.1\); connection closed/)
    first.socket.destroy()
    await first.whenClosed
    await sleep(50)
    const again = await open(c)
    expect((await metadata(again)).brokers).toHaveLength(1)
  })

  it(`a SASL listener closes a connection not authenticated within ${SASL_AUTHENTICATION_TIMEOUT_MS} ms, while a client that authenticates is served`, async () => {
    const { c, problems } = await cluster({ sasl: { users: { alice: 'alice-secret' } }, topics: [{ name: 'limits', partitions: 1 }] })
    // One that says nothing, one that stops after the handshake.
    const silent = await open(c)
    const halfway = await open(c)
    await halfway.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
    expect((await halfway.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0)
    await wellBehaved(c, { sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } })
    expect(silent.closed || halfway.closed).toBe(false)
    await Promise.all([silent.whenClosed, halfway.whenClosed])
    expect(problems.filter((p) => p.includes(`not authenticated within ${SASL_AUTHENTICATION_TIMEOUT_MS} ms`))).toHaveLength(2)
  }, 30_000)

  it('a connection is muted while a request is served: pipelined requests stay unread, answered one at a time, in order', async () => {
    const [ours, theirs] = duplexPair()
    const served: number[] = []
    let release: () => void = () => {}
    const connection = new ClientConnection(
      ours,
      async (frame) => {
        served.push(frame.readInt32BE(0))
        await new Promise<void>((resolve) => (release = resolve))
        return Buffer.from([0, 0, 0, 4, ...frame.subarray(0, 4)])
      },
      1 << 20,
      () => {},
      'test',
    )
    const frame = (n: number) => Buffer.from([0, 0, 0, 4, 0, 0, 0, n])
    const answers: Buffer[] = []
    theirs.on('data', (b: Buffer) => answers.push(b))
    theirs.write(frame(1))
    await sleep(20)
    theirs.write(Buffer.concat([frame(2), frame(3)]))
    await sleep(20)
    // Request 1 is being served: the connection does not read what came after it.
    expect(served).toEqual([1])
    expect(ours.isPaused()).toBe(true)
    release()
    await sleep(20)
    expect(served).toEqual([1, 2])
    expect(ours.isPaused()).toBe(true)
    release()
    await sleep(20)
    release()
    await sleep(20)
    expect(served).toEqual([1, 2, 3])
    expect(ours.isPaused()).toBe(false)
    expect(Buffer.concat(answers).toString('hex')).toBe('000000040000000100000004000000020000000400000003')
    connection.close()
  })
})
