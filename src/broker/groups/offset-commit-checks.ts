import { ErrorCodes } from '../../protocol/error-codes.js'
import type { ClassicGroup } from './classic-group.js'
import type { Group, GroupCoordinator } from './group-coordinator.js'

/** The request fields an OffsetCommit or TxnOffsetCommit is checked by. */
export interface CommitRequest {
  groupId: string
  memberId: string
  groupInstanceId: string | null
  generationIdOrMemberEpoch: number
  topics: { name: string; partitions: { partitionIndex: number }[] }[]
}

/**
 * The group an OffsetCommit (or TxnOffsetCommit) commits to, or the error
 * it gets, as Kafka 4's coordinator decides. A negative generation is a
 * commit outside group management (the admin client, a consumer that
 * assigns its own partitions, a KIP-848 consumer that has not joined yet),
 * whatever member id it names: a group that does not exist is created for
 * it (Kafka's "simple" classic group), and an empty group of either type
 * takes it.
 */
export function groupForCommit(
  groups: GroupCoordinator,
  req: CommitRequest,
  transactional: boolean,
  version: number,
): { group: Group; error: null } | { group: null; error: number } {
  const refuse = (error: number) => ({ group: null, error })
  const existing = groups.get(req.groupId)
  const generation = req.generationIdOrMemberEpoch
  if (!existing) {
    // A member's commit to a group the coordinator does not know (it expired or was deleted).
    if (generation >= 0)
      return refuse(version >= groupIdNotFoundSince(transactional) ? ErrorCodes.GROUP_ID_NOT_FOUND : ErrorCodes.ILLEGAL_GENERATION)
    return { group: groups.classicOrCreate(req.groupId)!, error: null }
  }
  let error: number | null
  if (existing.type === 'consumer' || existing.type === 'streams') {
    const partitions = req.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex })))
    error = existing.validateOffsetCommit(
      { memberId: req.memberId, instanceId: req.groupInstanceId, epoch: generation, transactional, version },
      partitions,
    )
    // TxnOffsetCommit before v6 has no STALE_MEMBER_EPOCH.
    if (error === ErrorCodes.STALE_MEMBER_EPOCH && transactional && version < 6) error = ErrorCodes.ILLEGAL_GENERATION
  } else {
    error = classicCommitError(existing, req, transactional)
    if (error === null && !transactional) {
      const member = existing.members.get(req.memberId)
      if (member) existing.touch(member)
    }
  }
  return error === null ? { group: existing, error: null } : refuse(error)
}

/** GROUP_ID_NOT_FOUND is answered from OffsetCommit v9 and TxnOffsetCommit v6; ILLEGAL_GENERATION before. */
function groupIdNotFoundSince(transactional: boolean): number {
  return transactional ? 6 : 9
}

/** Kafka's ClassicGroup.validateOffsetCommit. */
function classicCommitError(group: ClassicGroup, req: CommitRequest, transactional: boolean): number | null {
  if (group.state === 'Dead') return ErrorCodes.COORDINATOR_NOT_AVAILABLE
  const generation = req.generationIdOrMemberEpoch
  if (generation < 0 && group.state === 'Empty') return null
  if (generation >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
    const invalid = group.validateMember(req.memberId, req.groupInstanceId, generation)
    if (invalid !== null) return invalid
  } else if (!transactional && group.state !== 'Empty') {
    return ErrorCodes.UNKNOWN_MEMBER_ID
  }
  if (!transactional && group.state === 'CompletingRebalance') return ErrorCodes.REBALANCE_IN_PROGRESS
  return null
}
