import { ErrorCodes } from '../../protocol/error-codes.js'
import { FindCoordinator, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../../protocol/messages/FindCoordinator.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'
import { ensureOffsetsTopic } from '../offsets-topic.js'
import { ensureTransactionStateTopic } from '../transaction-state-topic.js'

const GROUP = 0
const TRANSACTION = 1

function locate(ctx: RequestContext, key: string, keyType: number) {
  const none = { nodeId: -1, host: '', port: -1 }
  if (keyType !== GROUP && keyType !== TRANSACTION) {
    return { ...none, errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: `coordinator key type ${keyType} is not served` }
  }
  // DESCRIBE on the group or transactional id, checked first (as Kafka's).
  if (keyType === GROUP && !allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.GROUP, key))
    return { ...none, errorCode: ErrorCodes.GROUP_AUTHORIZATION_FAILED, errorMessage: null }
  if (keyType === TRANSACTION && !allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TRANSACTIONAL_ID, key))
    return { ...none, errorCode: ErrorCodes.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: null }
  if (!key) return { ...none, errorCode: keyType === GROUP ? ErrorCodes.INVALID_GROUP_ID : ErrorCodes.INVALID_REQUEST, errorMessage: null }
  // A group's coordinator leads its partition of __consumer_offsets, which the first ask creates (as Kafka's broker).
  if (keyType === GROUP) ensureOffsetsTopic(ctx.cluster, `FindCoordinator of client ${ctx.header.clientId}`)
  // A transactional id's leads its partition of __transaction_state, made likewise.
  else ensureTransactionStateTopic(ctx.cluster, `FindCoordinator of client ${ctx.header.clientId}`)
  const id = keyType === GROUP ? ctx.cluster.groups.coordinatorFor(key) : ctx.cluster.transactions.coordinatorFor(key)
  const b = ctx.cluster.controller.brokers.get(id)
  if (!b) return { ...none, errorCode: ErrorCodes.COORDINATOR_NOT_AVAILABLE, errorMessage: null }
  return { nodeId: b.id, host: b.host, port: b.port, errorCode: ErrorCodes.NONE, errorMessage: null }
}

/** FindCoordinator for groups and transactional ids; v4+ batches keys. */
export const findCoordinatorHandler = defineHandler<FindCoordinatorRequest, FindCoordinatorResponse>({
  spec: FindCoordinator,
  minVersion: FindCoordinator.minVersion,
  maxVersion: FindCoordinator.maxVersion,
  handle(req, ctx) {
    if (ctx.version >= 4) return { coordinators: req.coordinatorKeys.map((key) => ({ key, ...locate(ctx, key, req.keyType) })) }
    return locate(ctx, req.key, req.keyType)
  },
  errorResponse: (req, code, { version }) =>
    version >= 4
      ? { coordinators: req.coordinatorKeys.map((key) => ({ key, nodeId: -1, host: '', port: -1, errorCode: code, errorMessage: null })) }
      : { errorCode: code, nodeId: -1, host: '', port: -1 },
})
