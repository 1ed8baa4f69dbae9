// The Java client (kafka-clients 4.4, test/peers/java/RigClient.java) and
// wafka members in one group, on real Kafka and on the embedded broker: classic with cooperative-sticky
// (whichever client leads computes the plan the other follows) and KIP-848.
// No partition is owned by two members at once, nothing is lost, and the
// offsets one client commits are where the other resumes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, Kafka } from '../../src/index.js'
import { type JavaGroupMember, type JavaProps, javaGroupMember } from '../peers/java-client.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { distinct, duplicates, GroupRun, type Member, partitionsOf, produce, type Read, until } from './consumer-support.js'

const javaOwned = (j: JavaGroupMember) =>
  j
    .assignment()
    .map((p) => `${p.topic}-${p.partition}`)
    .sort()

/** What the Java member read, as wafka's members record it. */
const javaReads = (j: JavaGroupMember, topic: string): Read[] =>
  j.records().map((r) => ({ by: 'java', topic, partition: r.partition, offset: BigInt(r.offset), value: r.value!.toString() }))

/** Waits until the clients have read `count` different values between them. */
const readAtLeast = (all: () => Read[], count: number) =>
  until(
    () => distinct(all()) >= count,
    30_000,
    () => `read ${distinct(all())} of ${count}`,
  )

