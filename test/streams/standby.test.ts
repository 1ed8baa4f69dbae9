// Standby tasks under groupProtocol 'streams' (KIP-1071) on Apache Kafka 4.4
// and on the embedded broker, with the same assertions: the group's
// streams.num.standby.replicas is 1 (a group config, set with the admin
// client as Java's documentation says, since Java's num.standby.replicas is
// ignored under this protocol). Two instances of a word count: each stateful
// task has its active on one and a standby on the other; the standby's copy
// of the store follows the active one's (read as Java's stale stores), its
// changelog offsets are reported in the heartbeat (the broker describes
// them); when the active instance closes, the other takes its tasks over and
// restores only the tail its standby had not read; the counts stay exact.
// And a wafka standby of a Java Kafka Streams active task takes it over the
// same way, whether Java closes or is killed (SIGKILL: fenced after the session timeout).
// Persistent stores (files and checkpoints in stateDir) and in-memory ones;
// at_least_once, and exactly_once_v2 (the standby reads read_committed).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { ConfigResourceTypes } from '../../src/admin/configs.js'
import { KafkaStreams, Serdes, type StreamsConfig } from '../../src/public/streams.js'
import { StreamsGroupDescribe } from '../../src/protocol/messages/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { RawClient } from '../broker/raw-client.js'
import { openCoordinator } from '../broker/support.js'
import { until } from '../kafka/support.js'
import { consumedAll, countsAre, produceStrings, standbysFollow, tookOverFromStandbys } from './support.js'
import { countWords, FAST_STREAMS_GROUPS, wordCountTopology, wordLines } from './word-count-app.js'
import { javaStreamsApp } from '../peers/java-streams.js'

const str = Serdes.String()
// As streams-protocol.test.ts: assignments at once, heartbeats twice a second; and a killed member fenced after 6 s (not 45).
const FAST_GROUPS = {
  kafka: {
    config: {
      ...FAST_STREAMS_GROUPS.kafka.config,
      'group.streams.min.session.timeout.ms': '3000',
      'group.streams.session.timeout.ms': '6000',
    },
  },
  embedded: { ...FAST_STREAMS_GROUPS.embedded, streamsGroupMinSessionTimeoutMs: 3000, streamsGroupSessionTimeoutMs: 6000 },
}

const PARTITIONS = 4
// The count reads the repartition topic: sub-topology 1 holds the store.
const STATEFUL = Array.from({ length: PARTITIONS }, (_, p) => `1_${p}`)

const tasks = (t: Array<{ subtopologyId: string; partitions: number[] }>) =>
  t.flatMap((x) => x.partitions.map((p) => `${x.subtopologyId}_${p}`)).sort()

