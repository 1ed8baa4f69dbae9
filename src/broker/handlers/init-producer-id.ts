import { ErrorCodes } from '../../protocol/error-codes.js'
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/messages/InitProducerId.js'
import { defineHandler } from '../handler.js'
import { mayWriteIdempotently, requireTransactionalId } from '../auth/authorizer.js'

/**
 * InitProducerId: without a transactional id, always a fresh producer id at
 * epoch 0 from the controller's producer-id blocks, as Kafka's coordinator
 * answers (even a request naming its old id); with one, the transaction
 * coordinator's id and next epoch, on that id's coordinator only.
 */
export const initProducerIdHandler = defineHandler<InitProducerIdRequest, InitProducerIdResponse>({
  spec: InitProducerId,
  minVersion: InitProducerId.minVersion,
  // v6 is two-phase commit (KIP-939).
  maxVersion: 5,
  async handle(req, ctx) {
    const { cluster, broker } = ctx
    // WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster or WRITE on some topic (as Kafka's).
    if (req.transactionalId !== null) requireTransactionalId(ctx, req.transactionalId)
    else if (!mayWriteIdempotently(ctx)) return { errorCode: ErrorCodes.CLUSTER_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 }
    if (req.transactionalId !== null) {
      if (req.transactionalId === '') return { errorCode: ErrorCodes.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 }
      if (cluster.transactions.coordinatorFor(req.transactionalId) !== broker.id)
        return { errorCode: ErrorCodes.NOT_COORDINATOR, producerId: -1n, producerEpoch: -1 }
      const init = cluster.transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs, req.producerId, req.producerEpoch)
      if (init.errorCode !== ErrorCodes.NONE) return init
      // Answered once its state is held by the ISR of its partition of __transaction_state.
      const written = await cluster.transactions.written(req.transactionalId)
      return written === ErrorCodes.NONE ? init : { errorCode: written, producerId: -1n, producerEpoch: -1 }
    }
    return { errorCode: ErrorCodes.NONE, producerId: cluster.controller.allocateProducerId(), producerEpoch: 0 }
  },
  errorResponse: (_req, code) => ({ errorCode: code, producerId: -1n, producerEpoch: -1 }),
})
