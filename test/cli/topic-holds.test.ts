// The bench's "every message sent is there" check on a replicated topic with
// acks=1: the leader acknowledges before its followers fetch, so the high
// watermarks trail the acks for a moment. The check waits for them (bounded)
// instead of failing on its first read, as it did (CI, ee33dce: "high
// watermarks add up to 10714, not the 11000 messages sent").
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import type { Admin } from '../../src/admin/admin.js'
import { awaitTopicHolds } from '../../src/cli/bench/topic-holds.js'

let cluster: RunningCluster | undefined
let admin: Admin | undefined
afterEach(async () => {
  await admin?.disconnect()
  await cluster?.stop()
  admin = cluster = undefined
})

async function heldNow(a: Admin, topic: string): Promise<number> {
  return (await a.fetchTopicOffsets(topic)).reduce((s, p) => s + Number(p.high) - Number(p.low), 0)
}

/** A 3-broker cluster with one follower paused (it stays in the ISR: the lag limit is long), and 300 messages sent with acks=1. */
async function laggingTopic(): Promise<{ topic: string; follower: number }> {
  cluster = await startCluster({ brokers: 3, replicaLagTimeMaxMs: 60_000, topics: [{ name: 'held', partitions: 3, replicationFactor: 3 }] })
  const kafka = new Kafka({ brokers: cluster.bootstrapServers.split(','), clientId: 'topic-holds' })
  admin = kafka.admin()
  await admin.connect()
  const follower = 1
  cluster.pauseFollower(follower)
  const producer = kafka.producer({ acks: 1, idempotent: false })
  await producer.connect()
  try {
    for (let i = 0; i < 3; i++) {
      await producer.send({ topic: 'held', messages: Array.from({ length: 100 }, (_, j) => ({ key: `k${j}`, value: `v${i}-${j}` })) })
    }
  } finally {
    await producer.disconnect()
  }
  return { topic: 'held', follower }
}

describe('awaitTopicHolds', () => {
  it('waits for the followers instead of failing on a first read that comes up short', async () => {
    const { topic, follower } = await laggingTopic()
    // The precondition the old single read tripped on: every ack is in, the high watermarks are not.
    expect(await heldNow(admin!, topic)).toBeLessThan(300)
    const waiting = awaitTopicHolds(admin!, topic, 300, 20_000)
    setTimeout(() => cluster?.pauseFollower(follower, false), 300)
    const held = await waiting
    expect(held.reduce((a, b) => a + b, 0)).toBe(300)
    expect(held).toHaveLength(3)
  })

  it('fails with the figures when the followers never catch up within the bound', async () => {
    const { topic } = await laggingTopic()
    const started = Date.now()
    await expect(awaitTopicHolds(admin!, topic, 300, 800)).rejects.toThrow(
      /^the topic holds \d+ messages below its high watermarks, not the 300 sent, after waiting 1 s for the followers$/,
    )
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('fails at once on more messages than were sent', async () => {
    const { topic, follower } = await laggingTopic()
    cluster!.pauseFollower(follower, false)
    await awaitTopicHolds(admin!, topic, 300, 20_000)
    await expect(awaitTopicHolds(admin!, topic, 299, 20_000)).rejects.toThrow(
      /holds 300 messages below its high watermarks, not the 299 sent$/,
    )
  })
})
