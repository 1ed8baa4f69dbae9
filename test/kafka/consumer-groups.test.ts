// Consumer groups on real Apache Kafka (one broker) and on the embedded
// broker (three), the same tests on each: the classic protocol with each
// client-side assignor (the broker picks the protocol every member offers
// and hands out the leader's plan), static membership across a restart, and
// KIP-848 with the broker's own assignors and a regex subscription (a
// JavaScript RegExp, resolved by the client into topic names, as Java's
// subscribe(java.util.regex.Pattern) does).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, Kafka } from '../../src/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { GroupRun, type Member, partitionsOf, produce } from './consumer-support.js'

for (const target of brokerTargets({ kafka: { brokers: 1 } }))
  describe.skipIf(!target.available)(`consumer groups on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin
    const members: Member[] = []

    beforeAll(async () => {
      cluster = await target.start()
      admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
    }, 120_000)
    afterEach(async () => {
      await Promise.allSettled(members.splice(0).map((m) => m.consumer.disconnect()))
    })
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
    })

    const topics = async (names: string[], partitions: number) => {
      await admin.createTopics({ topics: names.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })) })
    }
    const newRun = () => new GroupRun(cluster.bootstrap, members)
    const shape = (m: Member, topic: string) => partitionsOf(m.consumer).filter((p) => p.startsWith(`${topic}-`)).length

    // Two topics of three partitions, two members: range hands out per topic (one member gets two of each),
    // roundrobin across both (three each, a topic split 2/1 one way and 1/2 the other).
    for (const assignor of ['range', 'roundrobin'] as const) {
      it(`${assignor}: the broker runs the group on it and every partition is read once, by its one owner`, async () => {
        const [t1, t2] = [`${assignor}-a`, `${assignor}-b`]
        await topics([t1, t2], 3)
        await produce(cluster.bootstrap, t1, 600, 'a')
        await produce(cluster.bootstrap, t2, 600, 'b')
        const groupId = `group-${assignor}`
        const run = newRun()
        const config = { groupId, partitionAssigners: [assignor] }
        const a = await run.join('a', config, [t1, t2])
        const b = await run.join('b', config, [t1, t2])
        await run.settled(
          () => partitionsOf(a.consumer).length + partitionsOf(b.consumer).length === 6 && partitionsOf(b.consumer).length > 0,
        )
        await run.readAtLeast(1200)

        const {
          groups: [group],
        } = await admin.describeGroups([groupId])
        expect(group.protocolType).toBe('consumer')
        expect(group.protocol).toBe(assignor)
        expect(group.members).toHaveLength(2)
        expect([...partitionsOf(a.consumer), ...partitionsOf(b.consumer)].sort()).toEqual([
          `${t1}-0`,
          `${t1}-1`,
          `${t1}-2`,
          `${t2}-0`,
          `${t2}-1`,
          `${t2}-2`,
        ])
        const counts = [a, b].map((m) => [shape(m, t1), shape(m, t2)]).sort()
        if (assignor === 'range')
          expect(counts).toEqual([
            [1, 1],
            [2, 2],
          ])
        else
          expect(counts).toEqual([
            [1, 2],
            [2, 1],
          ])
        expect(run.exactlyOnceProblems(1200, (r) => `${r.topic}/${r.value}`)).toEqual([])
      })
    }

    it('cooperative-sticky: a third member takes partitions without the others giving up what they keep; no partition owned twice, nothing lost or read twice', async () => {
      const topic = 'coop'
      await topics([topic], 6)
      await produce(cluster.bootstrap, topic, 1200)
      const groupId = 'group-coop'
      const run = newRun()
      const config = { groupId, partitionAssigners: ['cooperative-sticky'], autoCommitIntervalMs: 200 }
      const a = await run.join('a', config, [topic])
      const b = await run.join('b', config, [topic])
      await run.settled(() => partitionsOf(a.consumer).length === 3 && partitionsOf(b.consumer).length === 3)
      await run.readAtLeast(1200)
      const before = { a: partitionsOf(a.consumer), b: partitionsOf(b.consumer) }
      run.ownership.log.length = 0

      const c = await run.join('c', config, [topic])
      await run.settled(() => [a, b, c].every((m) => partitionsOf(m.consumer).length === 2), 30_000)
      await produce(cluster.bootstrap, topic, 1200, 'v', { from: 1200 })
      await run.readAtLeast(2400)

      const {
        groups: [group],
      } = await admin.describeGroups([groupId])
      expect(group.protocol).toBe('cooperative-sticky')
      // Sticky: a and b each kept two of their three; cooperative: they revoked only the one they gave up.
      for (const [name, m] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const now = partitionsOf(m.consumer)
        expect(now.every((p) => before[name].includes(p))).toBe(true)
        const revoked = run.ownership.log.filter((l) => l.startsWith(`${name} -`)).map((l) => l.slice(3))
        expect(revoked).toEqual(before[name].filter((p) => !now.includes(p)))
        expect(run.ownership.log.filter((l) => l.startsWith(`${name} +`))).toEqual([])
      }
      expect([...partitionsOf(a.consumer), ...partitionsOf(b.consumer), ...partitionsOf(c.consumer)].sort()).toEqual(
        [0, 1, 2, 3, 4, 5].map((p) => `${topic}-${p}`),
      )
      expect(run.exactlyOnceProblems(2400)).toEqual([])
    })

    it('static membership: a member restarted within the session timeout gets its partitions back with no rebalance; the other member notices nothing', async () => {
      const topic = 'static'
      await topics([topic], 4)
      await produce(cluster.bootstrap, topic, 400)
      const groupId = 'group-static'
      const run = newRun()
      const base = { groupId, sessionTimeoutMs: 15_000, heartbeatIntervalMs: 500, autoCommitIntervalMs: 200 }
      const fixed = await run.join('fixed', { ...base, groupInstanceId: 'instance-1' }, [topic])
      const other = await run.join('other', base, [topic])
      await run.settled(() => partitionsOf(fixed.consumer).length === 2 && partitionsOf(other.consumer).length === 2)
      await run.readAtLeast(400)
      const {
        groups: [before],
      } = await admin.describeGroups([groupId])
      const fixedBefore = partitionsOf(fixed.consumer)
      const otherBefore = partitionsOf(other.consumer)
      expect(before.members.find((m) => m.groupInstanceId === 'instance-1')).toBeDefined()

      run.ownership.log.length = 0
      await run.leave(fixed)
      // The broker keeps the static member while its session lasts: still two members, same generation.
      const {
        groups: [during],
      } = await admin.describeGroups([groupId])
      expect(during.members.map((m) => m.groupInstanceId).sort()).toEqual(before.members.map((m) => m.groupInstanceId).sort())

      const again = await run.join('again', { ...base, groupInstanceId: 'instance-1' }, [topic])
      await run.settled(() => partitionsOf(again.consumer).length === 2)
      await produce(cluster.bootstrap, topic, 400, 'v', { from: 400 })
      await run.readAtLeast(800)
      expect(partitionsOf(again.consumer)).toEqual(fixedBefore)
      expect(partitionsOf(other.consumer)).toEqual(otherBefore)
      expect(run.ownership.log.filter((l) => l.startsWith('other'))).toEqual([])
      const {
        groups: [after],
      } = await admin.describeGroups([groupId])
      expect(after.members).toHaveLength(2)
      expect(run.exactlyOnceProblems(800)).toEqual([])
    })

    it("disconnect({ leaveGroup: false }) sends no LeaveGroup (Java's REMAIN_IN_GROUP): the group keeps the member until its session times out; disconnect() leaves at once", async () => {
      const topic = 'remain'
      await topics([topic], 4)
      await produce(cluster.bootstrap, topic, 400)
      const groupId = 'group-remain'
      const run = newRun()
      const base = { groupId, sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, autoCommitIntervalMs: 200 }
      const [a, b, c] = [await run.join('a', base, [topic]), await run.join('b', base, [topic]), await run.join('c', base, [topic])]
      await run.settled(() => [a, b, c].every((m) => partitionsOf(m.consumer).length > 0))
      await run.readAtLeast(400)
      await expect(a.consumer.disconnect({ leaveGroups: false } as never)).rejects.toThrow(/leaveGroup/)
      const members = async () => (await admin.describeGroups([groupId])).groups[0].members.length

      await run.leave(a, { leaveGroup: false })
      expect(await members()).toBe(3)
      const left = Date.now()
      // The others take a's partitions only when its session has timed out.
      await run.settled(() => partitionsOf(b.consumer).length + partitionsOf(c.consumer).length === 4, 30_000)
      expect(Date.now() - left).toBeGreaterThanOrEqual(5_000)
      expect(await members()).toBe(2)

      await run.leave(b)
      expect(await members()).toBe(1)
      await run.settled(() => partitionsOf(c.consumer).length === 4, 10_000)
      // a committed what it read before it went: nothing is read twice.
      expect(run.exactlyOnceProblems(400)).toEqual([])
    }, 60_000)

    it("KIP-848 static membership: a member restarted within the broker's session timeout gets its partitions back, and the other member keeps its own", async () => {
      const topic = 'static-848'
      await topics([topic], 4)
      await produce(cluster.bootstrap, topic, 400)
      const groupId = 'group-static-848'
      const run = newRun()
      const base = { groupId, groupProtocol: 'consumer' as const, autoCommitIntervalMs: 200 }
      const fixed = await run.join('fixed', { ...base, groupInstanceId: 'instance-848' }, [topic])
      const other = await run.join('other', base, [topic])
      await run.settled(() => partitionsOf(fixed.consumer).length === 2 && partitionsOf(other.consumer).length === 2, 30_000)
      await run.readAtLeast(400)
      const fixedBefore = partitionsOf(fixed.consumer)
      const otherBefore = partitionsOf(other.consumer)
      run.ownership.log.length = 0
      // Leaves with epoch -2 ("back soon"): the broker keeps its partitions for it (group.consumer.session.timeout.ms, 45 s).
      await run.leave(fixed)
      await new Promise((r) => setTimeout(r, 2000))
      expect(partitionsOf(other.consumer)).toEqual(otherBefore)
      const again = await run.join('again', { ...base, groupInstanceId: 'instance-848' }, [topic])
      await run.settled(() => partitionsOf(again.consumer).length === 2, 30_000)
      await produce(cluster.bootstrap, topic, 400, 'v', { from: 400 })
      await run.readAtLeast(800)
      expect(partitionsOf(again.consumer)).toEqual(fixedBefore)
      expect(partitionsOf(other.consumer)).toEqual(otherBefore)
      expect(run.ownership.log.filter((l) => l.startsWith('other'))).toEqual([])
      expect(run.exactlyOnceProblems(800)).toEqual([])
    })

    for (const serverAssignor of ['uniform', 'range'] as const) {
      it(`KIP-848 with the broker's '${serverAssignor}' assignor: members share the topic, the second's arrival moves partitions without overlap, nothing lost`, async () => {
        const topic = `kip848-${serverAssignor}`
        await topics([topic], 6)
        await produce(cluster.bootstrap, topic, 600)
        const groupId = `group-kip848-${serverAssignor}`
        const run = newRun()
        const config = { groupId, groupProtocol: 'consumer' as const, serverAssignor, autoCommitIntervalMs: 200 }
        const a = await run.join('a', config, [topic])
        await run.settled(() => partitionsOf(a.consumer).length === 6)
        await run.readAtLeast(600)
        const b = await run.join('b', config, [topic])
        await run.settled(() => partitionsOf(a.consumer).length === 3 && partitionsOf(b.consumer).length === 3, 30_000)
        await produce(cluster.bootstrap, topic, 600, 'v', { from: 600 })
        await run.readAtLeast(1200)

        expect([...partitionsOf(a.consumer), ...partitionsOf(b.consumer)].sort()).toEqual([0, 1, 2, 3, 4, 5].map((p) => `${topic}-${p}`))
        if (serverAssignor === 'range') {
          // The broker's range assignor gives each member a contiguous run of the topic's partitions.
          const runs = [a, b].map((m) =>
            partitionsOf(m.consumer)
              .map((p) => Number(p.split('-').pop()))
              .sort((x, y) => x - y),
          )
          for (const r of runs) expect(r[r.length - 1] - r[0]).toBe(r.length - 1)
        }
        expect(run.exactlyOnceProblems(1200)).toEqual([])
      })
    }

    it("KIP-848 regex subscription (resolved into names by the client, as Java's subscribe(Pattern)): the broker assigns the matching topics, and one created later joins the assignment", async () => {
      await topics(['rx-orders', 'rx-payments', 'other-orders'], 2)
      await produce(cluster.bootstrap, 'rx-orders', 100, 'o')
      await produce(cluster.bootstrap, 'rx-payments', 100, 'p')
      await produce(cluster.bootstrap, 'other-orders', 100, 'x')
      const run = newRun()
      const m = await run.join('rx', { groupId: 'group-regex', groupProtocol: 'consumer', metadataMaxAgeMs: 1000 }, [/^rx-.*/])
      await run.settled(() => partitionsOf(m.consumer).length === 4)
      await run.readAtLeast(200)
      expect(partitionsOf(m.consumer)).toEqual(['rx-orders-0', 'rx-orders-1', 'rx-payments-0', 'rx-payments-1'])

      await topics(['rx-refunds'], 2)
      await produce(cluster.bootstrap, 'rx-refunds', 100, 'r')
      await run.settled(() => partitionsOf(m.consumer).length === 6, 30_000)
      await run.readAtLeast(300)
      expect(run.reads.some((r) => r.topic === 'other-orders')).toBe(false)
      expect(run.exactlyOnceProblems(300)).toEqual([])
    })
  })
