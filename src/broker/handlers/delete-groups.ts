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
  async handle(req, ctx) {
    const results = req.groupsNames.map((groupId): { groupId: string; errorCode: number; deleted?: boolean } => {
      const refused = coordinatorError(ctx, groupId, AclOperationTypes.DELETE)
      if (refused !== null) return { groupId, errorCode: refused }
      const g = ctx.cluster.groups.get(groupId) ?? ctx.cluster.groups.share(groupId)
      if (!g) return { groupId, errorCode: ErrorCodes.GROUP_ID_NOT_FOUND }
      if (g.state !== 'Empty') return { groupId, errorCode: ErrorCodes.NON_EMPTY_GROUP }
      ctx.cluster.groups.delete(groupId)
      return { groupId, errorCode: ErrorCodes.NONE, deleted: true }
    })
    // A deleted group (a share group too) is answered once its tombstones are in the ISR of its __consumer_offsets partition, as Kafka's coordinator.
    return {
      results: await Promise.all(
        results.map(async ({ groupId, errorCode, deleted }) => ({
          groupId,
          errorCode: deleted ? await ctx.cluster.groups.log.written(groupId) : errorCode,
        })),
      ),
    }
  },
  errorResponse: (req, code) => ({ results: req.groupsNames.map((groupId) => ({ groupId, errorCode: code })) }),
})
