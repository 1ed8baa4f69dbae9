import { ErrorCodes } from '../../protocol/error-codes.js'
import { OffsetCommit, type OffsetCommitRequest, type OffsetCommitResponse } from '../../protocol/messages/OffsetCommit.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

/** Kafka's offset.metadata.max.bytes. */
const MAX_METADATA_CHARS = 4096

/**
 * OffsetCommit: a member commits in its generation; a client outside any
 * group (generation -1, no member id) commits to an empty group only.
 */
export const offsetCommitHandler = defineHandler<OffsetCommitRequest, OffsetCommitResponse>({
  spec: OffsetCommit,
  minVersion: Math.max(2, OffsetCommit.minVersion),
  // v10 names topics by id.
  maxVersion: 9,
  handle(req, ctx) {
    const all = (code: number) => ({
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      })),
    })
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return all(refused)
    const { groups, controller } = ctx.cluster
    const existing = groups.get(req.groupId)
    const generation = req.generationIdOrMemberEpoch
    if (existing?.type === 'consumer') {
      // v9+ carries the member epoch, which must be the member's current one (STALE_MEMBER_EPOCH otherwise).
      const invalid = existing.validateOffsetCommit(req.memberId, req.groupInstanceId, generation, false, ctx.version)
      if (invalid !== null) return all(invalid)
    } else if (generation < 0 && req.memberId === '') {
      if (existing && existing.state !== 'Empty') return all(ErrorCodes.UNKNOWN_MEMBER_ID)
    } else {
      if (!existing) return all(ErrorCodes.UNKNOWN_MEMBER_ID)
      const invalid = existing.validateMember(req.memberId, req.groupInstanceId, generation)
      if (invalid !== null) return all(invalid)
      if (existing.state === 'CompletingRebalance') return all(ErrorCodes.REBALANCE_IN_PROGRESS)
      existing.touch(existing.members.get(req.memberId)!)
    }
    const group = existing ?? groups.classicOrCreate(req.groupId)!
    const now = Date.now()
    return {
      topics: req.topics.map((t) => {
        const topic = controller.topics.get(t.name)
        return {
          name: t.name,
          partitions: t.partitions.map((p) => {
            if (!topic || !topic.partitions[p.partitionIndex])
              return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }
            if ((p.committedMetadata?.length ?? 0) > MAX_METADATA_CHARS)
              return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.OFFSET_METADATA_TOO_LARGE }
            group.commit(t.name, p.partitionIndex, {
              offset: p.committedOffset,
              leaderEpoch: p.committedLeaderEpoch,
              metadata: p.committedMetadata,
              commitTimestamp: now,
            })
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.NONE }
          }),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
