import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  IncrementalAlterConfigs,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../../protocol/messages/IncrementalAlterConfigs.js'
import type { TopicImage } from '../controller.js'
import { defineHandler } from '../handler.js'
import { LIST_TOPIC_CONFIGS, TOPIC_CONFIG_DEFAULTS, topicConfigProblem, topicConfigsConflict } from '../topic-configs.js'

const TOPIC = 2
const SET = 0
const DELETE = 1
const APPEND = 2
const SUBTRACT = 3
const OPERATIONS = ['SET', 'DELETE', 'APPEND', 'SUBTRACT']

type Change = IncrementalAlterConfigsRequest['resources'][number]['configs'][number]

/**
 * A LIST config's value after APPEND or SUBTRACT, as Kafka's controller:
 * the items set (or the default's when unset), split on commas, with each
 * of `value`'s items added when missing or removed, joined again.
 */
function listAfter(t: TopicImage, c: Change): string {
  const current = t.configs.get(c.name) ?? TOPIC_CONFIG_DEFAULTS[c.name]?.value ?? ''
  const items = current.split(',').filter((s) => s !== '')
  for (const item of (c.value ?? '').split(',')) {
    const at = items.indexOf(item)
    if (c.configOperation === APPEND && at < 0) items.push(item)
    if (c.configOperation === SUBTRACT && at >= 0) items.splice(at, 1)
  }
  return items.join(',')
}

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
        if (r.resourceType !== TOPIC) return answer(ErrorCodes.INVALID_REQUEST, 'only topic configs can be altered here')
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
          if (op === APPEND || op === SUBTRACT) {
            if (!LIST_TOPIC_CONFIGS.has(c.name))
              return answer(ErrorCodes.INVALID_CONFIG, `Can't ${OPERATIONS[op]} to key ${c.name} because its type is not LIST.`)
            if (c.value === null) return answer(ErrorCodes.INVALID_REQUEST, `${OPERATIONS[op]} of ${c.name} needs a value`)
            after.set(c.name, listAfter(t, c))
          } else if (op === SET) {
            if (c.value === null) return answer(ErrorCodes.INVALID_REQUEST, `SET of ${c.name} needs a value`)
            after.set(c.name, c.value)
          } else if (op === DELETE) after.set(c.name, null)
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
