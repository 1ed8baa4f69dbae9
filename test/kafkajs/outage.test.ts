// The whole cluster goes away under a running consumer, then comes back.
// KafkaJS's consumer spends its retry budget, crashes (a CRASH event, with
// KafkaJSNumberOfRetriesExceeded) and asks retry.restartOnFailure whether to
// restart; restarted, it reads what was written while it was down, once the
// brokers are back. wafka/kafkajs does the same, on the same embedded
// cluster (every broker stopped, then started).
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, libs, quiet, sleep } from './side-by-side.js'
import { untilTrue } from '../support/until.js'

const retry = { retries: 3, initialRetryTime: 100, maxRetryTime: 500 }

describe('a whole-cluster outage, on kafkajs and wafka/kafkajs', () => {
  const embedded = embeddedBroker()

  const waitFor = (done: () => boolean, ms: number, what: string) => untilTrue(done, ms, () => what)

  async function outage(lib: typeof kafkajs, name: string) {
    const brokers = embedded.cluster.bootstrapServers.split(',')
    const kafka = new lib.Kafka({ brokers, ...quiet, retry })
    const topic = `outage-${name}`
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const send = async (values: string[]) => {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic, messages: values.map((value) => ({ value })) })
      await producer.disconnect()
    }
    await send(['a', 'b'])

    const asked: string[] = []
    const crashes: Array<{ name: string; restart: boolean }> = []
    const consumer = kafka.consumer({
      groupId: `g-${topic}`,
      maxWaitTimeInMs: 100,
      heartbeatInterval: 300,
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
      retry: { ...retry, restartOnFailure: async (e: Error) => (asked.push(e.name), true) },
    })
    consumer.on(consumer.events.CRASH, (e) => void crashes.push({ name: e.payload.error.name, restart: e.payload.restart }))
    const seen: string[] = []
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) })
    let resumeMs = -1
    try {
      await waitFor(() => seen.length >= 2, 20_000, `read ${seen.join(' ')}`)
      await sleep(500) // the commit after the batch
      for (const b of embedded.cluster.brokers) await embedded.cluster.stopBroker(b.id)
      await waitFor(() => crashes.length > 0, 30_000, 'no CRASH event while no broker answers')
      for (const b of embedded.cluster.brokers) await embedded.cluster.startBroker(b.id)
      const back = Date.now()
      await send(['c', 'd'])
      await waitFor(() => seen.includes('d'), 30_000, `read ${seen.join(' ')} after the cluster came back`)
      resumeMs = Date.now() - back
    } finally {
      await consumer.disconnect()
    }
    return { crashes: crashes.slice(0, 1), asked: asked.slice(0, 1), seen: [...new Set(seen)], resumeMs }
  }

  it('crashes once the retry budget is spent, restarts as restartOnFailure says, and reads on once the brokers are back', async () => {
    const results: Record<string, Awaited<ReturnType<typeof outage>>> = {}
    for (const [name, lib] of Object.entries(libs)) results[name] = await outage(lib, name.replace('/', '-'))
    for (const r of Object.values(results)) {
      // KafkaJS names the crash after the layer whose retries ran out (here its fetch: KafkaJSNonRetriableError
      // around KafkaJSNumberOfRetriesExceeded); either way the cause is retriable, so it asks to restart.
      expect(r.crashes).toHaveLength(1)
      expect(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSNonRetriableError']).toContain(r.crashes[0].name)
      expect(r.crashes[0].restart).toBe(true)
      expect(r.asked).toEqual([r.crashes[0].name])
      expect(r.seen).toEqual(['a', 'b', 'c', 'd'])
    }
    expect(results['wafka/kafkajs'].crashes[0].name).toBe('KafkaJSNumberOfRetriesExceeded')
    // Back promptly: the restarted member rejoins under its old member id, so the group does not wait for it to expire.
    expect(results['wafka/kafkajs'].resumeMs).toBeLessThan(3000)
  }, 120_000)
})
