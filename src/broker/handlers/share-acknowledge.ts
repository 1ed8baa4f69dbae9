import { ErrorCodes } from '../../protocol/error-codes.js'
import { ShareAcknowledge, type ShareAcknowledgeRequest, type ShareAcknowledgeResponse } from '../../protocol/messages/ShareAcknowledge.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import { groupConfig } from '../dynamic-configs.js'
import { SHARE_FINAL_EPOCH } from '../share/share-sessions.js'
import { acknowledge, continuedSession, currentLeader, toAckBatches } from './share-common.js'

function top(errorCode: number, errorMessage: string | null = null) {
  return { errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] }
}

/**
 * ShareAcknowledge (KIP-932): a member's acknowledgements within its share
 * session (never the opening epoch 0); at the final epoch (-1) the session
 * closes afterwards and what the member still holds is released.
 */
export const shareAcknowledgeHandler = defineHandler<ShareAcknowledgeRequest, ShareAcknowledgeResponse>({
  spec: ShareAcknowledge,
  minVersion: ShareAcknowledge.minVersion,
  maxVersion: ShareAcknowledge.maxVersion,
  handle(req, ctx) {
    const groupId = req.groupId ?? ''
    const memberId = req.memberId ?? ''
    if (!groupId) return top(ErrorCodes.INVALID_GROUP_ID)
    if (!memberId) return top(ErrorCodes.INVALID_REQUEST, 'Member id is required.')
    if (!allowed(ctx, AclOperationTypes.READ, AclResourceTypes.GROUP, groupId)) return top(ErrorCodes.GROUP_AUTHORIZATION_FAILED)
    const session = continuedSession(ctx, groupId, memberId, req.shareSessionEpoch)
    if (typeof session === 'number') return top(session)
    const { controller } = ctx.cluster
    const names = req.topics.map((t) => controller.topicsById.get(t.topicId)?.name ?? '')
    const readable = allowedNames(ctx, AclOperationTypes.READ, AclResourceTypes.TOPIC, names)
    const responses = req.topics.map((t) => {
      const name = controller.topicsById.get(t.topicId)?.name
      return {
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          ...(name !== undefined && !readable.has(name)
            ? { errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }
            : acknowledge(ctx, groupId, memberId, t.topicId, p.partitionIndex, toAckBatches(p.acknowledgementBatches))),
          currentLeader: currentLeader(ctx, t.topicId, p.partitionIndex),
        })),
      }
    })
    if (req.shareSessionEpoch === SHARE_FINAL_EPOCH) ctx.cluster.groups.shares.closeSession(session)
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      acquisitionLockTimeoutMs: Number(groupConfig(ctx.cluster, groupId, 'share.record.lock.duration.ms')),
      responses,
      nodeEndpoints: [],
    }
  },
  errorResponse: (_req, code) => top(code),
})
