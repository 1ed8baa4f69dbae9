import { ErrorCodes } from '../../protocol/error-codes.js'
import { AlterConfigs, type AlterConfigsRequest, type AlterConfigsResponse } from '../../protocol/messages/AlterConfigs.js'
import { duplicateKeysProblem } from '../config-ops.js'
import { dynamicKind, replaceDynamicConfigs } from '../dynamic-configs.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { configRefusal } from '../auth/authorizer.js'
import { TOPIC_CONFIG_DEFAULTS, topicConfigProblem, topicConfigsConflict } from '../topic-configs.js'
import { answerEach, configuredTopic, refuseEach } from './config-answers.js'

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
  handle(req, ctx) {
    const { cluster } = ctx
    const { controller } = cluster
    return {
      responses: answerEach(req.resources, (r) => {
        const denied = configRefusal(ctx, AclOperationTypes.ALTER_CONFIGS, r.resourceType, r.resourceName)
        if (denied !== null) return { code: denied, message: null }
        const kind = dynamicKind(r.resourceType)
        if (kind) return replaceDynamicConfigs(cluster, kind, r.resourceName, r.configs, req.validateOnly)
        const t = configuredTopic(cluster, r)
        if ('code' in t) return t
        const duplicates = duplicateKeysProblem(r.configs.map((c) => c.name))
        if (duplicates) return { code: ErrorCodes.INVALID_REQUEST, message: duplicates }
        for (const c of r.configs) {
          const problem = topicConfigProblem(c.name, c.value)
          if (problem) return { code: ErrorCodes.INVALID_CONFIG, message: problem }
        }
        const given = new Map(r.configs.map((c) => [c.name, c.value]))
        const conflict = topicConfigsConflict((key) => given.get(key) ?? TOPIC_CONFIG_DEFAULTS[key].value)
        if (conflict) return { code: ErrorCodes.INVALID_CONFIG, message: conflict }
        if (!req.validateOnly)
          controller.atomically(() => {
            for (const c of r.configs) controller.setTopicConfig(t.name, c.name, c.value)
            for (const key of [...t.configs.keys()]) if (!given.has(key)) controller.setTopicConfig(t.name, key, null)
          })
        return null
      }),
    }
  },
  errorResponse: (req, code) => ({ responses: refuseEach(req.resources, code) }),
})
