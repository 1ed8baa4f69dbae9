import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { check } from './checks.js'
import {
  AlterShareGroupOffsets,
  DeleteShareGroupOffsets,
  DescribeShareGroupOffsets,
  ShareGroupDescribe,
} from '../protocol/messages/index.js'

/**
 * Share groups (KIP-932) from outside: describe them, and read, set and
 * delete their share-partition start offsets — the Java Admin's
 * describeShareGroups, listShareGroupOffsets, alterShareGroupOffsets and
 * deleteShareGroupOffsets (kafka-share-groups.sh's operations).
 */

/** Each share group's state, epochs, assignor and members with their assignments. */
export async function describeShareGroups(cluster: ClusterClient, groupIds: string[]) {
  const groups = await Promise.all(
    groupIds.map(async (groupId) => {
      const { res } = await cluster.request(
        ShareGroupDescribe,
        { groupIds: [groupId], includeAuthorizedOperations: false },
        Routes.group(groupId),
        {
          check: (r, from) => check(r.groups[0].errorCode, 'ShareGroupDescribe', `group ${groupId}`, r.groups[0].errorMessage, from),
        },
      )
      const g = res.groups[0]
      return {
        groupId: g.groupId,
        state: g.groupState,
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        assignor: g.assignorName,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          rackId: m.rackId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberEpoch: m.memberEpoch,
          subscribedTopics: m.subscribedTopicNames,
          assignment: m.assignment.topicPartitions.map((t) => ({
            topic: t.topicName,
            partitions: [...t.partitions].sort((a, b) => a - b),
          })),
        })),
      }
    }),
  )
  return { groups }
}

/**
 * A share group's start offset (SPSO) per partition (of `topics`, else every
 * partition it has share state for), with its lag where the broker tells it
 * (DescribeShareGroupOffsets v1+; else null). '-1' where it has none.
 */
export async function listShareGroupOffsets(cluster: ClusterClient, options: { groupId: string; topics?: string[] }) {
  const { groupId, topics } = options
  const wanted = topics
    ? await Promise.all(
        topics.map(async (t) => ({
          topicName: t,
          partitions: (await cluster.topicMetadata([t]))[0].partitions.map((p) => p.partition),
        })),
      )
    : null
  const { res, version } = await cluster.request(
    DescribeShareGroupOffsets,
    { groups: [{ groupId, topics: wanted }] },
    Routes.group(groupId),
    {
      check: (r, from) => {
        const g = r.groups[0]
        check(g.errorCode, 'DescribeShareGroupOffsets', `group ${groupId}`, g.errorMessage, from)
        for (const t of g.topics)
          for (const p of t.partitions)
            check(p.errorCode, 'DescribeShareGroupOffsets', `group ${groupId} ${t.topicName}-${p.partitionIndex}`, p.errorMessage, from)
      },
    },
  )
  return res.groups[0].topics
    .map((t) => ({
      topic: t.topicName,
      partitions: t.partitions
        .map((p) => ({
          partition: p.partitionIndex,
          startOffset: String(p.startOffset),
          leaderEpoch: p.leaderEpoch,
          lag: version >= 1 && p.lag >= 0n ? String(p.lag) : null,
        }))
        .sort((a, b) => a.partition - b.partition),
    }))
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0))
}

/** Sets an empty share group's start offsets on `topic` (the partitions start again there, nothing in flight). */
export async function alterShareGroupOffsets(
  cluster: ClusterClient,
  options: { groupId: string; topic: string; partitions: Array<{ partition: number; offset: string | number | bigint }> },
): Promise<void> {
  const { groupId, topic, partitions } = options
  await cluster.request(
    AlterShareGroupOffsets,
    {
      groupId,
      topics: [{ topicName: topic, partitions: partitions.map((p) => ({ partitionIndex: p.partition, startOffset: BigInt(p.offset) })) }],
    },
    Routes.group(groupId),
    {
      check: (r, from) => {
        check(r.errorCode, 'AlterShareGroupOffsets', `group ${groupId}`, r.errorMessage, from)
        for (const t of r.responses)
          for (const p of t.partitions)
            check(p.errorCode, 'AlterShareGroupOffsets', `group ${groupId} ${t.topicName}-${p.partitionIndex}`, p.errorMessage, from)
      },
    },
  )
}

/** Deletes an empty share group's state of whole topics (a later member starts them at share.auto.offset.reset). */
export async function deleteShareGroupOffsets(cluster: ClusterClient, options: { groupId: string; topics: string[] }): Promise<void> {
  const { groupId, topics } = options
  await cluster.request(DeleteShareGroupOffsets, { groupId, topics: topics.map((topicName) => ({ topicName })) }, Routes.group(groupId), {
    check: (r, from) => {
      check(r.errorCode, 'DeleteShareGroupOffsets', `group ${groupId}`, r.errorMessage, from)
      for (const t of r.responses) check(t.errorCode, 'DeleteShareGroupOffsets', `group ${groupId} ${t.topicName}`, t.errorMessage, from)
    },
  })
}
