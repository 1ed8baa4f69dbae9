import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  IncrementalAlterConfigs,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../../protocol/messages/IncrementalAlterConfigs.js'
import { duplicateKeysProblem, listAfter, notListProblem, OP_APPEND, OP_DELETE, OP_SET, OP_SUBTRACT } from '../config-ops.js'
import { alterDynamicIncrementally, dynamicKind } from '../dynamic-configs.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { configRefusal } from '../auth/authorizer.js'
import { answerEach, configuredTopic, refuseEach } from './config-answers.js'
import { LIST_TOPIC_CONFIGS, TOPIC_CONFIG_DEFAULTS, topicConfig, topicConfigProblem, topicConfigsConflict } from '../topic-configs.js'

/**
 * IncrementalAlterConfigs: SET, DELETE, and APPEND or SUBTRACT for LIST
 * configs, of topics (here) and of brokers and groups (dynamic-configs.ts);
 * each resource's changes checked together, then all applied or none.
 */
export const incrementalAlterConfigsHandler = defineHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  spec: IncrementalAlterConfigs,
  minVersion: IncrementalAlterConfigs.minVersion,
  maxVersion: IncrementalAlterConfigs.maxVersion,
  handle(req, ctx) {
    const { cluster } = ctx
    return {
      responses: answerEach(req.resources, (r) => {
        const denied = configRefusal(ctx, AclOperationTypes.ALTER_CONFIGS, r.resourceType, r.resourceName)
        if (denied !== null) return { code: denied, message: null }
        const kind = dynamicKind(r.resourceType)
        if (kind) return alterDynamicIncrementally(cluster, kind, r.resourceName, r.configs, req.validateOnly)
        const t = configuredTopic(cluster, r)
        if ('code' in t) return t
        const invalid = (code: number, message: string) => ({ code, message })
        const duplicates = duplicateKeysProblem(r.configs.map((c) => c.name))
        if (duplicates) return invalid(ErrorCodes.INVALID_REQUEST, duplicates)
        // Each key's value afterwards (null: back to the default), checked before any is applied.
        const after = new Map<string, string | null>()
        for (const c of r.configs) {
          const op = c.configOperation
          if (op === OP_APPEND || op === OP_SUBTRACT) {
            if (!LIST_TOPIC_CONFIGS.has(c.name)) return invalid(ErrorCodes.INVALID_CONFIG, notListProblem(op, c.name))
            if (c.value === null) return invalid(ErrorCodes.INVALID_REQUEST, `an APPEND or SUBTRACT of ${c.name} needs a value`)
            const current = topicConfig(t, c.name)
            after.set(c.name, listAfter(current, op, c.value))
          } else if (op === OP_SET) {
            if (c.value === null) return invalid(ErrorCodes.INVALID_REQUEST, `SET of ${c.name} needs a value`)
            after.set(c.name, c.value)
          } else if (op === OP_DELETE) after.set(c.name, null)
          else return invalid(ErrorCodes.INVALID_REQUEST, `unknown config operation ${op}`)
          const problem = topicConfigProblem(c.name, after.get(c.name) ?? null)
          if (problem) return invalid(ErrorCodes.INVALID_CONFIG, problem)
        }
        const conflict = topicConfigsConflict(
          (key) => (after.has(key) ? after.get(key) : t.configs.get(key)) ?? TOPIC_CONFIG_DEFAULTS[key].value,
        )
        if (conflict) return invalid(ErrorCodes.INVALID_CONFIG, conflict)
        if (!req.validateOnly) for (const [name, value] of after) cluster.controller.setTopicConfig(r.resourceName, name, value)
        return null
      }),
    }
  },
  errorResponse: (req, code) => ({ responses: refuseEach(req.resources, code) }),
})
