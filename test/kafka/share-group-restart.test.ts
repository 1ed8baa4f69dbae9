// A share group's membership across a restart of its coordinator, on real
// Apache Kafka 4.4 (the broker restarted on its log dir) and on the embedded
// broker (the cluster restarted on its dataDir, on the same port) with the
// same assertions: the group epoch, its members and their epochs are as they
// were (Kafka keeps them in __consumer_offsets), and a member that goes on
// heartbeating is neither fenced nor made to join again.
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { ConfigResourceTypes, Kafka, type ShareConsumer } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from './consumer-support.js'

/** A broker serving share groups, restartable on the same address. */
interface Target {
  bootstrap: string
  restart(): Promise<void>
  stop(): Promise<void>
}

/** A port free now (the embedded cluster's, kept across its restart). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      const id = k.brokers[0].id
      return {
        bootstrap: k.bootstrap,
        restart: async () => {
          await k.stopBroker(id)
          await k.startBroker(id)
        },
        stop: () => k.stop(),
      }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'wafka-share-group-restart-'))
      const port = await freePort()
      const options = { brokers: 1, dataDir, port, config: SHARE_GROUP_TEST_CONFIG }
      let c = await startCluster(options)
      return {
        bootstrap: c.bootstrapServers,
        restart: async () => {
          await c.stop()
          c = await startCluster(options)
        },
        stop: async () => {
          await c.stop()
          rmSync(dataDir, { recursive: true, force: true })
        },
      }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!requireKafka())(`a share group across a restart of ${target}`, () => {
    let kafka: Target
    beforeAll(async () => {
      kafka = await start()
    }, 120_000)
    afterAll(async () => {
      await kafka?.stop()
    })

    it('keeps its group epoch, members and member epochs; a member going on is not fenced, and reads on', async () => {
      const topic = 'restart-jobs'
      const groupId = 'restart-workers'
      const admin = new Kafka({ brokers: kafka.bootstrap.split(',') }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      await admin.alterConfigs({
        resources: [
          { type: ConfigResourceTypes.GROUP, name: groupId, configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }] },
        ],
      })
      await admin.disconnect()
      const make = () =>
        new Kafka({ brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 }).shareConsumer({ groupId, maxWaitTimeInMs: 200 })
      const stays: ShareConsumer = make()
      const got: string[] = []
      const describe = async () => {
        const raw = await RawClient.open(kafka.bootstrap.split(',')[0])
        try {
          return (await raw.request(M.ShareGroupDescribe, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
        } finally {
          raw.close()
        }
      }
      try {
        await stays.subscribe({ topics: [topic] })
        await stays.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) })
        // A second member joins and leaves: the group epoch moves past what a fresh join would give.
        const passing = make()
        await passing.subscribe({ topics: [topic] })
        await passing.run({ eachMessage: async () => {} })
        await until(
          async () => (await describe()).members.length === 2,
          30_000,
          () => 'the second member never joined',
        )
        await passing.disconnect()
        let before!: Awaited<ReturnType<typeof describe>>
        await until(
          async () => {
            before = await describe()
            // Kafka assigns a new topic's partitions once their share state is initialized (a later epoch).
            return (
              before.members.length === 1 &&
              before.members[0].memberEpoch === before.groupEpoch &&
              before.members[0].assignment.topicPartitions.length === 1
            )
          },
          60_000,
          () => `before the restart: ${JSON.stringify(before)}`,
        )
        expect(before.groupEpoch).toBeGreaterThanOrEqual(3)
        const epochs = (d: typeof before) => ({
          groupEpoch: d.groupEpoch,
          assignmentEpoch: d.assignmentEpoch,
          members: d.members.map((m) => ({ memberId: m.memberId, memberEpoch: m.memberEpoch, assignment: m.assignment })),
        })

        await kafka.restart()
        let after!: typeof before
        await until(
          async () => {
            after = await describe().catch(() => after)
            return after?.errorCode === ErrorCodes.NONE
          },
          60_000,
          () => `after the restart: ${JSON.stringify(after)}`,
        )
        expect(epochs(after)).toEqual(epochs(before))
        expect(after.members[0].memberId).toBe(stays.memberId)

        // The member goes on: it reads what comes now, and the group is as it was.
        await produce(kafka.bootstrap, topic, 5)
        await until(
          () => got.length >= 5,
          30_000,
          () => `read ${got}`,
        )
        expect(got.sort()).toEqual(['v0', 'v1', 'v2', 'v3', 'v4'])
        expect(epochs(await describe())).toEqual(epochs(before))
      } finally {
        await stays.disconnect()
      }
    }, 180_000)
  })
