import { afterAll, beforeAll, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { zstdReady } from '../../src/codec/compression.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { until } from './support.js'

// Its own file: zstd's wasm build is loaded once per module graph, and nothing here may load it first.
const nativeZstd = zstdReady()
let mock: MockCluster

beforeAll(async () => {
  requirePeers()
  mock = await startMockCluster({ brokers: 1 })
})
afterAll(async () => {
  await mock?.stop()
})

it('loads zstd with the first zstd batch it fetches, not at connect, and reads the batch', async () => {
  await mock.createTopic('zstd-on-demand', { partitions: 1, replicationFactor: 1 })
  const messages = Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: `value ${i} `.repeat(20), partition: 0 }))
  await kcatProduce(mock.bootstrap, 'zstd-on-demand', messages, { compression: 'zstd' })
  const consumer = new Kafka({ clientId: 'zstd-on-demand', brokers: [mock.bootstrap] }).consumer({ groupId: 'zstd-on-demand' })
  try {
    await consumer.connect()
    // Without node:zlib's zstd (Node < 22.15), connecting no longer pays for its wasm memory.
    expect(zstdReady()).toBe(nativeZstd)
    await consumer.subscribe({ topics: ['zstd-on-demand'], fromBeginning: true })
    const seen: string[] = []
    const errors: Error[] = []
    consumer.on(consumer.events.CRASH, (e: { payload: { error: Error } }) => errors.push(e.payload.error))
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) seen.push(`${m.key}=${m.value}`)
      },
    })
    await until(
      () => seen.length >= 200 || errors.length > 0,
      20_000,
      () => `read ${seen.length}`,
    )
    expect(errors).toEqual([])
    expect(seen).toEqual(messages.map((m) => `${m.key}=${m.value}`))
    expect(zstdReady()).toBe(true)
  } finally {
    await consumer.disconnect()
  }
})
