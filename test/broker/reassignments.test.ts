// Partition reassignments on the embedded broker (issue 23): AlterPartition-
// Reassignments and ListPartitionReassignments as Kafka's controller serves
// them (KIP-455): the replicas become target + removing, the new ones catch
// up through the replica fetchers and join the ISR, then the removed ones
// are dropped (a leader among them gives way); cancelled with null
// replicas; Kafka's errors; kept in the metadata log across a restart.
// Seen through wafka's admin, KafkaJS and wafka/kafkajs; the refusals
// compared with real Kafka 4.4's.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { EmbeddedCluster } from '../../src/broker/cluster.js'
import { loadCodecs } from '../../src/codec/index.js'
import { Controller } from '../../src/broker/controller.js'
import { snapshotRecords } from '../../src/broker/metadata-snapshot.js'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { AlterPartitionReassignments, ListPartitionReassignments } from '../../src/protocol/messages/index.js'
import { wafkaRead } from '../kafka/support.js'
import { requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

let cluster: EmbeddedCluster | null = null
const dirs: string[] = []
afterEach(async () => {
  await cluster?.stop()
  cluster = null
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const start = async (dataDir?: string) => {
  await loadCodecs()
  const c = new EmbeddedCluster({ brokers: 3, dataDir, logLevel: 0, replicaLagTimeMaxMs: 2000 })
  cluster = c
  await c.start()
  return c
}
const client = (c: EmbeddedCluster) =>
  new Kafka({ clientId: 'reassign', brokers: c.bootstrapServers.split(','), logLevel: 0, retryBackoffMs: 50 })
const partition = (c: RunningCluster, topic: string, p = 0) => {
  const image = c.controller.topics.get(topic)!.partitions[p]
  return { replicas: image.replicas, isr: [...image.isr].sort(), leader: image.leader, adding: image.adding, removing: image.removing }
}
const produce = async (kafka: Kafka, topic: string, from: number, n: number) => {
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ value: String(from + i) })) })
  await producer.disconnect()
}

