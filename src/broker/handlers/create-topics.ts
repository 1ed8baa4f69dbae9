import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { CreateTopics, type CreateTopicsRequest, type CreateTopicsResponse } from '../../protocol/messages/CreateTopics.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import { topicConfig, topicConfigProblem, TOPIC_CONFIG_DEFAULTS } from '../topic-configs.js'
import { BrokerError } from '../broker-error.js'
import { mutationQuotaOf } from '../quotas/controller-mutation-quota.js'

/**
 * CreateTopics: -1 partitions or replication factor take the cluster
 * defaults (KIP-464); each topic's partitions spent from the client's
 * controller_mutation_rate (strict from v6: THROTTLING_QUOTA_EXCEEDED).
 */
export const createTopicsHandler = defineHandler<CreateTopicsRequest, CreateTopicsResponse>({
  spec: CreateTopics,
  minVersion: Math.max(2, CreateTopics.minVersion),
  maxVersion: CreateTopics.maxVersion,
  handle(req, ctx) {
    const { controller, options } = ctx.cluster
    const seen = new Map<string, number>()
    for (const t of req.topics) seen.set(t.name, (seen.get(t.name) ?? 0) + 1)
    // CREATE on the cluster, or else on each topic; a created topic's configs are told only with DESCRIBE_CONFIGS on it.
    const names = req.topics.map((t) => t.name)
    const creatable = allowed(ctx, AclOperationTypes.CREATE)
      ? { has: () => true }
      : allowedNames(ctx, AclOperationTypes.CREATE, AclResourceTypes.TOPIC, names)
    const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE_CONFIGS, AclResourceTypes.TOPIC, names)
    const quota = mutationQuotaOf(ctx, 6)
    const topics = req.topics.map((ct) => {
      const result = { name: ct.name, topicId: ZERO_UUID, numPartitions: -1, replicationFactor: -1, configs: null }
      const fail = (errorCode: number, errorMessage: string | null) => ({ ...result, errorCode, errorMessage })
      if (seen.get(ct.name)! > 1)
        return fail(ErrorCodes.INVALID_REQUEST, `Create topics request from client contains multiple entries for topic ${ct.name}`)
      if (!creatable.has(ct.name)) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.')
      const configs: Record<string, string> = {}
      for (const c of ct.configs) {
        const problem = topicConfigProblem(c.name, c.value)
        if (problem) return fail(ErrorCodes.INVALID_CONFIG, problem)
        if (c.value !== null) configs[c.name] = c.value
      }
      const explicit = ct.assignments.length > 0
      if (explicit && (ct.numPartitions !== -1 || ct.replicationFactor !== -1)) {
        return fail(
          ErrorCodes.INVALID_REQUEST,
          'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.',
        )
      }
      try {
        const created = controller.createTopic(ct.name, {
          partitions: ct.numPartitions === -1 ? options.defaultPartitions : ct.numPartitions,
          replicationFactor: ct.replicationFactor === -1 ? options.defaultReplicationFactor : ct.replicationFactor,
          configs,
          assignments: explicit
            ? [...ct.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map((a) => a.brokerIds)
            : undefined,
          validateOnly: req.validateOnly,
          spendMutations: quota.record,
        })
        const partitions = created?.partitions ?? []
        if (created && !describable.has(ct.name))
          return {
            ...result,
            errorCode: ErrorCodes.NONE,
            errorMessage: null,
            topicId: created.id,
            numPartitions: partitions.length,
            replicationFactor: partitions[0]?.replicas.length ?? -1,
            topicConfigErrorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
          }
        return {
          ...result,
          errorCode: ErrorCodes.NONE,
          errorMessage: null,
          topicId: created?.id ?? ZERO_UUID,
          numPartitions: created ? partitions.length : ct.numPartitions,
          replicationFactor: created ? (partitions[0]?.replicas.length ?? -1) : ct.replicationFactor,
          configs: created
            ? Object.keys(TOPIC_CONFIG_DEFAULTS).map((name) => ({
                name,
                value: topicConfig(created, name),
                readOnly: false,
                configSource: created.configs.has(name) ? 1 : 5,
                isSensitive: false,
              }))
            : null,
        }
      } catch (err) {
        if (err instanceof BrokerError) return fail(err.code, err.clientMessage)
        throw err
      }
    })
    return { throttleTimeMs: quota.throttleTimeMs(), topics }
  },
  errorResponse: (req, code) => ({ topics: req.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) }),
})
