import { ErrorCodes } from '../../protocol/error-codes.js'
import { AddOffsetsToTxn, type AddOffsetsToTxnRequest, type AddOffsetsToTxnResponse } from '../../protocol/messages/AddOffsetsToTxn.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { requireAllowed, requireTransactionalId } from '../auth/authorizer.js'

export const addOffsetsToTxnHandler = defineHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>({
  spec: AddOffsetsToTxn,
  minVersion: AddOffsetsToTxn.minVersion,
  // v4 may answer TRANSACTION_ABORTABLE (KIP-890); this coordinator never needs to.
  maxVersion: AddOffsetsToTxn.maxVersion,
  async handle(req, ctx) {
    requireTransactionalId(ctx, req.transactionalId)
    requireAllowed(ctx, AclOperationTypes.READ, AclResourceTypes.GROUP, req.groupId, ErrorCodes.GROUP_AUTHORIZATION_FAILED)
    const { cluster, broker } = ctx
    if (cluster.transactions.coordinatorFor(req.transactionalId) !== broker.id) return { errorCode: ErrorCodes.NOT_COORDINATOR }
    if (!req.groupId) return { errorCode: ErrorCodes.INVALID_GROUP_ID }
    const errorCode = cluster.transactions.addOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId)
    // Answered once its state is held by the ISR of its partition of __transaction_state.
    return { errorCode: errorCode === ErrorCodes.NONE ? await cluster.transactions.written(req.transactionalId) : errorCode }
  },
  errorResponse: (_req, code) => ({ errorCode: code }),
})
