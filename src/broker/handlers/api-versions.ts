import { ErrorCodes } from '../../protocol/error-codes.js'
import { ApiVersions, type ApiVersionsRequest, type ApiVersionsResponse } from '../../protocol/messages/ApiVersions.js'
import type { EmbeddedCluster } from '../cluster.js'
import { finalizedFeatures, SUPPORTED_FEATURES } from '../features.js'
import { Writer } from '../../protocol/writer.js'
import { defineHandler, type Handler, type RequestContext } from '../handler.js'
import type { FirstAnswers } from '../network-thread.js'

/** The versions each served API really is served at, from the dispatch table (set there, to avoid an import cycle). */
export const served: { table: Record<number, Handler> } = { table: {} }

export function advertisedApis(): { apiKey: number; minVersion: number; maxVersion: number }[] {
  return Object.values(served.table)
    .map((h) => ({ apiKey: h.spec.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }))
    .sort((a, b) => a.apiKey - b.apiKey)
}

/**
 * The features (v3+): those the embedded broker supports (src/broker/features.ts)
 * and their finalized levels from the metadata log, at its features epoch
 * (a level 0 is not listed, as Kafka lists none at 0).
 */
function features(cluster: EmbeddedCluster, version: number) {
  const { controller } = cluster
  return {
    // Before v4 a supported minimum of 0 is left out (KAFKA-17011: older clients refuse it).
    supportedFeatures: [...SUPPORTED_FEATURES]
      .filter(([, r]) => version >= 4 || r.min > 0)
      .map(([name, r]) => ({ name, minVersion: r.min, maxVersion: r.max })),
    finalizedFeaturesEpoch: BigInt(controller.featuresEpoch),
    finalizedFeatures: finalizedFeatures(controller).map((f) => ({ name: f.name, minVersionLevel: f.level, maxVersionLevel: f.level })),
  }
}

/**
 * v5 (KIP-1242): a client names the cluster and node it means to reach, both
 * or neither (one alone: INVALID_REQUEST); another cluster or node is
 * REBOOTSTRAP_REQUIRED, as Kafka's broker answers.
 */
function wrongTarget(req: ApiVersionsRequest, { cluster, broker, version }: RequestContext): number | null {
  if (version < 5 || (req.clusterId === null && req.nodeId === -1)) return null
  if (req.clusterId === null || req.nodeId === -1) return ErrorCodes.INVALID_REQUEST
  return req.clusterId === cluster.controller.clusterId && req.nodeId === broker.id ? null : ErrorCodes.REBOOTSTRAP_REQUIRED
}

export const apiVersionsHandler = defineHandler<ApiVersionsRequest, ApiVersionsResponse>({
  spec: ApiVersions,
  minVersion: ApiVersions.minVersion,
  maxVersion: ApiVersions.maxVersion,
  handle: (req, ctx) => {
    const refused = wrongTarget(req, ctx)
    if (refused !== null) return { errorCode: refused, apiKeys: [] }
    return { errorCode: ErrorCodes.NONE, apiKeys: advertisedApis(), ...features(ctx.cluster, ctx.version) }
  },
  errorResponse: (_req, code) => ({ errorCode: code, apiKeys: code === ErrorCodes.UNSUPPORTED_VERSION ? advertisedApis() : [] }),
  // KIP-511: a version this broker does not speak gets the v0 answer listing the versions it does.
  refuseVersion: () => ({ version: 0, body: { errorCode: ErrorCodes.UNSUPPORTED_VERSION, apiKeys: advertisedApis() } }),
})

/**
 * The answers the network thread may give a connection's first request, an
 * ApiVersions at a served version naming no other cluster or node: the
 * handler's, encoded ahead (made again when the finalized features change).
 */
export function firstAnswers(cluster: EmbeddedCluster, nodeId: number): FirstAnswers {
  const bodies: Record<number, Uint8Array> = {}
  for (let v = apiVersionsHandler.minVersion; v <= apiVersionsHandler.maxVersion; v++) {
    const w = new Writer(512)
    ApiVersions.encodeResponse(w, v, { errorCode: ErrorCodes.NONE, apiKeys: advertisedApis(), ...features(cluster, v) })
    bodies[v] = new Uint8Array(w.finish())
  }
  return { bodies, clusterId: cluster.controller.clusterId, nodeId }
}
