// Defects 5 and 6 of issue 9: a partition halted by a corrupt batch, or by
// OFFSET_OUT_OF_RANGE under autoOffsetReset 'none', raises its typed error
// once, then waits without spinning (no timer past 2^31-1 ms, no
// TimeoutOverflowWarning, no CPU), and seek() resumes it.
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, CorruptRecordError, Kafka, KafkaError, type Consumer } from '../../src/index.js'
import { Fetch } from '../../src/protocol/messages/index.js'
import { FakeCluster, fetchRecords } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, expectTyped, liveResources, sleep, until } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

async function consume(kafka: Kafka, config: object, seekTo?: number) {
  const consumer: Consumer = kafka.consumer({ maxWaitTimeInMs: 100, ...config })
  const errors: Error[] = []
  const seen: string[] = []
  consumer.on(consumer.events.CRASH, (e) => void errors.push(e.payload.error))
  consumer.assign([{ topic: 't', partitions: [0] }])
  if (seekTo !== undefined) consumer.seek({ topic: 't', partition: 0, offset: seekTo })
  await consumer.connect()
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(`${message.offset}:${message.value}`) })
  return { consumer, errors, seen }
}

/** While halted: no fetch of it, no overflow warning, little CPU. */
async function expectQuietFor(ms: number) {
  const warnings: string[] = []
  const onWarning = (w: Error) => void warnings.push(w.name)
  process.on('warning', onWarning)
  const fetchesBefore = cluster!.asked(Fetch)
  const cpu = process.cpuUsage()
  await sleep(ms)
  const used = process.cpuUsage(cpu)
  process.off('warning', onWarning)
  expect(warnings.filter((w) => w === 'TimeoutOverflowWarning')).toEqual([])
  expect(cluster!.asked(Fetch) - fetchesBefore).toBe(0)
  expect((used.user + used.system) / 1000).toBeLessThan(ms * 0.3)
}

describe('a halted partition', () => {
  it('corrupt batch: a typed error, then quiet, then seek() resumes past it', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.append('t', 0, [{ value: 'bad' }])
    cluster.append('t', 0, [{ value: 'good' }])
    const corrupt = Buffer.from(cluster.partition('t', 0).log[0].bytes)
    corrupt[corrupt.length - 1] ^= 0xff // the CRC no longer matches
    cluster.broker(1).on(Fetch, (req, s) => {
      if (req.body.topics[0].partitions[0].fetchOffset !== 0n) return false
      return fetchRecords(() => corrupt)(req, s)
    })
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const baseline = liveResources()
    const { consumer, errors, seen } = await consume(kafka, { autoOffsetReset: 'earliest' })
    expect(await until(() => errors.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expectTyped(errors[0], CorruptRecordError, false)
    expect(errors[0].message).toMatch(/t-0 at offset 0/)
    await expectQuietFor(1000)
    expect(seen).toEqual([])
    consumer.seek({ topic: 't', partition: 0, offset: 1 })
    expect(await until(() => seen.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expect(seen).toEqual(['1:good'])
    expect(errors).toHaveLength(1)
    await consumer.disconnect()
    await expectNothingLeft(baseline)
  })

  it("OFFSET_OUT_OF_RANGE with autoOffsetReset 'none': a typed error, then quiet, then seek() resumes", async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.append('t', 0, [{ value: 'a' }])
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
    const baseline = liveResources()
    const { consumer, errors, seen } = await consume(kafka, { autoOffsetReset: 'none' }, 5)
    expect(await until(() => errors.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expectTyped(errors[0], KafkaError, false)
    expect((errors[0] as KafkaError).type).toBe('OFFSET_OUT_OF_RANGE')
    await expectQuietFor(1000)
    consumer.seek({ topic: 't', partition: 0, offset: 0 })
    expect(await until(() => seen.length > 0, 5000)).toBeLessThan(2000 + SLACK_MS)
    expect(seen).toEqual(['0:a'])
    await consumer.disconnect()
    await expectNothingLeft(baseline)
  })

  it('no duration option takes more than a timer can wait (2^31-1 ms)', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:1'] })
    expect(() => kafka.consumer({ maxPollIntervalMs: 2 ** 31 })).toThrow(ConfigError)
    expect(() => kafka.consumer({ autoCommitIntervalMs: 2 ** 31 })).toThrow(ConfigError)
    expect(() => kafka.producer({ maxBlockMs: 2 ** 31 })).toThrow(ConfigError)
    expect(() => kafka.consumer({ maxPollIntervalMs: 2 ** 31 - 1 })).not.toThrow()
  })
})
