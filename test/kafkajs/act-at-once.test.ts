// What a handler asks for takes effect at once, not after the fetch in
// flight (a long poll of up to maxWaitTimeInMs, 5 s by default, on a quiet
// partition) returns: a seek() inside eachMessage, a handler's retry (so a
// poison message crashes after the retries' backoff, 0.3 s here, not after
// two long polls, 10 s) and a partial eachBatch resolve. KafkaJS is the
// comparison, on one embedded broker, with its default maxWaitTimeInMs: its
// retries act at once (it fetches again only once a batch is handled); its
// seek and partial resolve wait for its next long poll, which wafka does not.
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, topicWith, libs, quiet, sleep } from './side-by-side.js'

const retry = { retries: 2, initialRetryTime: 100, maxRetryTime: 200 }

describe('acting at once on a quiet partition, on kafkajs and wafka/kafkajs', () => {
  const embedded = embeddedBroker()

  async function setup(lib: typeof kafkajs, topic: string) {
    const kafka = new lib.Kafka({ brokers: embedded.cluster.bootstrapServers.split(','), ...quiet, retry })
    await topicWith(kafka, topic, ['a', 'b', 'c'])
    const crashes: number[] = []
    const consumer = kafka.consumer({
      groupId: `g-${topic}`,
      heartbeatInterval: 500,
      retry: { ...retry, restartOnFailure: async () => false },
    })
    consumer.on(consumer.events.CRASH, () => void crashes.push(Date.now()))
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    return { consumer, crashes }
  }

  async function waitFor(done: () => boolean, ms: number) {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await sleep(10)
  }

  const name = (lib: string) => lib.replace('/', '-')

  it('seek() inside eachMessage: the sought message comes next', async () => {
    const took: Record<string, number> = {}
    for (const [lib, l] of Object.entries(libs)) {
      const { consumer } = await setup(l, `seek-${name(lib)}`)
      const seen: string[] = []
      let soughtAt = 0
      try {
        await consumer.run({
          eachMessage: async ({ topic, partition, message }) => {
            const v = String(message.value)
            seen.push(v)
            // After c, the partition is quiet: back to a, once.
            if (v === 'c' && soughtAt === 0) {
              soughtAt = Date.now()
              consumer.seek({ topic, partition, offset: '0' })
            }
          },
        })
        await waitFor(() => seen.length >= 6, 15_000)
      } finally {
        await consumer.disconnect()
      }
      expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c'])
      took[lib] = Date.now() - soughtAt
    }
    // KafkaJS itself waits here for the long poll its seek interrupts (5 s); wafka does not.
    expect(took['wafka/kafkajs']).toBeLessThan(1000)
  }, 60_000)

  it('a poison message: each retry at once, the crash after the retries', async () => {
    const took: Record<string, number> = {}
    for (const [lib, l] of Object.entries(libs)) {
      const { consumer, crashes } = await setup(l, `poison-${name(lib)}`)
      let firstFailure = 0
      try {
        await consumer.run({
          eachMessage: async ({ message }) => {
            if (String(message.value) === 'b') {
              firstFailure ||= Date.now()
              throw new Error('poison')
            }
          },
        })
        await waitFor(() => crashes.length > 0, 30_000)
      } finally {
        await consumer.disconnect()
      }
      expect(crashes.length).toBe(1)
      took[lib] = crashes[0] - firstFailure
    }
    expect(took.kafkajs).toBeLessThan(2000)
    expect(took['wafka/kafkajs']).toBeLessThan(2000)
  }, 60_000)

  it('eachBatch resolving part of a batch: the rest comes again at once', async () => {
    const took: Record<string, number> = {}
    for (const [lib, l] of Object.entries(libs)) {
      const { consumer } = await setup(l, `partial-${name(lib)}`)
      const seen: string[] = []
      let partialAt = 0
      try {
        await consumer.run({
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset }) => {
            for (const m of batch.messages) {
              seen.push(String(m.value))
              // The first time through, stop after a: b and c come again.
              if (partialAt === 0 && String(m.value) === 'a') {
                resolveOffset(m.offset)
                partialAt = Date.now()
                return
              }
              resolveOffset(m.offset)
            }
          },
        })
        await waitFor(() => seen.includes('c'), 15_000)
      } finally {
        await consumer.disconnect()
      }
      expect(seen).toEqual(['a', 'b', 'c'])
      took[lib] = Date.now() - partialAt
    }
    // KafkaJS itself waits here for the long poll its seek interrupts (5 s); wafka does not.
    expect(took['wafka/kafkajs']).toBeLessThan(1000)
  }, 60_000)
})
