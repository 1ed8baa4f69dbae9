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

export const apiVersionsHandler = defineHandler<ApiVersionsRequest, ApiVersionsResponse>({
  spec: ApiVersions,
  minVersion: ApiVersions.minVersion,
  // v5 asks the broker to check the client's cluster and node ids: not yet.
  maxVersion: 4,
  handle: () => ({ errorCode: ErrorCodes.NONE, apiKeys: advertisedApis() }),
  errorResponse: (_req, code) => ({ errorCode: code, apiKeys: code === ErrorCodes.UNSUPPORTED_VERSION ? advertisedApis() : [] }),
  // KIP-511: a version this broker does not speak gets the v0 answer listing the versions it does.
  refuseVersion: () => ({ version: 0, body: { errorCode: ErrorCodes.UNSUPPORTED_VERSION, apiKeys: advertisedApis() } }),
})
