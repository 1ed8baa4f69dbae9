import { Buffer } from 'node:buffer'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeGroups, type DescribeGroupsRequest, type DescribeGroupsResponse } from '../../protocol/messages/DescribeGroups.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { authorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED } from './metadata.js'

const EMPTY = Buffer.alloc(0)

/**
 * DescribeGroups: members with their metadata and assignment (both only once
 * the group is Stable, as Kafka). It knows classic groups only: a consumer
 * group is Dead here (GROUP_ID_NOT_FOUND from v6), as Kafka answers.
 */
export const describeGroupsHandler = defineHandler<DescribeGroupsRequest, DescribeGroupsResponse>({
  spec: DescribeGroups,
  minVersion: DescribeGroups.minVersion,
  maxVersion: DescribeGroups.maxVersion,
  handle(req, ctx) {
    return {
      groups: req.groups.map((groupId) => {
        const base = { groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: OPERATIONS_OMITTED }
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
        if (refused !== null) return { ...base, errorCode: refused }
        const any = ctx.cluster.groups.get(groupId) ?? ctx.cluster.groups.share(groupId)
        const g = ctx.cluster.groups.classic(groupId)
        // v6+ says the group does not exist (or is of the other type); before, it is described as Dead.
        if (!g)
          return {
            ...base,
            groupState: 'Dead',
            errorCode: ctx.version >= 6 ? ErrorCodes.GROUP_ID_NOT_FOUND : ErrorCodes.NONE,
            errorMessage: ctx.version < 6 ? null : any ? `Group ${groupId} is not a classic group.` : `Group ${groupId} not found.`,
          }
        const stable = g.state === 'Stable'
        return {
          ...base,
          // v3+ when asked.
          authorizedOperations: req.includeAuthorizedOperations
            ? authorizedOperations(ctx, AclResourceTypes.GROUP, groupId)
            : OPERATIONS_OMITTED,
          errorCode: ErrorCodes.NONE,
          groupState: g.state,
          protocolType: g.protocolType ?? '',
          protocolData: stable ? (g.protocolName ?? '') : '',
          members: [...g.members.values()].map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            memberMetadata: stable ? (m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? EMPTY) : EMPTY,
            memberAssignment: stable ? m.assignment : EMPTY,
          })),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    groups: req.groups.map((groupId) => ({ errorCode: code, groupId, groupState: '', protocolType: '', protocolData: '', members: [] })),
  }),
})
