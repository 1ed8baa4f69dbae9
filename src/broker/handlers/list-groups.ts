import { ErrorCodes } from '../../protocol/error-codes.js'
import { ListGroups, type ListGroupsRequest, type ListGroupsResponse } from '../../protocol/messages/ListGroups.js'
import { defineHandler } from '../handler.js'

/** ListGroups: the groups this broker coordinates, filtered by state (v4+) and type (v5+, all classic). */
export const listGroupsHandler = defineHandler<ListGroupsRequest, ListGroupsResponse>({
  spec: ListGroups,
  minVersion: ListGroups.minVersion,
  maxVersion: ListGroups.maxVersion,
  handle(req, { cluster, broker }) {
    const states = req.statesFilter.map((s) => s.toLowerCase())
    const types = req.typesFilter.map((s) => s.toLowerCase())
    const groups = [...cluster.groups.groups.values()].filter(
      (g) =>
        cluster.groups.coordinatorFor(g.groupId) === broker.id &&
        (states.length === 0 || states.includes(g.state.toLowerCase())) &&
        (types.length === 0 || types.includes('classic')),
    )
    return {
      errorCode: ErrorCodes.NONE,
      groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' })),
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, groups: [] }),
})
