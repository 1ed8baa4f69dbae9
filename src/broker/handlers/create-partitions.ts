import { ErrorCodes } from '../../protocol/error-codes.js'
import { CreatePartitions, type CreatePartitionsRequest, type CreatePartitionsResponse } from '../../protocol/messages/CreatePartitions.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'
import { BrokerError } from '../broker-error.js'
import { mutationQuotaOf } from '../quotas/controller-mutation-quota.js'

/** CreatePartitions; the partitions added spent from the client's controller_mutation_rate (strict from v3: THROTTLING_QUOTA_EXCEEDED). */
export const createPartitionsHandler = defineHandler<CreatePartitionsRequest, CreatePartitionsResponse>({
  spec: CreatePartitions,
  minVersion: CreatePartitions.minVersion,
  maxVersion: CreatePartitions.maxVersion,
  handle(req, ctx) {
    const { cluster } = ctx
    const alterable = allowedNames(
      ctx,
      AclOperationTypes.ALTER,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    // A topic named twice gets one INVALID_REQUEST and no change, as Kafka's controller answers.
    const seen = new Set<string>()
    const duplicates = new Set<string>()
    for (const t of req.topics) (seen.has(t.name) ? duplicates : seen).add(t.name)
    const results: Array<{ name: string; errorCode: number; errorMessage: string | null }> = [...duplicates].map((name) => ({
      name,
      errorCode: ErrorCodes.INVALID_REQUEST,
      errorMessage: 'Duplicate topic name.',
    }))
    const quota = mutationQuotaOf(ctx, 3)
    for (const t of req.topics) {
      if (duplicates.has(t.name)) continue
      if (!alterable.has(t.name)) {
        results.push({ name: t.name, errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED, errorMessage: null })
        continue
      }
      try {
        const assignments = t.assignments?.map((a) => a.brokerIds) ?? null
        cluster.controller.createPartitions(t.name, t.count, req.validateOnly, assignments, quota.record)
        results.push({ name: t.name, errorCode: ErrorCodes.NONE, errorMessage: null })
      } catch (err) {
        if (!(err instanceof BrokerError)) throw err
        results.push({ name: t.name, errorCode: err.code, errorMessage: err.clientMessage })
      }
    }
    return { throttleTimeMs: quota.throttleTimeMs(), results }
  },
  errorResponse: (req, code) => ({ results: req.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) }),
})
