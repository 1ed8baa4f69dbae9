// groupProtocol 'streams' (KIP-1071) on Apache Kafka 4.4 and on the embedded
// broker, with the same assertions, where the broker assigns the tasks and
// creates the internal topics: the word count gives the table the input gives
// (the one the classic run and Java give, as java-comparison.test.ts holds
// them); two wafka instances split the tasks, each task once, and when one
// closes the other takes its tasks, the counts staying exact; a wafka instance
// and a Java Kafka Streams instance (group.protocol=streams) of one
// application split the tasks of one group and their combined output is
// exact. The group is read as the broker sees it (StreamsGroupDescribe): its
// members' active tasks. One cluster per target serves all its tests.
//
// On Apache Kafka 3.9, which has no streams groups, start() fails with a
// typed error. requireKafka() throws under CI, so the real-Kafka tests skip
// only outside it (a developer machine without Java).
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, Kafka, logLevel, UnsupportedApiError, type LogEntry } from '../../src/index.js'
import {
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  type ProcessingGuarantee,
  type StreamsConfig,
  type Topology,
} from '../../src/public/streams.js'
import { StreamsGroupDescribe, StreamsGroupHeartbeat } from '../../src/protocol/messages/index.js'
import { requireKafka, startKafka } from '../peers/kafka.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { javaStreamsApp } from '../peers/java-streams.js'
import { RawClient } from '../broker/raw-client.js'
import { openCoordinator } from '../broker/support.js'
import { until } from '../kafka/support.js'
import { consumedAll, countsAre, produceStrings } from './support.js'
import { countWords, FAST_STREAMS_GROUPS, wordCountTopology, wordLines } from './word-count-app.js'

