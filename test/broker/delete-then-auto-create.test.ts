// A Metadata request that may auto-create topics, sent on the same
// connection right after a DeleteTopics of one of them, does not bring the
// topic back (issue 31): librdkafka's closing consumer does this in
// 0033_regex_subscribe, its refresh a millisecond behind the test's delete,
// and the embedded broker, where every broker sees a deletion at once,
// recreated the topic there (2 runs of 3 under load; Kafka 4.4 0 of 3).
// Kafka's brokers answer such a refresh before or after they have applied
// the deletion, by timing: this very test, run on Kafka 4.4 (1 broker and
// 3), saw the topic recreated in one round of five. The embedded broker
// holds the name back from auto-creation for DELETION_PROPAGATION_MS, so it
// never comes back that way; past that, auto-creation of the name works again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { ZERO_UUID } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { decodeResponseHeader, responseHeaderVersion } from '../../src/protocol/header.js'
import { DeleteTopics, Metadata } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { DELETION_PROPAGATION_MS } from '../../src/broker/controller.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

const metadataOf = (name: string, allowAutoTopicCreation: boolean) => ({
  topics: [{ name, topicId: ZERO_UUID }],
  allowAutoTopicCreation,
  includeTopicAuthorizedOperations: false,
})

describe('a topic deleted while a client refreshes it', () => {
  let cluster: RunningCluster
  let first: string
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3 })
    first = `127.0.0.1:${cluster.brokers[0].port}`
  }, 120_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  /** The topic's error code in a Metadata answer from the first broker (no auto-creation). */
  async function lookUp(name: string): Promise<number> {
    const c = await RawClient.open(first)
    try {
      return (await c.request(Metadata, 12, metadataOf(name, false))).topics[0].errorCode
    } finally {
      c.close()
    }
  }

  it('is not recreated by a Metadata request right behind the DeleteTopics, and is auto-created once that has settled', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    await admin.connect()
    try {
      for (let round = 0; round < 5; round++) {
        const topic = `deleted-then-refreshed-${round}`
        await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
        await until(
          async () => (await lookUp(topic)) === ErrorCodes.NONE,
          30_000,
          () => `${topic} on broker ${first}`,
        )

        // Both requests in one write, as librdkafka's queue sends them; the broker answers them in order.
        const c = await RawClient.open(first)
        c.write(
          Buffer.concat([
            RawClient.frame(DeleteTopics, 4, { topicNames: [topic], topics: [], timeoutMs: 30_000 }, 1),
            RawClient.frame(Metadata, 12, metadataOf(topic, true), 2),
          ]),
        )
        const deleted = new Reader((await c.readFrame())!)
        decodeResponseHeader(deleted, responseHeaderVersion(DeleteTopics.apiKey, 4))
        expect(DeleteTopics.decodeResponse(deleted, 4).responses[0].errorCode).toBe(ErrorCodes.NONE)
        expect(await c.readFrame()).not.toBeNull()
        c.close()

        // Nothing else asks for it: the topic stays deleted.
        await new Promise((r) => setTimeout(r, DELETION_PROPAGATION_MS + 200))
        expect(await lookUp(topic), `${topic} after its delete (round ${round})`).toBe(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
      }

      // Past the window, a refresh that may create topics creates it again (the name is not banned).
      const again = await RawClient.open(first)
      try {
        const answer = await again.request(Metadata, 12, metadataOf('deleted-then-refreshed-0', true))
        expect([ErrorCodes.NONE, ErrorCodes.LEADER_NOT_AVAILABLE, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION]).toContain(
          answer.topics[0].errorCode,
        )
      } finally {
        again.close()
      }
      await until(
        async () => (await lookUp('deleted-then-refreshed-0')) === ErrorCodes.NONE,
        30_000,
        () => 'auto-created again',
      )
    } finally {
      await admin.disconnect()
    }
  }, 120_000)
})