describe('AlterPartitionReassignments and ListPartitionReassignments', () => {
  it('moves [0, 1] to [1, 2]: in progress while broker 2 is down, then 2 catches up, 0 is dropped and 1 leads; every record is kept', async () => {
    const c = await start()
    const kafka = client(c)
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.createTopics({ topics: [{ topic: 'move', replicaAssignment: [{ partition: 0, replicas: [0, 1] }] }] })
      await produce(kafka, 'move', 0, 50)
      await c.stopBroker(2)
      await admin.alterPartitionReassignments({ topics: [{ topic: 'move', partitions: [{ partition: 0, replicas: [1, 2] }] }] })
      // Kafka's in-progress form: target first, then the replicas being removed; the leader (0) stays until the move completes.
      expect(partition(c, 'move')).toEqual({ replicas: [1, 2, 0], isr: [0, 1], leader: 0, adding: [2], removing: [0] })
      const ongoing = [{ topic: 'move', partition: 0, replicas: [1, 2, 0], addingReplicas: [2], removingReplicas: [0] }]
      expect(await admin.listPartitionReassignments({ topics: [{ topic: 'move', partitions: [0, 5] }] })).toEqual(ongoing)
      expect(await admin.listPartitionReassignments()).toEqual(ongoing)
      // KafkaJS (whose answer names the topic `name`) and the drop-in read it the same.
      for (const mod of [kafkajs, wafkajs] as unknown as (typeof kafkajs)[]) {
        const a = new mod.Kafka({ clientId: 'kjs', brokers: c.bootstrapServers.split(','), logLevel: mod.logLevel.NOTHING }).admin()
        await a.connect()
        try {
          expect(await a.listPartitionReassignments({ topics: [{ topic: 'move', partitions: [0] }] })).toEqual({
            topics: [{ name: 'move', partitions: [{ partition: 0, replicas: [1, 2, 0], addingReplicas: [2], removingReplicas: [0] }] }],
          })
        } finally {
          await a.disconnect()
        }
      }
      await produce(kafka, 'move', 50, 50)
      await c.startBroker(2)
      await until(
        () => partition(c, 'move').adding.length === 0,
        15_000,
        () => JSON.stringify(partition(c, 'move')),
      )
      expect(partition(c, 'move')).toEqual({ replicas: [1, 2], isr: [1, 2], leader: 1, adding: [], removing: [] })
      expect(await admin.listPartitionReassignments()).toEqual([])
      await produce(kafka, 'move', 100, 20)
      const back = await wafkaRead(kafka, 'move', 120, { timeoutMs: 20_000 })
      expect(back.map((r) => Number(r.value!.toString()))).toEqual(Array.from({ length: 120 }, (_, i) => i))
      // Broker 0 deletes its copy once the move is done.
      await until(
        () => !c.broker(0).replicas.has(`${c.controller.topics.get('move')!.id}/0`),
        5_000,
        () => 'broker 0 dropped its replica',
      )
    } finally {
      await admin.disconnect()
    }
  })

  it("cancels with null replicas; Kafka's errors for the rest", async () => {
    const c = await start()
    const kafka = client(c)
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'c', replicaAssignment: [{ partition: 0, replicas: [0, 1] }] }] })
    await admin.disconnect()
    await c.stopBroker(2)
    const raw = await RawClient.open(c.bootstrapServers.split(',')[0])
    try {
      const alter = async (topic: string, p: number, replicas: number[] | null, allowReplicationFactorChange = true) => {
        const res = await raw.request(AlterPartitionReassignments, 1, {
          timeoutMs: 5000,
          allowReplicationFactorChange,
          topics: [{ name: topic, partitions: [{ partitionIndex: p, replicas }] }],
        })
        expect(res.errorCode).toBe(0)
        const [r] = res.responses[0].partitions
        return [r.errorCode, r.errorMessage]
      }
      expect(await alter('c', 0, null)).toEqual([ErrorCodes.NO_REASSIGNMENT_IN_PROGRESS, null])
      expect(await alter('nope', 0, [0])).toEqual([ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find a topic named nope.'])
      expect(await alter('c', 3, [0])).toEqual([ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find partition c:3.'])
      expect(await alter('c', 0, [1, 9])).toEqual([
        ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
        'The manual partition assignment includes broker 9, but no such broker is registered.',
      ])
      expect(await alter('c', 0, [1, 1])).toEqual([
        ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
        'The manual partition assignment includes the broker 1 more than once.',
      ])
      expect(await alter('c', 0, [])).toEqual([
        ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
        'The manual partition assignment includes an empty replica list.',
      ])
      expect(await alter('c', 0, [0, 1, 2], false)).toEqual([
        ErrorCodes.INVALID_REPLICATION_FACTOR,
        'The replication factor is changed from 2 to 3',
      ])
      expect(partition(c, 'c')).toEqual({ replicas: [0, 1], isr: [0, 1], leader: 0, adding: [], removing: [] })

      // Started (2 is down, so it waits), then cancelled: back to [0, 1].
      expect(await alter('c', 0, [2, 1])).toEqual([0, null])
      expect(partition(c, 'c')).toEqual({ replicas: [2, 1, 0], isr: [0, 1], leader: 0, adding: [2], removing: [0] })
      const listed = await raw.request(ListPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'c', partitionIndexes: [0] }] })
      expect(listed.topics).toEqual([
        { name: 'c', partitions: [{ partitionIndex: 0, replicas: [2, 1, 0], addingReplicas: [2], removingReplicas: [0] }] },
      ])
      expect(await alter('c', 0, null)).toEqual([0, null])
      expect(partition(c, 'c')).toEqual({ replicas: [1, 0], isr: [0, 1], leader: 0, adding: [], removing: [] })
      expect((await raw.request(ListPartitionReassignments, 0, { timeoutMs: 5000, topics: null })).topics).toEqual([])

      // Replicas kept, only reordered or reduced: done at once.
      expect(await alter('c', 0, [1])).toEqual([0, null])
      expect(partition(c, 'c')).toEqual({ replicas: [1], isr: [1], leader: 1, adding: [], removing: [] })
    } finally {
      raw.close()
    }
  })

  it('a reassignment in progress is in the metadata log and its snapshots: it completes after a restart; a copy reassigned away while its broker was down is deleted at start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-reassign-'))
    dirs.push(dataDir)
    let c = await start(dataDir)
    let kafka = client(c)
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: ['kept', 'away'].map((topic) => ({ topic, replicaAssignment: [{ partition: 0, replicas: [0, 1] }] })),
    })
    await produce(kafka, 'kept', 0, 30)
    await produce(kafka, 'away', 0, 30)
    // 'away' moves to [1, 2] while broker 0 is down: 0 keeps its copy on disk.
    await c.stopBroker(2)
    await admin.alterPartitionReassignments({ topics: [{ topic: 'away', partitions: [{ partition: 0, replicas: [1, 2] }] }] })
    await c.stopBroker(0)
    await c.startBroker(2)
    await until(
      () => partition(c, 'away').adding.length === 0,
      15_000,
      () => JSON.stringify(partition(c, 'away')),
    )
    expect(partition(c, 'away')).toEqual({ replicas: [1, 2], isr: [1, 2], leader: 1, adding: [], removing: [] })
    expect(existsSync(join(dataDir, 'broker-0', 'away-0'))).toBe(true)
    // 'kept' starts moving while broker 2 does not fetch: still in progress when the cluster stops.
    c.pauseFollower(2)
    await admin.alterPartitionReassignments({ topics: [{ topic: 'kept', partitions: [{ partition: 0, replicas: [1, 2] }] }] })
    await admin.disconnect()
    expect(partition(c, 'kept')).toEqual({ replicas: [1, 2, 0], isr: [1], leader: 1, adding: [2], removing: [0] })
    // Replayed from the log, and from a snapshot of it, the image has it too.
    for (const records of [c.controller.log, snapshotRecords(c.controller)]) {
      const p = Controller.replay(records).topics.get('kept')!.partitions[0]
      expect({ adding: p.adding, removing: p.removing, replicas: p.replicas }).toEqual({ adding: [2], removing: [0], replicas: [1, 2, 0] })
    }
    await c.stop()
    c = await start(dataDir)
    kafka = client(c)
    expect(existsSync(join(dataDir, 'broker-0', 'away-0'))).toBe(false)
    expect(existsSync(join(dataDir, 'broker-2', 'away-0'))).toBe(true)
    // Lost, the replicas would stay [1, 2, 0] for good: kept, broker 2 catches up and the move completes.
    await until(
      () => partition(c, 'kept').adding.length === 0,
      15_000,
      () => JSON.stringify(partition(c, 'kept')),
    )
    expect(partition(c, 'kept')).toEqual({ replicas: [1, 2], isr: [1, 2], leader: 1, adding: [], removing: [] })
    for (const topic of ['kept', 'away']) {
      const back = await wafkaRead(kafka, topic, 30, { timeoutMs: 20_000 })
      expect(back.map((r) => Number(r.value!.toString()))).toEqual(Array.from({ length: 30 }, (_, i) => i))
    }
    // Broker 0 was running this time: it deletes its copy once the move is done.
    await until(
      () => !existsSync(join(dataDir, 'broker-0', 'kept-0')),
      5_000,
      () => 'broker-0/kept-0 deleted',
    )
  })
})

