// What the producer says when sends fail, on the embedded broker: a WARN for
// each Produce request it retries because a broker was lost or a leader moved
// (however many records the request carried), one ERROR for a send that
// finally fails, not one per record or batch; and a send that expires waiting
// to be retried names why its last attempt failed.
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionError, Kafka, TimeoutError, logLevel, type LogEntry } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'

const messages = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ key: `k${i % 7}`, value: `${tag}-${i}` }))

function capture() {
  const entries: LogEntry[] = []
  return { entries, logCreator: () => (e: LogEntry) => void entries.push(e) }
}

const producerEntries = (entries: LogEntry[], level: number) => entries.filter((e) => e.namespace === 'Producer' && e.level === level)

describe('producer failure logs', () => {
  let cluster: RunningCluster | undefined
  afterEach(async () => {
    await cluster?.stop().catch(() => {})
    cluster = undefined
  })

  it('a lost cluster: one WARN per retried request, one ERROR for the send, and the expiry names the last failure', async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'lost', partitions: 1 }] })
    const { entries, logCreator } = capture()
    const kafka = new Kafka({ brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.WARN, logCreator, connectTimeoutMs: 500 })
    const producer = kafka.producer({ lingerMs: 0, requestTimeoutMs: 1000, deliveryTimeoutMs: 3000, retryBackoffMs: 200 })
    await producer.connect()
    await producer.send({ topic: 'lost', messages: messages(10, 'before') })
    await cluster.stop()
    const began = Date.now()
    const err = await producer.send({ topic: 'lost', messages: messages(200, 'after') }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(Date.now() - began).toBeLessThan(6000)
    expect(err).toBeInstanceOf(TimeoutError)
    expect(err?.message).toMatch(/deliveryTimeoutMs/)
    // Why it was still waiting: the broker could not be reached.
    expect(err?.cause).toBeInstanceOf(ConnectionError)

    const warns = producerEntries(entries, logLevel.WARN)
    expect(warns.length).toBeGreaterThan(0)
    // A few retries in 3 s of backoff, not one entry per record or batch.
    expect(warns.length).toBeLessThan(20)
    for (const w of warns) {
      expect(w.log.message).toMatch(/^Produce to broker 0 failed: retrying 1 batch\(es\)/)
      expect(w.log).toMatchObject({ broker: 0, batches: 1, records: 200, partitions: ['lost-0'] })
    }
    const errors = producerEntries(entries, logLevel.ERROR)
    expect(errors.map((e) => [e.log.message, e.log.records, e.log.errorName])).toEqual([
      ['a send of 200 record(s) to lost failed', 200, 'TimeoutError'],
    ])
    await producer.disconnect().catch(() => {})
  }, 30_000)

  it('a leader that moved: one WARN for the request it answered NOT_LEADER_OR_FOLLOWER, and no ERROR', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'moved', partitions: 1, replicationFactor: 3 }] })
    const { entries, logCreator } = capture()
    const kafka = new Kafka({ brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.WARN, logCreator })
    const producer = kafka.producer({ lingerMs: 0 })
    await producer.connect()
    await producer.send({ topic: 'moved', messages: messages(10, 'before') })
    const admin = kafka.admin()
    await admin.connect()
    const [{ partitions }] = await admin.fetchTopicMetadata({ topics: ['moved'] }).then((m) => m.topics)
    await admin.disconnect()
    const leader = partitions[0].leader
    cluster.moveLeader('moved', 0, cluster.brokers.find((b) => b.id !== leader)!.id)
    const [result] = await producer.send({ topic: 'moved', messages: messages(100, 'after') })
    expect(result.errorCode).toBe(0)
    const warns = producerEntries(entries, logLevel.WARN)
    expect(warns.map((w) => [w.log.message, w.log.records, w.log.errorName])).toEqual([
      [`Produce to broker ${leader} failed: retrying 1 batch(es)`, 100, 'KafkaError'],
    ])
    expect(warns[0].log.error).toMatch(/NOT_LEADER_OR_FOLLOWER/)
    expect(producerEntries(entries, logLevel.ERROR)).toEqual([])
    await producer.disconnect()
  }, 30_000)
})
