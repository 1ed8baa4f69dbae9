import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ListConfigResources,
  type ListConfigResourcesRequest,
  type ListConfigResourcesResponse,
} from '../../protocol/messages/ListConfigResources.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'
import { defineHandler } from '../handler.js'

/** Config resource types (Kafka's ConfigResource.Type ids). */
const TOPIC = 2
const BROKER = 4
const BROKER_LOGGER = 8
const CLIENT_METRICS = 16
const GROUP = 32

/** What each version lists when asked for no type in particular: v0 (ListClientMetricsResources) client metrics alone, v1 (KIP-1142) every type. */
const SUPPORTED: Record<number, readonly number[]> = { 0: [CLIENT_METRICS], 1: [GROUP, CLIENT_METRICS, BROKER_LOGGER, BROKER, TOPIC] }

/**
 * ListConfigResources (Admin#listConfigResources, kafka-configs.sh
 * --describe without a name): the resources configs can be described for,
 * as Kafka's KafkaApis lists them after a CLUSTER DESCRIBE_CONFIGS check:
 * groups that have configs set, client-metrics subscriptions (none: the
 * embedded broker has no client metrics), each broker's loggers and
 * configs by broker id, and every topic (none left out for its ACLs). A
 * type it does not list is UNSUPPORTED_VERSION for the whole request.
 */
export const listConfigResourcesHandler = defineHandler<ListConfigResourcesRequest, ListConfigResourcesResponse>({
  spec: ListConfigResources,
  minVersion: ListConfigResources.minVersion,
  maxVersion: ListConfigResources.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.DESCRIBE_CONFIGS)
    const supported = SUPPORTED[ctx.version]
    const types = req.resourceTypes.length === 0 ? supported : req.resourceTypes
    if (types.some((t) => !supported.includes(t))) return { errorCode: ErrorCodes.UNSUPPORTED_VERSION, configResources: [] }
    const { controller } = ctx.cluster
    const out: { resourceName: string; resourceType: number }[] = []
    const add = (type: number, names: Iterable<string>) => {
      if (types.includes(type)) for (const resourceName of names) out.push({ resourceName, resourceType: type })
    }
    const brokerIds = () => controller.liveBrokers().map((b) => String(b.id))
    add(
      GROUP,
      [...controller.dynamicConfigs.group].filter(([, configs]) => configs.size > 0).map(([name]) => name),
    )
    add(BROKER_LOGGER, brokerIds())
    add(BROKER, brokerIds())
    add(TOPIC, controller.topics.keys())
    return { errorCode: ErrorCodes.NONE, configResources: out }
  },
  errorResponse: (_req, code) => ({ errorCode: code, configResources: [] }),
})
