import { ErrorCodes } from '../../protocol/error-codes.js'
import { DeleteGroups, type DeleteGroupsRequest, type DeleteGroupsResponse } from '../../protocol/messages/DeleteGroups.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes } from '../auth/acl-matching.js'

/** DeleteGroups: an empty group (of any type, share groups too) goes with its offsets or share state; one with members is NON_EMPTY_GROUP. */
export const deleteGroupsHandler = defineHandler<DeleteGroupsRequest, DeleteGroupsResponse>({
  spec: DeleteGroups,
  minVersion: DeleteGroups.minVersion,
  maxVersion: DeleteGroups.maxVersion,
  handle(req, ctx) {
    return {
      results: req.groupsNames.map((groupId) => {
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DELETE)
        if (refused !== null) return { groupId, errorCode: refused }
        const g = ctx.cluster.groups.get(groupId) ?? ctx.cluster.groups.share(groupId)
        if (!g) return { groupId, errorCode: ErrorCodes.GROUP_ID_NOT_FOUND }
        if (g.state !== 'Empty') return { groupId, errorCode: ErrorCodes.NON_EMPTY_GROUP }
        ctx.cluster.groups.delete(groupId)
        return { groupId, errorCode: ErrorCodes.NONE }
      }),
    }
  },
  errorResponse: (req, code) => ({ results: req.groupsNames.map((groupId) => ({ groupId, errorCode: code })) }),
})
