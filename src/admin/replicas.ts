import type { ClusterClient } from '../cluster/client.js'
import { kafkaError } from '../errors.js'
import { Routes } from '../cluster/route.js'
import { check, requireVersion } from './checks.js'
import {
  AlterPartitionReassignments,
  ElectLeaders,
  ListPartitionReassignments,
  type ElectLeadersRequest,
} from '../protocol/messages/index.js'

/** Which replicas lead and hold partitions: leader elections and partition reassignments (at the controller). */

/** ElectLeaders election types, as the Java client's ElectionType. */
export const ElectionTypes = { PREFERRED: 0, UNCLEAN: 1 } as const
export type ElectionType = keyof typeof ElectionTypes

export interface TopicPartitions {
  topic: string
  partitions: number[]
}

/**
 * Leader elections (ElectLeaders): the preferred replica (the first of the
 * replica list) or, UNCLEAN, any live replica. `topicPartitions` null: every
 * partition. Per partition its outcome: `error` null when a leader was
 * elected, else the broker's KafkaError (ELECTION_NOT_NEEDED when the
 * preferred replica already leads), as the Java client reports it.
 */
export async function electLeaders(
  cluster: ClusterClient,
  options: { electionType?: ElectionType; topicPartitions?: TopicPartitions[] | null; timeout?: number } = {},
) {
  const timeout = options.timeout ?? 30_000
  const type = options.electionType ?? 'PREFERRED'
  const { res } = await cluster.request(
    ElectLeaders,
    (v) => ({
      // v0 elects only the preferred replica: an unclean election must not silently become one.
      ...(type === 'PREFERRED' || requireVersion(v, 1, 'an unclean leader election')
        ? ({ electionType: ElectionTypes[type] } satisfies Partial<ElectLeadersRequest>)
        : {}),
      topicPartitions: options.topicPartitions?.map((t) => ({ topic: t.topic, partitions: t.partitions })) ?? null,
      timeoutMs: timeout,
    }),
    Routes.controller(),
    { retryMs: timeout + 5000, check: (r, from) => check(r.errorCode ?? 0, 'ElectLeaders', 'cluster', null, from) },
  )
  return res.replicaElectionResults
    .flatMap((t) =>
      t.partitionResult.map((p) => ({
        topic: t.topic,
        partition: p.partitionId,
        error:
          p.errorCode === 0
            ? null
            : kafkaError(p.errorCode, {
                api: 'ElectLeaders',
                detail: `${t.topic}-${p.partitionId}${p.errorMessage ? `: ${p.errorMessage}` : ''}`,
              }),
      })),
    )
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
}

/**
 * Moves partitions to new replica lists (AlterPartitionReassignments);
 * `replicas: null` cancels a reassignment in progress. Resolves once the
 * controller accepted them (the data moves afterwards: see
 * listPartitionReassignments); throws the first partition's error.
 */
export async function alterPartitionReassignments(
  cluster: ClusterClient,
  options: {
    topics: Array<{ topic: string; partitions: Array<{ partition: number; replicas: number[] | null }> }>
    timeout?: number
  },
) {
  const timeout = options.timeout ?? 30_000
  await cluster.request(
    AlterPartitionReassignments,
    {
      timeoutMs: timeout,
      topics: options.topics.map((t) => ({
        name: t.topic,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas })),
      })),
    },
    Routes.controller(),
    {
      retryMs: timeout + 5000,
      check: (res, from) => {
        check(res.errorCode, 'AlterPartitionReassignments', 'cluster', res.errorMessage, from)
        for (const t of res.responses) {
          for (const p of t.partitions)
            check(p.errorCode, 'AlterPartitionReassignments', `${t.name}-${p.partitionIndex}`, p.errorMessage, from)
        }
      },
    },
  )
}

/** Reassignments in progress (of `topics`, else all): target replicas and those being added and removed. */
export async function listPartitionReassignments(cluster: ClusterClient, options: { topics?: TopicPartitions[]; timeout?: number } = {}) {
  const timeout = options.timeout ?? 30_000
  const { res } = await cluster.request(
    ListPartitionReassignments,
    {
      timeoutMs: timeout,
      topics: options.topics?.map((t) => ({ name: t.topic, partitionIndexes: t.partitions })) ?? null,
    },
    Routes.controller(),
    { retryMs: timeout + 5000, check: (r, from) => check(r.errorCode, 'ListPartitionReassignments', 'cluster', r.errorMessage, from) },
  )
  return res.topics.flatMap((t) =>
    t.partitions.map((p) => ({
      topic: t.name,
      partition: p.partitionIndex,
      replicas: p.replicas,
      addingReplicas: p.addingReplicas,
      removingReplicas: p.removingReplicas,
    })),
  )
}
