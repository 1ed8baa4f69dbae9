// Options KafkaJS honours that wafka/kafkajs used to drop: socketFactory (each
// connection's socket made by the program's function) and the producer's
// metadataMaxAge (how stale its metadata may get). The same program runs on
// kafkajs 2.2.4 and wafka/kafkajs against the embedded broker.
import * as net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'

type Lib = typeof kafkajs | typeof wafkajs
const libs: Array<[string, Lib]> = [
  ['kafkajs', kafkajs],
  ['wafka/kafkajs', wafkajs],
]

describe('options KafkaJS honours', () => {
  let cluster: RunningCluster
  let brokers: string[]
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'honoured', partitions: 1 }] } as never)
    brokers = cluster.bootstrapServers.split(',')
  })
  afterAll(() => cluster?.stop())

  it.each(libs)('%s: socketFactory makes every connection, connected when it calls onConnect', async (_name, lib) => {
    const made: Array<{ address: string; ssl: boolean; onConnect: string }> = []
    const socketFactory = ({ host, port, ssl, onConnect }: { host: string; port: number; ssl: unknown; onConnect: () => void }) => {
      made.push({ address: `${host}:${port}`, ssl: Boolean(ssl), onConnect: typeof onConnect })
      return net.connect({ host, port }, onConnect)
    }
    const kafka = new lib.Kafka({ brokers, socketFactory, logLevel: lib.logLevel.NOTHING })
    const producer = kafka.producer()
    await producer.connect()
    const [sent] = await producer.send({ topic: 'honoured', messages: [{ value: 'through the factory' }] })
    await producer.disconnect()
    expect(sent.errorCode).toBe(0)
    expect(made.length).toBeGreaterThan(0)
    expect(new Set(made.map((m) => JSON.stringify(m)))).toEqual(
      new Set([JSON.stringify({ address: brokers[0], ssl: false, onConnect: 'function' })]),
    )
  })

  it('wafka/kafkajs: a socketFactory that throws fails the connect with its message', async () => {
    const kafka = new wafkajs.Kafka({
      brokers,
      logLevel: wafkajs.logLevel.NOTHING,
      retry: { retries: 0 },
      socketFactory: () => {
        throw new Error('no proxy configured')
      },
    })
    const admin = kafka.admin()
    await expect(admin.connect()).rejects.toThrow(/no proxy configured/)
    await admin.disconnect()
  })

  it.each(libs)(
    '%s: the producer refreshes its metadata once it is older than metadataMaxAge',
    async (_name, lib) => {
      /** Metadata requests a producer sends over five sends 300 ms apart. */
      const metadataRequests = async (metadataMaxAge: number | undefined) => {
        const producer = new lib.Kafka({ brokers, logLevel: lib.logLevel.NOTHING }).producer(
          metadataMaxAge === undefined ? {} : { metadataMaxAge },
        )
        let count = 0
        producer.on(producer.events.REQUEST, (e: { payload: { apiName: string } }) => void (e.payload.apiName === 'Metadata' && count++))
        await producer.connect()
        for (let i = 0; i < 5; i++) {
          await producer.send({ topic: 'honoured', messages: [{ value: `m${i}` }] })
          await new Promise((r) => setTimeout(r, 300))
        }
        await producer.disconnect()
        return count
      }
      const aged = await metadataRequests(100)
      const fresh = await metadataRequests(undefined)
      expect(aged).toBeGreaterThanOrEqual(5)
      expect(fresh).toBeLessThanOrEqual(2)
    },
    30_000,
  )
})
