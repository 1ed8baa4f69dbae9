import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ConsumerGroupDescribe,
  type ConsumerGroupDescribeRequest,
  type ConsumerGroupDescribeResponse,
} from '../../protocol/messages/ConsumerGroupDescribe.js'
import type { Assignment } from '../groups/assignors.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { authorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED } from './metadata.js'

/** ConsumerGroupDescribe (KIP-848): a consumer group's epochs, assignor, and each member's assignment and target. */
export const consumerGroupDescribeHandler = defineHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
  spec: ConsumerGroupDescribe,
  minVersion: ConsumerGroupDescribe.minVersion,
  maxVersion: ConsumerGroupDescribe.maxVersion,
  handle(req, ctx) {
    const { controller, groups } = ctx.cluster
    const named = (a: Assignment | undefined) => ({
      topicPartitions: [...(a ?? new Map<string, Set<number>>())].flatMap(([topicId, parts]) => {
        const t = controller.topicsById.get(topicId)
        return t ? [{ topicId, topicName: t.name, partitions: [...parts].sort((x, y) => x - y) }] : []
      }),
    })
    return {
      groups: req.groupIds.map((groupId) => {
        const base = { groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [] }
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
        if (refused !== null) return { ...base, errorCode: refused, errorMessage: null }
        const g = groups.get(groupId)
        if (!g) return { ...base, errorCode: ErrorCodes.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` }
        if (g.type !== 'consumer')
          return { ...base, errorCode: ErrorCodes.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a consumer group.` }
        return {
          errorCode: ErrorCodes.NONE,
          errorMessage: null,
          groupId,
          groupState: g.state,
          groupEpoch: g.groupEpoch,
          assignmentEpoch: g.assignmentEpoch,
          assignorName: g.assignorName,
          members: [...g.members.values()].map((m) => ({
            memberId: m.memberId,
            instanceId: m.instanceId,
            rackId: m.rackId,
            memberEpoch: m.memberEpoch,
            clientId: m.clientId,
            clientHost: m.clientHost,
            subscribedTopicNames: m.subscribedTopicNames,
            subscribedTopicRegex: m.subscribedTopicRegex,
            assignment: named(m.assigned),
            targetAssignment: named(g.target.get(m.memberId)),
            memberType: 1,
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