for (const target of brokerTargets(FAST_GROUPS)) {
  describe.skipIf(!target.available)(`standby tasks (KIP-1071) on ${target.name}`, () => {
    let kafka: RunningTarget
    let client: Kafka
    const raw: RawClient[] = []

    beforeAll(async () => {
      kafka = await target.start()
      client = new Kafka({ clientId: 'standby-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 })
    }, 120_000)

    afterAll(async () => {
      for (const c of raw) c.close()
      await kafka?.stop()
    })

    /** The group as the broker describes it: per member its process, active and standby tasks, and the task offsets it reported. */
    async function members(groupId: string) {
      const c = await openCoordinator(kafka.bootstrap, groupId, raw)
      const g = (await c.request(StreamsGroupDescribe, 0, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
      c.close()
      if (g.errorCode !== 0) return []
      return g.members.map((m) => ({
        processId: m.processId,
        active: tasks(m.assignment.activeTasks),
        standby: tasks(m.assignment.standbyTasks),
        taskOffsets: m.taskOffsets.map((t) => `${t.subtopologyId}_${t.partition}`).sort(),
      }))
    }

    /** The input and output topics, and the group's standby count: 1 (under the streams protocol a group config; Java's num.standby.replicas is ignored). */
    async function prepare(app: string, input: string, output: string): Promise<void> {
      const admin = client.admin()
      await admin.connect()
      try {
        await admin.createTopics({ waitForLeaders: true, topics: [input, output].map((topic) => ({ topic, numPartitions: PARTITIONS })) })
        await admin.alterConfigs({
          resources: [
            { type: ConfigResourceTypes.GROUP, name: app, configEntries: [{ name: 'streams.num.standby.replicas', value: '1' }] },
          ],
        })
      } finally {
        await admin.disconnect()
      }
    }

    const cases = [
      ['rocksDB', 'at_least_once'],
      ['in_memory', 'at_least_once'],
      ['rocksDB', 'exactly_once_v2'],
    ] as const
    for (const [store, guarantee] of cases) {
      it(`${store} stores, ${guarantee}: the standby follows the active store; when the active closes, the standby's instance restores only the tail; counts exact`, async () => {
        const app = `sb-${store === 'rocksDB' ? 'disk' : 'mem'}-${guarantee === 'exactly_once_v2' ? 'eos' : 'alo'}`
        const [input, output] = [`${app}-text`, `${app}-counts`]
        await prepare(app, input, output)
        const logs = { a: [] as LogEntry[], b: [] as LogEntry[] }
        const instance = (name: 'a' | 'b', more: Partial<StreamsConfig> = {}) =>
          new KafkaStreams(wordCountTopology(input, output), {
            stateDir: mkdtempSync(join(tmpdir(), `wafka-standby-${name}-`)),
            applicationId: app,
            brokers: kafka.bootstrap,
            groupProtocol: 'streams',
            commitIntervalMs: 100,
            retryBackoffMs: 100,
            defaultKeySerde: str,
            defaultValueSerde: str,
            defaultDslStore: store,
            processingGuarantee: guarantee,
            logLevel: logLevel.INFO,
            logCreator: () => (e: LogEntry) => void logs[name].push(e),
            ...more,
          })
        const a = instance('a')
        const b = instance('b')
        await a.start()
        try {
          await until(
            'a to own every task',
            () => members(app),
            (m) => m.length === 1 && m[0].active.length === 2 * PARTITIONS,
            30_000,
          )
          const first = wordLines(400, PARTITIONS, 1)
          await produceStrings(client, input, first)
          await countsAre(client, output, countWords(first), guarantee === 'exactly_once_v2')
          await b.start()
          // Each stateful task: active on one instance, its standby on the other.
          const split = await until(
            'the tasks to be split, each stateful one with a standby on the other instance',
            () => members(app),
            (m) =>
              m.length === 2 &&
              m.every((x) => x.active.length > 0) &&
              STATEFUL.every((t) => m.some((x) => x.active.includes(t)) && m.some((x) => x.standby.includes(t))),
            30_000,
          )
          for (const m of split) expect(m.standby.filter((t) => m.active.includes(t))).toEqual([])
          const second = wordLines(400, PARTITIONS, 2)
          await produceStrings(client, input, second)
          const expected = countWords([...first, ...second])
          await countsAre(client, output, expected, guarantee === 'exactly_once_v2')
          // b's own tasks and its standbys' copies (Java's stale stores) hold the whole table: the standbys followed a's stores.
          await standbysFollow(b, expected, "b's standbys to hold what a's active tasks counted")
          // Without stale stores only its active tasks are read: not the whole table.
          expect(b.store('counts', 'keyValue').approximateNumEntries()).toBeLessThan(expected.size)
          // b reported its standbys' changelog offsets in the heartbeat: the broker describes them.
          await until(
            "the broker to describe b's task offsets for its standby tasks",
            () => members(app),
            (m) => {
              const mb = m.find((x) => x.processId === b.processId)
              return mb !== undefined && mb.standby.length > 0 && mb.standby.every((t) => mb.taskOffsets.includes(t))
            },
            30_000,
          )
          const mark = logs.b.length
          const taken = split.find((x) => x.processId === a.processId)!.active.filter((t) => STATEFUL.includes(t))
          expect(taken.length).toBeGreaterThan(0)
          await a.close()
          await until(
            'b to own every task',
            () => members(app),
            (m) => m.length === 1 && m[0].active.length === 2 * PARTITIONS,
            30_000,
          )
          // The tasks b took over restored from where their standbys were, not from the changelog's start.
          await tookOverFromStandbys(
            client,
            { input, output },
            {
              before: [...first, ...second],
              more: wordLines(100, PARTITIONS, 3),
              logs: logs.b,
              from: mark,
              taken,
              committed: guarantee === 'exactly_once_v2',
            },
          )
        } finally {
          await a.close()
          await b.close()
        }
      }, 120_000)
    }

    for (const end of ['closes', 'is killed'] as const)
      it(`a wafka standby follows a Java Kafka Streams active (group.protocol=streams): when Java ${end}, wafka takes over restoring only the tail; counts exact`, async () => {
        const app = `sb-java-${end === 'closes' ? 'close' : 'kill'}`
        const [input, output] = [`${app}-text`, `${app}-counts`]
        await prepare(app, input, output)
        const java = javaStreamsApp(kafka, 'wordcount', {
          applicationId: app,
          inputs: [input],
          output,
          props: { 'group.protocol': 'streams', 'commit.interval.ms': 100, 'state.dir': mkdtempSync(join(tmpdir(), 'java-standby-')) },
        })
        const logs: LogEntry[] = []
        const w = new KafkaStreams(wordCountTopology(input, output), {
          stateDir: mkdtempSync(join(tmpdir(), 'wafka-standby-w-')),
          applicationId: app,
          brokers: kafka.bootstrap,
          groupProtocol: 'streams',
          commitIntervalMs: 100,
          retryBackoffMs: 100,
          defaultKeySerde: str,
          defaultValueSerde: str,
          logLevel: logLevel.INFO,
          logCreator: () => (e: LogEntry) => void logs.push(e),
        })
        try {
          await until(
            'Java to own every task',
            () => members(app),
            (m) => m.length === 1 && m[0].active.length === 2 * PARTITIONS,
            60_000,
          )
          const first = wordLines(400, PARTITIONS, 4)
          await produceStrings(client, input, first)
          await countsAre(client, output, countWords(first), false)
          await w.start()
          const split = await until(
            'the tasks to be split, each stateful one with a standby on the other instance',
            () => members(app),
            (m) =>
              m.length === 2 &&
              m.every((x) => x.active.length > 0) &&
              STATEFUL.every((t) => m.some((x) => x.active.includes(t)) && m.some((x) => x.standby.includes(t))),
            60_000,
          )
          const second = wordLines(400, PARTITIONS, 5)
          await produceStrings(client, input, second)
          const expected = countWords([...first, ...second])
          await countsAre(client, output, expected, false)
          // wafka's standbys read the changelogs Java's active tasks write: with its own tasks, the whole table.
          await standbysFollow(w, expected, "wafka's standbys to hold what Java's active tasks counted")
          const mark = logs.length
          const taken = split.find((x) => x.processId !== w.processId)!.active.filter((t) => STATEFUL.includes(t))
          expect(taken.length).toBeGreaterThan(0)
          if (end === 'closes') expect(await java.stop()).toEqual({ code: 0, signal: null })
          else {
            // What Java processed is committed first, so wafka processes nothing twice (at_least_once) after the crash.
            await consumedAll(client, app, [input, `${app}-counts-repartition`], 30_000)
            await java.kill()
          }
          await until(
            'wafka to own every task',
            () => members(app),
            (m) => m.length === 1 && m[0].active.length === 2 * PARTITIONS,
            60_000,
          )
          await tookOverFromStandbys(
            client,
            { input, output },
            { before: [...first, ...second], more: wordLines(100, PARTITIONS, 6), logs, from: mark, taken },
          )
          expect(java.events.filter((e) => e.event === 'error')).toEqual([])
        } finally {
          await java.kill()
          await w.close()
        }
      }, 180_000)
  })
}
