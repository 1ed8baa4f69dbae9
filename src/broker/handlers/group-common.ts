import { ErrorCodes } from '../../protocol/error-codes.js'
import type { RequestContext } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'

/**
 * The error a group request gets before the group is looked at: no right to
 * `op` on the group (READ to take part and commit, DESCRIBE to look, DELETE
 * to delete; checked first, as Kafka's KafkaApis does), a bad group id, or
 * the wrong broker.
 */
export function coordinatorError(ctx: RequestContext, groupId: string, op: number = AclOperationTypes.READ): number | null {
  if (!allowed(ctx, op, AclResourceTypes.GROUP, groupId)) return ErrorCodes.GROUP_AUTHORIZATION_FAILED
  if (!groupId) return ErrorCodes.INVALID_GROUP_ID
  if (ctx.cluster.groups.coordinatorFor(groupId) !== ctx.broker.id) return ErrorCodes.NOT_COORDINATOR
  return null
}
