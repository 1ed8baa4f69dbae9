import { ErrorCodes } from '../../protocol/error-codes.js'
import { LeaveGroup, type LeaveGroupRequest, type LeaveGroupResponse } from '../../protocol/messages/LeaveGroup.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

/** LeaveGroup: v0-2 one member by id; v3+ a batch, static members by instance id. */
export const leaveGroupHandler = defineHandler<LeaveGroupRequest, LeaveGroupResponse>({
  spec: LeaveGroup,
  minVersion: LeaveGroup.minVersion,
  maxVersion: LeaveGroup.maxVersion,
  handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return { errorCode: refused, members: [] }
    const group = ctx.cluster.groups.classic(req.groupId)
    if (ctx.version < 3) {
      if (!group) return { errorCode: ErrorCodes.UNKNOWN_MEMBER_ID }
      return { errorCode: group.leave(req.memberId, null).errorCode }
    }
    return {
      errorCode: ErrorCodes.NONE,
      members: req.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        errorCode: group ? group.leave(m.memberId, m.groupInstanceId).errorCode : ErrorCodes.UNKNOWN_MEMBER_ID,
      })),
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, members: [] }),
})
