// group.coordinator.append.linger.ms (Kafka's name): a group coordinator's
// write is answered only once its batch has lingered that long, as Kafka's
// coordinator runtime holds a batch for more writes before it flushes it
// (-1, Kafka's default adaptive linger, answers as soon as the ISR has the
// records: every other group test runs so).
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ConsumerGroupHeartbeat, FindCoordinator, OffsetCommit } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster | undefined
const open: RawClient[] = []
afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
})

async function coordinator(lingerMs: number | undefined, groupId: string): Promise<RawClient> {
  cluster = await startCluster({ brokers: 1, topics: [{ name: 't', partitions: 2 }], groupCoordinatorAppendLingerMs: lingerMs })
  const c = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  open.push(c)
  expect((await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0].errorCode).toBe(0)
  return c
}

/** A KIP-848 member's first heartbeat (a write: the group and the member) and a commit outside the group (a write: the offset), timed. */
async function timedWrites(c: RawClient, groupId: string): Promise<{ heartbeatMs: number; commitMs: number }> {
  let t = performance.now()
  const joined = await c.request(ConsumerGroupHeartbeat, 1, {
    groupId,
    memberId: 'member-linger-1',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['t'],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  })
  const heartbeatMs = performance.now() - t
  expect(joined.errorCode).toBe(ErrorCodes.NONE)
  t = performance.now()
  const committed = await c.request(OffsetCommit, 9, {
    groupId: `${groupId}-simple`,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
  })
  const commitMs = performance.now() - t
  expect(committed.topics[0].partitions[0].errorCode).toBe(ErrorCodes.NONE)
  return { heartbeatMs, commitMs }
}

describe('group.coordinator.append.linger.ms', () => {
  it('holds the answer to a coordinator write for the linger', async () => {
    const c = await coordinator(300, 'linger-300')
    const { heartbeatMs, commitMs } = await timedWrites(c, 'linger-300')
    expect(heartbeatMs).toBeGreaterThanOrEqual(290)
    expect(commitMs).toBeGreaterThanOrEqual(290)
  })

  it("is refused below -1, with Kafka's name", async () => {
    await expect(startCluster({ brokers: 1, groupCoordinatorAppendLingerMs: -2 })).rejects.toThrow(
      /groupCoordinatorAppendLingerMs|group\.coordinator\.append\.linger\.ms/,
    )
  })
})
