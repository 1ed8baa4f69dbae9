// __consumer_offsets as Kafka 4.4 keeps it, on real Kafka and on the embedded
// broker with the same assertions: not there until the first FindCoordinator
// for a group, which creates it (offsets.topic.num.partitions partitions,
// Kafka's configs for it); then listed by Metadata as internal, each group's
// coordinator the leader of its partition, abs(groupId.hashCode()) %
// partitions; a client may not produce to it (it may delete it, as Kafka
// allows: the next FindCoordinator creates it again); a KIP-848 regex the
// broker resolves assigns it (the broker does not skip internal topics:
// franz-go's TestConsumeRegex and Test848RegexBrokerResolves rest on both).
// Created while a broker of three is stopped: that broker takes replicas too,
// offline until it is back. A commit the coordinator acknowledged is kept
// when that broker stops: the partition's new leader answers it (on the
// embedded broker, read back from the new leader's log).
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ConsumerGroupHeartbeat,
  CreateTopics,
  DeleteTopics,
  DescribeConfigs,
  FindCoordinator,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  Produce,
} from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { requireKafka, startKafka } from '../peers/kafka.js'
import { startCluster } from '../../src/broker/index.js'

const OFFSETS = '__consumer_offsets'
const PARTITIONS = 10
const config = { 'offsets.topic.num.partitions': String(PARTITIONS) }

/** Java's String.hashCode. */
function hashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** Kafka's Utils.abs (Integer.MIN_VALUE is 0). */
const abs = (n: number) => (n === -2147483648 ? 0 : Math.abs(n))

for (const target of brokerTargets({ kafka: { brokers: 1, config }, embedded: { brokers: 3, config } }))
  describe.skipIf(!target.available)(`${OFFSETS} on ${target.name}`, () => {
    let cluster: RunningTarget
    const open: RawClient[] = []
    const client = async (hostPort = cluster.bootstrap.split(',')[0]) => {
      const c = await RawClient.open(hostPort)
      open.push(c)
      return c
    }

    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterAll(async () => {
      for (const c of open.splice(0)) c.close()
      await cluster?.stop()
    })

    it('is not there before a group is looked up (nor made by a Metadata request that may not create topics)', async () => {
      const c = await client()
      const all = await c.request(Metadata, 12, { topics: null })
      expect(all.topics.map((t) => t.name)).not.toContain(OFFSETS)
      const named = await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      expect(named.topics[0].errorCode).toBe(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
    })

    it('the first FindCoordinator for a group creates it: internal, offsets.topic.num.partitions partitions, Kafka’s configs', async () => {
      const c = await client()
      let code = -1
      await until(
        async () =>
          (code = (await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['first'] })).coordinators[0].errorCode) === 0,
        30_000,
        () => `FindCoordinator: ${code}`,
      )
      let topic: Awaited<ReturnType<typeof metadataOf>> | undefined
      const metadataOf = async () =>
        (await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })).topics[0]
      await until(
        async () => (topic = await metadataOf()).errorCode === 0 && topic.partitions.every((p) => p.leaderId >= 0),
        30_000,
        () => JSON.stringify(topic),
      )
      expect(topic!.isInternal).toBe(true)
      expect(topic!.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b)).toEqual([...Array(PARTITIONS).keys()])
      const all = await c.request(Metadata, 12, { topics: null })
      expect(all.topics.find((t) => t.name === OFFSETS)?.isInternal).toBe(true)
      // Other topics are not internal.
      expect(all.topics.filter((t) => t.isInternal).map((t) => t.name)).toEqual([OFFSETS])

      const described = await c.request(DescribeConfigs, 4, {
        resources: [{ resourceType: 2, resourceName: OFFSETS, configurationKeys: ['cleanup.policy', 'compression.type', 'segment.bytes'] }],
        includeSynonyms: false,
        includeDocumentation: false,
      })
      expect(described.results[0].errorCode).toBe(0)
      const configs = Object.fromEntries(described.results[0].configs.map((x) => [x.name, [x.value, x.configSource]]))
      // Set on the topic when it is created (TOPIC_CONFIG), from offsets.topic.segment.bytes.
      expect(configs).toEqual({
        'cleanup.policy': ['compact', 1],
        'compression.type': ['producer', 1],
        'segment.bytes': ['104857600', 1],
      })
    })

    it('each group’s coordinator is the leader of its partition, abs(groupId.hashCode()) % partitions', async () => {
      const c = await client()
      const md = await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      const leaders = new Map(md.topics[0].partitions.map((p) => [p.partitionIndex, p.leaderId]))
      // Ids of both signs of hashCode, some where abs and a masked sign bit pick different partitions.
      const groups = Array.from({ length: 24 }, (_, i) => `group-${i}-${'x'.repeat(i)}`)
      expect(groups.some((g) => hashCode(g) < 0 && abs(hashCode(g)) % PARTITIONS !== (hashCode(g) & 0x7fffffff) % PARTITIONS)).toBe(true)
      const found = await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: groups })
      for (const f of found.coordinators) {
        expect(f.errorCode, f.key).toBe(0)
        expect(f.nodeId, f.key).toBe(leaders.get(abs(hashCode(f.key)) % PARTITIONS))
      }
    })

    it('refuses a client’s produce to it and its creation over it', async () => {
      const c = await client()
      const md = await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      const leader = md.topics[0].partitions.find((p) => p.partitionIndex === 0)!.leaderId
      const b = md.brokers.find((x) => x.nodeId === leader)!
      const lc = await client(`${b.host}:${b.port}`)
      const produced = await lc.request(Produce, 11, {
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: OFFSETS, partitionData: [{ index: 0, records: Buffer.from(encodeRecordBatch([{ key: 'k', value: 'v' }])) }] }],
      })
      expect(produced.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.INVALID_TOPIC_EXCEPTION)
      const created = await c.request(CreateTopics, 7, {
        topics: [{ name: OFFSETS, numPartitions: 1, replicationFactor: 1 }],
        timeoutMs: 5000,
      })
      expect(created.topics[0].errorCode).toBe(ErrorCodes.TOPIC_ALREADY_EXISTS)
      const after = await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      expect(after.topics[0].partitions).toHaveLength(PARTITIONS)
    })

    it('a KIP-848 regex the broker resolves assigns it (internal topics are not skipped)', async () => {
      const g = 'regex-internal'
      const boot = await client()
      const f = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [g] })).coordinators[0]
      expect(f.errorCode).toBe(0)
      const c = await client(`${f.host}:${f.port}`)
      const md = await boot.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      const offsetsId = md.topics[0].topicId
      let epoch = 0
      let assigned: number[] = []
      let last = ''
      await until(
        async () => {
          const r = await c.request(ConsumerGroupHeartbeat, 1, {
            groupId: g,
            memberId: 'regex-member',
            memberEpoch: epoch,
            instanceId: null,
            rebalanceTimeoutMs: epoch === 0 ? 30_000 : -1,
            subscribedTopicNames: epoch === 0 ? [] : null,
            subscribedTopicRegex: epoch === 0 ? '__consumer_off.*' : null,
            serverAssignor: null,
            topicPartitions: epoch === 0 ? [] : null,
          })
          last = JSON.stringify(r)
          // Kafka answers NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS while its partition loads.
          if (r.errorCode !== 0) return false
          epoch = r.memberEpoch
          if (r.assignment) assigned = r.assignment.topicPartitions.find((t) => t.topicId === offsetsId)?.partitions ?? assigned
          return assigned.length === PARTITIONS
        },
        30_000,
        () => last,
      )
      expect([...assigned].sort((a, b) => a - b)).toEqual([...Array(PARTITIONS).keys()])
    })

    it('may be deleted, as Kafka 4.4 allows: the next FindCoordinator for a group creates it again', async () => {
      const c = await client()
      const deleted = await c.request(DeleteTopics, 6, { topics: [{ name: OFFSETS }], timeoutMs: 5000 })
      expect(deleted.responses[0].errorCode).toBe(0)
      let code = -1
      await until(
        async () =>
          (code = (await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })).topics[0].errorCode) !==
          0,
        30_000,
        () => `Metadata after the deletion: ${code}`,
      )
      expect(code).toBe(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
      await until(
        async () =>
          (code = (await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['again'] })).coordinators[0].errorCode) === 0,
        30_000,
        () => `FindCoordinator after the deletion: ${code}`,
      )
      const md = await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })
      expect(md.topics[0]).toMatchObject({ errorCode: 0, isInternal: true })
      expect(md.topics[0].partitions).toHaveLength(PARTITIONS)
    })
  })

