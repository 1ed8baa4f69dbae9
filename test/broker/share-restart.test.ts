// Share-group state survives a restart of the embedded broker on a dataDir
// (what Kafka's share coordinator keeps in __share_group_state): after the
// restart nothing accepted or rejected is delivered again, and nothing
// unacknowledged is lost: what was released comes back with its delivery
// count carried on, and what a member still held when the broker stopped
// comes back as if that delivery never happened (Kafka persists an
// acquisition only once it is acknowledged, released or its lock expires;
// test/kafka/share-leader-change.test.ts shows it on Kafka 4.4).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { produce } from '../kafka/consumer-support.js'
import { configureShareGroup, holdInEveryState, readUntil } from '../kafka/share-support.js'
import { SHARE_GROUP_TEST_CONFIG } from '../peers/kafka.js'

describe('share-group state across a restart of the embedded broker', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wafka-share-restart-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('accepted and rejected records stay done; released ones come back with their delivery counts, held ones as never delivered', async () => {
    const topic = 'jobs'
    const groupId = 'workers'
    let cluster = await startCluster({ brokers: 1, dataDir, config: SHARE_GROUP_TEST_CONFIG })
    const admin = new Kafka({ brokers: [cluster.bootstrapServers] }).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
    await configureShareGroup(admin, groupId)
    await admin.disconnect()
    await produce(cluster.bootstrapServers, topic, 30)
    // v0-v9 accepted, v10-v14 rejected, v15-v19 released; v20-v29 held (acquired, never acknowledged) when the broker stops.
    const { first, seen, letGo } = await holdInEveryState(
      new Kafka({ brokers: [cluster.bootstrapServers], retryBackoffMs: 100 }),
      groupId,
      topic,
    )
    expect(seen).toHaveLength(30)
    await cluster.stop()
    letGo()
    // The first member's broker is gone (a new port after the restart): its close is bounded, and changes nothing.
    await Promise.race([first.disconnect(), new Promise((r) => setTimeout(r, 3000))])

    cluster = await startCluster({ brokers: 1, dataDir, config: SHARE_GROUP_TEST_CONFIG })
    try {
      await produce(cluster.bootstrapServers, topic, 5, 'v', { from: 30 })
      const second = new Kafka({ brokers: [cluster.bootstrapServers], retryBackoffMs: 100 }).shareConsumer({
        groupId,
        maxWaitTimeInMs: 200,
      })
      const got = await readUntil(second, topic, (got) => got.some((g) => g.value === 'v34') && got.length >= 20, 30_000)
      const expected = [
        ...Array.from({ length: 5 }, (_, i) => ({ value: `v${15 + i}`, deliveryCount: 2 })),
        ...Array.from({ length: 15 }, (_, i) => ({ value: `v${20 + i}`, deliveryCount: 1 })),
      ]
      const order = (l: Array<{ value: string }>) => [...l].sort((a, b) => Number(a.value.slice(1)) - Number(b.value.slice(1)))
      expect(order(got)).toEqual(expected)
    } finally {
      await cluster.stop()
    }
  }, 90_000)
})
