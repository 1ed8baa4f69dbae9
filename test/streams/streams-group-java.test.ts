// Java Kafka Streams 4.4 with group.protocol=streams (KIP-1071) on Apache
// Kafka 4.4 and on the embedded broker, with the same assertions: two
// instances of one word count (exactly-once) split its tasks (each process half of every
// subtopology's), the broker having created the repartition and changelog
// topics with the partition counts the topology implies; after one instance
// stops, the other holds every task; the final table is exactly the input's
// word counts. StreamsGroupDescribe's answers (state, topology, members'
// tasks and targets) taken on each broker at the same two moments are then
// compared: the embedded broker's must be Kafka's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { StreamsGroupDescribe } from '../../src/protocol/messages/index.js'
import type { StreamsGroupDescribeResponseDescribedGroup } from '../../src/protocol/messages/StreamsGroupDescribe.js'
import { javaStreamsApp, type JavaStreamsRun } from '../peers/java-streams.js'
import { requireKafka } from '../peers/kafka.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafka } from '../kafka/support.js'
import { RawClient } from '../broker/raw-client.js'
import { consumedAll, produceStrings, tableReader } from './support.js'

const APP = 'sg-wc'
const WORDS = ['kafka', 'streams', 'wafka', 'java', 'table', 'group', 'task', 'epoch']

/** Deterministic lines of 1-5 words. */
function lines(from: number, count: number): string[] {
  let x = 7 + from
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  return Array.from({ length: count }, () => Array.from({ length: 1 + next(5) }, () => WORDS[next(WORDS.length)]).join(' '))
}

function counts(text: string[]): Record<string, bigint> {
  const out: Record<string, bigint> = {}
  for (const line of text) for (const w of line.split(' ')) out[w] = (out[w] ?? 0n) + 1n
  return out
}

/** What StreamsGroupDescribe says of the group, less what differs by run (member and process ids, epochs' values). */
function summary(g: StreamsGroupDescribeResponseDescribedGroup) {
  const tasks = (t: Array<{ subtopologyId: string; partitions: number[] }>) =>
    t.flatMap((x) => x.partitions.map((p) => `${x.subtopologyId}_${p}`)).sort()
  return {
    errorCode: g.errorCode,
    state: g.groupState,
    atAssignmentEpoch: g.groupEpoch === g.assignmentEpoch,
    topology: g.topology,
    members: g.members
      .map((m) => ({
        atAssignmentEpoch: m.memberEpoch === g.assignmentEpoch,
        topologyEpoch: m.topologyEpoch,
        clientIdIsStreams: /-StreamThread-1-consumer$/.test(m.clientId),
        active: tasks(m.assignment.activeTasks).length,
        standby: tasks(m.assignment.standbyTasks).length,
        warmup: tasks(m.assignment.warmupTasks).length,
        targetIsAssignment: JSON.stringify(m.assignment) === JSON.stringify(m.targetAssignment),
      }))
      .sort((a, b) => a.active - b.active),
    processes: new Set(g.members.map((m) => m.processId)).size,
    allActive: g.members.flatMap((m) => tasks(m.assignment.activeTasks)).sort(),
  }
}

type Summary = ReturnType<typeof summary>
const seen: Record<string, { split: Summary; alone: Summary }> = {}

/** Members heartbeat every second (Kafka's 5 s minimum lowered on both brokers), so rebalances settle within the test's budget. */
const FAST_HEARTBEATS = {
  kafka: { config: { 'group.streams.min.heartbeat.interval.ms': '500', 'group.streams.heartbeat.interval.ms': '1000' } },
  embedded: { brokers: 1, streamsGroupMinHeartbeatIntervalMs: 500, streamsGroupHeartbeatIntervalMs: 1000 },
}

