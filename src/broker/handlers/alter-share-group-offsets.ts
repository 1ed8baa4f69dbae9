import { ErrorCodes } from '../../protocol/error-codes.js'
import { ZERO_UUID } from '../../protocol/api.js'
import {
  AlterShareGroupOffsets,
  type AlterShareGroupOffsetsRequest,
  type AlterShareGroupOffsetsResponse,
} from '../../protocol/messages/AlterShareGroupOffsets.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'
import { notShare, shareGroupRefusal } from './share-group-refusal.js'

const UNKNOWN = { errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' }

/**
 * AlterShareGroupOffsets (KIP-932): an empty share group's partitions start
 * again at the given offsets, nothing in flight (kafka-share-groups.sh
 * --reset-offsets). READ on the group, READ on each topic
 * (TOPIC_AUTHORIZATION_FAILED per partition otherwise); a group with members
 * is NON_EMPTY_GROUP, an unknown one is created empty (as Kafka 4.4 does);
 * unknown topics and partitions are UNKNOWN_TOPIC_OR_PARTITION.
 */
export const alterShareGroupOffsetsHandler = defineHandler<AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse>({
  spec: AlterShareGroupOffsets,
  minVersion: AlterShareGroupOffsets.minVersion,
  maxVersion: AlterShareGroupOffsets.maxVersion,
  handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId, AclOperationTypes.READ)
    if (refused !== null) return { throttleTimeMs: 0, errorCode: refused, errorMessage: null, responses: [] }
    const { controller, groups } = ctx.cluster
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.topicName),
    )
    // As Kafka: an unknown group is created (empty) to hold the offsets; one of another type is not found.
    const group = groups.shareOrCreate(req.groupId) ? shareGroupRefusal(ctx, req.groupId) : notShare(req.groupId)
    if (group !== null) return { throttleTimeMs: 0, ...group, responses: [] }
    // Refused topics first, then the coordinator's answers, in Kafka's order.
    const refusedTopics = req.topics.filter((t) => !readable.has(t.topicName) || !controller.topics.has(t.topicName))
    const accepted = req.topics.filter((t) => readable.has(t.topicName) && controller.topics.has(t.topicName))
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      responses: [
        ...refusedTopics.map((t) => ({
          topicName: t.topicName,
          topicId: ZERO_UUID,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            ...(readable.has(t.topicName)
              ? UNKNOWN
              : { errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Topic authorization failed.' }),
          })),
        })),
        ...accepted.map((t) => {
          const known = controller.topics.get(t.topicName)!
          return {
            topicName: t.topicName,
            topicId: known.id,
            partitions: t.partitions.map((p) => {
              if (!known.partitions[p.partitionIndex]) return { partitionIndex: p.partitionIndex, ...UNKNOWN }
              groups.shares.startAt(req.groupId, known.id, p.partitionIndex, Number(p.startOffset))
              return { partitionIndex: p.partitionIndex, errorCode: 0, errorMessage: null }
            }),
          }
        }),
      ],
    }
  },
  errorResponse: (_req, code) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: null, responses: [] }),
})
