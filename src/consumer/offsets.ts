import { KafkaError, WafkaError } from '../errors.js'
import { OffsetCommit, OffsetFetch } from '../protocol/messages/index.js'
import { retryPolicy, withRetry, type RetryBackoff } from '../cluster/retry.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { CommitIdentity } from './membership.js'
import { groupByTopic, partitionKey, type TopicPartition } from './partition-state.js'
import { COMMIT_FENCED } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { OffsetCommitRequest, OffsetFetchRequest } from '../protocol/messages/index.js'
import { ZERO_UUID } from '../protocol/api.js'
import type { ClusterClient } from '../cluster/client.js'
import type { GroupProtocol } from './config.js'
import { TOPIC_NAMES_MAX } from '../protocol/versions-in-use.js'

export interface OffsetToCommit extends TopicPartition {
  /** The next offset to consume (what Kafka stores). */
  offset: bigint
  leaderEpoch: number
  metadata?: string | null
}

/**
 * How the group's requests name topics: `null` by name (the classic
 * protocol, as Java's ConsumerCoordinator); else a topic's id from the
 * metadata, and by id (OffsetCommit/OffsetFetch v10) when every topic of
 * the request has one, as Java's KIP-848 consumer (forTopicIdsOrNames).
 */
export type TopicIds = ((topic: string) => string | undefined) | null

/** How a consumer of `groupProtocol` names topics to its group's coordinator: KIP-848's by id where it can, the classic one by name. */
export function topicIdsFor(cluster: Pick<ClusterClient, 'metadata'>, groupProtocol: GroupProtocol): TopicIds {
  return groupProtocol === 'consumer' ? (topic) => cluster.metadata.topics.get(topic)?.topicId : null
}

/** The ids of `topics` when each has one (a request by id), else null (by name, at most v9). */
function idsFor(topicIds: TopicIds, topics: readonly string[]): Map<string, string> | null {
  if (!topicIds) return null
  const ids = new Map<string, string>()
  for (const t of topics) {
    const id = topicIds(t)
    if (!id || id === ZERO_UUID) return null
    ids.set(t, id)
  }
  return ids
}

/** A v10 answer's topics by name again (it carries ids alone). */
function namesOf<T extends { name: string; topicId?: string }>(topics: T[], ids: Map<string, string> | null, version: number): T[] {
  if (!ids || version < 10) return topics
  const byId = new Map([...ids].map(([name, id]) => [id, name]))
  return topics.map((t) => ({ ...t, name: (t.topicId && byId.get(t.topicId)) || t.name }))
}

/** Member-level errors: the commit belongs to a generation the group has left behind (Java's CommitFailedException). */

/** A commit the group refused: the member's generation is over, or a rebalance is on. Offsets stay uncommitted. */
export class CommitFailedError extends WafkaError {
  constructor(
    message: string,
    readonly cause: KafkaError,
  ) {
    super(message, { retriable: false, cause })
  }
}

/**
 * OffsetCommit to the group coordinator, retried on coordinator moves and
 * other retriable errors until `timeoutMs`. A commit fenced by a newer
 * generation fails with CommitFailedError, as in Java.
 */
