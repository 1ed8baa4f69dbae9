import { ErrorCodes } from '../../protocol/error-codes.js'
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/messages/InitProducerId.js'
import { defineHandler } from '../handler.js'

/**
 * InitProducerId for idempotent producers: always a fresh producer id at
 * epoch 0 from the controller's producer-id blocks, as Kafka's coordinator
 * answers a request without a transactional id (even one naming its old id).
 * Transactional ids are refused (INVALID_REQUEST) until transactions are served.
 */
export const initProducerIdHandler = defineHandler<InitProducerIdRequest, InitProducerIdResponse>({
  spec: InitProducerId,
  minVersion: InitProducerId.minVersion,
  // v6 is two-phase commit (KIP-939).
  maxVersion: 5,
  handle(req, { cluster }) {
    if (req.transactionalId !== null) return { errorCode: ErrorCodes.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 }
    return { errorCode: ErrorCodes.NONE, producerId: cluster.controller.allocateProducerId(), producerEpoch: 0 }
  },
  errorResponse: (_req, code) => ({ errorCode: code, producerId: -1n, producerEpoch: -1 }),
})
