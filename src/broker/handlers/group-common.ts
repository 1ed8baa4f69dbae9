import { ErrorCodes } from '../../protocol/error-codes.js'
import type { RequestContext } from '../handler.js'

/** The error a group request gets before the group is looked at: a bad group id, or the wrong broker. */
export function coordinatorError(ctx: RequestContext, groupId: string): number | null {
  if (!groupId) return ErrorCodes.INVALID_GROUP_ID
  if (ctx.cluster.groups.coordinatorFor(groupId) !== ctx.broker.id) return ErrorCodes.NOT_COORDINATOR
  return null
}
