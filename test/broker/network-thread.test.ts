// The embedded broker's network thread (networkThread: true): the client
// listeners' sockets in a thread of their own, as Kafka's acceptor and
// network threads, so a new connection is taken and its first request (an
// ApiVersions) answered while the brokers' thread is busy. The busy thread is
// this one, blocked in Atomics.wait until a probe in another thread has its
// answer: with the network thread the wait ends with the probe's word, without
// it the wait runs out (the brokers' thread, blocked, answers nothing).
// `wafka broker` runs with it by default. security.test.ts runs its TLS, mTLS
// and SASL cases through the thread too, and franz-go's suite runs both ways.
import { connect } from 'node:net'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/kafka.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { Produce } from '../../src/protocol/messages/Produce.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { ClientConnection } from '../../src/broker/listener.js'
import { NetworkThread } from '../../src/broker/network-thread.js'
import { RemoteSocket, type SocketCommand } from '../../src/broker/remote-socket.js'
import { RawClient } from './raw-client.js'
import { keepLog, serveBroker, until } from './support.js'

/**
 * A probe in a thread of its own: once `go` is set it connects to `port`,
 * sends ApiVersions `frame` and, on a response with its correlation id, sets
 * `done` to 1 and wakes this thread.
 */
function probe(port: number, frame: Buffer, flags: Int32Array): Worker {
  const source = `
    const { workerData } = require('node:worker_threads')
    const net = require('node:net')
    const { port, frame, flags } = workerData
    Atomics.wait(flags, 0, 0, 10000)
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.from(frame)))
    let got = Buffer.alloc(0)
    socket.on('data', (chunk) => {
      got = Buffer.concat([got, chunk])
      if (got.length >= 8 && got.readInt32BE(4) === 4242) {
        Atomics.store(flags, 1, 1)
        Atomics.notify(flags, 1)
        socket.destroy()
      }
    })
    socket.on('error', () => {})
  `
  return new Worker(source, { eval: true, workerData: { port, frame: new Uint8Array(frame), flags } })
}

