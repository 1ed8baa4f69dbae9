import { ErrorCodes } from '../../protocol/error-codes.js'
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/messages/TxnOffsetCommit.js'
import { defineHandler } from '../handler.js'
import { requireTransactionalId } from '../auth/authorizer.js'
import { groupForCommit } from '../groups/offset-commit-checks.js'
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
    requireTransactionalId(ctx, req.transactionalId)
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
    const { group, error } = groupForCommit(groups, req, true, ctx.version)
    if (error !== null) return all(error)
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
