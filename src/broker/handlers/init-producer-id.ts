import { ErrorCodes } from '../../protocol/error-codes.js'
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/messages/InitProducerId.js'
import { defineHandler } from '../handler.js'

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
  handle(req, { cluster, broker }) {
    if (req.transactionalId !== null) {
      if (req.transactionalId === '') return { errorCode: ErrorCodes.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 }
      if (cluster.transactions.coordinatorFor(req.transactionalId) !== broker.id)
        return { errorCode: ErrorCodes.NOT_COORDINATOR, producerId: -1n, producerEpoch: -1 }
      return cluster.transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs, req.producerId, req.producerEpoch)
    }
    return { errorCode: ErrorCodes.NONE, producerId: cluster.controller.allocateProducerId(), producerEpoch: 0 }
  },
  errorResponse: (_req, code) => ({ errorCode: code, producerId: -1n, producerEpoch: -1 }),
})
