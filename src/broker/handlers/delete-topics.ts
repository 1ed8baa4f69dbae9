import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { DeleteTopics, type DeleteTopicsRequest, type DeleteTopicsResponse } from '../../protocol/messages/DeleteTopics.js'
import { defineHandler } from '../handler.js'
import { BrokerError } from '../broker-error.js'

/** DeleteTopics, by name (v0-5's topicNames, v6's topics) or by topic id (v6). */
export const deleteTopicsHandler = defineHandler<DeleteTopicsRequest, DeleteTopicsResponse>({
  spec: DeleteTopics,
  minVersion: Math.max(1, DeleteTopics.minVersion),
  maxVersion: DeleteTopics.maxVersion,
  handle(req, { cluster, version }) {
    const { controller } = cluster
    const wanted = version >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }))
    return {
      responses: wanted.map((w) => {
        const t = w.name ? controller.topics.get(w.name) : controller.topicsById.get(w.topicId)
        const name = w.name ?? t?.name ?? null
        if (!t) {
          return {
            name,
            topicId: w.topicId,
            errorCode: w.name ? ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION : ErrorCodes.UNKNOWN_TOPIC_ID,
            errorMessage: null,
          }
        }
        try {
          controller.deleteTopic(t.name)
          return { name, topicId: t.id, errorCode: ErrorCodes.NONE, errorMessage: null }
        } catch (err) {
          if (err instanceof BrokerError) return { name, topicId: t.id, errorCode: err.code, errorMessage: err.message }
          throw err
        }
      }),
    }
  },
  errorResponse: (req, code, { version }) => ({
    responses: (version >= 6 ? req.topics : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }))).map((t) => ({
      ...t,
      errorCode: code,
    })),
  }),
})
