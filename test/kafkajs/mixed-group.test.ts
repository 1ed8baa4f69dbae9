// A rolling migration: two KafkaJS 2.2.4 members and two wafka members (one
// on the main entry with partitionAssigners: ['RoundRobinAssigner'], one on
// wafka/kafkajs, where it is the default) in one group, on real Kafka and on
// the embedded broker (src/broker, three brokers). Every
// partition is owned once; a member of each kind leaves and another joins;
// nothing written is lost (each side resumes from the other's commits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { Kafka as Wafka } from '../../src/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from './programs/program.js'

const PARTITIONS = 6

interface Member {
  name: string
  owned: () => string[]
  stop: () => Promise<void>
}

const targets = brokerTargets()

for (const target of targets)
  describe.skipIf(!target.available)(`a group of KafkaJS and wafka members, on ${target.name}`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('owns every partition once and loses nothing while a member of each kind leaves and joins', async () => {
      const brokers = cluster.bootstrap.split(',')
      const topic = 'migrating'
      const groupId = 'migrating-group'
      const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
      const admin = new kafkajs.Kafka({ brokers, ...quiet }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true })
      const producer = new kafkajs.Kafka({ brokers, ...quiet }).producer()
      await producer.connect()
      const written: string[] = []
      const write = async (n: number) => {
        const values = Array.from({ length: n }, (_, i) => `m${written.length + i}`)
        written.push(...values)
        await producer.send({ topic, messages: values.map((value) => ({ key: value, value })) })
      }
      const read = new Map<string, string>() // value -> the member that read it (last)

      /** A member through KafkaJS's API: the real kafkajs or wafka/kafkajs. */
      const kafkajsStyle = async (lib: typeof kafkajs, name: string): Promise<Member> => {
        const consumer = new lib.Kafka({ clientId: name, brokers, ...quiet }).consumer({
          groupId,
          sessionTimeout: 10_000,
          heartbeatInterval: 500,
          rebalanceTimeout: 20_000,
          maxWaitTimeInMs: 200,
        })
        let owned: string[] = []
        consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
          owned = Object.entries(payload.memberAssignment as Record<string, number[]>).flatMap(([t, ps]) => ps.map((p) => `${t}-${p}`))
        })
        await consumer.connect()
        await consumer.subscribe({ topics: [topic], fromBeginning: true })
        await consumer.run({ eachMessage: async ({ message }) => void read.set(String(message.value), name) })
        return { name, owned: () => owned, stop: () => consumer.disconnect() }
      }
      /** A member on wafka's main entry, offering KafkaJS's protocol by name. */
      const mainEntry = async (name: string): Promise<Member> => {
        const consumer = new Wafka({ clientId: name, brokers, logLevel: 0, retryBackoffMs: 100 }).consumer({
          groupId,
          partitionAssigners: ['RoundRobinAssigner'],
          autoOffsetReset: 'earliest',
          sessionTimeoutMs: 10_000,
          heartbeatIntervalMs: 500,
          rebalanceTimeoutMs: 20_000,
          maxWaitTimeInMs: 200,
          autoCommitIntervalMs: 200,
        })
        const owned = new Set<string>()
        const each = (e: { payload: { partitions: Array<{ topic: string; partitions: number[] }> } }, f: (tp: string) => void) =>
          e.payload.partitions.forEach((t) => t.partitions.forEach((p) => f(`${t.topic}-${p}`)))
        consumer.on(consumer.events.PARTITIONS_ASSIGNED, (e) => each(e, (tp) => owned.add(tp)))
        consumer.on(consumer.events.PARTITIONS_REVOKED, (e) => each(e, (tp) => owned.delete(tp)))
        await consumer.connect()
        await consumer.subscribe({ topics: [topic], fromBeginning: true })
        await consumer.run({ eachMessage: async ({ message }) => void read.set(String(message.value), name) })
        return { name, owned: () => [...owned], stop: () => consumer.disconnect() }
      }

      /** Every partition owned by exactly one of `members`, the group stable with just them. */
      const ownedOnce = async (members: Member[]) => {
        let last = ''
        const deadline = Date.now() + 60_000
        for (;;) {
          const owners = members.flatMap((m) => m.owned().map((tp) => `${tp}:${m.name}`)).sort()
          const { groups } = await admin.describeGroups([groupId])
          const partitions = owners.map((o) => o.split(':')[0])
          const once = new Set(partitions).size === PARTITIONS && partitions.length === PARTITIONS
          last = `${groups[0].state} ${groups[0].members.length} members; ${owners.join(' ')}`
          if (once && groups[0].state === 'Stable' && groups[0].members.length === members.length) return owners
          if (Date.now() > deadline) throw new Error(`partitions not owned once: ${last}`)
          await new Promise((r) => setTimeout(r, 200))
        }
      }

      const k1 = await kafkajsStyle(kafkajs, 'kafkajs-1')
      const w1 = await mainEntry('wafka-main-1')
      const k2 = await kafkajsStyle(kafkajs, 'kafkajs-2')
      const w2 = await kafkajsStyle(wafkajs as unknown as typeof kafkajs, 'wafka-kafkajs-2')
      let members = [k1, w1, k2, w2]
      const first = await ownedOnce(members)
      // Round robin over 4 members and 6 partitions: 2, 2, 1, 1; every member has some.
      for (const m of members)
        expect(
          first.some((o) => o.endsWith(`:${m.name}`)),
          m.name,
        ).toBe(true)
      await write(120)
      await until(() => written.every((v) => read.has(v)), 60_000, 'the first messages')

      // One member of each kind leaves; the others take over their partitions from their commits.
      await k1.stop()
      await w1.stop()
      members = [k2, w2]
      await ownedOnce(members)
      await write(120)
      await until(() => written.every((v) => read.has(v)), 60_000, 'the messages after two left')

      // One of each kind joins.
      const k3 = await kafkajsStyle(kafkajs, 'kafkajs-3')
      const w3 = await mainEntry('wafka-main-3')
      members = [k2, w2, k3, w3]
      const last = await ownedOnce(members)
      await write(120)
      await until(() => written.every((v) => read.has(v)), 60_000, 'the messages after two joined')
      const readers = new Set(read.values())
      expect(readers).toContain('wafka-kafkajs-2')
      expect(readers).toContain('kafkajs-2')
      expect(last.some((o) => o.endsWith(':wafka-main-3')) && last.some((o) => o.endsWith(':kafkajs-3'))).toBe(true)
      expect(written.filter((v) => !read.has(v))).toEqual([])

      for (const m of members) await m.stop()
      // What each kind committed is the group's one position: every partition at its end.
      const committed = await admin.fetchOffsets({ groupId, topics: [topic] })
      const ends = await admin.fetchTopicOffsets(topic)
      expect(committed[0].partitions.map((p) => [p.partition, p.offset]).sort()).toEqual(ends.map((p) => [p.partition, p.high]).sort())
      await producer.disconnect()
      await admin.disconnect()
    }, 300_000)
  })
