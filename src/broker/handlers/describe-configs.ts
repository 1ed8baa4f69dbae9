import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeConfigs, type DescribeConfigsRequest, type DescribeConfigsResponse } from '../../protocol/messages/DescribeConfigs.js'
import type { EmbeddedCluster } from '../cluster.js'
import { defineHandler } from '../handler.js'
import { topicConfig, TOPIC_CONFIG_DEFAULTS } from '../topic-configs.js'

const TOPIC = 2
const BROKER = 4
const SOURCE_TOPIC = 1
const SOURCE_STATIC_BROKER = 4
const SOURCE_DEFAULT = 5
const TYPE_STRING = 2
const TYPE_INT = 3
const TYPE_LONG = 5
const TYPE_BOOLEAN = 1

interface Entry {
  name: string
  value: string
  source: number
  type: number
}

function brokerConfigs(cluster: EmbeddedCluster): Entry[] {
  const o = cluster.options
  const e = (name: string, value: string | number | boolean, type: number): Entry => ({
    name,
    value: String(value),
    source: SOURCE_STATIC_BROKER,
    type,
  })
  return [
    e('auto.create.topics.enable', o.autoCreateTopics, TYPE_BOOLEAN),
    e('num.partitions', o.defaultPartitions, TYPE_INT),
    e('default.replication.factor', 1, TYPE_INT),
    e('socket.request.max.bytes', o.maxRequestBytes, TYPE_INT),
    e('max.connections', o.maxConnections, TYPE_INT),
    e('group.min.session.timeout.ms', o.groupMinSessionTimeoutMs, TYPE_INT),
    e('group.max.session.timeout.ms', o.groupMaxSessionTimeoutMs, TYPE_INT),
    e('group.initial.rebalance.delay.ms', o.groupInitialRebalanceDelayMs, TYPE_INT),
  ]
}

/** DescribeConfigs for topics (the configs the broker knows, set or default) and brokers (its options). */
export const describeConfigsHandler = defineHandler<DescribeConfigsRequest, DescribeConfigsResponse>({
  spec: DescribeConfigs,
  minVersion: Math.max(1, DescribeConfigs.minVersion),
  maxVersion: DescribeConfigs.maxVersion,
  handle(req, { cluster }) {
    return {
      results: req.resources.map((r) => {
        const base = { resourceType: r.resourceType, resourceName: r.resourceName, configs: [] }
        let entries: Entry[]
        if (r.resourceType === TOPIC) {
          const t = cluster.controller.topics.get(r.resourceName)
          if (!t)
            return { ...base, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `Topic ${r.resourceName} does not exist` }
          entries = Object.keys(TOPIC_CONFIG_DEFAULTS).map((name) => ({
            name,
            value: topicConfig(t, name),
            source: t.configs.has(name) ? SOURCE_TOPIC : SOURCE_DEFAULT,
            type: /^(true|false)$/.test(TOPIC_CONFIG_DEFAULTS[name].value)
              ? TYPE_BOOLEAN
              : /^-?\d+$/.test(TOPIC_CONFIG_DEFAULTS[name].value)
                ? name === 'min.insync.replicas' || name === 'max.message.bytes' || name === 'segment.bytes'
                  ? TYPE_INT
                  : TYPE_LONG
                : TYPE_STRING,
          }))
        } else if (r.resourceType === BROKER) {
          const id = r.resourceName === '' ? null : Number(r.resourceName)
          if (id !== null && !cluster.brokers.has(id))
            return { ...base, errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: `no broker ${r.resourceName}` }
          entries = brokerConfigs(cluster)
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
              readOnly: r.resourceType === BROKER,
              isDefault: c.source === SOURCE_DEFAULT,
              configSource: c.source,
              isSensitive: false,
              synonyms: req.includeSynonyms ? [{ name: c.name, value: c.value, source: c.source }] : [],
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