/** Blocks this thread (the brokers') until the probe has its answer or 3 s pass: 'ok' if it was answered meanwhile. */
async function answeredWhileBlocked(port: number, version: number): Promise<string> {
  const flags = new Int32Array(new SharedArrayBuffer(8))
  const frame = RawClient.frame(ApiVersions, version, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' }, 4242)
  const worker = probe(port, frame, flags)
  await new Promise((resolve) => worker.once('online', resolve))
  Atomics.store(flags, 0, 1)
  Atomics.notify(flags, 0)
  const result = Atomics.wait(flags, 1, 0, 3000)
  await worker.terminate()
  return result
}

describe('the network thread', () => {
  let cluster: RunningCluster | undefined
  afterEach(async () => {
    await cluster?.stop()
    cluster = undefined
  })

  it("answers a new connection's ApiVersions while the brokers' thread is blocked; without it nothing is answered until the block ends", async () => {
    cluster = await startCluster({ brokers: 1, networkThread: true })
    const port = Number(cluster.bootstrapServers.split(':')[1])
    for (const version of [0, 3, 4, 5]) expect(await answeredWhileBlocked(port, version), `ApiVersions v${version}`).toBe('ok')
    await cluster.stop()
    cluster = await startCluster({ brokers: 1 })
    expect(await answeredWhileBlocked(Number(cluster.bootstrapServers.split(':')[1]), 3)).toBe('timed-out')
  })

  it('wafka broker runs with it; --no-network-thread without', async () => {
    for (const [args, expected] of [
      [[], 'ok'],
      [['--no-network-thread'], 'timed-out'],
    ] as const) {
      const broker = await serveBroker(['--port', '0', ...args])
      try {
        const port = Number(broker.bootstrap[0].split(':')[1])
        expect(await answeredWhileBlocked(port, 3), `wafka broker ${args.join(' ')}`).toBe(expected)
      } finally {
        expect(await broker.stop()).toBe(0)
      }
    }
  })

  it("its ApiVersions answer is the brokers' own, and what follows on the connection is served in order by the brokers", async () => {
    const answers = []
    for (const networkThread of [false, true]) {
      cluster = await startCluster({ brokers: 1, networkThread })
      const raw = await RawClient.open(cluster.bootstrapServers)
      // Pipelined: ApiVersions (the thread's to answer), then Metadata (the brokers'), answered in order.
      raw.write(
        Buffer.concat([
          RawClient.frame(ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' }, 1),
          RawClient.frame(Metadata, 12, { topics: null, allowAutoTopicCreation: false }, 2),
        ]),
      )
      const first = await raw.readFrame()
      const second = await raw.readFrame()
      expect([first?.readInt32BE(0), second?.readInt32BE(0)]).toEqual([1, 2])
      answers.push(first!.subarray(4).toString('hex'))
      raw.close()
      await cluster.stop()
      cluster = undefined
    }
    expect(answers[1]).toBe(answers[0])
  })

  it('a new connection that pipelines its ApiVersions and 20 produces of 60 KB in one write gets every answer, in order', async () => {
    // The relayed bytes come in while the brokers' thread still takes the connection and then serves its first
    // produce: they wait, and are served after (librdkafka 0077_compaction's producer hung here once).
    cluster = await startCluster({ brokers: 1, networkThread: true, topics: [{ name: 'piped', partitions: 1 }] })
    for (let round = 0; round < 3; round++) {
      const produce = (i: number) =>
        RawClient.frame(
          Produce,
          10,
          {
            acks: -1,
            timeoutMs: 5000,
            topicData: [{ name: 'piped', partitionData: [{ index: 0, records: encodeRecordBatch([{ value: Buffer.alloc(60_000, i) }]) }] }],
          },
          100 + i,
        )
      const raw = await RawClient.open(cluster.bootstrapServers)
      raw.write(
        Buffer.concat([
          RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' }, 99),
          ...Array.from({ length: 20 }, (_, i) => produce(i)),
        ]),
      )
      const answered: number[] = []
      for (let i = 0; i < 21; i++) {
        const f = await raw.readFrame(5000)
        if (!f) break
        answered.push(f.readInt32BE(0))
      }
      expect(answered, `round ${round}`).toEqual(Array.from({ length: 21 }, (_, i) => 99 + i))
      raw.close()
    }
  })

  it('a request relayed while the connection serves the one before is served after it (the resume does not re-enter the connection)', async () => {
    const sent: string[] = []
    const socket = new RemoteSocket({ send: (_cid: number, c: SocketCommand) => void sent.push(c.t) }, 1, '127.0.0.1', 1, null)
    const served: number[] = []
    const connection = new ClientConnection(
      socket as never,
      async (frame) => {
        served.push(frame.readInt32BE(0))
        await new Promise((resolve) => setTimeout(resolve, 5))
        return Buffer.from([0, 0, 0, 4, 0, 0, 0, frame.readInt32BE(0)])
      },
      1 << 20,
      () => {},
    )
    const frame = (n: number) => Buffer.from([0, 0, 0, 4, 0, 0, 0, n])
    // The thread relays a whole request and stops reading; the next comes while the first is served.
    socket.received(frame(1), true)
    socket.received(frame(2), true)
    await until(
      () => served.length === 2 && sent.filter((t) => t === 'write').length === 2,
      2000,
      () => `served ${served}, sent ${sent}`,
    )
    expect(served).toEqual([1, 2])
    connection.close()
  })

  it('a thread that dies is said at ERROR, its connections close, and a new one listens on the same port', async () => {
    const problems: string[] = []
    const thread = new NetworkThread((why, level) => problems.push(`${level}: ${why}`))
    const sockets: RemoteSocket[] = []
    const server = await thread.listen('127.0.0.1', 0, null, { onConnection: (s) => sockets.push(s), onTlsClientError: () => {} })
    const dial = () =>
      new Promise<void>((resolve, reject) => {
        const s = connect(server.port, '127.0.0.1', () => resolve())
        s.on('error', reject)
      })
    try {
      await dial()
      await until(
        () => sockets.length === 1,
        5000,
        () => 'the first connection',
      )
      let closed = false
      sockets[0].once('close', () => (closed = true))
      await (thread as unknown as { worker: Worker }).worker.terminate()
      await until(
        () => closed,
        5000,
        () => "the dead thread's connection to close",
      )
      expect(problems).toEqual([
        expect.stringMatching(
          /^error: network thread failed \(exited with code 1\): its 1 client connection\(s\) closed; listening again$/,
        ),
      ])
      await until(
        async () => {
          await dial().catch(() => {})
          return sockets.length >= 2
        },
        5000,
        () => 'a connection to the new thread',
      )
    } finally {
      await server.close()
      await thread.stop()
    }
  })

  it("a v5 ApiVersions naming another cluster is the brokers' to refuse (REBOOTSTRAP_REQUIRED), as without the thread", async () => {
    cluster = await startCluster({ brokers: 1, networkThread: true })
    const raw = await RawClient.open(cluster.bootstrapServers)
    const res = await raw.request(ApiVersions, 5, {
      clientSoftwareName: 'raw',
      clientSoftwareVersion: '1',
      clusterId: 'another',
      nodeId: 0,
    })
    expect(res.errorCode).toBe(ErrorCodes.REBOOTSTRAP_REQUIRED)
    raw.close()
  })

  it('a 3-broker cluster serves produce, consume and a group through it, and stops cleanly', async () => {
    const problems: string[] = []
    cluster = await startCluster({ brokers: 3, networkThread: true, ...keepLog(problems) })
    const kafka = new Kafka({ clientId: 'nt', brokers: cluster.bootstrapServers.split(',') })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'nt', messages: Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'nt-group' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'nt', fromBeginning: true })
    const seen: string[] = []
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`saw ${seen.length} of 200`)), 20_000)
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString())
          if (seen.length === 200) {
            clearTimeout(timer)
            resolve()
          }
        },
      })
    })
    await consumer.disconnect()
    expect(new Set(seen).size).toBe(200)
    expect(problems.filter((p) => /network thread/.test(p))).toEqual([])
  })
})
