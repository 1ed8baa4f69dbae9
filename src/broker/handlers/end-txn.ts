import { ErrorCodes } from '../../protocol/error-codes.js'
import { EndTxn, type EndTxnRequest, type EndTxnResponse } from '../../protocol/messages/EndTxn.js'
import { defineHandler } from '../handler.js'
import { requireTransactionalId } from '../auth/authorizer.js'

/**
 * EndTxn: commit or abort, markers written before the answer. v5 is the
 * second transaction protocol (KIP-890): the end bumps the epoch, and the
 * answer carries the producer id and epoch the producer goes on with.
 */
export const endTxnHandler = defineHandler<EndTxnRequest, EndTxnResponse>({
  spec: EndTxn,
  minVersion: EndTxn.minVersion,
  maxVersion: EndTxn.maxVersion,
  async handle(req, ctx) {
    requireTransactionalId(ctx, req.transactionalId)
    const { cluster, broker, version } = ctx
    if (cluster.transactions.coordinatorFor(req.transactionalId) !== broker.id)
      return { errorCode: ErrorCodes.NOT_COORDINATOR, producerId: -1n, producerEpoch: -1 }
    const ended = cluster.transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed, version >= 5)
    if (ended.errorCode !== ErrorCodes.NONE) return ended
    // Answered once its state is held by the ISR of its partition of __transaction_state.
    const written = await cluster.transactions.written(req.transactionalId)
    return written === ErrorCodes.NONE ? ended : { errorCode: written, producerId: -1n, producerEpoch: -1 }
  },
  errorResponse: (_req, code) => ({ errorCode: code, producerId: -1n, producerEpoch: -1 }),
})
