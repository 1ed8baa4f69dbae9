import { ErrorCodes } from '../../protocol/error-codes.js'
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/messages/TxnOffsetCommit.js'
import { defineHandler } from '../handler.js'
import { requireTransactionalId } from '../auth/authorizer.js'
import { groupForCommit } from '../groups/offset-commit-checks.js'
import { coordinatorError } from './group-common.js'

/**
 * TxnOffsetCommit, at the group's coordinator: offsets held pending until
 * the transaction ends (committed with it, dropped on abort). v3+ carry the
 * member's generation, checked like OffsetCommit's; v5+ are the second
 * transaction protocol (KIP-890), whose commit adds the group to the
 * transaction itself (no AddOffsetsToTxn); v6 names topics by id.
 */
export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  spec: TxnOffsetCommit,
  minVersion: TxnOffsetCommit.minVersion,
  maxVersion: TxnOffsetCommit.maxVersion,
  handle(req, ctx) {
    requireTransactionalId(ctx, req.transactionalId)
    const all = (code: number) => ({
      topics: req.topics.map((t) => ({
        name: t.name,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      })),
    })
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return all(refused)
    const { groups, transactions, controller } = ctx.cluster
    const byId = ctx.version >= 6
    // v6: each topic by its id; one this broker does not know is UNKNOWN_TOPIC_ID, and named '' until then.
    const topics = req.topics.map((t) => ({ ...t, name: byId ? (controller.topicsById.get(t.topicId)?.name ?? '') : t.name }))
    const txnProblem = transactions.offsetCommitCheck(req.transactionalId, req.producerId, req.producerEpoch, req.groupId, ctx.version >= 5)
    if (txnProblem !== null) return all(txnProblem)
    const { group, error } = groupForCommit(groups, { ...req, topics }, true, ctx.version)
    if (error !== null) return all(error)
    const now = Date.now()
    return {
      topics: topics.map((t) => ({
        name: byId ? '' : t.name,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => {
          if (byId && !t.name) return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.UNKNOWN_TOPIC_ID }
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
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
