// A KIP-848 group's members across their coordinator going away, on real
// Apache Kafka 4.4 and the embedded broker with the same assertions. Kafka
// keeps a consumer group in __consumer_offsets (its ConsumerGroup* records)
// and the coordinator that loads the partition goes on from them: a member's
// next heartbeat, with its member id and epoch, is answered NONE at the same
// epoch with the same assignment (no FENCED_MEMBER_EPOCH, no
// UNKNOWN_MEMBER_ID, no rejoin), and ConsumerGroupDescribe shows the group
// as it was. Two ways away: the coordinator broker of a 3-broker cluster
// stopped (another replica of the partition takes it and loads the group
// from its log: the embedded broker's groups too), and a 1-broker
// cluster restarted on its data (the embedded broker on its dataDir). After
// the restart, Kafka's own DumpLogSegments --offsets-decoder reads the
// group's partition, naming each record's type and decoding it, without errors.
import { createServer } from 'node:net'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ConsumerGroupDescribe, ConsumerGroupHeartbeat, FindCoordinator } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { requireKafka, runJava, startKafka } from '../peers/kafka.js'
import { partitionOf } from './offsets-topic-records.js'

const PARTITIONS = 10

/** A cluster whose group coordinator can be made to go away. */
interface Target {
  bootstrap: string
  /** The coordinator (broker `id`) goes away: stopped, or the whole cluster restarted on its data. */
  away(id: number): Promise<void>
  /** The log segments of partition `p` of __consumer_offsets on its (first) broker. */
  segments(p: number): string[]
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

const logs = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => join(dir, f))

const config = { 'offsets.topic.num.partitions': String(PARTITIONS) }

const kafkaTarget = async (brokers: number, how: 'stop' | 'restart'): Promise<Target> => {
  const k = await startKafka({ brokers, config })
  return {
    bootstrap: k.bootstrap,
    away: async (id) => {
      await k.stopBroker(id)
      if (how === 'restart') await k.startBroker(id)
    },
    segments: (p) => logs(join(k.logDirs[0], 'data', `__consumer_offsets-${p}`)),
    stop: () => k.stop(),
  }
}