for (const target of brokerTargets(FAST_HEARTBEATS)) {
  describe.skipIf(!target.available)(`Java Kafka Streams with group.protocol=streams on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    let raw: RawClient
    const apps: JavaStreamsRun[] = []
    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
      raw = await RawClient.open(cluster.bootstrap.split(',')[0])
    }, 120_000)
    afterAll(async () => {
      await Promise.allSettled(apps.map((a) => a.kill()))
      raw?.close()
      await cluster?.stop()
    })

    const describeGroup = async () =>
      (await raw.request(StreamsGroupDescribe, 0, { groupIds: [APP], includeAuthorizedOperations: false })).groups[0]
    const activeCounts = (g: StreamsGroupDescribeResponseDescribedGroup) =>
      g.members.map((m) => m.assignment.activeTasks.reduce((n, t) => n + t.partitions.length, 0)).sort()

    it('two instances split the tasks; after one stops the other holds them all; the counts are exact', async () => {
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: [
          { topic: 'sg-text', numPartitions: 4 },
          { topic: 'sg-counts', numPartitions: 2 },
        ],
      })
      const first = lines(0, 200)
      await produceStrings(
        kafka,
        'sg-text',
        first.map((value, i) => ({ key: `l${i}`, value, timestamp: Date.now(), partition: i % 4 })),
      )
      const start = () =>
        javaStreamsApp(cluster, 'wordcount', {
          applicationId: APP,
          inputs: ['sg-text'],
          output: 'sg-counts',
          // Exactly-once: the offsets go by TxnOffsetCommit with the streams member's id and epoch.
          props: { 'group.protocol': 'streams', 'commit.interval.ms': 100, 'processing.guarantee': 'exactly_once_v2' },
        })
      const a = start()
      const b = start()
      apps.push(a, b)
      // Two processes, each half of each subtopology's 4 tasks, every member at the group's assignment epoch.
      const split = await until(
        'the tasks split between the two instances',
        describeGroup,
        (g) => g.groupState === 'Stable' && JSON.stringify(activeCounts(g)) === '[4,4]',
        90_000,
      )
      // The broker created the internal topics, with the source topic's partition count.
      const subtopologies = split.topology!.subtopologies
      const internal = subtopologies.flatMap((s) => [...s.repartitionSourceTopics, ...s.stateChangelogTopics])
      expect(internal.map((t) => [t.name, t.partitions]).sort()).toEqual([
        [`${APP}-counts-changelog`, 4],
        [`${APP}-counts-repartition`, 4],
      ])
      const meta = await admin.fetchTopicMetadata({ topics: internal.map((t) => t.name) })
      expect(meta.topics.map((t: { name: string; partitions: unknown[] }) => [t.name, t.partitions.length]).sort()).toEqual([
        [`${APP}-counts-changelog`, 4],
        [`${APP}-counts-repartition`, 4],
      ])
      await consumedAll(kafka, APP, ['sg-text', `${APP}-counts-repartition`], 90_000)

      expect(await b.stop()).toEqual({ code: 0, signal: null })
      const alone = await until(
        'the remaining instance to hold every task',
        describeGroup,
        (g) => g.groupState === 'Stable' && JSON.stringify(activeCounts(g)) === '[8]',
        90_000,
      )
      const second = lines(200, 100)
      await produceStrings(
        kafka,
        'sg-text',
        second.map((value, i) => ({ key: `m${i}`, value, timestamp: Date.now(), partition: i % 4 })),
      )
      await consumedAll(kafka, APP, ['sg-text', `${APP}-counts-repartition`], 90_000)
      const out = await tableReader(kafka, 'sg-counts', undefined, 'read_committed')
      const expected = counts([...first, ...second])
      try {
        await until(
          'the final word counts',
          () => Object.fromEntries([...out.table].map(([k, v]) => [k, v?.readBigInt64BE() ?? null])),
          (t) =>
            JSON.stringify(Object.entries(t).sort(), (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ===
            JSON.stringify(Object.entries(expected).sort(), (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
          30_000,
        )
      } finally {
        await out.stop()
        await admin.disconnect()
      }
      expect(await a.stop()).toEqual({ code: 0, signal: null })
      expect([...a.events, ...b.events].filter((e) => e.event === 'error')).toEqual([])
      seen[target.name] = { split: summary(split), alone: summary(alone) }
    }, 240_000)
  })
}

describe('StreamsGroupDescribe', () => {
  it.skipIf(!requireKafka())("of the embedded broker is Kafka 4.4's for the same application at the same moments", () => {
    const [kafka, embedded] = [seen['real Kafka'], seen['the embedded broker']]
    expect(kafka).toBeDefined()
    expect(embedded).toEqual(kafka)
    expect(kafka.split.processes).toBe(2)
    expect(kafka.alone.allActive).toHaveLength(8)
  })
})
