import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeTransactions,
  type DescribeTransactionsRequest,
  type DescribeTransactionsResponse,
} from '../../protocol/messages/DescribeTransactions.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'

/** Kafka's transaction state names (TransactionState), those a filter may name. */
export const TRANSACTION_STATES = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
]

/**
 * DescribeTransactions: each transactional id's state, producer, timeout,
 * start and partitions, from its coordinator; NOT_COORDINATOR elsewhere and
 * TRANSACTIONAL_ID_NOT_FOUND for one it does not know, as Kafka answers.
 */
export const describeTransactionsHandler = defineHandler<DescribeTransactionsRequest, DescribeTransactionsResponse>({
  spec: DescribeTransactions,
  minVersion: DescribeTransactions.minVersion,
  maxVersion: DescribeTransactions.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    const { transactions } = cluster
    return {
      throttleTimeMs: 0,
      transactionStates: req.transactionalIds.map((transactionalId) => {
        if (!allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TRANSACTIONAL_ID, transactionalId))
          return failed(transactionalId, ErrorCodes.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        if (transactions.coordinatorFor(transactionalId) !== broker.id) return failed(transactionalId, ErrorCodes.NOT_COORDINATOR)
        const t = transactions.describe(transactionalId)
        if (!t) return failed(transactionalId, ErrorCodes.TRANSACTIONAL_ID_NOT_FOUND)
        const topics = new Map<string, number[]>()
        // Only the topics the principal may DESCRIBE.
        const describable = allowedNames(
          ctx,
          AclOperationTypes.DESCRIBE,
          AclResourceTypes.TOPIC,
          t.partitions.map((p) => p.topic),
        )
        for (const { topic, partition } of t.partitions)
          if (describable.has(topic)) topics.set(topic, [...(topics.get(topic) ?? []), partition])
        return {
          errorCode: ErrorCodes.NONE,
          transactionalId,
          transactionState: t.state,
          transactionTimeoutMs: t.timeoutMs,
          transactionStartTimeMs: BigInt(t.startedAt),
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({ throttleTimeMs: 0, transactionStates: req.transactionalIds.map((id) => failed(id, code)) }),
})

function failed(transactionalId: string, errorCode: number) {
  return {
    errorCode,
    transactionalId,
    transactionState: '',
    transactionTimeoutMs: 0,
    transactionStartTimeMs: -1n,
    producerId: -1n,
    producerEpoch: -1,
    topics: [],
  }
}
