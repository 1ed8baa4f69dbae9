import type { ClusterClient } from '../cluster/client.js'
import { shardedRequest, shardTopics } from '../cluster/sharded.js'
import { check, requireVersion } from './checks.js'
import { DeleteRecords, ListOffsets, type ListOffsetsRequest } from '../protocol/messages/index.js'

/**
 * Partitions' offsets and records: ListOffsets (earliest, latest, by time)
 * and DeleteRecords, each sharded by leader through the routing seam.
 */

/** ListOffsets timestamps: the log start and the log end. */
export const EARLIEST = -2n
export const LATEST = -1n

/** Deletes records before the given offsets (each partition's leader sets its low watermark). */
export async function deleteRecords(
  cluster: ClusterClient,
  options: {
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
    timeout?: number
  },
): Promise<Array<{ partition: number; lowWatermark: string }>> {
  const { topic, partitions, timeout = 5000 } = options
  const offsets = new Map(partitions.map((p) => [p.partition, p.offset]))
  const answers = await shardedRequest(
    cluster,
    DeleteRecords,
    partitions.map((p) => ({ topic, partition: p.partition })),
    (shard) => ({
      topics: shardTopics(shard).map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((id) => ({ partitionIndex: id, offset: BigInt(offsets.get(id)!) })),
      })),
      timeoutMs: timeout,
    }),
    {
      check: (r, from) => {
        for (const t of r.topics)
          for (const p of t.partitions) check(p.errorCode, 'DeleteRecords', `${topic}-${p.partitionIndex}`, null, from)
      },
    },
  )
  const lowWatermarks = answers.flatMap(({ res }) =>
    res.topics.flatMap((t) => t.partitions.map((p) => ({ partition: p.partitionIndex, lowWatermark: String(p.lowWatermark) }))),
  )
  return lowWatermarks.sort((a, b) => a.partition - b.partition)
}

/** Per partition: the latest offset (`offset`, `high`) and the earliest (`low`), as KafkaJS returns them. */
export async function fetchTopicOffsets(cluster: ClusterClient, topic: string) {
  const [info] = await cluster.topicMetadata([topic])
  const ids = info.partitions.map((p) => p.partition)
  const [high, low] = await Promise.all([listOffsets(cluster, topic, ids, LATEST), listOffsets(cluster, topic, ids, EARLIEST)])
  return ids.map((partition) => ({
    partition,
    offset: String(high.get(partition)),
    high: String(high.get(partition)),
    low: String(low.get(partition)),
  }))
}

/** Per partition: the earliest offset whose timestamp is at or after `timestamp` (latest when none). */
export async function fetchTopicOffsetsByTimestamp(cluster: ClusterClient, topic: string, timestamp?: number) {
  const [info] = await cluster.topicMetadata([topic])
  const ids = info.partitions.map((p) => p.partition)
  const found = await listOffsets(cluster, topic, ids, timestamp === undefined ? LATEST : BigInt(timestamp))
  const missing = ids.filter((id) => found.get(id) === -1n)
  if (missing.length > 0) {
    const latest = await listOffsets(cluster, topic, missing, LATEST)
    for (const id of missing) found.set(id, latest.get(id)!)
  }
  return ids.map((partition) => ({ partition, offset: String(found.get(partition)) }))
}

/** ListOffsets at each partition's leader: offset by partition. */
export async function listOffsets(
  cluster: ClusterClient,
  topic: string,
  partitions: number[],
  timestamp: bigint,
  isolationLevel = 0,
): Promise<Map<number, bigint>> {
  const answers = await shardedRequest(
    cluster,
    ListOffsets,
    partitions.map((partition) => ({ topic, partition })),
    (shard, v) => ({
      replicaId: -1,
      // read_committed must not silently become read_uncommitted on a broker without it.
      ...(isolationLevel !== 0 && requireVersion(v, 2, 'read_committed offsets')
        ? ({ isolationLevel } satisfies Partial<ListOffsetsRequest>)
        : {}),
      topics: shardTopics(shard).map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((id) => ({ partitionIndex: id, timestamp })),
      })),
    }),
    {
      check: (r, from) => {
        for (const t of r.topics)
          for (const p of t.partitions) check(p.errorCode, 'ListOffsets', `${topic}-${p.partitionIndex} at ${from.broker}`)
      },
    },
  )
  const out = new Map<number, bigint>()
  for (const { res } of answers) for (const t of res.topics) for (const p of t.partitions) out.set(p.partitionIndex, p.offset)
  return out
}
