// A handler that keeps failing: KafkaJS retries it retry.retries times, then
// crashes with KafkaJSNumberOfRetriesExceeded and asks retry.restartOnFailure
// whether to restart. Answered false, the consumer stops there (nothing after
// the failing message is processed); answered true, it restarts and goes on.
// Both clients on one embedded broker, the same observations.
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, topicWith, libs, quiet, sleep } from './side-by-side.js'

describe('retry.restartOnFailure on kafkajs and wafka/kafkajs', () => {
  const embedded = embeddedBroker()

  async function run(lib: typeof kafkajs, name: string, restart: boolean) {
    const brokers = embedded.cluster.bootstrapServers.split(',')
    const kafka = new lib.Kafka({ brokers, ...quiet, retry: { retries: 2, initialRetryTime: 50, maxRetryTime: 200 } })
    const topic = `restart-${name}-${restart}`
    await topicWith(kafka, topic, ['a', 'b', 'c'])

    const asked: string[] = []
    const consumer = kafka.consumer({
      groupId: `g-${topic}`,
      maxWaitTimeInMs: 100,
      retry: {
        retries: 2,
        initialRetryTime: 50,
        maxRetryTime: 200,
        restartOnFailure: async (e: Error) => {
          asked.push(e.name)
          return restart
        },
      },
    })
    const crashes: Array<{ name: string; restart: boolean }> = []
    consumer.on(consumer.events.CRASH, (e) => void crashes.push({ name: e.payload.error.name, restart: e.payload.restart }))
    const calls: string[] = []
    let bFailures = 0
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = String(message.value)
        calls.push(v)
        // Fails three times: once more than retry.retries, so exactly one crash.
        if (v === 'b' && bFailures < 3) {
          bFailures++
          throw new Error('handler failed')
        }
      },
    })
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline && (crashes.length === 0 || (restart && !calls.includes('c')))) await sleep(50)
    await sleep(restart ? 200 : 1500) // long enough to see a message that should not come
    await consumer.disconnect()
    return { crashes, asked, processed: [...new Set(calls)], bCalls: calls.filter((v) => v === 'b').length }
  }

  for (const restart of [false, true]) {
    it(`restartOnFailure answering ${restart}`, async () => {
      const seen = []
      for (const [name, lib] of Object.entries(libs)) seen.push(await run(lib, name.replace('/', '-'), restart))
      expect(seen[0]).toEqual({
        crashes: [{ name: 'KafkaJSNumberOfRetriesExceeded', restart }],
        asked: ['KafkaJSNumberOfRetriesExceeded'],
        processed: restart ? ['a', 'b', 'c'] : ['a', 'b'],
        bCalls: restart ? 4 : 3,
      })
      expect(seen[1]).toEqual(seen[0])
    }, 90_000)
  }
})
