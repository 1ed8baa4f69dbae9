// The fake broker itself: a producer, a consumer and an admin client work
// against it when it behaves, so every failure in the other files is the
// misbehaviour's and not the fake's.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startBlackhole } from './blackhole.js'
import { FakeCluster } from './fake-broker.js'
import { SETTINGS, liveResources, expectNothingLeft } from './support.js'
import * as net from 'node:net'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

describe('fake broker', () => {
  it('serves produce, fetch, list offsets and metadata', async () => {
    cluster = await FakeCluster.start({ brokers: 2, topics: { t: 2 } })
    cluster.setLeader('t', 1, 2)
    const baseline = liveResources()
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const producer = kafka.producer()
    await producer.connect()
    const sent = await producer.send({
      topic: 't',
      messages: [
        { value: 'a', partition: 0 },
        { value: 'b', partition: 1 },
        { value: 'c', partition: 1 },
      ],
    })
    expect(sent.map((s) => [s.partition, s.baseOffset]).sort()).toEqual([
      [0, '0'],
      [1, '0'],
    ])
    await producer.disconnect()
    const admin = kafka.admin()
    await admin.connect()
    expect(await admin.fetchTopicOffsets('t')).toEqual([
      { partition: 0, offset: '1', high: '1', low: '0' },
      { partition: 1, offset: '2', high: '2', low: '0' },
    ])
    await admin.disconnect()
    const consumer = kafka.consumer({ maxWaitTimeInMs: 100, autoOffsetReset: 'earliest' })
    consumer.assign([{ topic: 't', partitions: [0, 1] }])
    await consumer.connect()
    const seen: string[] = []
    await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.value}`) })
    const deadline = Date.now() + 10_000
    while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    await consumer.disconnect()
    expect(seen.sort()).toEqual(['0:a', '1:b', '1:c'])
    await expectNothingLeft(baseline)
  })

  it('blackhole: a connect there times out', async () => {
    const hole = await startBlackhole()
    try {
      const s = net.connect({ host: hole.host, port: hole.port })
      const outcome = await new Promise((resolve) => {
        const t = setTimeout(() => resolve('timeout'), 1500)
        s.once('connect', () => {
          clearTimeout(t)
          resolve('connected')
        })
        s.once('error', (e) => {
          clearTimeout(t)
          resolve(`error ${e.message}`)
        })
      })
      s.destroy()
      expect(outcome).toBe('timeout')
    } finally {
      await hole.close()
    }
  })
})
