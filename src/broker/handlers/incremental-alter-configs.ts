import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  IncrementalAlterConfigs,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../../protocol/messages/IncrementalAlterConfigs.js'
import { OP_APPEND, OP_DELETE, OP_SET, OP_SUBTRACT, listAfter, notListProblem } from '../config-ops.js'
import { alterDynamicIncrementally, dynamicKind } from '../dynamic-configs.js'
import { defineHandler } from '../handler.js'
import { LIST_TOPIC_CONFIGS, TOPIC_CONFIG_DEFAULTS, topicConfigProblem, topicConfigsConflict } from '../topic-configs.js'

const TOPIC = 2

/**
 * IncrementalAlterConfigs for topics: SET, DELETE, and APPEND or SUBTRACT
 * for LIST configs (cleanup.policy), of the configs the broker knows; all
 * of a resource's changes or none. Broker configs are refused.
 */
export const incrementalAlterConfigsHandler = defineHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  spec: IncrementalAlterConfigs,
  minVersion: IncrementalAlterConfigs.minVersion,
  maxVersion: IncrementalAlterConfigs.maxVersion,
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
        // Brokers' and groups' dynamic configs: dynamic-configs.ts.
        const kind = dynamicKind(r.resourceType)
        if (kind) {
          const refused = alterDynamicIncrementally(cluster, kind, r.resourceName, r.configs, req.validateOnly)
          return refused ? answer(refused.code, refused.message) : answer(ErrorCodes.NONE)
        }
        if (r.resourceType !== TOPIC) return answer(ErrorCodes.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`)
        const t = controller.topics.get(r.resourceName)
        if (!t) return answer(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist`)
        const names = r.configs.map((c) => c.name)
        const repeated = names.filter((n, i) => names.indexOf(n) !== i)
        if (repeated.length)
          return answer(ErrorCodes.INVALID_REQUEST, `Error due to duplicate config keys: ${[...new Set(repeated)].join(', ')}`)
        // Each key's value afterwards (null: back to the default), checked before any is applied.
        const after = new Map<string, string | null>()
        for (const c of r.configs) {
          const op = c.configOperation
          if (op === OP_APPEND || op === OP_SUBTRACT) {
            if (!LIST_TOPIC_CONFIGS.has(c.name)) return answer(ErrorCodes.INVALID_CONFIG, notListProblem(op, c.name))
            if (c.value === null) return answer(ErrorCodes.INVALID_REQUEST, `an APPEND or SUBTRACT of ${c.name} needs a value`)
            const current = t.configs.get(c.name) ?? TOPIC_CONFIG_DEFAULTS[c.name]?.value ?? ''
            after.set(c.name, listAfter(current, op, c.value))
          } else if (op === OP_SET) {
            if (c.value === null) return answer(ErrorCodes.INVALID_REQUEST, `SET of ${c.name} needs a value`)
            after.set(c.name, c.value)
          } else if (op === OP_DELETE) after.set(c.name, null)
          else return answer(ErrorCodes.INVALID_REQUEST, `unknown config operation ${op}`)
          const problem = topicConfigProblem(c.name, after.get(c.name) ?? null)
          if (problem) return answer(ErrorCodes.INVALID_CONFIG, problem)
        }
        const conflict = topicConfigsConflict(
          (key) => (after.has(key) ? after.get(key) : t.configs.get(key)) ?? TOPIC_CONFIG_DEFAULTS[key].value,
        )
        if (conflict) return answer(ErrorCodes.INVALID_CONFIG, conflict)
        if (!req.validateOnly) for (const [name, value] of after) controller.setTopicConfig(r.resourceName, name, value)
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
