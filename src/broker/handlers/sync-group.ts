import { ErrorCodes } from '../../protocol/error-codes.js'
import { SyncGroup, type SyncGroupRequest, type SyncGroupResponse } from '../../protocol/messages/SyncGroup.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

export const syncGroupHandler = defineHandler<SyncGroupRequest, SyncGroupResponse>({
  spec: SyncGroup,
  minVersion: SyncGroup.minVersion,
  maxVersion: SyncGroup.maxVersion,
  async handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return { errorCode: refused }
    const group = ctx.cluster.groups.classic(req.groupId)
    if (!group) return { errorCode: ErrorCodes.UNKNOWN_MEMBER_ID }
    return group.sync(req.memberId, req.groupInstanceId, req.generationId, req.protocolType, req.protocolName, req.assignments)
  },
  errorResponse: (_req, code) => ({ errorCode: code }),
})
