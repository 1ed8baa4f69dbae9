import { ErrorCodes } from '../../protocol/error-codes.js'
import { ApiVersions, type ApiVersionsRequest, type ApiVersionsResponse } from '../../protocol/messages/ApiVersions.js'
import { defineHandler, type Handler } from '../handler.js'

/** The versions each served API really is served at, from the dispatch table (set there, to avoid an import cycle). */
export const served: { table: Record<number, Handler> } = { table: {} }

export function advertisedApis(): { apiKey: number; minVersion: number; maxVersion: number }[] {
  return Object.values(served.table)
    .map((h) => ({ apiKey: h.spec.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }))
    .sort((a, b) => a.apiKey - b.apiKey)
}

/**
 * The finalized features' epoch (Kafka's metadata offset of the last
 * feature change): the embedded broker's features are set at start, so
 * any epoch past -1 (none) will do; clients only compare them.
 */
const FEATURES_EPOCH = 1n

/**
 * The features (v3+) Kafka 4.4 advertises that the embedded broker acts on:
 * transaction.version (KIP-890), supported 0-2, finalized at the cluster's
 * transactionVersion (a level 0 is not listed, as Kafka lists none at 0).
 */
function features(transactionVersion: number, version: number) {
  return {
    // Before v4 a supported minimum of 0 is left out (KAFKA-17011: older clients refuse it).
    supportedFeatures: version >= 4 ? [{ name: 'transaction.version', minVersion: 0, maxVersion: 2 }] : [],
    finalizedFeaturesEpoch: FEATURES_EPOCH,
    finalizedFeatures:
      transactionVersion > 0
        ? [{ name: 'transaction.version', minVersionLevel: transactionVersion, maxVersionLevel: transactionVersion }]
        : [],
  }
}

export const apiVersionsHandler = defineHandler<ApiVersionsRequest, ApiVersionsResponse>({
  spec: ApiVersions,
  minVersion: ApiVersions.minVersion,
  // v5 asks the broker to check the client's cluster and node ids: not yet.
  maxVersion: 4,
  handle: (_req, { cluster, version }) => ({
    errorCode: ErrorCodes.NONE,
    apiKeys: advertisedApis(),
    ...features(cluster.options.transactionVersion, version),
  }),
  errorResponse: (_req, code) => ({ errorCode: code, apiKeys: code === ErrorCodes.UNSUPPORTED_VERSION ? advertisedApis() : [] }),
  // KIP-511: a version this broker does not speak gets the v0 answer listing the versions it does.
  refuseVersion: () => ({ version: 0, body: { errorCode: ErrorCodes.UNSUPPORTED_VERSION, apiKeys: advertisedApis() } }),
})
