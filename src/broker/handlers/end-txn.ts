import { ErrorCodes } from '../../protocol/error-codes.js'
import { EndTxn, type EndTxnRequest, type EndTxnResponse } from '../../protocol/messages/EndTxn.js'
import { defineHandler } from '../handler.js'
import { requireTransactionalId } from '../auth/authorizer.js'

/** EndTxn: commit or abort, markers written before the answer. */
export const endTxnHandler = defineHandler<EndTxnRequest, EndTxnResponse>({
  spec: EndTxn,
  minVersion: EndTxn.minVersion,
  // v5 is the second transaction protocol (an epoch bump at every end, KIP-890).
  maxVersion: 4,
  handle(req, ctx) {
    requireTransactionalId(ctx, req.transactionalId)
    const { cluster, broker } = ctx
    if (cluster.transactions.coordinatorFor(req.transactionalId) !== broker.id) return { errorCode: ErrorCodes.NOT_COORDINATOR }
    return { errorCode: cluster.transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed) }
  },
  errorResponse: (_req, code) => ({ errorCode: code }),
})
