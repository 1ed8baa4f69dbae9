// On a quiet partition the fetch in flight is a long poll (maxWaitTimeInMs);
// a seek() inside eachMessage and a handler's retry act at once all the
// same, not when that poll returns. Root API, on real Kafka and on the
// embedded broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel } from '../../src/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { topicWith, until } from './support.js'

for (const target of brokerTargets({ embedded: { brokers: 1 } }))
  describe.skipIf(!target.available)(`acting at once, on ${target.name}`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    for (const what of ['seek', 'retry'] as const)
      it(`${what === 'seek' ? 'a seek() inside eachMessage' : "a handler's retry"} does not wait for the long poll in flight`, async () => {
        const kafka = new Kafka({ clientId: 'at-once', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING })
        const topic = `at-once-${what}-${target.embedded ? 'embedded' : 'kafka'}`
        await topicWith(kafka, topic, ['a', 'b', 'c'])
        const consumer = kafka.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 5000, autoOffsetReset: 'earliest', retryBackoffMs: 50 })
        const seen: string[] = []
        let at = 0
        try {
          await consumer.connect()
          await consumer.subscribe({ topics: [topic] })
          await consumer.run({
            eachMessage: async ({ topic, partition, message }) => {
              const v = String(message.value)
              seen.push(v)
              if (v === 'c' && at === 0) {
                at = Date.now()
                if (what === 'seek') consumer.seek({ topic, partition, offset: 0 })
                else throw new Error('fails once')
              }
            },
          })
          await until(
            () => seen.length >= (what === 'seek' ? 6 : 4),
            15_000,
            () => `read ${seen.join(' ')}`,
          )
        } finally {
          await consumer.disconnect()
        }
        expect(seen).toEqual(what === 'seek' ? ['a', 'b', 'c', 'a', 'b', 'c'] : ['a', 'b', 'c', 'c'])
        expect(Date.now() - at).toBeLessThan(1500)
      }, 30_000)
  })
