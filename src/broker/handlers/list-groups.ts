import { ErrorCodes } from '../../protocol/error-codes.js'
import { ListGroups, type ListGroupsRequest, type ListGroupsResponse } from '../../protocol/messages/ListGroups.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed } from '../auth/authorizer.js'

/** A state as ListGroups' filter names it: lower case, a streams group's NotReady as not_ready (Kafka's). */
const stateFilterName = (state: string) => (state === 'NotReady' ? 'not_ready' : state.toLowerCase())

/** ListGroups: the groups this broker coordinates, of every type (classic, consumer, share, streams), filtered by state (v4+) and type (v5+). */
export const listGroupsHandler = defineHandler<ListGroupsRequest, ListGroupsResponse>({
  spec: ListGroups,
  minVersion: ListGroups.minVersion,
  maxVersion: ListGroups.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    // DESCRIBE on the cluster lists every group; without it, those the principal may DESCRIBE (as Kafka's).
    const all = allowed(ctx, AclOperationTypes.DESCRIBE)
    const states = req.statesFilter.map((s) => s.toLowerCase())
    const types = req.typesFilter.map((s) => s.toLowerCase())
    const groups = [...cluster.groups.groups.values(), ...cluster.groups.shareGroups.values()].filter(
      (g) =>
        cluster.groups.coordinatorFor(g.groupId) === broker.id &&
        (all || allowed(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.GROUP, g.groupId)) &&
        (states.length === 0 || states.includes(stateFilterName(g.state))) &&
        (types.length === 0 || types.includes(g.type)),
    )
    return {
      errorCode: ErrorCodes.NONE,
      groups: groups.map((g) => ({
        groupId: g.groupId,
        // A consumer group's members all speak the consumer protocol, a share group's the share one.
        protocolType: g.type === 'classic' ? (g.protocolType ?? '') : g.type,
        groupState: g.state,
        groupType: g.type,
      })),
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, groups: [] }),
})
