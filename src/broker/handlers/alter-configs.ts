import { ErrorCodes } from '../../protocol/error-codes.js'
import { AlterConfigs, type AlterConfigsRequest, type AlterConfigsResponse } from '../../protocol/messages/AlterConfigs.js'
import { dynamicKind, replaceDynamicConfigs, RESOURCE_TOPIC } from '../dynamic-configs.js'
import { defineHandler } from '../handler.js'
import { topicConfigProblem } from '../topic-configs.js'

/**
 * The legacy AlterConfigs (Kafka 4.4 still serves v0-2): a resource's
 * configs given replace all its dynamic ones — a topic, broker or group
 * config not named is removed, as Kafka's controller does — each
 * resource's change all or nothing.
 */
export const alterConfigsHandler = defineHandler<AlterConfigsRequest, AlterConfigsResponse>({
  spec: AlterConfigs,
  minVersion: AlterConfigs.minVersion,
  maxVersion: AlterConfigs.maxVersion,
  handle(req, { cluster }) {
    const { controller } = cluster
    return {
      responses: req.resources.map((r) => {
        const answer = (errorCode: number, errorMessage: string | null = null) => ({
          errorCode,
          errorMessage,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
        })
        const kind = dynamicKind(r.resourceType)
        if (kind) {
          const refused = replaceDynamicConfigs(cluster, kind, r.resourceName, r.configs, req.validateOnly)
          return refused ? answer(refused.code, refused.message) : answer(ErrorCodes.NONE)
        }
        if (r.resourceType !== RESOURCE_TOPIC) return answer(ErrorCodes.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`)
        const t = controller.topics.get(r.resourceName)
        if (!t) return answer(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist`)
        for (const c of r.configs) {
          const problem = topicConfigProblem(c.name, c.value)
          if (problem) return answer(ErrorCodes.INVALID_CONFIG, problem)
        }
        if (!req.validateOnly) {
          const given = new Set(r.configs.map((c) => c.name))
          controller.atomically(() => {
            for (const c of r.configs) controller.setTopicConfig(t.name, c.name, c.value)
            for (const key of [...t.configs.keys()]) if (!given.has(key)) controller.setTopicConfig(t.name, key, null)
          })
        }
        return answer(ErrorCodes.NONE)
      }),
    }
  },
  errorResponse: (req, code) => ({
    responses: req.resources.map((r) => ({
      errorCode: code,
      errorMessage: null,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
    })),
  }),
})
