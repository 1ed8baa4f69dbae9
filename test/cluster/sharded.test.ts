import { describe, expect, it } from 'vitest'
import { shardedRequest } from '../../src/cluster/sharded.js'
import { kafkaError } from '../../src/errors.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DeleteRecords } from '../../src/protocol/messages/index.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'

type Asked = { topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; offset: bigint }> }> }

const answer = (request: Asked, error: (topic: string, p: number) => number = () => 0) => ({
  topics: request.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      lowWatermark: p.offset,
      errorCode: error(t.name, p.partitionIndex),
    })),
  })),
})

const body = (shard: ReadonlyArray<{ topic: string; partition: number }>) => ({
  topics: [...new Set(shard.map((tp) => tp.topic))].map((name) => ({
    name,
    partitions: shard.filter((tp) => tp.topic === name).map((tp) => ({ partitionIndex: tp.partition, offset: 1n })),
  })),
  timeoutMs: 1000,
})

const check = (res: ReturnType<typeof answer>) => {
  for (const t of res.topics)
    for (const p of t.partitions)
      if (p.errorCode !== 0) throw kafkaError(p.errorCode, { api: 'DeleteRecords', detail: `${t.name}-${p.partitionIndex}` })
}

const sentPartitions = (cluster: ScriptedCluster) =>
  cluster.sent.map((s) =>
    [...s.requests.values()][0].topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.name}-${p.partitionIndex}`)),
  )

describe('sharded requests (one per leader, failed shards regrouped)', () => {
  it('splits partitions of several topics by leader, one request each, and returns every answer', async () => {
    const cluster = new ScriptedCluster((_api, request: Asked) => answer(request))
    const tps = [0, 1, 2, 3].flatMap((partition) => [
      { topic: 'a', partition },
      { topic: 'b', partition },
    ])
    const answers = await shardedRequest(cluster, DeleteRecords, tps, (shard) => body(shard), { check })
    expect(sentPartitions(cluster)).toEqual([
      ['a-0', 'a-2', 'b-0', 'b-2'],
      ['a-1', 'a-3', 'b-1', 'b-3'],
    ])
    expect(answers.flatMap((a) => a.res.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partitionIndex}`))).sort()).toEqual(
      tps.map((tp) => `${tp.topic}-${tp.partition}`).sort(),
    )
  })

  it('sends again only the shards that failed retriably, grouped by their new leaders; the others are kept', async () => {
    let moved = false
    const cluster = new ScriptedCluster(
      (_api, request: Asked, route) => {
        const stale = !moved && route.kind === 'leader' && route.partition === 1
        if (stale) moved = true
        return answer(request, (_t, p) => (stale && p === 3 ? ErrorCodes.NOT_LEADER_OR_FOLLOWER : 0))
      },
      // Partition 3 moves from broker 2 to broker 1 once its old leader refused it.
      (_t, p) => (p === 3 && moved ? 1 : 1 + (p % 2)),
    )
    const answers = await shardedRequest(
      cluster,
      DeleteRecords,
      [0, 1, 2, 3].map((partition) => ({ topic: 't', partition })),
      (shard) => body(shard),
      { check },
    )
    // The shard of broker 1 answered and is not asked again; broker 2's (1 and 3) is, regrouped.
    expect(sentPartitions(cluster)).toEqual([['t-0', 't-2'], ['t-1', 't-3'], ['t-1'], ['t-3']])
    expect(answers).toHaveLength(3)
  })

  it('an error retrying will not fix ends the call at once', async () => {
    const cluster = new ScriptedCluster((_api, request: Asked) =>
      answer(request, (_t, p) => (p === 0 ? ErrorCodes.TOPIC_AUTHORIZATION_FAILED : 0)),
    )
    await expect(shardedRequest(cluster, DeleteRecords, [{ topic: 't', partition: 0 }], (shard) => body(shard), { check })).rejects.toThrow(
      /TOPIC_AUTHORIZATION_FAILED.*t-0/,
    )
    expect(cluster.sent).toHaveLength(1)
  })

  it('a retriable error that outlasts retryMs is the error the call ends with', async () => {
    const cluster = new ScriptedCluster((_api, request: Asked) => answer(request, () => ErrorCodes.NOT_LEADER_OR_FOLLOWER))
    await expect(
      shardedRequest(cluster, DeleteRecords, [{ topic: 't', partition: 0 }], (shard) => body(shard), { check, retryMs: 50 }),
    ).rejects.toThrow(/NOT_LEADER_OR_FOLLOWER.*t-0/)
    expect(cluster.sent.length).toBeGreaterThan(1)
  })
})
