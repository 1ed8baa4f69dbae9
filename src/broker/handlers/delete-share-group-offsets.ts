import { ErrorCodes } from '../../protocol/error-codes.js'
import { ZERO_UUID } from '../../protocol/api.js'
import {
  DeleteShareGroupOffsets,
  type DeleteShareGroupOffsetsRequest,
  type DeleteShareGroupOffsetsResponse,
} from '../../protocol/messages/DeleteShareGroupOffsets.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'
import { shareGroupRefusal } from './share-group-refusal.js'

/**
 * DeleteShareGroupOffsets (KIP-932): an empty share group's state of whole
 * topics goes (kafka-share-groups.sh --delete-offsets); a later member
 * starts them at share.auto.offset.reset. DELETE on the group, READ on each
 * topic; a group with members is NON_EMPTY_GROUP; a topic not known, or
 * without share state in the group, UNKNOWN_TOPIC_OR_PARTITION.
 */
export const deleteShareGroupOffsetsHandler = defineHandler<DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse>({
  spec: DeleteShareGroupOffsets,
  minVersion: DeleteShareGroupOffsets.minVersion,
  maxVersion: DeleteShareGroupOffsets.maxVersion,
  handle(req, ctx) {
    const denied = coordinatorError(ctx, req.groupId, AclOperationTypes.DELETE)
    if (denied !== null) return { throttleTimeMs: 0, errorCode: denied, errorMessage: null, responses: [] }
    const { controller, groups } = ctx.cluster
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.topicName),
    )
    const group = shareGroupRefusal(ctx, req.groupId)
    if (group !== null) return { throttleTimeMs: 0, ...group, responses: [] }
    const initialized = groups.shares.initialized(req.groupId)
    type Answer = DeleteShareGroupOffsetsResponse['responses'][number]
    const [refused, deleted, missing]: Answer[][] = [[], [], []]
    for (const { topicName } of req.topics) {
      const known = controller.topics.get(topicName)
      if (!readable.has(topicName))
        refused.push({
          topicName,
          topicId: ZERO_UUID,
          errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
          errorMessage: 'Topic authorization failed.',
        })
      else if (!known)
        missing.push({
          topicName,
          topicId: ZERO_UUID,
          errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: 'This server does not host this topic-partition.',
        })
      else if (!initialized.has(known.id))
        missing.push({
          topicName,
          topicId: ZERO_UUID,
          errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: 'There is no offset information to delete.',
        })
      else {
        groups.shares.dropTopic(req.groupId, known.id)
        deleted.push({ topicName, topicId: known.id, errorCode: 0, errorMessage: null })
      }
    }
    // In Kafka's order: refused by the broker, then deleted, then what the coordinator found nothing for.
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses: [...refused, ...deleted, ...missing] }
  },
  errorResponse: (_req, code) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: null, responses: [] }),
})
