// A share group's offsets from outside it, on real Apache Kafka 4.4 and on
// the embedded broker with the same assertions: the admin's
// listShareGroupOffsets (start offset and lag), alterShareGroupOffsets and
// deleteShareGroupOffsets, the raw DescribeShareGroupOffsets,
// AlterShareGroupOffsets and DeleteShareGroupOffsets with Kafka's errors,
// listGroups by type and deleteGroups for a share group; and Kafka's own
// kafka-share-groups.sh (ShareGroupCommand) on a group of wafka members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { type Admin, ConfigResourceTypes, Kafka, type ShareConsumer } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { javaPeer, type JavaPeer, type JavaResult, requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from './consumer-support.js'

type Target = JavaPeer & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { ...javaPeer(k.bootstrap), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

const SHARE_GROUPS = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand'
const only = process.env.SHARE_OFFSETS_TARGET

for (const [target, start] of targets)
  describe.skipIf(!requireKafka() || (only !== undefined && !target.includes(only)))(`share-group offsets on ${target}`, () => {
    let kafka: Target
    let admin: Admin
    let raw: RawClient
    let n = 0

    beforeAll(async () => {
      kafka = await start()
      admin = new Kafka({ brokers: kafka.bootstrap.split(',') }).admin()
      await admin.connect()
      raw = await RawClient.open(kafka.bootstrap.split(',')[0])
    }, 120_000)
    afterAll(async () => {
      raw?.socket.destroy()
      await admin?.disconnect()
      await kafka?.stop()
    })

    /** A topic of two partitions with `count` records in partition 0, and a share group reading it from the start. */
    async function setUp(count: number) {
      const topic = `share-offsets-${++n}`
      const groupId = `offsets-queue-${n}`
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
      await admin.alterConfigs({
        resources: [
          { type: ConfigResourceTypes.GROUP, name: groupId, configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }] },
        ],
      })
      await produce(kafka.bootstrap, topic, count, 'v', { partition: 0 })
      return { topic, groupId }
    }

    /** A wafka share member accepting everything, and the values it was given. */
    async function member(groupId: string, topic: string) {
      const values: string[] = []
      const c: ShareConsumer = new Kafka({ brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 }).shareConsumer({
        groupId,
        maxWaitTimeInMs: 200,
      })
      await c.subscribe({ topics: [topic] })
      await c.run({
        eachMessage: async ({ message }) => {
          values.push(message.value!.toString())
        },
      })
      return { consumer: c, values }
    }

    const emptied = (groupId: string) =>
      until(
        async () => (await admin.describeShareGroups([groupId])).groups[0].state === 'Empty',
        30_000,
        () => `${groupId} did not become Empty`,
      )

    const code = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: { code?: number }) => e.code ?? -1,
      )

    it('listShareGroupOffsets, alterShareGroupOffsets and deleteShareGroupOffsets, with the raw answers and their errors', async () => {
      const { topic, groupId } = await setUp(10)
      const first = await member(groupId, topic)
      const unset = { partition: 1, startOffset: '-1', leaderEpoch: 0, lag: null }
      try {
        let seen: unknown
        await until(
          async () => {
            const offsets = await admin.listShareGroupOffsets({ groupId })
            seen = offsets
            return first.values.length === 10 && offsets[0]?.partitions[0]?.lag === '0'
          },
          30_000,
          () => `offsets ${JSON.stringify(seen)}`,
        )
        expect([...first.values].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `v${i}`).sort())
        // Partition 1 was assigned and fetched, but nothing was acknowledged in it: no start offset yet.
        expect((await admin.listShareGroupOffsets({ groupId }))[0].partitions[1]).toEqual(unset)
        // Members in the group: its offsets stay as they are.
        expect(await code(admin.alterShareGroupOffsets({ groupId, topic, partitions: [{ partition: 0, offset: 0 }] }))).toBe(
          ErrorCodes.NON_EMPTY_GROUP,
        )
        expect(await code(admin.deleteShareGroupOffsets({ groupId, topics: [topic] }))).toBe(ErrorCodes.NON_EMPTY_GROUP)
        expect(
          await raw.request(M.AlterShareGroupOffsets, 0, {
            groupId,
            topics: [{ topicName: topic, partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
          }),
        ).toMatchObject({ errorCode: ErrorCodes.NON_EMPTY_GROUP, errorMessage: 'The group is not empty.', responses: [] })
      } finally {
        await first.consumer.disconnect()
      }
      await emptied(groupId)
      await produce(kafka.bootstrap, topic, 5, 'v', { partition: 0, from: 10 })
      const listed = await admin.listShareGroupOffsets({ groupId })
      expect(listed.map((t) => [t.topic, t.partitions.map((p) => [p.partition, p.lag])])).toEqual([
        [
          topic,
          [
            [0, '5'],
            [1, null],
          ],
        ],
      ])
      expect(await admin.listShareGroupOffsets({ groupId, topics: [topic] })).toEqual(listed)

      // The raw answers: lag from v1 (-1 in v0), -1 without share state or for an unknown topic or group, never an error.
      const describe = async (version: number, group: M.DescribeShareGroupOffsetsRequestGroup) =>
        (await raw.request(M.DescribeShareGroupOffsets, version, { groups: [group] })).groups[0]
      const none = (partitionIndex: number) => ({
        partitionIndex,
        startOffset: -1n,
        leaderEpoch: 0,
        lag: -1n,
        errorCode: 0,
        errorMessage: null,
      })
      const named = { groupId, topics: [{ topicName: topic, partitions: [0, 1] }] }
      const { topicId } = (await describe(1, named)).topics[0]
      expect(topicId).not.toBe('AAAAAAAAAAAAAAAAAAAAAA')
      expect((await describe(1, named)).topics[0].partitions.map((p) => p.lag)).toEqual([5n, -1n])
      expect((await describe(0, named)).topics[0].partitions.map((p) => p.lag)).toEqual([-1n, -1n])
      expect((await describe(1, named)).topics[0].partitions[1]).toMatchObject(none(1))
      expect(await describe(1, { groupId, topics: [{ topicName: 'no-such-topic', partitions: [0] }] })).toMatchObject({
        errorCode: 0,
        topics: [{ topicName: 'no-such-topic', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [none(0)] }],
      })
      expect(await describe(1, { groupId, topics: [] })).toMatchObject({ errorCode: 0, topics: [] })
      expect(await describe(1, { groupId: 'no-such-share-group', topics: null })).toMatchObject({ errorCode: 0, topics: [] })
      expect(await describe(1, { groupId: 'no-such-share-group', topics: [{ topicName: topic, partitions: [0] }] })).toMatchObject({
        errorCode: 0,
        topics: [{ topicName: topic, topicId, partitions: [none(0)] }],
      })

      // Unknown topics and partitions, refused per partition (the broker's refusals first).
      expect(
        await raw.request(M.AlterShareGroupOffsets, 0, {
          groupId,
          topics: [
            { topicName: topic, partitions: [{ partitionIndex: 5, startOffset: 0n }] },
            { topicName: 'no-such-topic', partitions: [{ partitionIndex: 0, startOffset: 0n }] },
          ],
        }),
      ).toMatchObject({
        errorCode: 0,
        responses: [
          { topicName: 'no-such-topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }] },
          { topicName: topic, topicId, partitions: [{ partitionIndex: 5, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }] },
        ],
      })
      expect(await raw.request(M.DeleteShareGroupOffsets, 0, { groupId, topics: [{ topicName: 'no-such-topic' }] })).toMatchObject({
        errorCode: 0,
        responses: [{ topicName: 'no-such-topic', errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }],
      })
      // Offsets set for a group not known make it: an empty share group, listed as such, whose offsets can be deleted.
      const made = `made-by-alter-${n}`
      await admin.alterShareGroupOffsets({ groupId: made, topic, partitions: [{ partition: 1, offset: 0 }] })
      expect((await admin.listGroups({ types: ['share'] })).groups.filter((g) => g.groupId === made)).toEqual([
        { groupId: made, protocolType: 'share', groupState: 'Empty', groupType: 'share' },
      ])
      expect(await admin.listShareGroupOffsets({ groupId: made })).toEqual([
        { topic, partitions: [{ partition: 1, startOffset: '0', leaderEpoch: 0, lag: '0' }] },
      ])
      await admin.deleteShareGroupOffsets({ groupId: made, topics: [topic] })
      expect(await admin.listShareGroupOffsets({ groupId: made })).toEqual([])

      // Reset: the next member starts at the offset set.
      await admin.alterShareGroupOffsets({ groupId, topic, partitions: [{ partition: 0, offset: 3 }] })
      expect(await admin.listShareGroupOffsets({ groupId })).toEqual([
        { topic, partitions: [{ partition: 0, startOffset: '3', leaderEpoch: 0, lag: '12' }, unset] },
      ])
      const second = await member(groupId, topic)
      try {
        await until(
          () => second.values.length >= 12,
          30_000,
          () => `the second member got ${second.values.join(',')}`,
        )
      } finally {
        await second.consumer.disconnect()
      }
      expect([...second.values].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `v${i + 3}`).sort())
      await emptied(groupId)

      // Deleted: no state left for the topic; deleting again finds none.
      await admin.deleteShareGroupOffsets({ groupId, topics: [topic] })
      expect(await admin.listShareGroupOffsets({ groupId })).toEqual([])
      expect(await raw.request(M.DeleteShareGroupOffsets, 0, { groupId, topics: [{ topicName: topic }] })).toMatchObject({
        errorCode: 0,
        responses: [
          {
            topicName: topic,
            topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
            errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: 'There is no offset information to delete.',
          },
        ],
      })
      expect(await admin.deleteGroups([groupId])).toEqual([{ groupId, errorCode: 0 }])
      expect((await admin.listGroups({ types: ['share'] })).groups.map((g) => g.groupId)).not.toContain(groupId)
      expect(await code(admin.describeShareGroups([groupId]))).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
    }, 120_000)

    /** kafka-share-groups.sh: its output, failing with it unless it exits 0. */
    const tool = async (args: string[]): Promise<JavaResult> => {
      const r = await kafka.runJava(SHARE_GROUPS, ['--bootstrap-server', kafka.bootstrap, ...args], { timeoutMs: 90_000 })
      expect(r.code, `kafka-share-groups ${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
      return r
    }

    it('kafka-share-groups.sh lists, describes, resets and deletes a group of wafka members', async () => {
      const { topic, groupId } = await setUp(10)
      const m = await member(groupId, topic)
      /** The rows of the tool's table: its header, then each row's columns. */
      const table = async (args: string[]) => {
        const rows = (await tool(args)).stdout
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => l.trim().split(/\s+/))
        return { header: rows[0], rows: rows.slice(1).sort((x, y) => x.join(' ').localeCompare(y.join(' '))) }
      }
      const offsets = {
        header: ['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET', 'LAG'],
        rows: [
          [groupId, topic, '0', '0', '0'],
          [groupId, topic, '1', '-', '-'],
        ],
      }
      try {
        await until(
          async () => m.values.length === 10 && (await admin.listShareGroupOffsets({ groupId }))[0]?.partitions[0]?.lag === '0',
          30_000,
          () => `the member got ${m.values.length}`,
        )
        expect((await tool(['--list'])).stdout.split('\n')).toContain(groupId)
        expect(await table(['--describe', '--group', groupId])).toEqual(offsets)
        expect(await table(['--describe', '--group', groupId, '--offsets'])).toEqual(offsets)
        expect(await table(['--describe', '--group', groupId, '--offsets', '--verbose'])).toEqual({
          header: ['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'],
          rows: [
            [groupId, topic, '0', '0', '0', '0'],
            [groupId, topic, '1', '-', '-', '-'],
          ],
        })
        expect(await table(['--describe', '--group', groupId, '--members'])).toEqual({
          header: ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'ASSIGNMENT'],
          rows: [[groupId, m.consumer.memberId, '/127.0.0.1', 'wafka', '2', `${topic}:0,1`]],
        })
        const state = await table(['--describe', '--group', groupId, '--state'])
        expect(state.header).toEqual(['GROUP', 'COORDINATOR', '(ID)', 'STATE', '#MEMBERS'])
        expect(state.rows).toEqual([
          [groupId, expect.stringMatching(/^127\.0\.0\.1:\d+$/), expect.stringMatching(/^\(\d+\)$/), 'Stable', '1'],
        ])
        // Members in the group: the tool refuses to reset.
        const refused = await kafka.runJava(
          SHARE_GROUPS,
          ['--bootstrap-server', kafka.bootstrap, '--reset-offsets', '--to-earliest', '--execute', '--topic', topic, '--group', groupId],
          { timeoutMs: 90_000 },
        )
        expect([refused.code, refused.stderr.trim().split('\n')]).toEqual([
          1,
          expect.arrayContaining([`Share group '${groupId}' is not empty.`]),
        ])
      } finally {
        await m.consumer.disconnect()
      }
      await emptied(groupId)
      expect(await table(['--reset-offsets', '--to-earliest', '--execute', '--topic', topic, '--group', groupId])).toEqual({
        header: ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
        rows: [
          [groupId, topic, '0', '0'],
          [groupId, topic, '1', '0'],
        ],
      })
      expect(await table(['--describe', '--group', groupId, '--offsets'])).toEqual({
        header: offsets.header,
        rows: [
          [groupId, topic, '0', '0', '10'],
          [groupId, topic, '1', '0', '0'],
        ],
      })
      expect(await table(['--delete-offsets', '--topic', topic, '--group', groupId])).toEqual({
        header: ['TOPIC', 'STATUS'],
        rows: [[topic, 'Successful']],
      })
      expect((await tool(['--describe', '--group', groupId, '--offsets'])).stdout.trim()).toBe(
        `Share group '${groupId}' has no offset information.`,
      )
      expect((await tool(['--delete', '--group', groupId])).stdout.trim()).toBe(
        `Deletion of requested share groups ('${groupId}') was successful.`,
      )
      expect((await tool(['--list'])).stdout.split('\n')).not.toContain(groupId)
    }, 240_000)
  })
