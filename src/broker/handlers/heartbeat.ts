import { ErrorCodes } from '../../protocol/error-codes.js'
import { Heartbeat, type HeartbeatRequest, type HeartbeatResponse } from '../../protocol/messages/Heartbeat.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

export const heartbeatHandler = defineHandler<HeartbeatRequest, HeartbeatResponse>({
  spec: Heartbeat,
  minVersion: Heartbeat.minVersion,
  maxVersion: Heartbeat.maxVersion,
  handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return { errorCode: refused }
    const group = ctx.cluster.groups.classic(req.groupId)
    if (!group) return { errorCode: ErrorCodes.UNKNOWN_MEMBER_ID }
    return { errorCode: group.heartbeat(req.memberId, req.groupInstanceId, req.generationId) }
  },
  errorResponse: (_req, code) => ({ errorCode: code }),
})
