import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { check, requireVersion } from './checks.js'
import { DescribeConfigs, IncrementalAlterConfigs, ListConfigResources, type DescribeConfigsRequest } from '../protocol/messages/index.js'

/** Resource configs: DescribeConfigs and IncrementalAlterConfigs (broker configs at that broker), ListConfigResources. */

/**
 * Kafka's config resource types (DescribeConfigs / IncrementalAlterConfigs:
 * ConfigResource.Type). Not the ACL ones (AclResourceTypes): there a group is 3,
 * here it is 32.
 */
export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const
export const ConfigOperations = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const
export type ConfigOperation = keyof typeof ConfigOperations

export async function describeConfigs(
  cluster: ClusterClient,
  options: {
    resources: Array<{ type: number; name: string; configNames?: string[] | null }>
    includeSynonyms?: boolean
  },
) {
  // The brokers' throttle_time_ms (quotas, KIP-219), the longest of the answers (the connection holds its next requests back for it).
  let throttleTime = 0
  const results = await Promise.all(
    options.resources.map((r) =>
      cluster
        .request(
          DescribeConfigs,
          (v) => ({
            resources: [{ resourceType: r.type, resourceName: r.name, configurationKeys: r.configNames ?? null }],
            ...(options.includeSynonyms
              ? ({ includeSynonyms: requireVersion(v, 1, 'config synonyms') } satisfies Partial<DescribeConfigsRequest>)
              : {}),
          }),
          configRoute(r),
          { check: (res, from) => check(res.results[0].errorCode, 'DescribeConfigs', `${r.name}`, res.results[0].errorMessage, from) },
        )
        .then(({ res }) => {
          throttleTime = Math.max(throttleTime, res.throttleTimeMs ?? 0)
          const x = res.results[0]
          return {
            errorCode: x.errorCode,
            errorMessage: x.errorMessage,
            resourceName: x.resourceName,
            resourceType: x.resourceType,
            configEntries: x.configs.map((c) => ({
              configName: c.name,
              configValue: c.value,
              readOnly: c.readOnly,
              isDefault: c.configSource === 5, // DEFAULT_CONFIG
              configSource: c.configSource,
              isSensitive: c.isSensitive,
              configSynonyms: (c.synonyms ?? []).map((s) => ({ configName: s.name, configValue: s.value, configSource: s.source })),
            })),
          }
        }),
    ),
  )
  return { resources: results, throttleTime }
}

/** Incremental config changes (IncrementalAlterConfigs): each entry says SET, DELETE, APPEND or SUBTRACT (default SET). */
export async function alterConfigs(
  cluster: ClusterClient,
  options: {
    resources: Array<{
      type: number
      name: string
      configEntries: Array<{ name: string; value?: string | null; operation?: ConfigOperation }>
    }>
    validateOnly?: boolean
  },
) {
  return Promise.all(
    options.resources.map((r) =>
      cluster
        .request(
          IncrementalAlterConfigs,
          {
            resources: [
              {
                resourceType: r.type,
                resourceName: r.name,
                configs: r.configEntries.map((c) => ({
                  name: c.name,
                  configOperation: ConfigOperations[c.operation ?? 'SET'],
                  value: c.value ?? null,
                })),
              },
            ],
            validateOnly: options.validateOnly ?? false,
          },
          configRoute(r),
          {
            check: (res, from) => check(res.responses[0].errorCode, 'IncrementalAlterConfigs', r.name, res.responses[0].errorMessage, from),
          },
        )
        .then(({ res }) => ({ resourceType: res.responses[0].resourceType, resourceName: res.responses[0].resourceName })),
    ),
  )
}

/** Broker configs live on that broker; every broker's defaults (an empty name), topic and other configs can be asked of any, as Java's admin does. */
function configRoute(r: { type: number; name: string }) {
  return r.type === ConfigResourceTypes.BROKER && r.name !== '' ? Routes.node(Number(r.name)) : Routes.any()
}

/**
 * The resources configs can be described for (ListConfigResources, Java's
 * Admin#listConfigResources): of `types` (ConfigResourceTypes), or every
 * type the broker lists when none is given. A v0 broker (Kafka 3.7-4.0,
 * ListClientMetricsResources) lists client metrics alone: other types need v1.
 */
export async function listConfigResources(cluster: ClusterClient, types: readonly number[] = []) {
  const { res } = await cluster.request(
    ListConfigResources,
    (v) => {
      if (v === 0 && types.some((t) => t !== ConfigResourceTypes.CLIENT_METRICS))
        requireVersion(v, 1, 'listing config resources other than client metrics')
      return { resourceTypes: v >= 1 ? [...types] : [] }
    },
    Routes.any(),
    { check: (r, from) => check(r.errorCode, 'ListConfigResources', `types ${types.join(',') || 'all'}`, null, from) },
  )
  return res.configResources.map((r) => ({ type: r.resourceType, name: r.resourceName }))
}