/** The refusals of one-broker clusters, each [code, message]: real Kafka 4.4's and the embedded broker's must be the same. */
async function refusals(bootstrap: string, createTopic: () => Promise<void>): Promise<Array<[number, string | null]>> {
  await createTopic()
  const admin = new Kafka({ clientId: 'r', brokers: [bootstrap], logLevel: 0 }).admin()
  await admin.connect()
  // The one broker's id (the rig's Kafka numbers its brokers from 1).
  const self = (await admin.describeCluster()).brokers[0].nodeId
  await admin.disconnect()
  const raw = await RawClient.open(bootstrap)
  try {
    const out: Array<[number, string | null]> = []
    for (const [topic, p, replicas] of [
      ['r', 0, null],
      ['nope', 0, [self]],
      ['r', 3, [self]],
      ['r', 0, [self, 9]],
      ['r', 0, [self, self]],
      ['r', 0, []],
    ] as Array<[string, number, number[] | null]>) {
      const res = await raw.request(AlterPartitionReassignments, 1, {
        timeoutMs: 5000,
        allowReplicationFactorChange: true,
        topics: [{ name: topic, partitions: [{ partitionIndex: p, replicas }] }],
      })
      const [r] = res.responses[0].partitions
      // The broker's own id named as <self>: the two clusters number theirs differently.
      out.push([r.errorCode, r.errorMessage?.replaceAll(`broker ${self} `, 'broker <self> ') ?? null])
    }
    const listed = await raw.request(ListPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'nope', partitionIndexes: [0] }] })
    out.push([listed.errorCode, JSON.stringify(listed.topics)])
    return out
  } finally {
    raw.close()
  }
}

describe.skipIf(!requireKafka())("the refusals are real Kafka 4.4's", () => {
  it('no reassignment to cancel, unknown topic and partition, unregistered and repeated brokers, an empty list', async () => {
    const kafka = await startKafka()
    let theirs: Array<[number, string | null]>
    try {
      theirs = await refusals(kafka.bootstrap, async () => {
        const admin = new Kafka({ clientId: 'r', brokers: [kafka.bootstrap], logLevel: 0 }).admin()
        await admin.connect()
        await admin.createTopics({ topics: [{ topic: 'r', numPartitions: 1, replicationFactor: 1 }] })
        await admin.disconnect()
      })
    } finally {
      await kafka.stop()
    }
    await loadCodecs()
    const c = new EmbeddedCluster({ brokers: 1, logLevel: 0 })
    cluster = c
    await c.start([{ name: 'r', partitions: 1 }])
    const ours = await refusals(c.bootstrapServers, async () => {})
    expect(ours).toEqual(theirs)
    expect(ours.map(([code]) => code)).toEqual([
      ErrorCodes.NO_REASSIGNMENT_IN_PROGRESS,
      ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
      ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
      ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
      0,
    ])
  }, 120_000)
})
