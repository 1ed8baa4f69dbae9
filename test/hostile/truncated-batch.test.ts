// Defect 7 of issue 9: a Fetch answer whose only batch is cut short. A
// broker that cuts at the partition limit (pre-KIP-74) is asked again with a
// larger limit, up to the batch's claimed size and maxBytes; a batch that
// still cannot be read (a broker that lies, a claim past maxBytes) is a typed
// error — never a hot loop re-fetching the same offset.
import { afterEach, describe, expect, it } from 'vitest'
import { CorruptRecordError, Kafka, KafkaError } from '../../src/index.js'
import { Fetch } from '../../src/protocol/messages/index.js'
import { FakeCluster, fetchRecords } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, expectTyped, liveResources, sleep, until } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

async function run(config: object) {
  const kafka = new Kafka({ brokers: cluster!.bootstrap, ...SETTINGS })
  const consumer = kafka.consumer({ maxWaitTimeInMs: 100, autoOffsetReset: 'earliest', ...config })
  const errors: Error[] = []
  const seen: string[] = []
  consumer.on(consumer.events.CRASH, (e) => void errors.push(e.payload.error))
  consumer.assign([{ topic: 't', partitions: [0] }])
  await consumer.connect()
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(`${message.offset}:${message.value!.length}`) })
  return { consumer, errors, seen }
}

describe('a Fetch answer holding only a truncated batch', () => {
  it('pre-KIP-74 broker cutting at partitionMaxBytes: asked again with the claimed size, the record arrives', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.append('t', 0, [{ value: Buffer.alloc(3000, 1) }])
    const whole = cluster.partition('t', 0).log[0].bytes
    cluster.broker(1).on(Fetch, (req, s) => {
      const asked = req.body.topics[0].partitions[0]
      if (asked.fetchOffset > 0n) return false
      return fetchRecords(() => whole.subarray(0, Math.min(whole.length, asked.partitionMaxBytes)))(req, s)
    })
    const baseline = liveResources()
    const { consumer, errors, seen } = await run({ maxBytesPerPartition: 1024 })
    expect(await until(() => seen.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expect(seen).toEqual(['0:3000'])
    expect(errors).toEqual([])
    const sizes = cluster
      .broker(1)
      .requests.filter((r) => r.apiKey === Fetch.apiKey)
      .map((r) => r.body.topics[0].partitions[0].partitionMaxBytes)
    expect(sizes.slice(0, 2)).toEqual([1024, whole.length])
    await consumer.disconnect()
    await expectNothingLeft(baseline)
  })

  it.each([
    ['claims 1,000 bytes more than present', 1000, CorruptRecordError],
    ['claims 0x7fffffff bytes', -1, KafkaError],
    ['answers with a batch that ends before the offset asked for', -2, CorruptRecordError],
  ] as const)('a broker that %s: a typed error, a bounded number of fetches, no hot loop', async (_name, extra, type) => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.append('t', 0, [{ value: Buffer.alloc(200, 1) }])
    const lying = Buffer.from(cluster.partition('t', 0).log[0].bytes)
    if (extra === -2)
      lying.writeBigInt64BE(-5n, 0) // offsets -5..-5: before 0
    else lying.writeInt32BE(extra < 0 ? 0x7fffffff : lying.length - 12 + extra, 8)
    cluster.broker(1).on(
      Fetch,
      fetchRecords(() => lying),
    )
    const baseline = liveResources()
    const cpu = process.cpuUsage()
    const { consumer, errors } = await run({})
    expect(await until(() => errors.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expectTyped(errors[0], type, false)
    expect(errors[0].message).toMatch(/t-0 at offset 0/)
    await sleep(1000)
    const used = process.cpuUsage(cpu)
    expect(cluster.asked(Fetch)).toBeLessThanOrEqual(4)
    expect((used.user + used.system) / 1000).toBeLessThan(1500)
    await consumer.disconnect()
    await expectNothingLeft(baseline)
  })
})
