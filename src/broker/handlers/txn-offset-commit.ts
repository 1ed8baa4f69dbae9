import { ErrorCodes } from '../../protocol/error-codes.js'
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/messages/TxnOffsetCommit.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

/**
 * TxnOffsetCommit, at the group's coordinator: offsets held pending until
 * the transaction ends (committed with it, dropped on abort). v3+ carry the
 * member's generation, checked like OffsetCommit's.
 */
export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  spec: TxnOffsetCommit,
  minVersion: TxnOffsetCommit.minVersion,
  // v5 is the second transaction protocol; v6 names topics by id.
  maxVersion: 4,
  handle(req, ctx) {
    const all = (code: number) => ({
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      })),
    })
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return all(refused)
    const { groups, transactions, controller } = ctx.cluster
    const txnProblem = transactions.offsetCommitCheck(req.transactionalId, req.producerId, req.producerEpoch, req.groupId)
    if (txnProblem !== null) return all(txnProblem)
    const existing = groups.get(req.groupId)
    if (existing?.type === 'consumer') {
      const invalid = existing.validateOffsetCommit(req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch, true, ctx.version)
      if (invalid !== null) return all(invalid)
    } else if (req.memberId !== '' || req.generationIdOrMemberEpoch >= 0) {
      if (!existing) return all(ErrorCodes.UNKNOWN_MEMBER_ID)
      const invalid = existing.validateMember(req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch)
      if (invalid !== null) return all(invalid)
    }
    const group = existing ?? groups.classicOrCreate(req.groupId)!
    const now = Date.now()
    return {
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (!controller.topics.get(t.name)?.partitions[p.partitionIndex])
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }
          group.commitInTransaction(req.producerId, t.name, p.partitionIndex, {
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata,
            commitTimestamp: now,
          })
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.NONE }
        }),
      })),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
