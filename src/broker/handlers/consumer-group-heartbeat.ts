import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
} from '../../protocol/messages/ConsumerGroupHeartbeat.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames, topicDescriber } from '../auth/authorizer.js'
import { coordinatorError } from './group-common.js'

const fail = (errorCode: number, errorMessage: string | null = null) => ({
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: -1,
  heartbeatIntervalMs: 0,
  assignment: null,
})

/**
 * ConsumerGroupHeartbeat (KIP-848): joins, heartbeats, reconciles and leaves
 * a consumer group, at the versions Kafka 4.x clients use (v1: the member
 * names itself).
 */
export const consumerGroupHeartbeatHandler = defineHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>({
  spec: ConsumerGroupHeartbeat,
  minVersion: ConsumerGroupHeartbeat.minVersion,
  maxVersion: ConsumerGroupHeartbeat.maxVersion,
  async handle(req, ctx) {
    if (!req.groupId || req.groupId.trim() === '') return fail(ErrorCodes.INVALID_REQUEST, "GroupId can't be empty.")
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return fail(refused)
    // Subscribed topics the principal may not DESCRIBE are not told apart: the heartbeat is refused (as Kafka's).
    const names = req.subscribedTopicNames ?? []
    const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, names)
    if (!names.every((n) => describable.has(n))) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
    const { groups } = ctx.cluster
    const existing = groups.get(req.groupId)
    if (!existing && req.memberEpoch !== 0) {
      // A member of a group the coordinator does not know (it was deleted): it joins again.
      return fail(ErrorCodes.UNKNOWN_MEMBER_ID, `Consumer group ${req.groupId} not found.`)
    }
    const group = req.memberEpoch === 0 ? groups.consumerOrCreate(req.groupId) : groups.consumer(req.groupId)
    if (!group) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a consumer group.`)
    const result = group.heartbeat({
      version: ctx.version,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: ctx.version >= 1 ? req.subscribedTopicRegex : null,
      serverAssignor: req.serverAssignor,
      topicPartitions: req.topicPartitions,
      clientId: ctx.header.clientId ?? '',
      clientHost: `/${ctx.connection.remoteAddress}`,
      mayDescribeTopic: topicDescriber(ctx),
    })
    // Answered once the change's records are in the ISR of the group's __consumer_offsets partition, as Kafka's coordinator.
    const written = await groups.log.written(req.groupId)
    return written === ErrorCodes.NONE || result.errorCode !== ErrorCodes.NONE ? result : fail(written)
  },
  errorResponse: (_req, code) => fail(code),
})
