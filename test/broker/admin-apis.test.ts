// The embedded broker's admin APIs at the protocol level, through a bare
// socket, answered as Apache Kafka 4.4's controller answers them (librdkafka's
// 0081_admin runs each family): CreatePartitions with replica assignments.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { CreatePartitions, Metadata } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster
let client: RawClient

beforeEach(async () => {
  cluster = await startCluster({ brokers: 3, topics: [{ name: 't', partitions: 2, replicationFactor: 2 }] })
  client = await RawClient.open(cluster.bootstrapServers.split(',')[0])
})
afterEach(async () => {
  client.close()
  await cluster.stop()
})

async function replicasOf(topic: string): Promise<number[][]> {
  const md = await client.request(Metadata, 12, { topics: [{ name: topic }], allowAutoTopicCreation: false })
  return md.topics[0].partitions.map((p) => p.replicaNodes)
}

describe('CreatePartitions with replica assignments', () => {
  const grow = (topics: Array<{ name: string; count: number; assignments: number[][] | null }>, validateOnly = false) =>
    client.request(CreatePartitions, 3, {
      topics: topics.map((t) => ({ ...t, assignments: t.assignments?.map((brokerIds) => ({ brokerIds })) ?? null })),
      timeoutMs: 5000,
      validateOnly,
    })

  it('places the new partitions on the replicas asked for, the first leading', async () => {
    const res = await grow([
      {
        name: 't',
        count: 4,
        assignments: [
          [2, 0],
          [1, 2],
        ],
      },
    ])
    expect(res.results).toEqual([expect.objectContaining({ name: 't', errorCode: ErrorCodes.NONE })])
    expect((await replicasOf('t')).slice(2)).toEqual([
      [2, 0],
      [1, 2],
    ])
    const md = await client.request(Metadata, 12, { topics: [{ name: 't' }], allowAutoTopicCreation: false })
    expect(md.topics[0].partitions.slice(2).map((p) => p.leaderId)).toEqual([2, 1])
  })

  it("refuses what Kafka's controller refuses, with INVALID_REPLICA_ASSIGNMENT and its reasons", async () => {
    const cases: Array<[number[][], RegExp]> = [
      [[[0, 1]], /Attempted to add 2 additional partition\(s\), but only 1 assignment\(s\) were specified/],
      [
        [
          [0, 1],
          [1, 7],
        ],
        /includes broker 7, but no such broker is registered/,
      ],
      [
        [
          [0, 1],
          [1, 1],
        ],
        /includes the broker 1 more than once/,
      ],
      [[[0, 1], [2]], /partition with 1 replica\(s\), but this is not consistent with previous partitions, which have 2/],
      [[[0, 1], []], /empty replica list/],
    ]
    for (const [assignments, why] of cases) {
      const res = await grow([{ name: 't', count: 4, assignments }])
      expect(res.results[0]).toMatchObject({ errorCode: ErrorCodes.INVALID_REPLICA_ASSIGNMENT, errorMessage: expect.stringMatching(why) })
    }
    expect(await replicasOf('t')).toHaveLength(2)
  })

  it('checks without changing under validateOnly, and refuses a topic named twice', async () => {
    const res = await grow([{ name: 't', count: 3, assignments: [[1, 2]] }], true)
    expect(res.results[0].errorCode).toBe(ErrorCodes.NONE)
    expect(await replicasOf('t')).toHaveLength(2)
    const twice = await grow([
      { name: 't', count: 3, assignments: null },
      { name: 't', count: 4, assignments: null },
    ])
    expect(twice.results).toEqual([expect.objectContaining({ name: 't', errorCode: ErrorCodes.INVALID_REQUEST })])
    expect(await replicasOf('t')).toHaveLength(2)
  })
})
