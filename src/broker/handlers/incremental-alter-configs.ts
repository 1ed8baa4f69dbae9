import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  IncrementalAlterConfigs,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../../protocol/messages/IncrementalAlterConfigs.js'
import { alterDynamicIncrementally, dynamicKind } from '../dynamic-configs.js'
import { defineHandler } from '../handler.js'
import { topicConfigProblem } from '../topic-configs.js'

const TOPIC = 2
const SET = 0
const DELETE = 1

/**
 * IncrementalAlterConfigs for topics: SET and DELETE of the configs the
 * broker knows, all of a resource's changes or none. APPEND and SUBTRACT
 * (list configs) and broker configs are refused.
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
        if (!controller.topics.has(r.resourceName))
          return answer(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist`)
        for (const c of r.configs) {
          if (c.configOperation !== SET && c.configOperation !== DELETE)
            return answer(ErrorCodes.INVALID_REQUEST, `config operation ${c.configOperation} is not served (SET and DELETE are)`)
          const problem = topicConfigProblem(c.name, c.configOperation === DELETE ? null : c.value)
          if (problem) return answer(ErrorCodes.INVALID_CONFIG, problem)
          if (c.configOperation === SET && c.value === null) return answer(ErrorCodes.INVALID_REQUEST, `SET of ${c.name} needs a value`)
        }
        if (!req.validateOnly) {
          for (const c of r.configs) controller.setTopicConfig(r.resourceName, c.name, c.configOperation === DELETE ? null : c.value)
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
