import { ErrorCodes } from '../../protocol/error-codes.js'
import { ListTransactions, type ListTransactionsRequest, type ListTransactionsResponse } from '../../protocol/messages/ListTransactions.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'
import { TRANSACTION_STATES } from './describe-transactions.js'

/**
 * ListTransactions: the transactional ids this broker coordinates, filtered
 * by state, producer id, how long the transaction has been open (v1) and a
 * regular expression on the id (v2), as Kafka's coordinator lists them.
 */
export const listTransactionsHandler = defineHandler<ListTransactionsRequest, ListTransactionsResponse>({
  spec: ListTransactions,
  minVersion: ListTransactions.minVersion,
  maxVersion: ListTransactions.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    const states = new Set(req.stateFilters.filter((s) => TRANSACTION_STATES.includes(s)))
    const unknownStateFilters = req.stateFilters.filter((s) => !TRANSACTION_STATES.includes(s))
    const producers = new Set(req.producerIdFilters)
    let pattern: RegExp | null = null
    if (req.transactionalIdPattern) {
      try {
        pattern = new RegExp(`^(?:${req.transactionalIdPattern})$`)
      } catch {
        return { throttleTimeMs: 0, errorCode: ErrorCodes.INVALID_REGULAR_EXPRESSION, unknownStateFilters, transactionStates: [] }
      }
    }
    const now = Date.now()
    const minDuration = Number(req.durationFilter ?? -1n)
    const transactionStates = [...cluster.transactions.coordinatedBy(broker.id)]
      .filter(
        (t) =>
          (req.stateFilters.length === 0 || states.has(t.state)) &&
          (producers.size === 0 || producers.has(t.producerId)) &&
          (minDuration < 0 || (t.startedAt >= 0 && now - t.startedAt >= minDuration)) &&
          (!pattern || pattern.test(t.transactionalId)) &&
          // Only those the principal may DESCRIBE (as Kafka's).
          allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TRANSACTIONAL_ID, t.transactionalId),
      )
      .map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state }))
    return { throttleTimeMs: 0, errorCode: ErrorCodes.NONE, unknownStateFilters, transactionStates }
  },
  errorResponse: (_req, code) => ({ throttleTimeMs: 0, errorCode: code, unknownStateFilters: [], transactionStates: [] }),
})
