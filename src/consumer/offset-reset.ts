import type { Cluster } from '../cluster/cluster.js'
import { kafkaError, UnsupportedApiError } from '../errors.js'
import { ListOffsets } from '../protocol/messages/index.js'

/** ListOffsets timestamps: the log start, the log end (the last stable offset under read_committed). */
export const EARLIEST = -2n
export const LATEST = -1n

/**
 * Where `timestamp` (EARLIEST or LATEST) is in each of a topic's partitions:
 * ListOffsets to each partition's leader, retried through the cluster (by
 * fresh metadata after a failure: the leader may have moved). The consumer's
 * own reset path, so the fetcher needs no Admin; a routing seam in Cluster
 * can take it over.
 */
export async function listOffsets(
  cluster: Cluster,
  topic: string,
  partitions: number[],
  timestamp: bigint,
  isolationLevel: number,
): Promise<Map<number, bigint>> {
  const out = new Map<number, bigint>()
  const first = await byLeader(cluster, topic, partitions)
  await Promise.all(
    [...first].map(([leader, ids]) =>
      cluster.retry(async (n) => {
        const groups = n === 0 ? new Map([[leader, ids]]) : await byLeader(cluster, topic, ids)
        for (const [node, group] of groups) {
          const conn = await cluster.connection(node)
          // read_committed needs ListOffsets v2+: without it the offset would be the high watermark, not the stable one.
          if (isolationLevel !== 0 && conn.versionFor(ListOffsets) < 2)
            throw new UnsupportedApiError(
              `read_committed offsets need a broker that speaks a newer protocol version (v2+, this one: v${conn.versionFor(ListOffsets)})`,
            )
          const res = await conn.request(ListOffsets, {
            replicaId: -1,
            isolationLevel,
            topics: [{ name: topic, partitions: group.map((id) => ({ partitionIndex: id, timestamp })) }],
          })
          for (const t of res.topics)
            for (const p of t.partitions) {
              if (p.errorCode !== 0)
                throw kafkaError(p.errorCode, { api: 'ListOffsets', detail: `${topic}-${p.partitionIndex} at ${conn.name}` })
              out.set(p.partitionIndex, p.offset)
            }
        }
      }),
    ),
  )
  return out
}

async function byLeader(cluster: Cluster, topic: string, partitions: number[]): Promise<Map<number, number[]>> {
  const groups = new Map<number, number[]>()
  for (const id of partitions) {
    const leader = await cluster.leaderFor(topic, id)
    const list = groups.get(leader)
    if (list) list.push(id)
    else groups.set(leader, [id])
  }
  return groups
}