for (const target of brokerTargets({ kafka: { brokers: 1 } }))
  describe.skipIf(!target.available)(`Java and wafka members in one group, on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin
    const members: Member[] = []
    const javas: JavaGroupMember[] = []

    beforeAll(async () => {
      cluster = await target.start()
      admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
    })
    afterEach(async () => {
      await Promise.allSettled([...javas.splice(0).map((j) => j.kill()), ...members.splice(0).map((m) => m.consumer.disconnect())])
    })
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
    })

    const cases: Array<{ name: string; wafka: object; java: JavaProps }> = [
      {
        name: 'classic, cooperative-sticky',
        wafka: { partitionAssigners: ['cooperative-sticky'] },
        java: {
          'partition.assignment.strategy': 'org.apache.kafka.clients.consumer.CooperativeStickyAssignor',
          'session.timeout.ms': 10_000,
          'heartbeat.interval.ms': 500,
        },
      },
      { name: "KIP-848 (groupProtocol 'consumer')", wafka: { groupProtocol: 'consumer' as const }, java: { 'group.protocol': 'consumer' } },
    ]

    for (const [index, c] of cases.entries()) {
      it(`${c.name}: partitions shared and handed over between the clients, none owned twice, nothing lost or read twice, commits honoured both ways`, async () => {
        const topic = `interop-${index}`
        const groupId = `interop-group-${index}`
        await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }] })
        await produce(cluster.bootstrap, topic, 600)
        const run = new GroupRun(cluster.bootstrap, members)
        const config = { groupId, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, autoCommitIntervalMs: 200, ...c.wafka }
        const w1 = await run.join('w1', config, [topic])
        await run.settled(() => partitionsOf(w1.consumer).length === 6)
        await run.readAtLeast(600)

        // The Java member joins: it must start at w1's commits (nothing w1 read comes again).
        const java = javaGroupMember(cluster, groupId, topic, { props: c.java, commit: 'sync' })
        javas.push(java)
        await until(
          () => javaOwned(java).length === 3 && partitionsOf(w1.consumer).length === 3,
          45_000,
          () => `java ${javaOwned(java)} w1 ${partitionsOf(w1.consumer)}; ${java.stderr.slice(-5).join('\n')}`,
        )
        await produce(cluster.bootstrap, topic, 600, 'v', { from: 600 })
        const all = () => [...run.reads, ...javaReads(java, topic)]
        await readAtLeast(all, 1200)
        expect([...partitionsOf(w1.consumer), ...javaOwned(java)].sort()).toEqual([0, 1, 2, 3, 4, 5].map((p) => `${topic}-${p}`))
        expect(java.records().length).toBeGreaterThan(0)
        expect(java.records().every((r) => Number(r.value!.toString().slice(1)) >= 600)).toBe(true)

        // A second wafka member: the plan spreads over three, the clients keep to their own.
        const w2 = await run.join('w2', config, [topic])
        await until(
          () => [partitionsOf(w1.consumer), partitionsOf(w2.consumer), javaOwned(java)].every((p) => p.length === 2),
          45_000,
          () => `w1 ${partitionsOf(w1.consumer)} w2 ${partitionsOf(w2.consumer)} java ${javaOwned(java)}`,
        )
        await produce(cluster.bootstrap, topic, 600, 'v', { from: 1200 })
        await readAtLeast(all, 1800)
        const owned = [partitionsOf(w1.consumer), partitionsOf(w2.consumer), javaOwned(java)]
        expect(owned.flat().sort()).toEqual([0, 1, 2, 3, 4, 5].map((p) => `${topic}-${p}`))

        // The Java member leaves (it commits and closes): its partitions go to wafka, which resumes at Java's commits.
        const javaHad = javaOwned(java)
        await java.stop()
        await until(
          () => partitionsOf(w1.consumer).length + partitionsOf(w2.consumer).length === 6,
          45_000,
          () => `w1 ${partitionsOf(w1.consumer)} w2 ${partitionsOf(w2.consumer)}`,
        )
        await produce(cluster.bootstrap, topic, 600, 'v', { from: 1800 })
        await readAtLeast(all, 2400)
        await new Promise((r) => setTimeout(r, 500))

        expect(run.ownership.violations).toEqual([])
        expect(duplicates(all())).toEqual([])
        expect(distinct(all())).toBe(2400)
        // On the partitions Java had, wafka read only what came after Java left.
        const after = run.reads.filter(
          (r) => javaHad.includes(`${r.topic}-${r.partition}`) && Number(r.value.slice(1)) >= 1200 && Number(r.value.slice(1)) < 1800,
        )
        expect(after).toEqual([])
      })
    }

    it('classic, cooperative-sticky, the Java member first: it leads, its plan gives the wafka members their shares, and wafka resumes at its commits when it leaves', async () => {
      const topic = 'interop-java-leads'
      const groupId = 'interop-java-leads'
      await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }] })
      await produce(cluster.bootstrap, topic, 600)
      const java = javaGroupMember(cluster, groupId, topic, { props: cases[0].java, commit: 'sync' })
      javas.push(java)
      await until(
        () => javaOwned(java).length === 6 && java.records().length >= 600,
        45_000,
        () => `java ${javaOwned(java)}, ${java.records().length} read; ${java.stderr.slice(-5).join('\n')}`,
      )
      const run = new GroupRun(cluster.bootstrap, members)
      const config = {
        groupId,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 500,
        autoCommitIntervalMs: 200,
        partitionAssigners: ['cooperative-sticky'],
      }
      const w1 = await run.join('w1', config, [topic])
      const w2 = await run.join('w2', config, [topic])
      await until(
        () => [partitionsOf(w1.consumer), partitionsOf(w2.consumer), javaOwned(java)].every((p) => p.length === 2),
        45_000,
        () => `w1 ${partitionsOf(w1.consumer)} w2 ${partitionsOf(w2.consumer)} java ${javaOwned(java)}`,
      )
      // The leader is the member that joined first (the Java consumer): its assignor computed this plan.
      const {
        groups: [group],
      } = await admin.describeGroups([groupId])
      expect(group.protocol).toBe('cooperative-sticky')
      expect(group.members).toHaveLength(3)
      expect([partitionsOf(w1.consumer), partitionsOf(w2.consumer), javaOwned(java)].flat().sort()).toEqual(
        [0, 1, 2, 3, 4, 5].map((p) => `${topic}-${p}`),
      )
      // What Java had read and committed, wafka does not read again.
      expect(run.reads).toEqual([])
      await produce(cluster.bootstrap, topic, 600, 'v', { from: 600 })
      const all = () => [...run.reads, ...javaReads(java, topic)]
      await readAtLeast(all, 1200)
      await java.stop()
      await until(
        () => partitionsOf(w1.consumer).length + partitionsOf(w2.consumer).length === 6,
        45_000,
        () => `w1 ${partitionsOf(w1.consumer)} w2 ${partitionsOf(w2.consumer)}`,
      )
      await produce(cluster.bootstrap, topic, 600, 'v', { from: 1200 })
      await readAtLeast(all, 1800)
      await new Promise((r) => setTimeout(r, 500))
      expect(run.ownership.violations).toEqual([])
      expect(duplicates(all())).toEqual([])
      expect(distinct(all())).toBe(1800)
    })
  })