export async function commitOffsets(
  coordinator: CoordinatorLink,
  identity: () => CommitIdentity | null,
  offsets: OffsetToCommit[],
  timeoutMs: number,
  backoff: RetryBackoff,
  topicIds: TopicIds = null,
): Promise<void> {
  if (offsets.length === 0) return
  const byKey = new Map(offsets.map((o) => [partitionKey(o.topic, o.partition), o]))
  await withRetry(retryPolicy(backoff, Date.now() + timeoutMs, coordinator.cluster.signal), async () => {
    const who = identity()
    const ids = idsFor(
      topicIds,
      offsets.map((o) => o.topic),
    )
    const { res, version, broker } = await coordinator.send(
      OffsetCommit,
      (v) => ({
        groupId: coordinator.groupId,
        // Without a member (a commit from outside the group): the defaults, generation -1 and no member id.
        generationIdOrMemberEpoch: who?.generationIdOrMemberEpoch ?? -1,
        memberId: who?.memberId ?? '',
        ...(v >= 7 && who?.groupInstanceId ? ({ groupInstanceId: who.groupInstanceId } satisfies Partial<OffsetCommitRequest>) : {}),
        topics: groupByTopic(offsets).map(({ topic, partitions }) => ({
          ...(v >= 10 ? { topicId: ids!.get(topic)! } : { name: topic }),
          partitions: partitions.map((p) => {
            const o = byKey.get(partitionKey(topic, p))!
            return {
              partitionIndex: p,
              committedOffset: o.offset,
              committedLeaderEpoch: o.leaderEpoch,
              committedMetadata: o.metadata ?? null,
            }
          }),
        })),
      }),
      undefined,
      ids ? undefined : TOPIC_NAMES_MAX.OffsetCommit,
    )
    for (const t of namesOf(res.topics, ids, version)) {
      for (const p of t.partitions) {
        if (p.errorCode === 0) continue
        const detail = `group ${coordinator.groupId} ${t.name}-${p.partitionIndex}`
        try {
          coordinator.check(p.errorCode, 'OffsetCommit', broker, detail)
        } catch (err) {
          if (COMMIT_FENCED.has(p.errorCode) || p.errorCode === ErrorCodes.REBALANCE_IN_PROGRESS) {
            throw new CommitFailedError(
              `the commit of ${detail} was refused: this member's generation is over or a rebalance is running (${(err as Error).message}); its partitions may have moved to another member`,
              err as KafkaError,
            )
          }
          throw err
        }
      }
    }
  })
}

export interface CommittedOffset {
  offset: bigint
  leaderEpoch: number
}

/** The group's committed offsets for `partitions` (absent: nothing committed). Waits out pending transactional commits (requireStable). */
export async function fetchCommitted(
  coordinator: CoordinatorLink,
  partitions: TopicPartition[],
  timeoutMs: number,
  backoff: RetryBackoff,
  topicIds: TopicIds = null,
): Promise<Map<string, CommittedOffset>> {
  const out = new Map<string, CommittedOffset>()
  if (partitions.length === 0) return out
  const topics = groupByTopic(partitions).map(({ topic, partitions }) => ({ name: topic, partitionIndexes: partitions }))
  await withRetry(retryPolicy(backoff, Date.now() + timeoutMs, coordinator.cluster.signal), async () => {
    const ids = idsFor(
      topicIds,
      topics.map((t) => t.name),
    )
    const { res, version, broker } = await coordinator.send(
      OffsetFetch,
      (v) => {
        const asked = v >= 10 ? topics.map((t) => ({ topicId: ids!.get(t.name)!, partitionIndexes: t.partitionIndexes })) : topics
        return v >= 8
          ? { groups: [{ groupId: coordinator.groupId, topics: asked }], requireStable: true }
          : { groupId: coordinator.groupId, topics, ...(v >= 7 ? ({ requireStable: true } satisfies Partial<OffsetFetchRequest>) : {}) }
      },
      undefined,
      ids ? undefined : TOPIC_NAMES_MAX.OffsetFetch,
    )
    const answer: {
      errorCode?: number
      topics: Array<{
        name: string
        topicId?: string
        partitions: Array<{ partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; errorCode: number }>
      }>
    } = version >= 8 ? res.groups[0] : res
    coordinator.check(answer.errorCode ?? 0, 'OffsetFetch', broker)
    for (const t of namesOf(answer.topics, ids, version)) {
      for (const p of t.partitions) {
        coordinator.check(p.errorCode, 'OffsetFetch', broker, `group ${coordinator.groupId} ${t.name}-${p.partitionIndex}`)
        if (p.committedOffset >= 0n)
          out.set(partitionKey(t.name, p.partitionIndex), { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1 })
      }
    }
  })
  return out
}
