import type { ClusterClient } from '../cluster/client.js'
import { shardedRequest, shardTopics } from '../cluster/sharded.js'
import { kafkaError, UnsupportedApiError } from '../errors.js'
import { ListOffsets, type ListOffsetsResponse } from '../protocol/messages/index.js'

/** ListOffsets timestamps: the log start, the log end (the last stable offset under read_committed). */
export const EARLIEST = -2n
export const LATEST = -1n

/**
 * Where `timestamp` (EARLIEST or LATEST) is in each of a topic's partitions:
 * one ListOffsets a leader, sharded through the routing seam (a shard whose
 * leader moved is asked again by fresh metadata). The consumer's own reset
 * path: the fetcher needs no Admin.
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
  const answers = await shardedRequest(
    cluster,
    ListOffsets,
    partitions.map((partition) => ({ topic, partition })),
    (shard, version) => {
      // read_committed needs v2+: without it the offset would be the high watermark, not the stable one.
      if (isolationLevel !== 0 && version < 2)
        throw new UnsupportedApiError(
          `read_committed offsets need a broker that speaks a newer protocol version (v2+, this one: v${version})`,
        )
      return {
        replicaId: -1,
        isolationLevel,
        topics: shardTopics(shard).map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((id) => ({ partitionIndex: id, timestamp })),
        })),
      }
    },
    { check },
  )
  for (const { res } of answers) for (const t of res.topics) for (const p of t.partitions) out.set(p.partitionIndex, p.offset)
  return out
}
