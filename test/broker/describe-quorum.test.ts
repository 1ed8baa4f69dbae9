// DescribeQuorum on the embedded broker, raw: the controller as KRaft's single
// voter of __cluster_metadata-0 (the controller id Metadata reports, the
// metadata log's end as high watermark, the other brokers as observers), each
// version's fields, and KafkaRaftClient's answer to any other partition.
// kafka-metadata-quorum.test.ts runs Kafka's tool on it and on real Kafka.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ZERO_UUID } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

const OWN = { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }] }
const UNKNOWN_MESSAGE = 'This server does not host this topic-partition.'

describe('DescribeQuorum on the embedded broker', () => {
  let cluster: RunningCluster
  let client: RawClient

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3 })
    // Broker 1, so the answer is not only the asked broker's own.
    client = await RawClient.open(cluster.bootstrapServers.split(',')[1])
  })
  afterAll(async () => {
    client?.close()
    await cluster?.stop()
  })

  it('v2: the controller leads alone, at the metadata log end, the other brokers observing, its endpoint named CONTROLLER', async () => {
    const meta = await client.request(M.Metadata, 12, { topics: [], allowAutoTopicCreation: false })
    const described = await client.request(M.DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 })
    const before = BigInt(Date.now())
    const r = await client.request(M.DescribeQuorum, 2, OWN)
    const after = BigInt(Date.now())
    const end = BigInt(cluster.metadataLog.length)
    expect(end).toBeGreaterThan(0n)
    expect(r.errorCode).toBe(ErrorCodes.NONE)
    expect(r.errorMessage).toBeNull()
    expect(r.topics).toHaveLength(1)
    expect(r.topics[0].topicName).toBe('__cluster_metadata')
    const [p] = r.topics[0].partitions
    expect(r.topics[0].partitions).toHaveLength(1)
    expect(p).toMatchObject({ partitionIndex: 0, errorCode: ErrorCodes.NONE, errorMessage: null, leaderEpoch: 1, highWatermark: end })
    expect(p.leaderId).toBe(meta.controllerId)
    expect(p.leaderId).toBe(described.controllerId)
    expect(p.currentVoters.map((v) => [v.replicaId, v.replicaDirectoryId, v.logEndOffset])).toEqual([[p.leaderId, ZERO_UUID, end]])
    expect(p.observers.map((o) => o.replicaId).sort()).toEqual(
      cluster.brokers
        .map((b) => b.id)
        .filter((id) => id !== p.leaderId)
        .sort(),
    )
    for (const s of [...p.currentVoters, ...p.observers]) {
      expect(s.logEndOffset).toBe(end)
      for (const t of [s.lastFetchTimestamp, s.lastCaughtUpTimestamp]) {
        expect(t).toBeGreaterThanOrEqual(before)
        expect(t).toBeLessThanOrEqual(after)
      }
    }
    const leader = meta.brokers.find((b) => b.nodeId === p.leaderId)!
    expect(r.nodes).toEqual([
      expect.objectContaining({
        nodeId: p.leaderId,
        listeners: [expect.objectContaining({ name: 'CONTROLLER', host: leader.host, port: leader.port })],
      }),
    ])
  })

  it('the high watermark moves with the metadata log', async () => {
    const hw = async () => (await client.request(M.DescribeQuorum, 2, OWN)).topics[0].partitions[0].highWatermark
    const first = await hw()
    const made = await client.request(M.CreateTopics, 7, {
      topics: [{ name: 'quorum-moves', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    })
    expect(made.topics[0].errorCode).toBe(ErrorCodes.NONE)
    const second = await hw()
    // A topic record and its two partition records at least.
    expect(second).toBeGreaterThanOrEqual(first + 3n)
    expect(second).toBe(BigInt(cluster.metadataLog.length))
  })

  it('v0 and v1: the same quorum, without nodes; v1 carries the timestamps, v0 none', async () => {
    const v0 = await client.request(M.DescribeQuorum, 0, OWN)
    const v1 = await client.request(M.DescribeQuorum, 1, OWN)
    const v2 = await client.request(M.DescribeQuorum, 2, OWN)
    for (const r of [v0, v1]) {
      expect(r.nodes).toEqual([])
      const [p] = r.topics[0].partitions
      expect(p.leaderId).toBe(v2.topics[0].partitions[0].leaderId)
      expect(p.currentVoters.map((v) => v.replicaId)).toEqual([p.leaderId])
      expect(p.observers).toHaveLength(2)
    }
    expect(v0.topics[0].partitions[0].currentVoters[0].lastFetchTimestamp).toBe(-1n)
    expect(v1.topics[0].partitions[0].currentVoters[0].lastFetchTimestamp).toBeGreaterThan(0n)
  })

  it('a stopped broker: the next live one leads under a new epoch (the controller id Metadata then reports), the stopped one observes no more', async () => {
    const leaderOf = async () => (await client.request(M.DescribeQuorum, 2, OWN)).topics[0].partitions[0]
    const first = await leaderOf()
    await cluster.stopBroker(first.leaderId)
    try {
      const p = await leaderOf()
      const meta = await client.request(M.Metadata, 12, { topics: [], allowAutoTopicCreation: false })
      expect(p.leaderId).not.toBe(first.leaderId)
      expect(p.leaderEpoch).toBe(first.leaderEpoch + 1)
      expect(p.leaderId).toBe(meta.controllerId)
      expect(p.currentVoters.map((v) => v.replicaId)).toEqual([p.leaderId])
      expect(p.observers.map((o) => o.replicaId)).toEqual(meta.brokers.map((b) => b.nodeId).filter((id) => id !== p.leaderId))
    } finally {
      await cluster.startBroker(first.leaderId)
    }
    // Back first among the live brokers, it leads again, under yet another epoch.
    expect(await leaderOf()).toMatchObject({ leaderId: first.leaderId, leaderEpoch: first.leaderEpoch + 2 })
  })

  it("another partition: UNKNOWN_TOPIC_OR_PARTITION on each partition asked, with Kafka's message", async () => {
    for (const topics of [
      [{ topicName: 'orders', partitions: [{ partitionIndex: 0 }] }],
      [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 1 }] }],
      // KafkaRaftClient answers exactly one partition, its own: asked with another, neither is answered.
      [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }],
    ]) {
      const r = await client.request(M.DescribeQuorum, 2, { topics })
      expect(r.errorCode).toBe(ErrorCodes.NONE)
      expect(r.nodes).toEqual([])
      expect(r.topics.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.errorMessage])])).toEqual(
        topics.map((t) => [
          t.topicName,
          t.partitions.map((p) => [p.partitionIndex, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_MESSAGE]),
        ]),
      )
    }
  })
})
