import { ErrorCodes } from '../../protocol/error-codes.js'
import { UpdateFeatures, type UpdateFeaturesRequest, type UpdateFeaturesResponse } from '../../protocol/messages/UpdateFeatures.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { allowed, requester } from '../auth/authorizer.js'
import { updateFeatures } from '../features.js'
import { defineHandler } from '../handler.js'

/** What Kafka's answer (v0-1) says of each feature it updated: ApiError.NONE's message. */
const NONE_MESSAGE = 'NONE'

/**
 * UpdateFeatures (Admin#updateFeatures, kafka-features.sh): the finalized
 * levels of the features the broker supports, changed as Kafka's
 * controller changes them (src/broker/features.ts) after a CLUSTER ALTER
 * check. A refusal is the top-level error with Kafka's message and no
 * per-feature results; v0-1 list each update as done, v2 answers without them.
 */
export const updateFeaturesHandler = defineHandler<UpdateFeaturesRequest, UpdateFeaturesResponse>({
  spec: UpdateFeatures,
  minVersion: UpdateFeatures.minVersion,
  maxVersion: UpdateFeatures.maxVersion,
  handle(req, ctx) {
    // Kafka's controller says what was missing (its message names the request, then "needs ALTER permission.").
    if (!allowed(ctx, AclOperationTypes.ALTER))
      return {
        errorCode: ErrorCodes.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: `Request from ${requester(ctx)?.principal} needs ALTER permission.`,
        results: [],
      }
    const { controller } = ctx.cluster
    const refused = updateFeatures(controller, controller.activeController()?.id ?? -1, req.featureUpdates, req.validateOnly)
    if (refused) return { ...refused, results: [] }
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      results:
        ctx.version >= 2
          ? []
          : req.featureUpdates.map((u) => ({ feature: u.feature, errorCode: ErrorCodes.NONE, errorMessage: NONE_MESSAGE })),
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, results: [] }),
})
