import { afterAll, describe, expect, it } from 'vitest'
import type { Cluster } from '../../src/cluster/cluster.js'
import { KAFKA_OPTIONS } from '../../src/cluster/options.js'
import { PRODUCER_OPTIONS } from '../../src/producer/config.js'
import { ConfigError } from '../../src/errors.js'
import { Kafka } from '../../src/kafka.js'
import { refusal } from '../support/refusal.js'

// Nothing listens here: every refusal below comes before a connection is tried.
const kafka = new Kafka({ brokers: ['127.0.0.1:1'] })
const producer = kafka.producer()
const consumer = kafka.consumer({ groupId: 'g' })
const plain = kafka.consumer()
afterAll(async () => {
  await producer.disconnect()
  await consumer.disconnect()
  await plain.disconnect()
})

const rejection = async (p: Promise<unknown>): Promise<string> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ConfigError)
  return (err as Error).message
}

describe('per-call options are validated from their tables', () => {
  it('send() and sendBatch(): an unknown key names the nearest valid one, a wrong type names the option', async () => {
    expect(await rejection(producer.send({ topic: 't', mesages: [] } as never))).toMatch(
      /^unknown send\(\) option mesages: did you mean messages\?/,
    )
    expect(await rejection(producer.send({ topic: 5, messages: [] } as never))).toMatch(/^send\(\) option topic must be a string, not 5$/)
    expect(await rejection(producer.send({ topic: 't', messages: [], timeout: 100 } as never))).toMatch(
      /^send\(\) option timeout \(KafkaJS\) is not supported: .*requestTimeoutMs/,
    )
    expect(await rejection(producer.sendBatch({ topicMessages: [], compresion: 'gzip' } as never))).toMatch(/did you mean compression\?/)
    expect(await rejection(producer.sendBatch({ topicMessages: { topic: 't' } } as never))).toMatch(
      /^sendBatch\(\) option topicMessages must be an array/,
    )
    expect(await rejection(producer.sendBatch({ topicMessages: [{ topic: 't', message: [] }] } as never))).toMatch(
      /^unknown sendBatch\(\) topicMessages entry option message: did you mean messages\?/,
    )
  })

  it('subscribe() and run()', async () => {
    expect(await rejection(consumer.subscribe({ topics: ['t'], fromBegining: true } as never))).toMatch(
      /^unknown subscribe\(\) option fromBegining: did you mean fromBeginning\?/,
    )
    expect(await rejection(consumer.subscribe({ topics: ['t'], fromBeginning: 'yes' } as never))).toMatch(
      /^subscribe\(\) option fromBeginning must be true or false, not "yes"/,
    )
    expect(await rejection(consumer.run({ eachMessage: async () => {}, autoCommitIntervl: 10 } as never))).toMatch(
      /^unknown run\(\) option autoCommitIntervl: did you mean autoCommitInterval\?/,
    )
    expect(await rejection(consumer.run({ eachMessage: 'log' } as never))).toMatch(
      /^run\(\) option eachMessage must be a function, not "log"/,
    )
    expect(await rejection(consumer.run({ eachMessage: async () => {}, partitionsConsumedConcurrently: 1.5 }))).toMatch(
      /^run\(\) option partitionsConsumedConcurrently must be an integer from 1 to 2147483647, not 1.5/,
    )
    // null is what autoCommitInterval documents (no timer): accepted by the check, refused only where it is not.
    expect(await rejection(consumer.run({ eachMessage: async () => {}, autoCommitThreshold: 'many' } as never))).toMatch(
      /autoCommitThreshold must be an integer from 1 to 2147483647 or null, not "many"/,
    )
  })

  it('commitOffsets(), seek(), pause() and assign()', async () => {
    expect(await rejection(consumer.commitOffsets([{ topic: 't', partition: 0, ofset: '1' }] as never))).toMatch(
      /^unknown commitOffsets\(\) entry option ofset: did you mean offset\?/,
    )
    expect(await rejection(consumer.commitOffsets([{ topic: 't', partition: 0, offset: 'ten' }]))).toMatch(
      /^commitOffsets\(\) entry option offset must be an offset .*, not "ten"/,
    )
    expect(await rejection(consumer.commitOffsets({ topic: 't' } as never))).toMatch(/^commitOffsets\(\) takes an array/)
    expect(refusal(() => consumer.seek({ topic: 't', partition: 0, offest: 1 } as never))).toMatch(
      /^unknown seek\(\) option offest: did you mean offset\?/,
    )
    expect(refusal(() => consumer.seek({ topic: 't', partition: '0', offset: 1 } as never))).toMatch(
      /^seek\(\) option partition must be an integer from 0 to 2147483647, not "0"/,
    )
    expect(refusal(() => consumer.seek({ topic: 't', partition: 0, offset: 'x' }))).toMatch(/^seek\(\) option offset must be an offset/)
    expect(refusal(() => consumer.pause([{ topic: 't', partition: [0] }] as never))).toMatch(
      /^unknown pause\(\) entry option partition: did you mean partitions\?/,
    )
    expect(refusal(() => plain.assign([{ topic: 't', partitions: 0 }] as never))).toMatch(
      /^assign\(\) entry option partitions must be an array, not 0/,
    )
  })

  it('lets valid calls through to their own checks', async () => {
    expect(() => consumer.pause([{ topic: 't' }])).not.toThrow()
    expect(consumer.paused()).toEqual([])
    expect(() => consumer.seek({ topic: 't', partition: 0, offset: '5' })).not.toThrow()
    expect(refusal(() => consumer.seek({ topic: 't', partition: 0, offset: -1 }))).toMatch(/an offset is >= 0/)
    expect(await rejection(consumer.run({}))).toMatch(/exactly one of eachMessage or eachBatch/)
  })
})

describe("producer()'s maxInFlight comes from the options table", () => {
  const connections = (p: unknown) => (p as { cluster: Cluster }).cluster.options.maxInFlight

  it("is Java's default, 5, unless given; a Kafka object's larger one is kept for the connection", async () => {
    expect(PRODUCER_OPTIONS.maxInFlight.default).toBe(5)
    expect(connections(producer)).toBe(PRODUCER_OPTIONS.maxInFlight.default)
    const p = kafka.producer({ maxInFlight: 3 })
    expect(connections(p)).toBe(KAFKA_OPTIONS.maxInFlight.default)
    const wide = new Kafka({ brokers: ['127.0.0.1:1'], maxInFlight: 9 }).producer()
    expect(connections(wide)).toBe(9)
    const loose = kafka.producer({ maxInFlight: 7, idempotent: false })
    expect(connections(loose)).toBe(7)
    await Promise.all([p.disconnect(), wide.disconnect(), loose.disconnect()])
  })

  it('refuses more than 5 with idempotence (on by default with acks all, and for a transactional producer)', () => {
    expect(refusal(() => kafka.producer({ maxInFlight: 6 }))).toMatch(
      /an idempotent producer keeps at most 5 requests in flight per broker/,
    )
    expect(refusal(() => kafka.producer({ maxInFlight: 6, transactionalId: 'tx' }))).toMatch(/at most 5/)
    expect(refusal(() => kafka.producer({ maxInFlightRequests: 8 } as never))).toMatch(/at most 5/)
  })
})
