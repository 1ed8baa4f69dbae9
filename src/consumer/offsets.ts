import { KafkaError, WafkaError } from '../errors.js'
import { OffsetCommit, OffsetFetch } from '../protocol/messages/index.js'
import { retryPolicy, withRetry, type RetryBackoff } from '../cluster/retry.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { CommitIdentity } from './membership.js'
import { groupByTopic, partitionKey, type TopicPartition } from './partition-state.js'
import { COMMIT_FENCED } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { OffsetCommitRequest, OffsetFetchRequest } from '../protocol/messages/index.js'

export interface OffsetToCommit extends TopicPartition {
  /** The next offset to consume (what Kafka stores). */
  offset: bigint
  leaderEpoch: number
  metadata?: string | null
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
): Promise<void> {
  if (offsets.length === 0) return
  const byKey = new Map(offsets.map((o) => [partitionKey(o.topic, o.partition), o]))
  await withRetry(retryPolicy(backoff, Date.now() + timeoutMs, coordinator.cluster.signal), async () => {
    const who = identity()
    const { res, broker } = await coordinator.send(OffsetCommit, (v) => ({
      groupId: coordinator.groupId,
      // Without a member (a commit from outside the group): the defaults, generation -1 and no member id.
      generationIdOrMemberEpoch: who?.generationIdOrMemberEpoch ?? -1,
      memberId: who?.memberId ?? '',
      ...(v >= 7 && who?.groupInstanceId ? ({ groupInstanceId: who.groupInstanceId } satisfies Partial<OffsetCommitRequest>) : {}),
      topics: groupByTopic(offsets).map(({ topic, partitions }) => ({
        name: topic,
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
    }))
    for (const t of res.topics) {
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
): Promise<Map<string, CommittedOffset>> {
  const out = new Map<string, CommittedOffset>()
  if (partitions.length === 0) return out
  const topics = groupByTopic(partitions).map(({ topic, partitions }) => ({ name: topic, partitionIndexes: partitions }))
  await withRetry(retryPolicy(backoff, Date.now() + timeoutMs, coordinator.cluster.signal), async () => {
    const { res, version, broker } = await coordinator.send(OffsetFetch, (v) =>
      v >= 8
        ? { groups: [{ groupId: coordinator.groupId, topics }], requireStable: true }
        : { groupId: coordinator.groupId, topics, ...(v >= 7 ? ({ requireStable: true } satisfies Partial<OffsetFetchRequest>) : {}) },
    )
    const answer: {
      errorCode?: number
      topics: Array<{
        name: string
        partitions: Array<{ partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; errorCode: number }>
      }>
    } = version >= 8 ? res.groups[0] : res
    coordinator.check(answer.errorCode ?? 0, 'OffsetFetch', broker)
    for (const t of answer.topics) {
      for (const p of t.partitions) {
        coordinator.check(p.errorCode, 'OffsetFetch', broker, `group ${coordinator.groupId} ${t.name}-${p.partitionIndex}`)
        if (p.committedOffset >= 0n)
          out.set(partitionKey(t.name, p.partitionIndex), { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1 })
      }
    }
  })
  return out
}
