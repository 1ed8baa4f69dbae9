// As the Java client: a KIP-848 consumer commits and fetches its offsets by
// topic id (OffsetCommit and OffsetFetch v10, Java's forTopicIdsOrNames);
// the classic consumer and the admin calls by name (v9, forTopicNames). On
// real Kafka and the embedded broker with the same assertions: the versions
// sent, and the offsets each kind commits read back by the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import type { RequestEvent } from '../../src/net/connection-options.js'
import { OffsetCommit, OffsetFetch } from '../../src/protocol/messages/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const TOPIC = 'by-id'

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`group offsets by topic id on ${target.name}`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
      const kafka = new Kafka({ brokers: cluster.bootstrap.split(',') })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 1 }] })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic: TOPIC, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}`, partition: i % 2 })) })
      await producer.disconnect()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    /** A client whose OffsetCommit and OffsetFetch versions are recorded. */
    function recorded() {
      const versions = { commit: new Set<number>(), fetch: new Set<number>() }
      const onRequest = (e: RequestEvent) => {
        if (e.type !== 'request') return
        if (e.apiKey === OffsetCommit.apiKey) versions.commit.add(e.apiVersion)
        if (e.apiKey === OffsetFetch.apiKey) versions.fetch.add(e.apiVersion)
      }
      return { kafka: new Kafka({ brokers: cluster.bootstrap.split(','), onRequest }), versions }
    }

    /** Reads every message of the topic with a consumer of `groupProtocol`, commits, and stops; what it started from per partition. */
    async function consumeAll(groupId: string, groupProtocol: 'classic' | 'consumer', kafka: Kafka) {
      const consumer = kafka.consumer({ groupId, groupProtocol, autoCommit: false })
      await consumer.connect()
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true })
      const seen: string[] = []
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${groupId}: read ${JSON.stringify(seen)} of 10`)), 30_000)
        void consumer
          .run({
            eachMessage: async ({ message, partition }) => {
              seen.push(`${partition}:${message.offset}`)
              if (seen.length === 10) (clearTimeout(timer), resolve())
            },
          })
          .catch(reject)
      })
      await consumer.commitOffsets([
        { topic: TOPIC, partition: 0, offset: '3' },
        { topic: TOPIC, partition: 1, offset: '2' },
      ])
      await consumer.disconnect()
      return seen
    }

    it('a KIP-848 consumer commits and fetches by id (v10); the admin reads its offsets by name (v9)', async () => {
      const { kafka, versions } = recorded()
      expect((await consumeAll('by-id-848', 'consumer', kafka)).length).toBe(10)
      expect(versions.commit).toEqual(new Set([10]))
      expect(versions.fetch).toEqual(new Set([10]))

      const admin = recorded()
      const a = admin.kafka.admin()
      await a.connect()
      const offsets = await a.fetchOffsets({ groupId: 'by-id-848', topics: [TOPIC] })
      await a.disconnect()
      expect(offsets[0].partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([
        [0, '3'],
        [1, '2'],
      ])
      expect(admin.versions.fetch).toEqual(new Set([9]))

      // A second member of the group starts where the commit by id left it (its OffsetFetch v10 reads it).
      const again = recorded()
      const consumer = again.kafka.consumer({ groupId: 'by-id-848', groupProtocol: 'consumer', autoCommit: false })
      await consumer.connect()
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true })
      const firsts = new Map<number, string>()
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`resumed at ${JSON.stringify([...firsts])}`)), 30_000)
        void consumer
          .run({
            eachMessage: async ({ message, partition }) => {
              if (!firsts.has(partition)) firsts.set(partition, message.offset)
              if (firsts.size === 2) (clearTimeout(timer), resolve())
            },
          })
          .catch(reject)
      })
      await consumer.disconnect()
      expect(Object.fromEntries(firsts)).toEqual({ 0: '3', 1: '2' })
      expect(again.versions.fetch).toEqual(new Set([10]))
    })

    it('a classic consumer and the admin commit and fetch by name (v9)', async () => {
      const { kafka, versions } = recorded()
      expect((await consumeAll('by-name-classic', 'classic', kafka)).length).toBe(10)
      expect(versions.commit).toEqual(new Set([9]))
      expect(versions.fetch).toEqual(new Set([9]))
      const admin = recorded()
      const a = admin.kafka.admin()
      await a.connect()
      await a.setOffsets({ groupId: 'by-name-classic', topic: TOPIC, partitions: [{ partition: 0, offset: '2' }] })
      const offsets = await a.fetchOffsets({ groupId: 'by-name-classic', topics: [TOPIC] })
      await a.disconnect()
      expect(offsets[0].partitions.find((p) => p.partition === 0)?.offset).toBe('2')
      expect(admin.versions).toEqual({ commit: new Set([9]), fetch: new Set([9]) })
    })
  })
