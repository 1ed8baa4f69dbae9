// What a consumer logs at INFO and above, on KafkaJS and wafka/kafkajs, for
// the same sessions on one embedded broker: a normal one (start, join,
// stop) and one with a poison message (handler errors, then the crash and
// the restart decision). KafkaJS's entries are the reference: wafka logs
// each of them, at the same level.
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, topicWith, libs, sleep } from './side-by-side.js'

interface Entry {
  label: string
  namespace: string
  message: string
  extra: Record<string, unknown>
}

describe('what the consumer logs, on kafkajs and wafka/kafkajs', () => {
  const embedded = embeddedBroker()

  async function session(lib: typeof kafkajs, name: string, poison: boolean) {
    const entries: Entry[] = []
    const brokers = embedded.cluster.bootstrapServers.split(',')
    const kafka = new lib.Kafka({
      brokers,
      logLevel: kafkajs.logLevel.INFO,
      logCreator:
        () =>
        ({ namespace, label, log }) => {
          const { message, timestamp: _t, logger: _l, ...extra } = log as { message: string; [k: string]: unknown }
          entries.push({ label, namespace, message, extra })
        },
    })
    const topic = `logging-${name}-${poison}`
    await topicWith(kafka, topic, ['a', 'bad', 'c'])
    const retry = { retries: 1, initialRetryTime: 50, maxRetryTime: 100, restartOnFailure: async () => false }
    const consumer = kafka.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100, heartbeatInterval: 500, retry })
    const seen: string[] = []
    let crashed = false
    consumer.on(consumer.events.CRASH, () => void (crashed = true))
    const start = entries.length
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = String(message.value)
        if (poison && v === 'bad') throw new Error('poison message')
        seen.push(v)
      },
    })
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline && !(poison ? crashed : seen.includes('c'))) await sleep(50)
    await consumer.disconnect()
    return entries.slice(start).filter((e) => ['Consumer', 'ConsumerGroup', 'Runner'].includes(e.namespace))
  }

  for (const poison of [false, true])
    it(
      poison ? 'a poison message: handler errors and the crash at ERROR' : 'a normal session: start, join and stop at INFO',
      async () => {
        const logged: Record<string, Entry[]> = {}
        for (const [name, lib] of Object.entries(libs)) logged[name] = await session(lib, name.replace('/', '-'), poison)
        const kinds = (list: Entry[]) => [...new Set(list.map((e) => `${e.label} ${e.message}`))].sort()
        expect(kinds(logged.kafkajs).length).toBeGreaterThanOrEqual(poison ? 5 : 4)
        expect(kinds(logged['wafka/kafkajs'])).toEqual(expect.arrayContaining(kinds(logged.kafkajs)))
        // The entries carry what KafkaJS's carry.
        const entry = (list: Entry[], message: string) => list.find((e) => e.message.startsWith(message))!
        const join = entry(logged['wafka/kafkajs'], 'Consumer has joined the group').extra
        expect(Object.keys(join)).toEqual(expect.arrayContaining(Object.keys(entry(logged.kafkajs, 'Consumer has joined the group').extra)))
        expect(join).toMatchObject({
          isLeader: true,
          groupProtocol: 'RoundRobinAssigner',
          memberAssignment: { [`logging-wafka-kafkajs-${poison}`]: [0] },
        })
        if (poison) {
          const count = (list: Entry[]) => list.filter((e) => e.message === 'Error when calling eachMessage').length
          expect(count(logged['wafka/kafkajs'])).toBe(count(logged.kafkajs))
          expect(entry(logged['wafka/kafkajs'], 'Error when calling eachMessage').extra).toMatchObject({
            partition: 0,
            offset: '1',
            error: 'poison message',
          })
        }
      },
      60_000,
    )
})
