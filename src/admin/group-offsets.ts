import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { check } from './checks.js'
import { EARLIEST, LATEST, listOffsets } from './offsets.js'
import { OffsetCommit, OffsetFetch, type OffsetFetchRequest, type OffsetFetchResponse } from '../protocol/messages/index.js'
import { TOPIC_NAMES_MAX } from '../protocol/versions-in-use.js'

/** A group's committed offsets, from outside the group: fetch, set, reset. */

/** Committed offsets of a group (for `topics`, else every topic it committed); -1 where none. */
export async function fetchOffsets(cluster: ClusterClient, options: { groupId: string; topics?: string[] }) {
  const { groupId, topics } = options
  const wanted = topics
    ? await Promise.all(
        topics.map(async (t) => ({
          name: t,
          partitionIndexes: (await cluster.topicMetadata([t]))[0].partitions.map((p) => p.partition),
        })),
      )
    : null
  // v8+ batches groups and answers per group; older versions at the top level.
  const answerOf = (res: OffsetFetchResponse, version: number): CommittedOffsets => (version >= 8 ? res.groups[0].topics : res.topics)
  const { res, version } = await cluster.request(
    OffsetFetch,
    // requireStable (v7+) waits out pending transactional commits; older brokers cannot, and answer as they can.
    (v) =>
      v >= 8
        ? { groups: [{ groupId, topics: wanted }], requireStable: true }
        : { groupId, topics: wanted, ...(v >= 7 ? ({ requireStable: true } satisfies Partial<OffsetFetchRequest>) : {}) },
    Routes.group(groupId),
    {
      // By name, as Java's admin (forTopicNames).
      maxVersion: TOPIC_NAMES_MAX.OffsetFetch,
      check: (r, from) => {
        check((from.version >= 8 ? r.groups[0].errorCode : r.errorCode) ?? 0, 'OffsetFetch', `group ${groupId}`, null, from)
        for (const t of answerOf(r, from.version))
          for (const p of t.partitions) check(p.errorCode, 'OffsetFetch', `group ${groupId} ${t.name}-${p.partitionIndex}`, null, from)
      },
    },
  )
  return answerOf(res, version).map((t) => ({
    topic: t.name,
    partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: String(p.committedOffset), metadata: p.metadata })),
  }))
}

/** Commits offsets for a group that has no active members (as KafkaJS's setOffsets). */
export async function setOffsets(
  cluster: ClusterClient,
  options: {
    groupId: string
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
  },
) {
  const { groupId, topic, partitions } = options
  // generation -1 and no member id: a commit from outside the group (no members may be active).
  await cluster.request(
    OffsetCommit,
    {
      groupId,
      topics: [
        {
          name: topic,
          partitions: partitions.map((p) => ({
            partitionIndex: p.partition,
            committedOffset: BigInt(p.offset),
            committedMetadata: null,
          })),
        },
      ],
    },
    Routes.group(groupId),
    {
      maxVersion: TOPIC_NAMES_MAX.OffsetCommit,
      check: (res, from) => {
        for (const t of res.topics)
          for (const p of t.partitions) check(p.errorCode, 'OffsetCommit', `group ${groupId} ${t.name}-${p.partitionIndex}`, null, from)
      },
    },
  )
}

/** Moves a group's committed offsets on `topic` to the earliest (or latest) ones. */
export async function resetOffsets(cluster: ClusterClient, options: { groupId: string; topic: string; earliest?: boolean }) {
  const { groupId, topic, earliest = false } = options
  const [info] = await cluster.topicMetadata([topic])
  const offsets = await listOffsets(
    cluster,
    topic,
    info.partitions.map((p) => p.partition),
    earliest ? EARLIEST : LATEST,
  )
  await setOffsets(cluster, { groupId, topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset })) })
}

type CommittedOffsets = Array<{
  name: string
  partitions: Array<{ partitionIndex: number; committedOffset: bigint; metadata: string | null; errorCode: number }>
}>
