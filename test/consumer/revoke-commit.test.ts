// The commit on revoke includes the batch or message in hand when the
// rebalance starts: its handler completed, so nothing it processed is
// delivered again. The race is certain: the handler holding m2 returns only
// once its consumer reports the rebalance. On the embedded broker, with both
// handler styles (eachBatch resolved by auto-resolve and by resolveOffset).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel, type Consumer, type KafkaMessage, type LogEntry } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from './support.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the commit on revoke', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  type Style = 'eachMessage' | 'eachBatch' | 'eachBatch+resolveOffset'

  async function handover(style: Style) {
    const kafka = new Kafka({ clientId: 'revoke', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING })
    const topic = `revoke-${style.replace('+', '-')}`
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const producer = kafka.producer()
    await producer.connect()
    // One send per message: one record batch each, so eachBatch gets m2 in a batch of its own.
    for (const value of ['m0', 'm1', 'm2', 'm3', 'm4']) await producer.send({ topic, messages: [{ value }] })
    await producer.disconnect()

    const reads: string[] = []
    let entered!: () => void
    const inM2 = new Promise<void>((resolve) => (entered = resolve))
    let rebalanced!: () => void
    const rebalancing = new Promise<string>((resolve) => (rebalanced = () => resolve('rebalance')))
    const release = inM2.then(() => Promise.race([rebalancing, sleep(4000).then(() => 'timeout')]))
    let holding = false
    void inM2.then(() => (holding = true))

    const member = (id: string, holdsM2: boolean): Consumer => {
      const consumer = kafka.consumer({
        groupId: `g-${topic}`,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        heartbeatIntervalMs: 100,
        maxWaitTimeInMs: 100,
        autoOffsetReset: 'earliest',
      })
      if (holdsM2) consumer.on(consumer.events.REBALANCING, () => holding && rebalanced())
      return consumer
    }
    const handle = async (id: string, holdsM2: boolean, m: KafkaMessage) => {
      const v = String(m.value)
      reads.push(`${id}:${v}`)
      if (v === 'm2' && holdsM2) {
        entered()
        await release
      }
    }
    const start = async (consumer: Consumer, id: string, holdsM2: boolean) => {
      await consumer.connect()
      await consumer.subscribe({ topics: [topic] })
      if (style === 'eachMessage') await consumer.run({ eachMessage: async ({ message }) => handle(id, holdsM2, message) })
      else
        await consumer.run({
          eachBatchAutoResolve: style === 'eachBatch',
          eachBatch: async ({ batch, resolveOffset }) => {
            for (const m of batch.messages) {
              await handle(id, holdsM2, m)
              if (style !== 'eachBatch') resolveOffset(m.offset)
            }
          },
        })
    }
    const a = member('a', true)
    const b = member('b', false)
    try {
      await start(a, 'a', true)
      await inM2
      await start(b, 'b', false)
      await until(
        () => reads.some((r) => r.endsWith(':m4')),
        30_000,
        () => `read ${reads.join(' ')}`,
      )
      await sleep(1000) // long enough to see a message read again
    } finally {
      await a.disconnect()
      await b.disconnect()
      await admin.disconnect()
    }
    return { values: reads.map((r) => r.slice(2)), releasedBy: await release }
  }

  for (const style of ['eachMessage', 'eachBatch', 'eachBatch+resolveOffset'] as const)
    it(`${style}: includes the message whose handler completed after the rebalance began`, async () => {
      const { values, releasedBy } = await handover(style)
      expect(releasedBy).toBe('rebalance') // the rebalance began while m2's handler ran
      expect(values).toEqual(['m0', 'm1', 'm2', 'm3', 'm4'])
    }, 60_000)

  it('waits for the handler in hand at most rebalanceTimeoutMs, then gives the partition up with a WARN', async () => {
    const entries: LogEntry[] = []
    const kafka = new Kafka({
      clientId: 'revoke-bound',
      brokers: cluster.bootstrapServers.split(','),
      logLevel: logLevel.WARN,
      logCreator: () => (e) => void entries.push(e),
    })
    const topic = 'revoke-bound'
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: [{ value: 'stuck' }] })
    await producer.disconnect()
    const options = {
      groupId: 'g-revoke-bound',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 2000,
      heartbeatIntervalMs: 100,
      maxWaitTimeInMs: 100,
      autoOffsetReset: 'earliest' as const,
    }
    const a = kafka.consumer(options)
    const b = kafka.consumer(options)
    let unblock!: () => void
    const blocked = new Promise<void>((resolve) => (unblock = resolve))
    let entered = false
    let rebalanceAt = 0
    let revokedAt = 0
    a.on(a.events.REBALANCING, () => void (entered && !rebalanceAt && (rebalanceAt = Date.now())))
    a.on(a.events.PARTITIONS_REVOKED, () => void (revokedAt ||= Date.now()))
    try {
      await a.connect()
      await a.subscribe({ topics: [topic] })
      await a.run({
        eachMessage: async () => {
          entered = true
          await Promise.race([blocked, sleep(20_000)])
        },
      })
      await until(
        () => entered,
        10_000,
        () => 'the handler never ran',
      )
      await b.connect()
      await b.subscribe({ topics: [topic] })
      await b.run({ eachMessage: async () => {} })
      await until(
        () => revokedAt > 0,
        10_000,
        () => 'the partition was never given up',
      )
    } finally {
      unblock()
      await a.disconnect()
      await b.disconnect()
      await admin.disconnect()
    }
    expect(revokedAt - rebalanceAt).toBeGreaterThanOrEqual(1900)
    expect(revokedAt - rebalanceAt).toBeLessThan(4000)
    const warned = entries.filter((e) => e.label === 'WARN' && /still runs after rebalanceTimeoutMs/.test(e.log.message))
    expect(warned).toHaveLength(1)
    expect(warned[0].log).toMatchObject({ groupId: 'g-revoke-bound', partitions: [{ topic, partitions: [0] }] })
  }, 60_000)
})