/** A 3-broker cluster one of whose brokers can stop and start: real Kafka or the embedded broker. */
interface ThreeBrokers {
  bootstrap: string
  /** The id of the broker that stops. */
  stopping: number
  /** The id of the broker the bootstrap reaches (it stays up). */
  first: number
  stopOne(): Promise<void>
  startIt(): Promise<void>
  stopBroker(id: number): Promise<void>
  startBroker(id: number): Promise<void>
  stop(): Promise<void>
}

const threeBrokerTargets: Array<[string, boolean, () => Promise<ThreeBrokers>]> = [
  [
    'real Kafka',
    requireKafka(),
    async () => {
      const k = await startKafka({ brokers: 3, config })
      // The first broker stays up: the bootstrap reaches it.
      const [bootstrap] = k.bootstrap.split(',')
      return {
        bootstrap,
        stopping: 3,
        first: 1,
        stopOne: () => k.stopBroker(3),
        startIt: () => k.startBroker(3),
        stopBroker: (id) => k.stopBroker(id),
        startBroker: (id) => k.startBroker(id),
        stop: () => k.stop(),
      }
    },
  ],
  [
    'the embedded broker',
    true,
    async () => {
      const c = await startCluster({ brokers: 3, config })
      const [bootstrap] = c.bootstrapServers.split(',')
      return {
        bootstrap,
        stopping: 2,
        first: 0,
        stopOne: () => c.stopBroker(2),
        startIt: () => c.startBroker(2),
        stopBroker: (id) => c.stopBroker(id),
        startBroker: (id) => c.startBroker(id),
        stop: () => c.stop(),
      }
    },
  ],
]

