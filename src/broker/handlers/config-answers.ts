import { ErrorCodes } from '../../protocol/error-codes.js'
import type { TopicImage } from '../controller.js'
import type { EmbeddedCluster } from '../cluster.js'
import { type Refusal, RESOURCE_TOPIC } from '../dynamic-configs.js'

interface ConfigResource {
  resourceType: number
  resourceName: string
}

/**
 * AlterConfigs' and IncrementalAlterConfigs' answer, one entry per
 * resource: `alter` changes it and returns null, or returns its refusal.
 */
export function answerEach<R extends ConfigResource>(resources: R[], alter: (r: R) => Refusal | null) {
  return resources.map((r) => {
    const refused = alter(r)
    return {
      errorCode: refused?.code ?? ErrorCodes.NONE,
      errorMessage: refused?.message ?? null,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
    }
  })
}

/** Both APIs' answer when the whole request is refused. */
export function refuseEach(resources: ConfigResource[], code: number) {
  return answerEach(resources, () => ({ code, message: null }))
}

/** The topic a resource names, or why it cannot be configured here. */
export function configuredTopic(cluster: EmbeddedCluster, r: ConfigResource): TopicImage | Refusal {
  if (r.resourceType !== RESOURCE_TOPIC) return { code: ErrorCodes.INVALID_REQUEST, message: `Unsupported resource type ${r.resourceType}` }
  return (
    cluster.controller.topics.get(r.resourceName) ?? {
      code: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
      message: `Topic ${r.resourceName} does not exist`,
    }
  )
}
