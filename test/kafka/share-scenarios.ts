// The core share-group (KIP-932) scenarios on a topic of several partitions,
// for any broker that serves share groups: run on 3-broker clusters (real
// Kafka 4.4 and the embedded broker, partitions led by different brokers:
// share-groups-cluster.test.ts), the embedded one also against the built
// package (test/vitest.config.ts builtSlice). The 1-partition scenarios, and those that
// need Java or a child process, are in share-groups.test.ts.
import { describe, expect, it } from 'vitest'
import { produce, until } from './consumer-support.js'
import { configureShareGroup, deliveries, shareBroker, type ShareTarget, sorted, text, values } from './share-support.js'

export interface ShareScenarioOptions {
  /** Partitions of each topic. */
  partitions: number
  replicationFactor: number
  /** Each topic's partitions are led by this many different brokers (checked). */
  leaders: number
}

export function shareScenarios(name: string, skip: boolean, start: () => Promise<ShareTarget>, o: ShareScenarioOptions): void {
  describe.skipIf(skip)(name, () => {
    const share = shareBroker(start, { clientId: 'share-test', startTimeoutMs: 180_000 })
    const { member } = share
    let n = 0

    /** A topic of o.partitions partitions led by o.leaders brokers, with `count` records (keys spread them), and a share group reading it from the start. */
    async function setUp(count: number, groupConfig: Record<string, string> = {}) {
      const topic = `share-n-${++n}`
      const groupId = `queue-n-${n}`
      await share.admin.createTopics({
        topics: [{ topic, numPartitions: o.partitions, replicationFactor: o.replicationFactor }],
        waitForLeaders: true,
      })
      const [meta] = (await share.admin.fetchTopicMetadata({ topics: [topic] })).topics
      expect(new Set(meta.partitions.map((p) => p.leader)).size, 'brokers leading the partitions').toBe(o.leaders)
      await configureShareGroup(share.admin, groupId, groupConfig)
      await produce(share.target.bootstrap, topic, count)
      const offsets = await share.admin.fetchTopicOffsets(topic)
      expect(offsets.filter((p) => Number(p.high) > 0).length, 'partitions holding records').toBe(o.partitions)
      return { topic, groupId }
    }

    it('3 members share the records of every partition: each delivered to one member at a time, every one accepted exactly once', async () => {
      const { topic, groupId } = await setUp(300)
      const holding = new Map<string, number>()
      const overlaps: string[] = []
      const reads: Array<{ member: number; partition: number; deliveryCount: number }> = []
      const accepted = new Map<string, number>()
      const members = [0, 1, 2].map((i) => {
        const c = member(groupId, { maxPollRecords: 10, shareAcquireMode: 'record_limit' })
        c.on(c.events.ACKNOWLEDGED, (e) => {
          for (const r of e.payload.results) if (r.error) overlaps.push(`member ${i}: acknowledgement refused: ${r.error.message}`)
        })
        return c
      })
      for (const [i, c] of members.entries()) {
        await c.subscribe({ topics: [topic] })
        await c.run({
          eachMessage: async ({ message }) => {
            const v = text(message)
            const other = holding.get(v)
            if (other !== undefined) overlaps.push(`${v} handed to member ${i} while member ${other} held it`)
            holding.set(v, i)
            reads.push({ member: i, partition: message.partition, deliveryCount: message.deliveryCount })
            await new Promise((r) => setTimeout(r, 5))
            holding.delete(v)
            accepted.set(v, (accepted.get(v) ?? 0) + 1)
          },
        })
      }
      await until(
        () => accepted.size >= 300,
        60_000,
        () => `accepted ${accepted.size} of 300`,
      )
      await Promise.all(members.map((c) => c.commitSync()))
      expect(overlaps).toEqual([])
      expect(sorted([...accepted.keys()])).toEqual(sorted(values(0, 300)))
      expect([...accepted.values()].every((k) => k === 1)).toBe(true)
      expect(reads.every((r) => r.deliveryCount === 1)).toBe(true)
      expect(new Set(reads.map((r) => r.member))).toEqual(new Set([0, 1, 2]))
      expect(new Set(reads.map((r) => r.partition)).size).toBe(o.partitions)
      // Between them the members were assigned every partition.
      const assigned = new Set(members.flatMap((c) => c.assignment().map((a) => a.partition)))
      expect(assigned.size).toBe(o.partitions)
    }, 120_000)

    it('released records come back with deliveryCount + 1; rejected ones never come back (explicit mode)', async () => {
      const { topic, groupId } = await setUp(30)
      const c = member(groupId, { acknowledgementMode: 'explicit' })
      const seen: Array<{ value: string; deliveryCount: number }> = []
      await c.subscribe({ topics: [topic] })
      await c.run({
        eachMessage: async ({ message }) => {
          const v = text(message)
          seen.push({ value: v, deliveryCount: message.deliveryCount })
          const i = Number(v.slice(1))
          if (i < 6 && message.deliveryCount === 1) c.acknowledge(message, 'release')
          else if (i >= 6 && i < 12) c.acknowledge(message, 'reject')
          else c.acknowledge(message, 'accept')
        },
      })
      await until(
        () => seen.filter((s) => s.deliveryCount === 2).length >= 6,
        30_000,
        () => JSON.stringify(seen),
      )
      // Later records on every partition: the rejected ones, were they available again, would be acquired before these.
      await produce(share.target.bootstrap, topic, 30, 'v', { from: 30 })
      await until(
        () => new Set(seen.map((s) => s.value)).size >= 60,
        30_000,
        () => JSON.stringify(seen),
      )
      await c.commitSync()
      const count = (v: string) => seen.filter((s) => s.value === v).map((s) => s.deliveryCount)
      for (const v of values(0, 6)) expect(count(v), v).toEqual([1, 2])
      for (const v of values(6, 60)) expect(count(v), v).toEqual([1])
    }, 60_000)

    it('at the delivery-count limit a record is archived: never delivered again', async () => {
      const { topic, groupId } = await setUp(15, { 'share.delivery.count.limit': '2' })
      const c = member(groupId, { acknowledgementMode: 'explicit' })
      const seen: Array<{ value: string; deliveryCount: number }> = []
      await c.subscribe({ topics: [topic] })
      await c.run({
        eachMessage: async ({ message }) => {
          const v = text(message)
          seen.push({ value: v, deliveryCount: message.deliveryCount })
          // v0-v5 are always released: twice delivered, then archived.
          c.acknowledge(message, Number(v.slice(1)) < 6 ? 'release' : 'accept')
        },
      })
      await until(
        () => seen.filter((s) => s.deliveryCount === 2).length >= 6,
        30_000,
        () => JSON.stringify(seen),
      )
      await produce(share.target.bootstrap, topic, 15, 'v', { from: 15 })
      await until(
        () => new Set(seen.map((s) => s.value)).size >= 30,
        30_000,
        () => JSON.stringify(seen),
      )
      await c.commitSync()
      const count = (v: string) => seen.filter((s) => s.value === v).map((s) => s.deliveryCount)
      for (const v of values(0, 6)) expect(count(v), v).toEqual([1, 2])
      for (const v of values(6, 30)) expect(count(v), v).toEqual([1])
    }, 60_000)

    it('a member closed with records fetched but not handed out releases them to the others', async () => {
      // Locks of a minute (Kafka's longest): what comes back within the test's wait was released, not expired.
      const { topic, groupId } = await setUp(20, { 'share.record.lock.duration.ms': '60000' })
      const first = member(groupId, { maxPollRecords: 20, shareAcquireMode: 'record_limit' })
      let started!: () => void
      const inHandler = new Promise<void>((r) => (started = r))
      const firstSaw: string[] = []
      await first.subscribe({ topics: [topic] })
      await first.run({
        eachMessage: async ({ message }) => {
          firstSaw.push(text(message))
          started()
          await new Promise((r) => setTimeout(r, 500))
        },
      })
      await inHandler
      await first.disconnect()
      const got = await deliveries(member(groupId), topic)
      await until(
        () => firstSaw.length + got.length >= 20,
        30_000,
        () => `${firstSaw} / ${JSON.stringify(got)}`,
      )
      expect(sorted([...firstSaw, ...got.map((g) => g.value)])).toEqual(sorted(values(0, 20)))
      expect(firstSaw.length).toBeLessThan(20)
      // Those the first member had acquired come back once more delivered; any it never acquired, for the first time.
      expect(got.some((g) => g.deliveryCount === 2)).toBe(true)
      expect(got.every((g) => g.deliveryCount <= 2)).toBe(true)
    }, 60_000)
  })
}