for (const [name, available, start] of threeBrokerTargets)
  describe.skipIf(!available)(`${OFFSETS} created while a broker is down, on ${name}`, () => {
    let cluster: ThreeBrokers
    let c: RawClient
    beforeAll(async () => {
      cluster = await start()
      c = await RawClient.open(cluster.bootstrap)
    }, 180_000)
    afterAll(async () => {
      c?.close()
      await cluster?.stop()
    })

    it('a stopped broker of three still takes replicas (offline, out of the ISR, never leading); back, it joins every ISR', async () => {
      await cluster.stopOne()
      let code = -1
      await until(
        async () => (code = (await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g'] })).coordinators[0].errorCode) === 0,
        30_000,
        () => `FindCoordinator with a broker down: ${code}`,
      )
      const metadata = async () => (await c.request(Metadata, 12, { topics: [{ name: OFFSETS }], allowAutoTopicCreation: false })).topics[0]
      const during = await metadata()
      expect(during.partitions).toHaveLength(PARTITIONS)
      const down = cluster.stopping
      for (const p of during.partitions) {
        // offsets.topic.replication.factor 3 on 3 registered brokers: every one holds a replica of every partition.
        expect([...p.replicaNodes].sort(), `partition ${p.partitionIndex}`).toHaveLength(3)
        expect(p.replicaNodes).toContain(down)
        expect(p.offlineReplicas).toEqual([down])
        expect(p.isrNodes).not.toContain(down)
        expect(p.leaderId).not.toBe(down)
        expect(p.leaderId).toBeGreaterThanOrEqual(0)
      }
      await cluster.startIt()
      let isr = ''
      await until(
        async () => {
          const t = await metadata()
          isr = t.partitions.map((p) => p.isrNodes.length).join()
          return t.partitions.every((p) => p.isrNodes.length === 3)
        },
        60_000,
        () => `every ISR full once the broker is back: ${isr}`,
      )
    }, 150_000)

    it('a commit acknowledged by the coordinator is kept when it stops: the partition’s new leader, from its log, answers it', async () => {
      // A group coordinated by a broker other than the bootstrap's (that one stays up).
      type Found = { nodeId: number; host: string; port: number; errorCode: number }
      const find = async (group: string) =>
        (await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [group] })).coordinators[0] as Found
      let group = 'moving-0'
      let coordinator: Found = { nodeId: -1, host: '', port: 0, errorCode: -1 }
      // The topic made (by this FindCoordinator, when the test before did not run) and its partitions led.
      await until(
        async () => (coordinator = await find(group)).errorCode === 0,
        60_000,
        () => `FindCoordinator: ${coordinator.errorCode}`,
      )
      for (let i = 1; coordinator.errorCode !== 0 || coordinator.nodeId === cluster.first; i++) {
        expect(i, 'a group coordinated by another broker among the first 200 names').toBeLessThan(200)
        group = `moving-${i}`
        coordinator = await find(group)
      }
      const created = await c.request(CreateTopics, 7, {
        topics: [{ name: 'moved', numPartitions: 1, replicationFactor: 3 }],
        timeoutMs: 30_000,
      })
      expect(created.topics[0].errorCode).toBe(0)
      const old = await RawClient.open(`${coordinator.host}:${coordinator.port}`)
      try {
        let code = -1
        await until(
          async () => {
            const r = await old.request(OffsetCommit, 8, {
              groupId: group,
              generationIdOrMemberEpoch: -1,
              memberId: '',
              groupInstanceId: null,
              topics: [
                {
                  name: 'moved',
                  partitions: [{ partitionIndex: 0, committedOffset: 77n, committedLeaderEpoch: -1, committedMetadata: 'kept' }],
                },
              ],
            })
            return (code = r.topics[0].partitions[0].errorCode) === 0
          },
          30_000,
          () => `OffsetCommit: ${code}`,
        )
      } finally {
        old.close()
      }
      await cluster.stopBroker(coordinator.nodeId)
      try {
        let moved: Found = coordinator
        await until(
          async () => (moved = await find(group)).errorCode === 0 && moved.nodeId !== coordinator.nodeId,
          60_000,
          () => `a new coordinator: ${moved.nodeId} (${moved.errorCode})`,
        )
        const now = await RawClient.open(`${moved.host}:${moved.port}`)
        try {
          let got: { committedOffset: bigint; metadata: string | null; errorCode: number } | undefined
          await until(
            async () => {
              const r = await now.request(OffsetFetch, 7, {
                groupId: group,
                topics: [{ name: 'moved', partitionIndexes: [0] }],
                requireStable: false,
              })
              // COORDINATOR_LOAD_IN_PROGRESS while the new leader loads the partition.
              if (r.errorCode !== 0) return false
              got = r.topics[0].partitions[0]
              return got.errorCode === 0
            },
            30_000,
            () => `OffsetFetch at the new coordinator: ${JSON.stringify(got, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
          )
          expect(got).toMatchObject({ committedOffset: 77n, metadata: 'kept' })
        } finally {
          now.close()
        }
      } finally {
        await cluster.startBroker(coordinator.nodeId)
      }
    }, 150_000)
  })
