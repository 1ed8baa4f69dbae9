import { ErrorCodes } from '../../protocol/error-codes.js'

/** A member of a group whose members carry epochs (KIP-848 consumer groups, KIP-1071 streams groups). */
interface EpochMember {
  memberEpoch: number
}

/** What an OffsetCommit or TxnOffsetCommit names of its committer. */
export interface EpochCommit {
  memberId: string
  instanceId: string | null
  epoch: number
  transactional: boolean
  version: number
}

/**
 * Kafka's ConsumerGroup and StreamsGroup validateOffsetCommit: a member
 * commits at its current epoch, or at an older one for partitions it has
 * held since then (`heldSince`: the epoch it got one at); a client outside
 * the group commits only while the group has no members, or transactionally
 * with no member id and epoch -1. The error, or null.
 */
export function epochCommitError<M extends EpochMember>(
  members: ReadonlyMap<string, M>,
  commit: EpochCommit,
  partitions: Iterable<{ topic: string; partition: number }>,
  heldSince: (member: M, topic: string, partition: number) => number | undefined,
): number | null {
  const { memberId, instanceId, epoch, transactional, version } = commit
  if (epoch < 0 && members.size === 0) return null
  if (transactional && epoch === -1 && memberId === '' && instanceId === null) return null
  const m = members.get(memberId)
  if (!m) return ErrorCodes.UNKNOWN_MEMBER_ID
  // The member epoch travels in OffsetCommit from v9.
  if (!transactional && version < 9) return ErrorCodes.UNSUPPORTED_VERSION
  if (epoch === m.memberEpoch) return null
  if (epoch > m.memberEpoch) return ErrorCodes.STALE_MEMBER_EPOCH
  // An older epoch (Kafka 4.4): each partition must be one the member has held since that epoch or before.
  for (const { topic, partition } of partitions) {
    const since = heldSince(m, topic, partition)
    if (since === undefined || epoch < since) return ErrorCodes.STALE_MEMBER_EPOCH
  }
  return null
}

/** The error an OffsetFetch by a member (v9+: member id and epoch) gets, or null; the admin's (no member) is always fine. */
export function epochFetchError(members: ReadonlyMap<string, EpochMember>, memberId: string | null, epoch: number): number | null {
  if (memberId === null && epoch < 0) return null
  const m = memberId === null ? undefined : members.get(memberId)
  if (!m) return ErrorCodes.UNKNOWN_MEMBER_ID
  if (epoch !== m.memberEpoch) return ErrorCodes.STALE_MEMBER_EPOCH
  return null
}
