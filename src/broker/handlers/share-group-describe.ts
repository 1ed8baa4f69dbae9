import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ShareGroupDescribe,
  type ShareGroupDescribeRequest,
  type ShareGroupDescribeResponse,
} from '../../protocol/messages/ShareGroupDescribe.js'
import type { Assignment } from '../groups/assignors.js'
import { SHARE_ASSIGNOR } from '../groups/share-group.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { authorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED } from './metadata.js'

/** ShareGroupDescribe (KIP-932): a share group's state, epochs, assignor and each member's assignment. */
export const shareGroupDescribeHandler = defineHandler<ShareGroupDescribeRequest, ShareGroupDescribeResponse>({
  spec: ShareGroupDescribe,
  minVersion: ShareGroupDescribe.minVersion,
  maxVersion: ShareGroupDescribe.maxVersion,
  handle(req, ctx) {
    const { controller, groups } = ctx.cluster
    const named = (a: Assignment) => ({
      topicPartitions: [...a].flatMap(([topicId, parts]) => {
        const t = controller.topicsById.get(topicId)
        return t ? [{ topicId, topicName: t.name, partitions: [...parts].sort((x, y) => x - y) }] : []
      }),
    })
    return {
      groups: req.groupIds.map((groupId) => {
        const base = { groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] }
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
        if (refused !== null) return { ...base, errorCode: refused, errorMessage: null }
        const g = groups.share(groupId)
        if (!g) {
          const other = groups.get(groupId) !== undefined
          return {
            ...base,
            errorCode: ErrorCodes.GROUP_ID_NOT_FOUND,
            errorMessage: other ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`,
          }
        }
        return {
          errorCode: ErrorCodes.NONE,
          errorMessage: null,
          groupId,
          groupState: g.state,
          groupEpoch: g.groupEpoch,
          assignmentEpoch: g.assignmentEpoch,
          assignorName: SHARE_ASSIGNOR,
          members: [...g.members.values()].map((m) => ({
            memberId: m.memberId,
            rackId: m.rackId,
            memberEpoch: m.memberEpoch,
            clientId: m.clientId,
            clientHost: m.clientHost,
            subscribedTopicNames: m.subscribedTopicNames,
            assignment: named(m.assigned),
          })),
          authorizedOperations: req.includeAuthorizedOperations
            ? authorizedOperations(ctx, AclResourceTypes.GROUP, groupId)
            : OPERATIONS_OMITTED,
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    groups: req.groupIds.map((groupId) => ({
      errorCode: code,
      errorMessage: null,
      groupId,
      groupState: '',
      groupEpoch: -1,
      assignmentEpoch: -1,
      assignorName: '',
      members: [],
    })),
  }),
})
