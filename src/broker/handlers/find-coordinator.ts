import { ErrorCodes } from '../../protocol/error-codes.js'
import { FindCoordinator, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../../protocol/messages/FindCoordinator.js'
import { defineHandler, type RequestContext } from '../handler.js'

const GROUP = 0

function locate(ctx: RequestContext, key: string, keyType: number) {
  const none = { nodeId: -1, host: '', port: -1 }
  if (keyType !== GROUP) {
    return { ...none, errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: keyType === 1 ? 'transactions are not served yet' : `coordinator key type ${keyType} is not served` }
  }
  if (!key) return { ...none, errorCode: ErrorCodes.INVALID_GROUP_ID, errorMessage: null }
  const id = ctx.cluster.groups.coordinatorFor(key)
  const b = ctx.cluster.controller.brokers.get(id)
  if (!b) return { ...none, errorCode: ErrorCodes.COORDINATOR_NOT_AVAILABLE, errorMessage: null }
  return { nodeId: b.id, host: b.host, port: b.port, errorCode: ErrorCodes.NONE, errorMessage: null }
}

/** FindCoordinator for groups; v4+ batches keys. */
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