const str = Serdes.String()
for (const target of brokerTargets(FAST_STREAMS_GROUPS)) {
  describe.skipIf(!target.available)(`groupProtocol streams (KIP-1071) on ${target.name}`, () => {
    let kafka: RunningTarget
    let client: Kafka
    const raw: RawClient[] = []

    beforeAll(async () => {
      kafka = await target.start()
      client = new Kafka({ clientId: 'streams-protocol-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 })
    }, 120_000)

    afterAll(async () => {
      for (const c of raw) c.close()
      await kafka?.stop()
    })

    let instances = 0
    const app = (
      applicationId: string,
      input: string,
      output: string,
      processingGuarantee: ProcessingGuarantee = 'at_least_once',
      more: Partial<StreamsConfig> = {},
    ) =>
      new KafkaStreams(wordCountTopology(input, output), {
        // Each instance its own stateDir, as two Java instances on one machine need (the first locks its directory).
        stateDir: join(tmpdir(), 'kafka-streams', `instance-${++instances}`),
        ...more,
        applicationId,
        brokers: kafka.bootstrap,
        groupProtocol: 'streams',
        processingGuarantee,
        commitIntervalMs: 100,
        retryBackoffMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
      })

    async function createTopics(topics: string[], partitions: number): Promise<void> {
      const admin = client.admin()
      await admin.connect()
      try {
        await admin.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: partitions })) })
      } finally {
        await admin.disconnect()
      }
    }

    /** The topology the group holds (the first member's), with the application id as `<app>`, for comparing two applications'. */
    async function groupTopology(groupId: string): Promise<unknown> {
      const c = await openCoordinator(kafka.bootstrap, groupId, raw)
      const g = (await c.request(StreamsGroupDescribe, 0, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
      c.close()
      // Until the group is Stable the broker may describe the topology as the member sent it (internal topics'
      // partitions 0, not yet derived): read it once configured and assigned.
      if (g.groupState !== 'Stable') return undefined
      const named = (t: string) => t.replace(`${groupId}-`, '<app>-')
      const info = (i: {
        name: string
        partitions: number
        replicationFactor: number
        topicConfigs: Array<{ key: string; value: string }>
      }) => ({
        name: named(i.name),
        partitions: i.partitions,
        replicationFactor: i.replicationFactor,
        configs: i.topicConfigs.map((c) => `${c.key}=${c.value}`),
      })
      return g.topology?.subtopologies?.map((s) => ({
        id: s.subtopologyId,
        sourceTopics: s.sourceTopics,
        repartitionSinkTopics: s.repartitionSinkTopics.map(named),
        repartitionSourceTopics: s.repartitionSourceTopics.map(info),
        stateChangelogTopics: s.stateChangelogTopics.map(info),
      }))
    }

    /** The group as the broker sees it: each member's process id and active tasks (`<subtopology>_<partition>`), and what else it said of itself. */
    async function members(
      groupId: string,
    ): Promise<Array<{ processId: string; tasks: string[]; endpoint?: string; tags?: Record<string, string> }>> {
      const c = await openCoordinator(kafka.bootstrap, groupId, raw)
      const g = (await c.request(StreamsGroupDescribe, 0, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
      c.close()
      if (g.errorCode !== 0) return []
      return g.members.map((m) => ({
        processId: m.processId,
        tasks: m.assignment.activeTasks.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`)).sort(),
        ...(m.userEndpoint ? { endpoint: `${m.userEndpoint.host}:${m.userEndpoint.port}` } : {}),
        ...(m.clientTags.length > 0 ? { tags: Object.fromEntries(m.clientTags.map((t) => [t.key, t.value])) } : {}),
      }))
    }

    const allTasks = (partitions: number) => ['0', '1'].flatMap((s) => Array.from({ length: partitions }, (_, p) => `${s}_${p}`)).sort()

    it('the word count gives the table the input gives; the broker made the repartition topic and changelog', async () => {
      await createTopics(['sp-text', 'sp-counts'], 3)
      const input = wordLines(300, 3)
      await produceStrings(client, 'sp-text', input)
      const streams = app('sp-wc', 'sp-text', 'sp-counts', 'at_least_once', {
        applicationServer: 'app-host:7070',
        clientTags: { zone: 'z1' },
      })
      await streams.start()
      try {
        await countsAre(client, 'sp-counts', countWords(input))
        expect(await members('sp-wc')).toEqual([
          { processId: streams.processId, tasks: allTasks(3), endpoint: 'app-host:7070', tags: { zone: 'z1' } },
        ])
      } finally {
        await streams.close()
      }
      expect(streams.state).toBe('NOT_RUNNING')
      const admin = client.admin()
      await admin.connect()
      const meta = await admin
        .fetchTopicMetadata({ topics: ['sp-wc-counts-repartition', 'sp-wc-counts-changelog'] })
        .finally(() => admin.disconnect())
      expect(meta.topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
        ['sp-wc-counts-changelog', 3],
        ['sp-wc-counts-repartition', 3],
      ])
      // Left on close (epoch -1): the group has no members.
      await until(
        'the member to leave',
        () => members('sp-wc'),
        (m) => m.length === 0,
        10_000,
      )
    }, 60_000)

    it('two instances split the tasks, each task once; when one closes the other takes them all, the counts exact', async () => {
      await createTopics(['sp2-text', 'sp2-counts'], 4)
      const a = app('sp2', 'sp2-text', 'sp2-counts')
      const b = app('sp2', 'sp2-text', 'sp2-counts')
      const bStates: string[] = []
      b.on('stateChange', (next) => void bStates.push(next))
      await a.start()
      await b.start()
      try {
        const split = await until(
          'both instances to own tasks',
          () => members('sp2'),
          (m) => m.length === 2 && m.every((x) => x.tasks.length > 0) && m.flatMap((x) => x.tasks).length === 8,
          30_000,
        )
        expect(split.flatMap((m) => m.tasks).sort()).toEqual(allTasks(4))
        const first = wordLines(400, 4, 1)
        await produceStrings(client, 'sp2-text', first)
        await countsAre(client, 'sp2-counts', countWords(first))
        await a.close()
        const after = await until(
          'b to own every task',
          () => members('sp2'),
          (m) => m.length === 1 && m[0].tasks.length === 8,
          30_000,
        )
        expect(after[0]).toEqual({ processId: b.processId, tasks: allTasks(4) })
        // The handover is a rebalance to b, as to Java's KafkaStreams: REBALANCING while its tasks move, then RUNNING.
        await until(
          'b to run its new tasks',
          () => b.state,
          (st) => st === 'RUNNING',
          10_000,
        )
        expect(bStates.slice(-2)).toEqual(['REBALANCING', 'RUNNING'])
        const second = wordLines(400, 4, 2)
        await produceStrings(client, 'sp2-text', second)
        await countsAre(client, 'sp2-counts', countWords([...first, ...second]))
      } finally {
        await a.close()
        await b.close()
      }
    }, 90_000)

    it('a wafka instance and a Java Kafka Streams instance (group.protocol=streams) split the tasks; the output is exact', async () => {
      await createTopics(['sp3-text', 'sp3-counts'], 4)
      const w = app('sp3', 'sp3-text', 'sp3-counts')
      await w.start()
      const input = wordLines(400, 4, 3)
      const java = javaStreamsApp(kafka, 'wordcount', {
        applicationId: 'sp3',
        inputs: ['sp3-text'],
        output: 'sp3-counts',
        count: input.length,
        props: { 'group.protocol': 'streams', 'commit.interval.ms': 100 },
      })
      try {
        const split = await until(
          'wafka and Java to own tasks',
          () => members('sp3'),
          (m) => m.length === 2 && m.every((x) => x.tasks.length > 0) && m.flatMap((x) => x.tasks).length === 8,
          60_000,
        )
        expect(split.flatMap((m) => m.tasks).sort()).toEqual(allTasks(4))
        expect(split.map((m) => m.processId)).toContain(w.processId)
        await produceStrings(client, 'sp3-text', input)
        await countsAre(client, 'sp3-counts', countWords(input))
        expect(await java.exited).toEqual({ code: 0, signal: null })
        expect(java.events.filter((e) => e.event === 'error')).toEqual([])
      } finally {
        java.kill()
        await w.close()
      }
    }, 90_000)

    it('exactly_once_v2: the word count commits in transactions as a streams group member (TxnOffsetCommit with its id and epoch)', async () => {
      await createTopics(['sp4-text', 'sp4-counts'], 2)
      const input = wordLines(200, 2, 4)
      await produceStrings(client, 'sp4-text', input)
      const streams = app('sp4', 'sp4-text', 'sp4-counts', 'exactly_once_v2')
      await streams.start()
      try {
        await countsAre(client, 'sp4-counts', countWords(input))
        await consumedAll(client, 'sp4', ['sp4-text'], 30_000)
      } finally {
        await streams.close()
      }
      expect(streams.state).toBe('NOT_RUNNING')
    }, 60_000)

    it("the topology wafka gives the group is the one Java gives (sub-topology ids, topics, internal topics' configs), for a join that repartitions", async () => {
      await createTopics(['sp5-clicks', 'sp5-users', 'sp5-out'], 2)
      const java = javaStreamsApp(kafka, 'stream-table-join', {
        applicationId: 'sp5-java',
        inputs: ['sp5-clicks', 'sp5-users'],
        output: 'sp5-out',
        rekey: true,
        props: { 'group.protocol': 'streams' },
      })
      let javaTopology: unknown
      try {
        javaTopology = await until(
          'Java to give its topology',
          () => groupTopology('sp5-java'),
          (t) => Array.isArray(t),
          60_000,
        )
      } finally {
        await java.stop()
      }
      const b = new StreamsBuilder()
      const stream = b.stream<string, string>('sp5-clicks', { keySerde: str, valueSerde: str }).selectKey((_key, value) => value)
      const table = b.table<string, string>('sp5-users', { keySerde: str, valueSerde: str }, { storeName: 'table' })
      stream.join(table, (v: string, t: string | null) => `${v}+${t}`).to('sp5-out', { keySerde: str, valueSerde: str })
      const streams = new KafkaStreams(b.build() as Topology, {
        applicationId: 'sp5-wafka',
        brokers: kafka.bootstrap,
        groupProtocol: 'streams',
        defaultKeySerde: str,
        defaultValueSerde: str,
      })
      await streams.start()
      try {
        const ours = await until(
          'wafka to give its topology',
          () => groupTopology('sp5-wafka'),
          (t) => Array.isArray(t),
          30_000,
        )
        // Two sub-topologies: the re-keyed stream into the repartition topic; it and the table (co-partitioned) into the join.
        expect(ours).toHaveLength(2)
        expect(ours).toEqual(javaTopology)
      } finally {
        await streams.close()
      }
    }, 60_000)

    it('a member the group dropped (UNKNOWN_MEMBER_ID) loses its tasks, joins again from epoch 0 and gets them back; the counts stay exact', async () => {
      await createTopics(['sp7-text', 'sp7-counts'], 2)
      const first = wordLines(200, 2, 7)
      await produceStrings(client, 'sp7-text', first)
      const logs: LogEntry[] = []
      const streams = new KafkaStreams(wordCountTopology('sp7-text', 'sp7-counts'), {
        applicationId: 'sp7',
        brokers: kafka.bootstrap,
        groupProtocol: 'streams',
        commitIntervalMs: 100,
        retryBackoffMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
        logLevel: logLevel.INFO,
        logCreator: () => (e: LogEntry) => void logs.push(e),
      })
      await streams.start()
      try {
        await countsAre(client, 'sp7-counts', countWords(first))
        // Everything committed first, so what the lost tasks processed is not processed twice.
        await consumedAll(client, 'sp7', ['sp7-text', 'sp7-counts-repartition'], 30_000)
        const c = await openCoordinator(kafka.bootstrap, 'sp7', raw)
        const [member] = (await c.request(StreamsGroupDescribe, 0, { groupIds: ['sp7'], includeAuthorizedOperations: false })).groups[0]
          .members
        // Another client leaves on the member's behalf: the broker forgets it, and answers its next heartbeat UNKNOWN_MEMBER_ID.
        const left = await c.request(StreamsGroupHeartbeat, 0, { groupId: 'sp7', memberId: member.memberId, memberEpoch: -1 })
        expect(left.errorCode).toBe(0)
        const back = await until(
          'the member to join again with every task',
          () => members('sp7'),
          (m) => m.length === 1 && m[0].tasks.length === 4 && logs.some((e) => e.log.message.startsWith('fenced by the streams group')),
          30_000,
        )
        expect(back[0].processId).toBe(streams.processId)
        expect(logs.filter((e) => e.log.message === 'joined the streams group').map((e) => e.log.memberEpoch)).toHaveLength(2)
        const second = wordLines(200, 2, 8)
        await produceStrings(client, 'sp7-text', second)
        await countsAre(client, 'sp7-counts', countWords([...first, ...second]))
      } finally {
        await streams.close()
      }
    }, 60_000)

    it("the group's statuses are logged at WARN with the broker's detail while the member keeps heartbeating: a missing source topic, then created, and the application runs", async () => {
      const logs: LogEntry[] = []
      const streams = app('sp8', 'sp8-text', 'sp8-counts', 'at_least_once', { logCreator: () => (e: LogEntry) => void logs.push(e) })
      const warned = (status: string) =>
        logs.find((e) => e.level === logLevel.WARN && e.log.status === status && e.log.groupId === 'sp8')?.log.detail as string | undefined
      await streams.start()
      try {
        await until(
          'MISSING_SOURCE_TOPICS',
          () => warned('MISSING_SOURCE_TOPICS'),
          (d) => d !== undefined,
          10_000,
        )
        expect(warned('MISSING_SOURCE_TOPICS')).toMatch(/sp8-text/)
        await createTopics(['sp8-text', 'sp8-counts'], 2)
        const input = wordLines(100, 2, 8)
        await produceStrings(client, 'sp8-text', input)
        await countsAre(client, 'sp8-counts', countWords(input))
      } finally {
        await streams.close()
      }
    }, 60_000)

    it('topics a join needs co-partitioned but are not: INCORRECTLY_PARTITIONED_TOPICS at WARN, no tasks, a clean close', async () => {
      await createTopics(['sp9-clicks', 'sp9-out'], 2)
      await createTopics(['sp9-users'], 3)
      const logs: LogEntry[] = []
      const b = new StreamsBuilder()
      const table = b.table<string, string>('sp9-users', { keySerde: str, valueSerde: str }, { storeName: 'table' })
      b.stream<string, string>('sp9-clicks', { keySerde: str, valueSerde: str })
        .join(table, (v: string, t: string | null) => `${v}+${t}`)
        .to('sp9-out', { keySerde: str, valueSerde: str })
      const streams = new KafkaStreams(b.build(), {
        applicationId: 'sp9',
        brokers: kafka.bootstrap,
        groupProtocol: 'streams',
        logCreator: () => (e: LogEntry) => void logs.push(e),
      })
      await streams.start()
      try {
        const warning = await until(
          'INCORRECTLY_PARTITIONED_TOPICS',
          () => logs.find((e) => e.level === logLevel.WARN && e.log.status === 'INCORRECTLY_PARTITIONED_TOPICS'),
          (e) => e !== undefined,
          10_000,
        )
        expect(warning!.log.detail).toMatch(/sp9-clicks|sp9-users/)
        expect(await members('sp9')).toEqual([{ processId: streams.processId, tasks: [] }])
      } finally {
        await streams.close()
      }
      expect(streams.state).toBe('NOT_RUNNING')
    }, 30_000)

    it("SHUTDOWN_APPLICATION from one instance's uncaught-error handler stops the other instance too (the group carries the request)", async () => {
      await createTopics(['sp6-in', 'sp6-out'], 2)
      const make = () => {
        const b = new StreamsBuilder()
        b.stream<string, string>('sp6-in', { keySerde: str, valueSerde: str })
          .mapValues((v) => {
            if (v === 'boom') throw new Error('boom')
            return v
          })
          .to('sp6-out', { keySerde: str, valueSerde: str })
        const streams = new KafkaStreams(b.build(), {
          applicationId: 'sp6',
          brokers: kafka.bootstrap,
          groupProtocol: 'streams',
          retryBackoffMs: 100,
        })
        streams.setUncaughtExceptionHandler(() => 'SHUTDOWN_APPLICATION')
        return streams
      }
      const [a, b] = [make(), make()]
      await a.start()
      await b.start()
      try {
        const split = await until(
          'each instance to own one task',
          () => members('sp6'),
          (m) => m.length === 2 && m.every((x) => x.tasks.length === 1),
          30_000,
        )
        // The poison record goes to task 0_0 only: the other instance stops because the group tells it to.
        const failing = split.find((m) => m.tasks[0] === '0_0')!.processId === a.processId ? a : b
        const other = failing === a ? b : a
        await produceStrings(client, 'sp6-in', [{ key: 'k', value: 'boom', timestamp: Date.now(), partition: 0 }])
        await until(
          'the failing instance to stop in ERROR',
          () => failing.state,
          (s) => s === 'ERROR',
          20_000,
        )
        await until(
          'the other instance to stop in ERROR',
          () => other.state,
          (s) => s === 'ERROR',
          20_000,
        )
      } finally {
        await a.close()
        await b.close()
      }
    }, 60_000)
  })
}

describe('groupProtocol and the options it sends', () => {
  it("refuses a protocol other than 'classic' and 'streams', an applicationServer not host:port, tags not strings", () => {
    const make = (more: Partial<StreamsConfig>) => () =>
      new KafkaStreams(wordCountTopology('text', 'counts'), { applicationId: 'opts', brokers: 'localhost:9092', ...more })
    expect(make({ groupProtocol: 'consumer' as never })).toThrow(ConfigError)
    expect(make({ groupProtocol: 'streams', applicationServer: 'no-port' })).toThrow(/applicationServer must be 'host:port'/)
    expect(make({ groupProtocol: 'streams', clientTags: { zone: 1 } as never })).toThrow(/clientTags must be an object of strings/)
    expect(make({ groupProtocol: 'streams', applicationServer: 'h:1', clientTags: { zone: 'z' } })).not.toThrow()
  })
})

// Apache Kafka 3.9 predates streams groups (no StreamsGroupHeartbeat API): start() fails with a typed error
// naming what is missing. (The embedded broker serves streams groups, as Kafka 4.4 does: the tests above.)
describe.skipIf(!requireKafka('3.9'))('groupProtocol streams on a broker without streams groups (Kafka 3.9)', () => {
  it('start() rejects with UnsupportedApiError, and the application stops in ERROR', async () => {
    const cluster = await startKafka({ version: '3.9' })
    try {
      const admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'text', numPartitions: 1 }] }).finally(() => admin.disconnect())
      const streams = new KafkaStreams(wordCountTopology('text', 'counts'), {
        applicationId: 'no-streams-groups',
        brokers: cluster.bootstrap,
        groupProtocol: 'streams',
        defaultKeySerde: str,
        defaultValueSerde: str,
      })
      const started = await streams.start().then(
        () => null,
        (err: unknown) => err,
      )
      expect(started).toBeInstanceOf(UnsupportedApiError)
      expect((started as Error).message).toMatch(/^groupProtocol 'streams' needs a broker that serves StreamsGroupHeartbeat/)
      await until(
        'ERROR',
        () => streams.state,
        (s) => s === 'ERROR',
        10_000,
      )
    } finally {
      await cluster.stop()
    }
  }, 30_000)
})
