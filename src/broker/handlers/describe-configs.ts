import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeConfigs, type DescribeConfigsRequest, type DescribeConfigsResponse } from '../../protocol/messages/DescribeConfigs.js'
import type { EmbeddedCluster } from '../cluster.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { configRefusal } from '../auth/authorizer.js'
import { topicConfig, TOPIC_CONFIG_DEFAULTS } from '../topic-configs.js'
import {
  describeDynamic,
  dynamicKind,
  resourceProblem,
  RESOURCE_TOPIC as TOPIC,
  SOURCE_DEFAULT,
  SOURCE_DYNAMIC_DEFAULT_BROKER,
  SOURCE_DYNAMIC_TOPIC as SOURCE_TOPIC,
  SOURCE_STATIC_BROKER,
  TYPE_BOOLEAN,
  TYPE_INT,
  TYPE_LONG,
  TYPE_STRING,
  isDynamicBrokerConfig,
  staticBrokerConfig,
  type DescribedConfig as Entry,
} from '../dynamic-configs.js'
import { BY_KAFKA_NAME, topicDefaultGiven } from '../options.js'

/**
 * A broker's configs from its options (those not among the dynamic ones,
 * which describeDynamic lists over them), and its listener: the address it
 * binds and the one it gives clients.
 */
function brokerConfigs(cluster: EmbeddedCluster, name: string): Entry[] {
  const options = [...BY_KAFKA_NAME.keys()]
    .filter((key) => !isDynamicBrokerConfig(key))
    .flatMap((key) => staticBrokerConfig(cluster, key) ?? [])
  const b = name === '' ? undefined : cluster.brokers.get(Number(name))
  if (!b) return options
  const protocol = `${cluster.options.sasl ? 'SASL_' : ''}${cluster.tls ? 'SSL' : 'PLAINTEXT'}`
  const source = cluster.given.has('port') || cluster.given.has('host') ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT
  return [
    ...options,
    { name: 'listeners', value: `${protocol}://${cluster.options.host}:${b.port}`, source, type: TYPE_STRING },
    {
      name: 'advertised.listeners',
      value: `${protocol}://${b.host}:${b.port}`,
      source: cluster.given.has('advertisedHost') ? SOURCE_STATIC_BROKER : source,
      type: TYPE_STRING,
    },
  ]
}

/** DescribeConfigs for topics (the configs the broker knows, set or default), brokers (its options and dynamic configs) and groups (Kafka 4.4's group configs). */
export const describeConfigsHandler = defineHandler<DescribeConfigsRequest, DescribeConfigsResponse>({
  spec: DescribeConfigs,
  minVersion: Math.max(1, DescribeConfigs.minVersion),
  maxVersion: DescribeConfigs.maxVersion,
  handle(req, ctx) {
    const { cluster } = ctx
    return {
      results: req.resources.map((r) => {
        const base = { resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }
        const denied = configRefusal(ctx, AclOperationTypes.DESCRIBE_CONFIGS, r.resourceType, r.resourceName)
        if (denied !== null) return { ...base, errorCode: denied, errorMessage: null }
        let entries: Entry[]
        if (r.resourceType === TOPIC) {
          const t = cluster.controller.topics.get(r.resourceName)
          if (!t)
            return { ...base, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${r.resourceName} does not exist` }
          entries = Object.keys(TOPIC_CONFIG_DEFAULTS).map((name) => ({
            name,
            value: topicConfig(t, name),
            source: t.configs.has(name)
              ? SOURCE_TOPIC
              : t.dynamicDefaults.has(name)
                ? SOURCE_DYNAMIC_DEFAULT_BROKER
                : topicDefaultGiven(cluster.given, name)
                  ? SOURCE_STATIC_BROKER
                  : SOURCE_DEFAULT,
            type: /^(true|false)$/.test(TOPIC_CONFIG_DEFAULTS[name].value)
              ? TYPE_BOOLEAN
              : /^-?\d+$/.test(TOPIC_CONFIG_DEFAULTS[name].value)
                ? name === 'min.insync.replicas' || name === 'max.message.bytes' || name === 'segment.bytes'
                  ? TYPE_INT
                  : TYPE_LONG
                : TYPE_STRING,
          }))
        } else if (dynamicKind(r.resourceType)) {
          const kind = dynamicKind(r.resourceType)!
          const refused = resourceProblem(cluster, kind, r.resourceName)
          if (refused) return { ...base, errorCode: refused.code, errorMessage: refused.message }
          // A broker's options as it started (read-only), then what may change at run time.
          entries = [
            ...(kind === 'broker' ? brokerConfigs(cluster, r.resourceName) : []),
            ...describeDynamic(cluster, kind, r.resourceName),
          ]
        } else {
          return { ...base, errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: `resource type ${r.resourceType} is not served` }
        }
        const keys = r.configurationKeys
        return {
          ...base,
          errorCode: ErrorCodes.NONE,
          errorMessage: null,
          configs: entries
            .filter((c) => keys === null || keys.includes(c.name))
            .map((c) => ({
              name: c.name,
              value: c.value,
              // Kafka's read-only configs: a broker's static ones that no AlterConfigs may change.
              readOnly: r.resourceType !== TOPIC && c.source === SOURCE_STATIC_BROKER && !isDynamicBrokerConfig(c.name),
              isDefault: c.source === SOURCE_DEFAULT,
              configSource: c.source,
              isSensitive: c.sensitive === true,
              synonyms: req.includeSynonyms ? (c.synonyms ?? [{ name: c.name, value: c.value, source: c.source }]) : [],
              configType: c.type,
              documentation: null,
            })),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    results: req.resources.map((r) => ({
      errorCode: code,
      errorMessage: null,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      configs: [],
    })),
  }),
})
