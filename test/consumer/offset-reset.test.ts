import { describe, expect, it } from 'vitest'
import { EARLIEST, LATEST, listOffsets } from '../../src/consumer/offset-reset.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'

type Asked = { topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; timestamp: bigint }> }> }

const answer = (request: Asked, offset: (p: number) => bigint, error: (p: number) => number = () => 0) => ({
  topics: request.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: error(p.partitionIndex),
      offset: offset(p.partitionIndex),
    })),
  })),
})

describe('offset resets (ListOffsets through the routing seam)', () => {
  it("asks each partition's leader once for its partitions", async () => {
    const cluster = new ScriptedCluster((_api, request: Asked) => answer(request, (p) => 100n + BigInt(p)))
    const offsets = await listOffsets(cluster, 't', [0, 1, 2, 3], LATEST, 0)
    expect([...offsets].sort(([a], [b]) => a - b)).toEqual([
      [0, 100n],
      [1, 101n],
      [2, 102n],
      [3, 103n],
    ])
    // Leaders 1 (even partitions) and 2 (odd): one request each, routed by its first partition's leader.
    expect(cluster.sent.map((s) => s.route)).toEqual([
      { kind: 'leader', topic: 't', partition: 0 },
      { kind: 'leader', topic: 't', partition: 1 },
    ])
    expect(cluster.sent[0].requests.get(1)).toMatchObject({
      replicaId: -1,
      isolationLevel: 0,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, timestamp: LATEST },
            { partitionIndex: 2, timestamp: LATEST },
          ],
        },
      ],
    })
  })

  it('read_committed: the stable offset from v2 on; v1, which cannot say it, is refused rather than asked for the high watermark', async () => {
    const bodies: Array<(v: number) => unknown> = []
    class Recording extends ScriptedCluster {
      override request(...args: Parameters<ScriptedCluster['request']>) {
        bodies.push(args[1] as (v: number) => unknown)
        // The script encodes every version: v1 gets v2's body without isolation (v1's refusal is checked below).
        const body = args[1] as (v: number) => any
        return super.request(args[0], (v: number) => (v < 2 ? { ...body(2), isolationLevel: 0 } : body(v)), args[2], args[3])
      }
    }
    const cluster = new Recording((_api, request: Asked) => answer(request, () => 5n))
    expect((await listOffsets(cluster, 't', [0], EARLIEST, 1)).get(0)).toBe(5n)
    expect(bodies[0](2)).toMatchObject({ isolationLevel: 1 })
    expect(() => bodies[0](1)).toThrow(/read_committed offsets need a broker that speaks a newer protocol version \(v2\+, this one: v1\)/)
  })

  it('after a leader moved, asks again with the partitions grouped by their new leaders', async () => {
    let moved = false
    const cluster = new ScriptedCluster(
      (_api, request: Asked, route) => {
        const stale = !moved && route.kind === 'leader' && route.partition === 0
        if (stale) moved = true
        return answer(
          request,
          () => 7n,
          (p) => (stale && p === 2 ? ErrorCodes.NOT_LEADER_OR_FOLLOWER : 0),
        )
      },
      // Partition 2 moves from broker 1 to broker 2 once its old leader refused it.
      (_t, p) => (p === 2 && moved ? 2 : 1 + (p % 2)),
    )
    const offsets = await listOffsets(cluster, 't', [0, 1, 2], EARLIEST, 0)
    expect(offsets.get(0)).toBe(7n)
    expect(offsets.get(1)).toBe(7n)
    expect(offsets.get(2)).toBe(7n)
    const retried = cluster.sent.slice(2).map((s) => [...s.requests.values()][0].topics[0].partitions.map((p: any) => p.partitionIndex))
    expect(retried).toEqual([[0], [2]]) // regrouped: 0 stays on broker 1, 2 goes to broker 2
  })

  it('an error that retrying will not fix ends the reset with a KafkaError naming the partition', async () => {
    const cluster = new ScriptedCluster((_api, request: Asked) =>
      answer(
        request,
        () => -1n,
        () => ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
      ),
    )
    await expect(listOffsets(cluster, 'secret', [0], EARLIEST, 0)).rejects.toThrow(/TOPIC_AUTHORIZATION_FAILED.*secret-0/)
    expect(cluster.sent).toHaveLength(1)
  })
})
