import { Buffer } from 'node:buffer'
import { decodeData } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { ConsumerProtocolSubscription } from '../../protocol/messages/ConsumerProtocol.js'
import { OffsetDelete, type OffsetDeleteRequest, type OffsetDeleteResponse } from '../../protocol/messages/OffsetDelete.js'
import type { ClassicGroup } from '../groups/classic-group.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

/** The topics a consumer group's members subscribe to, from their subscriptions (unreadable ones count for none). */
function subscribedTopics(g: ClassicGroup): Set<string> {
  const topics = new Set<string>()
  if (g.protocolType !== 'consumer') return topics
  for (const m of g.members.values()) {
    const meta = m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? m.protocols[0]?.metadata
    try {
      if (meta?.length) for (const t of decodeData(ConsumerProtocolSubscription, Buffer.from(meta)).value.topics) topics.add(t)
    } catch {
      // Not the consumer protocol's bytes: nothing to protect.
    }
  }
  return topics
}

/** OffsetDelete: a group's committed offsets go, except for topics its members still subscribe to. */
export const offsetDeleteHandler = defineHandler<OffsetDeleteRequest, OffsetDeleteResponse>({
  spec: OffsetDelete,
  minVersion: OffsetDelete.minVersion,
  maxVersion: OffsetDelete.maxVersion,
  async handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId, AclOperationTypes.DELETE)
    if (refused !== null) return { errorCode: refused, topics: [] }
    const g = ctx.cluster.groups.get(req.groupId)
    if (!g) return { errorCode: ErrorCodes.GROUP_ID_NOT_FOUND, topics: [] }
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    const subscribed = g.state === 'Empty' ? new Set<string>() : g.type !== 'classic' ? g.subscribedTopics() : subscribedTopics(g)
    let deleted = false
    const answer = {
      errorCode: ErrorCodes.NONE,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (!readable.has(t.name)) return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED }
          if (subscribed.has(t.name)) return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.GROUP_SUBSCRIBED_TO_TOPIC }
          if (!ctx.cluster.controller.topics.get(t.name)?.partitions[p.partitionIndex])
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }
          if (g.committed(t.name, p.partitionIndex)) deleted = true
          g.deleteOffset(t.name, p.partitionIndex)
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.NONE }
        }),
      })),
    }
    // Answered once the tombstones are in the ISR of the group's __consumer_offsets partition, as Kafka's coordinator.
    const written = deleted && g.changes ? await g.changes.written(g.groupId) : ErrorCodes.NONE
    return written === ErrorCodes.NONE ? answer : { errorCode: written, topics: [] }
  },
  errorResponse: (_req, code) => ({ errorCode: code, topics: [] }),
})
