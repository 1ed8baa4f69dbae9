import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  AddPartitionsToTxn,
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnResponse,
} from '../../protocol/messages/AddPartitionsToTxn.js'
import { defineHandler } from '../handler.js'
import { requireTransactionalId, unwritableTxnPartitions } from '../auth/authorizer.js'

/** AddPartitionsToTxn from clients (v0-3); v4+ is the brokers' batched verification. */
export const addPartitionsToTxnHandler = defineHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  spec: AddPartitionsToTxn,
  minVersion: AddPartitionsToTxn.minVersion,
  maxVersion: 3,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    const topics = req.v3AndBelowTopics
    requireTransactionalId(ctx, req.v3AndBelowTransactionalId)
    const results =
      unwritableTxnPartitions(ctx, topics) ??
      (cluster.transactions.coordinatorFor(req.v3AndBelowTransactionalId) !== broker.id
        ? topics.map((t) => ({
            name: t.name,
            results: t.partitions.map((partition) => ({ partition, errorCode: ErrorCodes.NOT_COORDINATOR })),
          }))
        : cluster.transactions.addPartitions(req.v3AndBelowTransactionalId, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, topics))
    return {
      resultsByTopicV3AndBelow: results.map((t) => ({
        name: t.name,
        resultsByPartition: t.results.map((r) => ({ partitionIndex: r.partition, partitionErrorCode: r.errorCode })),
      })),
    }
  },
  errorResponse: (req, code) => ({
    resultsByTopicV3AndBelow: req.v3AndBelowTopics.map((t) => ({
      name: t.name,
      resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: code })),
    })),
  }),
})
