import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { DeleteTopics, type DeleteTopicsRequest, type DeleteTopicsResponse } from '../../protocol/messages/DeleteTopics.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import { BrokerError } from '../broker-error.js'
import { mutationQuotaOf } from '../quotas/controller-mutation-quota.js'

/**
 * DeleteTopics, by name (v0-5's topicNames, v6's topics) or by topic id
 * (v6); each topic's partitions spent from the client's
 * controller_mutation_rate (strict from v5: THROTTLING_QUOTA_EXCEEDED).
 */
export const deleteTopicsHandler = defineHandler<DeleteTopicsRequest, DeleteTopicsResponse>({
  spec: DeleteTopics,
  minVersion: Math.max(1, DeleteTopics.minVersion),
  maxVersion: DeleteTopics.maxVersion,
  handle(req, ctx) {
    const { controller } = ctx.cluster
    const wanted = ctx.version >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }))
    // DELETE on the cluster or on the topic; a topic asked for by id is not named to one who may not DESCRIBE it.
    const names = wanted.map((w) => w.name ?? controller.topicsById.get(w.topicId)?.name ?? null)
    const deletable = allowed(ctx, AclOperationTypes.DELETE)
      ? null
      : allowedNames(ctx, AclOperationTypes.DELETE, AclResourceTypes.TOPIC, names)
    const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, names)
    const quota = mutationQuotaOf(ctx, 5)
    const responses = wanted.map((w) => {
      const t = w.name ? controller.topics.get(w.name) : controller.topicsById.get(w.topicId)
      const name = w.name ?? t?.name ?? null
      const refused = (errorName: string | null) => ({
        name: errorName,
        topicId: w.topicId,
        errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: null,
      })
      if (!w.name && t && !describable.has(t.name)) return refused(null)
      if ((t || w.name) && deletable && !deletable.has(name!)) return refused(name)
      if (!t) {
        return {
          name,
          topicId: w.topicId,
          errorCode: w.name ? ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION : ErrorCodes.UNKNOWN_TOPIC_ID,
          errorMessage: null,
        }
      }
      try {
        controller.deleteTopic(t.name, quota.record)
        // Kafka's controller logs each topic it removes; this also says who asked.
        ctx.cluster.problem(
          ctx.broker.id,
          `deleted topic ${t.name} (${t.id}) for a DeleteTopics request of client ${ctx.header.clientId}`,
          'info',
        )
        return { name, topicId: t.id, errorCode: ErrorCodes.NONE, errorMessage: null }
      } catch (err) {
        if (err instanceof BrokerError) return { name, topicId: t.id, errorCode: err.code, errorMessage: err.clientMessage }
        throw err
      }
    })
    return { throttleTimeMs: quota.throttleTimeMs(), responses }
  },
  errorResponse: (req, code, { version }) => ({
    responses: (version >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }))).map((t) => ({
      ...t,
      errorCode: code,
    })),
  }),
})
