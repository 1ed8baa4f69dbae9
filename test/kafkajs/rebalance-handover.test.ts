// A member hands its partition over at a rebalance while a handler is in
// hand: the commit on revoke must include that message (its handler
// completed), so nothing it processed is delivered again. The race is made
// certain: the handler of m2 returns only once its own consumer reports the
// rebalance (KafkaJS notices a rebalance only between messages, so there it
// returns after a bounded wait). KafkaJS itself is the comparison: it reads
// every message once.
import { describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import { embeddedBroker, libs, quiet, sleep } from './side-by-side.js'

describe('handing a partition over at a rebalance, on kafkajs and wafka/kafkajs', () => {
  const embedded = embeddedBroker()

  async function handover(lib: typeof kafkajs, name: string) {
    const brokers = embedded.cluster.bootstrapServers.split(',')
    const kafka = new lib.Kafka({ brokers, ...quiet })
    const topic = `handover-${name}`
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: ['m0', 'm1', 'm2', 'm3', 'm4'].map((value) => ({ value })) })
    await producer.disconnect()

    const reads: string[] = []
    const member = (id: string, inHand?: { entered: () => void; release: Promise<unknown> }) => {
      const consumer = kafka.consumer({
        groupId: `g-${topic}`,
        sessionTimeout: 10_000,
        rebalanceTimeout: 10_000,
        heartbeatInterval: 100,
        maxWaitTimeInMs: 100,
      })
      return {
        consumer,
        start: async () => {
          await consumer.connect()
          await consumer.subscribe({ topics: [topic], fromBeginning: true })
          await consumer.run({
            eachMessage: async ({ message }) => {
              const v = String(message.value)
              reads.push(`${id}:${v}`)
              if (v === 'm2' && inHand) {
                inHand.entered()
                await inHand.release
              }
            },
          })
        },
      }
    }
    let entered!: () => void
    const inM2 = new Promise<void>((resolve) => (entered = resolve))
    // Released by the first rebalance A reports once it holds m2 (its first join reports one too), or after 4 s.
    let rebalanced!: () => void
    const rebalancing = new Promise<string>((resolve) => (rebalanced = () => resolve('rebalance')))
    const release = inM2.then(() => Promise.race([rebalancing, sleep(4000).then(() => 'timeout')]))
    const a = member('a', { entered, release })
    let holding = false
    void inM2.then(() => (holding = true))
    a.consumer.on(a.consumer.events.REBALANCING, () => holding && rebalanced())
    const b = member('b')
    try {
      await a.start()
      await inM2
      await b.start()
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline && !reads.some((r) => r.endsWith(':m4'))) await sleep(50)
      await sleep(1000) // long enough to see a message read again
    } finally {
      await a.consumer.disconnect()
      await b.consumer.disconnect()
      await admin.disconnect()
    }
    return { values: reads.map((r) => r.slice(2)), releasedBy: await release }
  }

  it('reads every message once, the one in hand at the rebalance included', async () => {
    const seen: Record<string, { values: string[]; releasedBy?: string }> = {}
    for (const [name, lib] of Object.entries(libs)) seen[name] = await handover(lib, name.replace('/', '-'))
    expect(seen.kafkajs.values).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'])
    // wafka's member saw the rebalance start while m2's handler ran: the race happened.
    expect(seen['wafka/kafkajs'].releasedBy).toBe('rebalance')
    expect(seen['wafka/kafkajs'].values).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'])
  }, 60_000)
})
