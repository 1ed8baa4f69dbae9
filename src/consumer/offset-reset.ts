import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { kafkaError, UnsupportedApiError } from '../errors.js'
import { ListOffsets, type ListOffsetsResponse } from '../protocol/messages/index.js'

/** ListOffsets timestamps: the log start, the log end (the last stable offset under read_committed). */
export const EARLIEST = -2n
export const LATEST = -1n

/**
 * Where `timestamp` (EARLIEST or LATEST) is in each of a topic's partitions:
 * one ListOffsets a leader, through the routing seam, retried as a whole
 * with the partitions grouped again by fresh metadata after a failure (a
 * leader may have moved). The consumer's own reset path: the fetcher needs
 * no Admin.
 */
export async function listOffsets(
  cluster: ClusterClient,
  topic: string,
  partitions: number[],
  timestamp: bigint,
  isolationLevel: number,
): Promise<Map<number, bigint>> {
  const out = new Map<number, bigint>()
  const check = (res: ListOffsetsResponse, { broker }: { broker: string }) => {
    for (const t of res.topics)
      for (const p of t.partitions)
        if (p.errorCode !== 0) throw kafkaError(p.errorCode, { api: 'ListOffsets', detail: `${topic}-${p.partitionIndex} at ${broker}` })
  }
  const first = await byLeader(cluster, topic, partitions)
  await Promise.all(
    [...first.values()].map((ids) =>
      cluster.retry(async (n) => {
        const groups = n === 0 ? [ids] : [...(await byLeader(cluster, topic, ids)).values()]
        for (const group of groups) {
          const { res } = await cluster.request(
            ListOffsets,
            (version) => {
              // read_committed needs v2+: without it the offset would be the high watermark, not the stable one.
              if (isolationLevel !== 0 && version < 2)
                throw new UnsupportedApiError(
                  `read_committed offsets need a broker that speaks a newer protocol version (v2+, this one: v${version})`,
                )
              return {
                replicaId: -1,
                isolationLevel,
                topics: [{ name: topic, partitions: group.map((id) => ({ partitionIndex: id, timestamp })) }],
              }
            },
            Routes.leader(topic, group[0]),
            // One attempt: this loop retries, regrouping the partitions by their leaders.
            { retryMs: 0, check },
          )
          for (const t of res.topics) for (const p of t.partitions) out.set(p.partitionIndex, p.offset)
        }
      }),
    ),
  )
  return out
}

async function byLeader(cluster: ClusterClient, topic: string, partitions: number[]): Promise<Map<number, number[]>> {
  const groups = new Map<number, number[]>()
  for (const id of partitions) {
    const leader = await cluster.leaderFor(topic, id)
    const list = groups.get(leader)
    if (list) list.push(id)
    else groups.set(leader, [id])
  }
  return groups
}