const embeddedTarget = async (brokers: number, how: 'stop' | 'restart'): Promise<Target> => {
  const dataDir = how === 'restart' ? mkdtempSync(join(tmpdir(), 'wafka-kip848-load-')) : undefined
  // Restarted on the same port, as the clients know it.
  const port = how === 'restart' ? await freePort() : undefined
  const options = { brokers, dataDir, port, config, groupInitialRebalanceDelayMs: 0 }
  let c = await startCluster(options)
  return {
    bootstrap: c.bootstrapServers,
    away: async (id) => {
      if (how === 'stop') return c.stopBroker(id)
      await c.stop()
      c = await startCluster(options)
    },
    segments: (p) => logs(join(dataDir!, 'broker-0', `__consumer_offsets-${p}`)),
    stop: async () => {
      await c.stop()
      if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

type Owned = Array<{ topicId: string; partitions: number[] }>
interface Member {
  memberId: string
  epoch: number
  owned: Owned
}

const sorted = (o: Owned) =>
  o
    .map((t) => ({ topicId: t.topicId, partitions: [...t.partitions].sort((a, b) => a - b) }))
    .filter((t) => t.partitions.length > 0)
    .sort((a, b) => (a.topicId < b.topicId ? -1 : 1))

const cases: Array<[string, 'stop' | 'restart', number]> = [
  ['its coordinator broker stopped (3 brokers)', 'stop', 3],
  ['a restart on its data (1 broker)', 'restart', 1],
]

for (const [what, how, brokers] of cases)
  for (const [name, start, skip] of [
    ['Apache Kafka 4.4', () => kafkaTarget(brokers, how), !requireKafka()],
    ['the embedded broker', () => embeddedTarget(brokers, how), false],
  ] as const)
    describe.skipIf(skip)(`a KIP-848 group across ${what}, on ${name}`, () => {
      let target: Target | undefined
      const open: RawClient[] = []
      afterAll(async () => {
        for (const c of open.splice(0)) c.close()
        await target?.stop()
      })

      /** The group's coordinator: its broker id and a client on it, asked until the partition is loaded. */
      async function coordinator(groupId: string): Promise<{ id: number; c: RawClient }> {
        let found = { nodeId: -1, host: '', port: 0, errorCode: -1 }
        await until(
          async () => {
            // Any broker that is up (the stopped one may be first).
            for (const address of target!.bootstrap.split(',')) {
              const boot = await RawClient.open(address).catch(() => null)
              if (!boot) continue
              try {
                found = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]
              } catch {
                continue
              } finally {
                boot.close()
              }
              if (found.errorCode === 0) return true
            }
            return false
          },
          60_000,
          () => `FindCoordinator: ${JSON.stringify(found)}`,
        )
        const c = await RawClient.open(`${found.host}:${found.port}`)
        open.push(c)
        return { id: found.nodeId, c }
      }

      const heartbeat = (c: RawClient, groupId: string, m: Member, topics: string[]) =>
        c.request(ConsumerGroupHeartbeat, 1, {
          groupId,
          memberId: m.memberId,
          memberEpoch: m.epoch,
          instanceId: null,
          rackId: null,
          // A full heartbeat (what a member sends after a coordinator change): the answer carries its assignment.
          rebalanceTimeoutMs: 60_000,
          subscribedTopicNames: topics,
          subscribedTopicRegex: null,
          serverAssignor: 'uniform',
          topicPartitions: m.owned,
        })

      const describeGroup = async (c: RawClient, groupId: string) => {
        const d = (await c.request(ConsumerGroupDescribe, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]
        return {
          errorCode: d.errorCode,
          groupState: d.groupState,
          groupEpoch: d.groupEpoch,
          assignmentEpoch: d.assignmentEpoch,
          assignorName: d.assignorName,
          members: d.members
            .map((m) => ({
              memberId: m.memberId,
              instanceId: m.instanceId,
              rackId: m.rackId,
              memberEpoch: m.memberEpoch,
              clientId: m.clientId,
              subscribedTopicNames: [...m.subscribedTopicNames].sort(),
              subscribedTopicRegex: m.subscribedTopicRegex,
              assignment: sorted(m.assignment.topicPartitions),
              targetAssignment: sorted(m.targetAssignment.topicPartitions),
            }))
            .sort((a, b) => (a.memberId < b.memberId ? -1 : 1)),
        }
      }

      it('a member heartbeats on at its epoch with its assignment, one giving a partition up is still asked to; the groups are described as before', async () => {
        target = await (start as () => Promise<Target>)()
        const topic = `kip848-load-${how}`
        const groupId = `kip848-load-${how}-group`
        const admin = new Kafka({ brokers: target.bootstrap.split(',') }).admin()
        await admin.connect()
        await admin.createTopics({
          topics: [
            { topic, numPartitions: 4, replicationFactor: brokers },
            { topic: `${topic}-2`, numPartitions: 2, replicationFactor: brokers },
          ],
        })
        await admin.disconnect()

        // Two members join and settle: each at the group's epoch with its half, none pending.
        let { id, c } = await coordinator(groupId)
        /** A heartbeat answered by the group's coordinator: asked again (of the coordinator found again) while it is loading or moving. */
        const beat = async (m: Member, group = groupId, topics = [topic]) => {
          let r: Awaited<ReturnType<typeof heartbeat>> | undefined
          await until(
            async () => {
              r = await heartbeat(c, group, m, topics).catch(() => undefined)
              if (r !== undefined && ![14, 15, 16].includes(r.errorCode)) return true
              if (r?.errorCode !== 14) ({ id, c } = await coordinator(groupId))
              return false
            },
            60_000,
            () => `heartbeat of ${m.memberId}: ${JSON.stringify(r)}`,
          )
          return r!
        }
        const members: Member[] = [randomUUID(), randomUUID()].map((memberId) => ({ memberId, epoch: 0, owned: [] }))
        let before!: Awaited<ReturnType<typeof describeGroup>>
        await until(
          async () => {
            for (const m of members) {
              const r = await beat(m)
              expect(r.errorCode, r.errorMessage ?? '').toBe(ErrorCodes.NONE)
              m.epoch = r.memberEpoch
              if (r.assignment) m.owned = sorted(r.assignment.topicPartitions)
            }
            before = await describeGroup(c, groupId)
            return (
              before.groupState === 'Stable' &&
              members.every((m) => m.epoch === before.groupEpoch && m.owned.flatMap((t) => t.partitions).length === 2)
            )
          },
          30_000,
          () => `settling: ${JSON.stringify(before)}`,
        )
        expect(before.members.map((m) => m.memberId)).toEqual(members.map((m) => m.memberId).sort())
        const epoch = before.groupEpoch
        expect(epoch).toBeGreaterThanOrEqual(2)

        // A second group on the same coordinator (its partition the first's), caught as its first member must give a
        // partition up to a second that joined (past group.consumer.assignment.interval.ms, so assigned at once).
        let n = 0
        while (partitionOf(`${groupId}-revoking-${n}`, PARTITIONS) !== partitionOf(groupId, PARTITIONS)) n++
        const revoking = `${groupId}-revoking-${n}`
        const topics2 = [`${topic}-2`]
        const [giving, waiting]: Member[] = [randomUUID(), randomUUID()].map((memberId) => ({ memberId, epoch: 0, owned: [] }))
        await until(
          async () => {
            const r = await beat(giving, revoking, topics2)
            expect(r.errorCode, r.errorMessage ?? '').toBe(ErrorCodes.NONE)
            giving.epoch = r.memberEpoch
            if (r.assignment) giving.owned = sorted(r.assignment.topicPartitions)
            return giving.owned.flatMap((t) => t.partitions).length === 2
          },
          30_000,
          () => `the first member of ${revoking}: ${JSON.stringify(giving)}`,
        )
        const revokingEpoch = giving.epoch
        await new Promise((resolve) => setTimeout(resolve, 1500))
        const joined = await beat(waiting, revoking, topics2)
        expect([joined.errorCode, joined.memberEpoch, joined.assignment?.topicPartitions]).toEqual([0, revokingEpoch + 1, []])
        waiting.epoch = joined.memberEpoch
        const asked = await beat(giving, revoking, topics2)
        expect([asked.errorCode, asked.memberEpoch]).toEqual([0, revokingEpoch])
        const kept = sorted(asked.assignment!.topicPartitions)
        expect(kept.flatMap((t) => t.partitions)).toHaveLength(1)
        const revokingBefore = await describeGroup(c, revoking)
        expect(revokingBefore.groupState).toBe('Reconciling')

        await target.away(id)

        // Each member's next heartbeat, to whoever coordinates now, with its id and epoch: NONE, the same epoch and assignment.
        for (const m of members) {
          const r = await beat(m)
          expect({ errorCode: r.errorCode, errorMessage: r.errorMessage, memberId: r.memberId, memberEpoch: r.memberEpoch }).toEqual({
            errorCode: ErrorCodes.NONE,
            errorMessage: null,
            memberId: m.memberId,
            memberEpoch: epoch,
          })
          expect(sorted(r.assignment?.topicPartitions ?? [])).toEqual(m.owned)
        }
        expect(await describeGroup(c, groupId)).toEqual(before)

        // The member that was giving a partition up, still owning it, is still asked to (at its epoch, with what it keeps);
        // once it has, it takes the new epoch, and the partition goes to the member that waited for it.
        expect(await describeGroup(c, revoking)).toEqual(revokingBefore)
        const still = await beat(giving, revoking, topics2)
        expect([still.errorCode, still.memberEpoch, sorted(still.assignment?.topicPartitions ?? [])]).toEqual([0, revokingEpoch, kept])
        giving.owned = kept
        const done = await beat(giving, revoking, topics2)
        expect([done.errorCode, done.memberEpoch]).toEqual([0, revokingEpoch + 1])
        const got = await beat(waiting, revoking, topics2)
        expect([got.errorCode, got.memberEpoch]).toEqual([0, revokingEpoch + 1])
        expect(sorted(got.assignment!.topicPartitions).flatMap((t) => t.partitions)).toHaveLength(1)
        expect([...sorted(got.assignment!.topicPartitions), ...kept].flatMap((t) => t.partitions).sort()).toEqual([0, 1])

        if (how !== 'restart') return
        // What the broker wrote for the group, read by Kafka's own tool: every record decoded, the group's named.
        const files = target.segments(partitionOf(groupId, PARTITIONS))
        expect(files.length).toBeGreaterThan(0)
        const dump = await runJava('org.apache.kafka.tools.DumpLogSegments', [
          '--files',
          files.join(','),
          '--deep-iteration',
          '--print-data-log',
          '--offsets-decoder',
        ])
        expect(dump.code, dump.stderr).toBe(0)
        expect(dump.stdout).not.toMatch(/invalid bytes|corrupt|Error|Exception|unknown/i)
        // The tool names a record by its type (the key's int16) and prints its key and value decoded: the group's
        // epoch (3), members' subscriptions (5), target assignment epoch (6) and members' (7), current assignments (8).
        for (const type of [3, 5, 6, 7, 8])
          expect(dump.stdout, `record type ${type}`).toMatch(
            new RegExp(`key: \\{"type":"${type}","data":\\{"groupId":"${groupId}".*payload: \\{"version":"0","data":\\{`),
          )
        expect(dump.stdout).toMatch(new RegExp(`"data":\\{"epoch":${epoch}[,}]`))
        for (const m of members) expect(dump.stdout).toContain(m.memberId)
      }, 240_000)
    })
