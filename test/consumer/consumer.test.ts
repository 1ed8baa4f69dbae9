import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups, collect, until, type Seen } from './support.js'

describe.each(['legacy', 'modern'] as const)('consumer against the %s librdkafka mock', (build) => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Consumer[] = []
  const consumer = (config: Parameters<Kafka['consumer']>[0] = {}) => {
    const c = kafka.consumer({ heartbeatIntervalMs: 300, sessionTimeoutMs: 6000, ...config })
    open.push(c)
    return c
  }

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    await prepareForGroups(mock, build)
    kafka = new Kafka({ clientId: 'wafka-consumer-test', brokers: mock.bootstrap.split(',') })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()))
    await mock?.stop()
  })

  it('a group member reads every message kcat wrote, each partition in order', async () => {
    await mock.createTopic('basic', { partitions: 4, replicationFactor: 3 })
    const messages = Array.from({ length: 2000 }, (_, i) => ({ key: `k${i % 13}`, value: `v${i}` }))
    await kcatProduce(mock.bootstrap, 'basic', messages)
    const c = consumer({ groupId: `basic-${build}` })
    await c.connect()
    await c.subscribe({ topics: ['basic'], fromBeginning: true })
    const seen: Seen[] = []
    await collect(c, seen)
    await until(
      () => seen.length >= 2000,
      20000,
      () => `${seen.length} of 2000`,
    )
    expect(seen.map((s) => s.value).sort()).toEqual(messages.map((m) => m.value).sort())
    for (const p of [0, 1, 2, 3]) {
      const offsets = seen.filter((s) => s.partition === p).map((s) => Number(s.offset))
      expect(offsets).toEqual(offsets.map((_, i) => i))
    }
  })
})
