import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ShareGroupHeartbeat,
  type ShareGroupHeartbeatRequest,
  type ShareGroupHeartbeatResponse,
} from '../../protocol/messages/ShareGroupHeartbeat.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'
import { coordinatorError } from './group-common.js'

const fail = (errorCode: number, errorMessage: string | null = null) => ({
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: -1,
  heartbeatIntervalMs: 0,
  assignment: null,
})

/** ShareGroupHeartbeat (KIP-932): joins, heartbeats and leaves a share group; the answer brings the member's assignment. */
export const shareGroupHeartbeatHandler = defineHandler<ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse>({
  spec: ShareGroupHeartbeat,
  minVersion: ShareGroupHeartbeat.minVersion,
  maxVersion: ShareGroupHeartbeat.maxVersion,
  async handle(req, ctx) {
    if (!req.groupId || req.groupId.trim() === '') return fail(ErrorCodes.INVALID_REQUEST, "GroupId can't be empty.")
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return fail(refused)
    // Subscribed topics the principal may not DESCRIBE refuse the heartbeat, as Kafka's.
    const names = req.subscribedTopicNames ?? []
    const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, names)
    if (!names.every((n) => describable.has(n))) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
    const { groups } = ctx.cluster
    if (!groups.share(req.groupId) && req.memberEpoch !== 0) {
      if (groups.get(req.groupId)) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a share group.`)
      return fail(ErrorCodes.UNKNOWN_MEMBER_ID, `Share group ${req.groupId} not found.`)
    }
    const group = groups.shareOrCreate(req.groupId)
    if (!group) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a share group.`)
    const result = group.heartbeat({
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      rackId: req.rackId,
      subscribedTopicNames: req.subscribedTopicNames,
      clientId: ctx.header.clientId ?? '',
      clientHost: `/${ctx.connection.remoteAddress}`,
    })
    // Answered once the change's records are in the ISR of the group's __consumer_offsets partition, as Kafka's coordinator.
    const written = await groups.log.written(req.groupId)
    return written === ErrorCodes.NONE || result.errorCode !== ErrorCodes.NONE ? result : fail(written)
  },
  errorResponse: (_req, code) => fail(code),
})
