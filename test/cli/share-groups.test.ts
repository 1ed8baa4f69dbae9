// wafka groups list/describe/delete on a share group (KIP-932) of wafka
// members, against Apache Kafka 4.4 and the embedded broker with the same
// assertions: its type and state, its members and assignment, and per share
// partition the start offset, the log end and the lag (what is in flight or
// not yet delivered).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { type Admin, ConfigResourceTypes, Kafka, type ShareConsumer } from '../../src/index.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from '../kafka/consumer-support.js'
import { built, wafka } from './support.js'

interface Target {
  bootstrap: string
  stop(): Promise<void>
}

const targets: Array<[string, boolean, () => Promise<Target>]> = [
  [
    'the embedded broker',
    true,
    async () => {
      const c = await startCluster({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
  [
    'Apache Kafka 4.4',
    requireKafka(),
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
]

describe.skipIf(!built).each(targets)('wafka groups on a share group, %s', (_name, available, start) => {
  let target: Target
  let admin: Admin
  beforeAll(async () => {
    if (!available) return
    target = await start()
    admin = new Kafka({ brokers: [target.bootstrap] }).admin()
    await admin.connect()
  }, 120_000)
  afterAll(async () => {
    await admin?.disconnect()
    await target?.stop()
  })

  it.skipIf(!available)(
    'list shows its type and state; describe its members, start offsets and lag; delete',
    async () => {
      const b = target.bootstrap
      const [topic, groupId] = ['cli-share', 'cli-queue']
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })
      await admin.alterConfigs({
        resources: [
          { type: ConfigResourceTypes.GROUP, name: groupId, configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }] },
        ],
      })
      await produce(b, topic, 10, 'v', { partition: 0 })
      let got = 0
      const member: ShareConsumer = new Kafka({ brokers: [b], retryBackoffMs: 100 }).shareConsumer({ groupId, maxWaitTimeInMs: 200 })
      try {
        await member.subscribe({ topics: [topic] })
        await member.run({ eachMessage: async () => void got++ })
        await until(
          async () => got === 10 && (await admin.listShareGroupOffsets({ groupId }))[0]?.partitions[0]?.lag === '0',
          30_000,
          () => `the member got ${got}`,
        )
        const list = JSON.parse((await wafka(['groups', 'list', '-b', b, '--json'])).stdout)
        expect(list).toContainEqual({ groupId, protocolType: 'share', groupState: 'Stable', groupType: 'share' })
        const d = await wafka(['groups', 'describe', groupId, '-b', b, '--json'])
        expect(d.code).toBe(0)
        expect(JSON.parse(d.stdout)).toEqual({
          groupId,
          state: 'Stable',
          type: 'share',
          assignor: 'simple',
          members: [{ memberId: member.memberId, clientId: 'wafka', host: '/127.0.0.1', assignment: [{ topic, partitions: [0, 1] }] }],
          offsets: [
            // Every record delivered and accepted: nothing in flight, nothing left.
            { topic, partition: 0, startOffset: expect.any(Number), logEnd: 10, lag: 0, members: [member.memberId] },
            // Nothing acknowledged there yet: no start offset kept.
            { topic, partition: 1, startOffset: null, logEnd: 0, lag: null, members: [member.memberId] },
          ],
        })
        const text = (await wafka(['groups', 'describe', groupId, '-b', b])).stdout
        expect(text.split('\n')[0]).toBe(`group ${groupId}: Stable, share, simple, 1 member(s)`)
        expect(text).toMatch(/start offset\s+log end\s+lag\s+members/)
      } finally {
        await member.disconnect()
      }
      await until(
        async () => (await admin.describeShareGroups([groupId])).groups[0].state === 'Empty',
        30_000,
        () => 'the group did not become Empty',
      )
      await produce(b, topic, 5, 'v', { partition: 0, from: 10 })
      const after = JSON.parse((await wafka(['groups', 'describe', groupId, '-b', b, '--json'])).stdout)
      expect([after.state, after.members, after.offsets.map((o: { lag: number | null }) => o.lag)]).toEqual(['Empty', [], [5, null]])
      // reset-offsets moves an empty share group's start offsets (kafka-share-groups.sh --reset-offsets), clamped to each log.
      const dry = await wafka(['groups', 'reset-offsets', groupId, '-b', b, '-t', topic, '--to-offset', '12', '--dry-run', '--json'])
      expect(JSON.parse(dry.stdout)).toEqual({
        groupId,
        applied: false,
        offsets: [
          { topic, partition: 0, from: after.offsets[0].startOffset, to: 12 },
          { topic, partition: 1, from: null, to: 0 },
        ],
      })
      expect((await wafka(['groups', 'reset-offsets', groupId, '-b', b, '-t', topic, '--to-offset', '12'])).code).toBe(0)
      const reset = JSON.parse((await wafka(['groups', 'describe', groupId, '-b', b, '--json'])).stdout)
      expect(reset.offsets.map((o: { startOffset: number; lag: number }) => [o.startOffset, o.lag])).toEqual([
        [12, 3],
        [0, 0],
      ])
      expect(await wafka(['groups', 'delete', groupId, '-b', b])).toMatchObject({ code: 0, stdout: `deleted group ${groupId}\n` })
      expect(await wafka(['groups', 'describe', groupId, '-b', b])).toMatchObject({
        code: 1,
        stderr: `wafka groups: group "${groupId}" does not exist\n`,
      })
    },
    120_000,
  )
})
