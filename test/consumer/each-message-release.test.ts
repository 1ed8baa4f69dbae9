import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { until } from './support.js'

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

let mock: MockCluster

beforeAll(async () => {
  requirePeers()
  mock = await startMockCluster({ brokers: 1 })
})
afterAll(async () => {
  await mock?.stop()
})

it('eachMessage: the consumer lets go of a message (and the Buffers it made) once its handler returns, not at the end of the batch', async () => {
  await mock.createTopic('release', { partitions: 1, replicationFactor: 1 })
  const messages = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: `value ${i}`, partition: 0 }))
  // One record batch, so all of them come in one fetch and one delivery.
  await kcatProduce(mock.bootstrap, 'release', messages, { config: { 'linger.ms': 500, 'batch.num.messages': 10_000 } })
  const consumer = new Kafka({ clientId: 'release', brokers: [mock.bootstrap] }).consumer({})
  const seen: string[] = []
  let first: WeakRef<Buffer> | undefined
  let firstKept: boolean | undefined
  let firstBatch: object | undefined
  let sameBatch: boolean | undefined
  try {
    await consumer.connect()
    consumer.assign([{ topic: 'release', partitions: [0] }])
    consumer.seek({ topic: 'release', partition: 0, offset: 0 })
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(String(message.value))
        if (seen.length === 1) [first, firstBatch] = [new WeakRef(message.value!), message.batch]
        if (seen.length === 50) {
          sameBatch = message.batch === firstBatch // one delivery: before, its array held every message until the end
          await new Promise((r) => setTimeout(r, 0)) // a new job: WeakRefs made in the last one may be cleared
          gc()
          firstKept = first!.deref() !== undefined
        }
      },
    })
    await until(
      () => seen.length >= 100,
      20_000,
      () => `read ${seen.length}`,
    )
  } finally {
    await consumer.disconnect()
  }
  expect(seen).toEqual(messages.map((m) => m.value))
  expect(sameBatch).toBe(true)
  expect(firstKept).toBe(false)
})
