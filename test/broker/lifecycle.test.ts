// Starting and stopping the embedded cluster: stop() leaves no listener,
// socket or timer behind, whatever was in flight (a group mid-session, a
// long poll, a client still connected); ports come back after a broker restart.
import { describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { FindCoordinator, Fetch, JoinGroup, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

/** Active handles by kind (TCPServerWrap, TCPSocketWrap, Timeout, ...). */
function handles(): Record<string, number> {
  const out: Record<string, number> = {}
  for (const k of process.getActiveResourcesInfo()) out[k] = (out[k] ?? 0) + 1
  return out
}

/** No handle of any kind more than `before` (a timer of an earlier test may have ended meanwhile, so fewer is fine). */
function expectNoMoreHandlesThan(before: Record<string, number>): void {
  for (const [kind, n] of Object.entries(handles())) expect([kind, n]).toEqual([kind, Math.min(n, before[kind] ?? 0)])
}

describe('embedded cluster lifecycle', () => {
  it('stop() leaves no socket or timer, with a group member, a long poll and clients connected', async () => {
    const before = handles()
    const cluster = await startCluster({ brokers: 3, topics: [{ name: 'life', partitions: 3 }] })
    const boot = await RawClient.open(cluster.bootstrapServers.split(',')[0])
    const md = await boot.request(Metadata, 12, { topics: [{ name: 'life' }] })
    const coord = await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['life-group'] })
    const { host, port } = coord.coordinators[0]
    const member = await RawClient.open(`${host}:${port}`)
    const join = {
      groupId: 'life-group',
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 60_000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    }
    const first = await member.request(JoinGroup, 9, { ...join, memberId: '' })
    expect(first.errorCode).toBe(ErrorCodes.MEMBER_ID_REQUIRED)
    const joined = await member.request(JoinGroup, 9, { ...join, memberId: first.memberId })
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: first.memberId })
    // The member now has a session timer, the group a sync timer; add a long poll and latency.
    const leader = md.topics[0].partitions[0].leaderId
    const b = cluster.brokers[leader]
    const poller = await RawClient.open(`${b.host}:${b.port}`)
    const polling = poller
      .request(
        Fetch,
        17,
        {
          maxWaitMs: 600_000,
          minBytes: 1,
          maxBytes: 1 << 20,
          topics: [{ topicId: md.topics[0].topicId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
        },
        700_000,
      )
      .catch((e) => e)
    cluster.addLatency(50)
    expect(handles().Timeout ?? 0).toBeGreaterThan(before.Timeout ?? 0)
    await cluster.stop()
    await Promise.all([boot.whenClosed, member.whenClosed, poller.whenClosed])
    expect(String(await polling)).toMatch(/closed the connection/)
    await new Promise((r) => setImmediate(r))
    expectNoMoreHandlesThan(before)
  })

  it('stop() leaves no socket or timer with replication running: follower fetchers, a paused follower, a restarted broker, an acks=all produce waiting', async () => {
    const before = handles()
    const cluster = await startCluster({ brokers: 3, topics: [{ name: 'rep', partitions: 3 }], replicaLagTimeMaxMs: 60_000 })
    const boot = await RawClient.open(cluster.bootstrapServers.split(',')[0])
    const md = await boot.request(Metadata, 12, { topics: [{ name: 'rep' }] })
    const p0 = md.topics[0].partitions.find((p) => p.partitionIndex === 0)!
    const [f1, f2] = p0.replicaNodes.filter((r) => r !== p0.leaderId)
    await cluster.stopBroker(f2)
    await cluster.startBroker(f2)
    cluster.pauseFollower(f1)
    cluster.pauseFollower(f2)
    const b = cluster.brokers[p0.leaderId]
    const producer = await RawClient.open(`${b.host}:${b.port}`)
    const waiting = producer
      .request(Produce, 9, {
        acks: -1,
        timeoutMs: 600_000,
        topicData: [{ name: 'rep', partitionData: [{ index: 0, records: encodeRecordBatch([{ value: 'waits' }]) }] }],
      })
      .catch((e) => e)
    await new Promise((r) => setTimeout(r, 100))
    await cluster.stop()
    await Promise.all([boot.whenClosed, producer.whenClosed])
    expect(String(await waiting)).toMatch(/closed the connection/)
    await new Promise((r) => setImmediate(r))
    expectNoMoreHandlesThan(before)
  })

  it('a stopped broker refuses connections; started again, it listens on the same port and serves its data (replication factor 1)', async () => {
    const cluster = await startCluster({ brokers: 2, topics: [{ name: 'back', partitions: 2, replicationFactor: 1 }] })
    try {
      const b = cluster.brokers[1]
      const c = await RawClient.open(`${b.host}:${b.port}`)
      const md = await c.request(Metadata, 12, { topics: [{ name: 'back' }] })
      const mine = md.topics[0].partitions.find((p) => p.leaderId === 1)!.partitionIndex
      const r = await c.request(Produce, 9, {
        acks: 1,
        timeoutMs: 1000,
        topicData: [{ name: 'back', partitionData: [{ index: mine, records: encodeRecordBatch([{ value: 'kept' }]) }] }],
      })
      expect(r.responses[0].partitionResponses[0].errorCode).toBe(0)
      await cluster.stopBroker(1)
      await c.whenClosed
      await expect(RawClient.open(`${b.host}:${b.port}`)).rejects.toThrow(/ECONNREFUSED/)
      const other = await RawClient.open(cluster.bootstrapServers.split(',')[0])
      const during = await other.request(Metadata, 12, { topics: [{ name: 'back' }] })
      expect(during.brokers.map((x) => x.nodeId)).toEqual([0])
      expect(during.topics[0].partitions.find((p) => p.partitionIndex === mine)).toMatchObject({
        leaderId: -1,
        errorCode: ErrorCodes.LEADER_NOT_AVAILABLE,
        offlineReplicas: [1],
      })
      other.close()
      await cluster.startBroker(1)
      expect(cluster.brokers[1].port).toBe(b.port)
      const again = await RawClient.open(`${b.host}:${b.port}`)
      const f = await again.request(Fetch, 12, {
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        topics: [{ topic: 'back', partitions: [{ partition: mine, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
      })
      expect(f.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 1n })
      again.close()
    } finally {
      await cluster.stop()
    }
  })
})
