// wafka groups list/describe on a streams group (KIP-1071) of a wafka/streams
// application, against Apache Kafka 4.4 and the embedded broker with the same
// assertions, as kafka-streams-groups.sh --describe reads it: the group's
// type, state and assignor, its member with process id, endpoint and tasks
// (Java's `ACTIVE: 0:[0,1]; 1:[0,1];`), and per partition its sub-topologies
// read (the input and the repartition topic) the committed offset, the log
// end, the lag and the member whose task reads it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes } from '../../src/public/streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { produce } from '../kafka/consumer-support.js'
import { until } from '../kafka/support.js'
import { built, wafka } from './support.js'
import { coordinatorSees } from '../streams/support.js'
import { FAST_STREAMS_GROUPS, wordCountTopology } from '../streams/word-count-app.js'
import type { RawClient } from '../broker/raw-client.js'

const str = Serdes.String()

const FAST_GROUPS = { ...FAST_STREAMS_GROUPS, embedded: { ...FAST_STREAMS_GROUPS.embedded, brokers: 1 } }

for (const target of brokerTargets(FAST_GROUPS)) {
  describe.skipIf(!built || !target.available)(`wafka groups on a streams group, ${target.name}`, () => {
    let kafka: RunningTarget
    let admin: Admin
    const raw: RawClient[] = []
    beforeAll(async () => {
      kafka = await target.start()
      admin = new Kafka({ brokers: kafka.bootstrap.split(',') }).admin()
      await admin.connect()
    }, 120_000)
    afterAll(async () => {
      for (const c of raw) c.close()
      await admin?.disconnect()
      await kafka?.stop()
    })

    it('list shows its type; describe its member with process, endpoint and tasks, and the offsets and lag of what it reads', async () => {
      const b = kafka.bootstrap
      const [input, output, groupId] = ['cli-sg-text', 'cli-sg-counts', 'cli-sg']
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          { topic: input, numPartitions: 2 },
          { topic: output, numPartitions: 2 },
        ],
      })
      // Kafka 4.4 fails a member with an endpoint that joins before the coordinator sees its source topic (see README).
      await coordinatorSees(b, [input], raw)
      const stateDir = mkdtempSync(join(tmpdir(), 'cli-streams-groups-'))
      await produce(b, input, 6, 'a b c', { partition: 0 })
      await produce(b, input, 4, 'd e', { partition: 1 })
      const app = new KafkaStreams(wordCountTopology(input, output), {
        applicationId: groupId,
        brokers: b,
        groupProtocol: 'streams',
        applicationServer: 'app-host:7070',
        stateDir,
        commitIntervalMs: 100,
        retryBackoffMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
      })
      await app.start()
      try {
        const repartition = `${groupId}-counts-repartition`
        // Until everything is processed and committed: the input's 10 records and the 26 words through the repartition topic.
        const d = await until(
          'the group to commit everything',
          async () => {
            const r = await wafka(['groups', 'describe', groupId, '-b', b, '--json'])
            if (r.code !== 0) return undefined
            const j = JSON.parse(r.stdout)
            const done =
              j.state === 'Stable' &&
              j.offsets.length === 4 &&
              j.offsets.every((o: { lag: number | null }) => o.lag === 0) &&
              j.members[0]?.assignment.activeTasks.length === 2
            return done ? j : undefined
          },
          (j) => j !== undefined,
          60_000,
        )
        const member = d.members[0].memberId
        expect(d).toEqual({
          groupId,
          state: 'Stable',
          type: 'streams',
          assignor: expect.any(String),
          groupEpoch: expect.any(Number),
          targetAssignmentEpoch: expect.any(Number),
          topologyEpoch: 0,
          members: [
            {
              memberId: expect.any(String),
              memberEpoch: expect.any(Number),
              processId: app.processId,
              clientId: expect.any(String),
              host: expect.any(String),
              endpoint: 'app-host:7070',
              assignment: {
                activeTasks: [
                  { subtopologyId: '0', partitions: [0, 1] },
                  { subtopologyId: '1', partitions: [0, 1] },
                ],
                standbyTasks: [],
                warmupTasks: [],
              },
              targetAssignment: {
                activeTasks: [
                  { subtopologyId: '0', partitions: [0, 1] },
                  { subtopologyId: '1', partitions: [0, 1] },
                ],
                standbyTasks: [],
                warmupTasks: [],
              },
            },
          ],
          offsets: [
            { topic: input, partition: 0, committed: 6, logEnd: 6, lag: 0, member },
            { topic: input, partition: 1, committed: 4, logEnd: 4, lag: 0, member },
            { topic: repartition, partition: 0, committed: expect.any(Number), logEnd: expect.any(Number), lag: 0, member },
            { topic: repartition, partition: 1, committed: expect.any(Number), logEnd: expect.any(Number), lag: 0, member },
          ].sort((x, y) => x.topic.localeCompare(y.topic) || x.partition - y.partition),
        })
        const list = JSON.parse((await wafka(['groups', 'list', '-b', b, '--json'])).stdout)
        expect(list).toContainEqual(expect.objectContaining({ groupId, groupType: 'streams' }))
        const text = (await wafka(['groups', 'describe', groupId, '-b', b])).stdout
        const lines = text.split('\n')
        expect(lines[0]).toBe(`group ${groupId}: Stable, streams, ${d.assignor}, 1 member(s)`)
        expect(text).toMatch(/member\s+process\s+client\s+host\s+endpoint\s+assignments/)
        expect(lines.find((l) => l.startsWith(member))).toMatch(
          new RegExp(`^${member}\\s+${app.processId}\\s+.*app-host:7070\\s+ACTIVE: 0:\\[0,1\\]; 1:\\[0,1\\];$`),
        )
        expect(text).toMatch(/topic\s+partition\s+committed\s+log end\s+lag\s+member/)
      } finally {
        await app.close()
        rmSync(stateDir, { recursive: true, force: true })
      }
    }, 120_000)
  })
}
