import { ProtocolError, UnsupportedApiError } from '../errors.js'
import type { Input, Tagged } from './api.js'
import { ApiKeys, apiKeyInfo } from './messages/api-keys.js'
import type { Reader } from './reader.js'
import type { Writer } from './writer.js'

/**
 * Request header: v0 is key, version and correlation id; v1 adds the client
 * id; v2 adds a tagged-field section. The client id keeps its int16 length
 * in v2 (the spec's field-level "flexibleVersions": "none"), so any broker
 * can read the header of a request it cannot otherwise parse.
 */
export interface RequestHeader extends Tagged {
  apiKey: number
  apiVersion: number
  correlationId: number
  /** v1+. */
  clientId: string | null
}

/** Response header: v0 is the correlation id; v1 adds a tagged-field section. */
export interface ResponseHeader extends Tagged {
  correlationId: number
}

/** The request header version for an API version: 2 when the version is flexible, else 1. */
export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  return apiVersion >= flexibleFrom(apiKey) ? 2 : 1
}

/** The response header version for an API version: 1 when the version is flexible, else 0. */
export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  // ApiVersions answers with header v0 at every version (KIP-511): a client
  // must read it before it knows which versions the broker speaks.
  if (apiKey === ApiKeys.ApiVersions) return 0
  return apiVersion >= flexibleFrom(apiKey) ? 1 : 0
}

function flexibleFrom(apiKey: number): number {
  const info = apiKeyInfo[apiKey]
  if (info === undefined) throw new UnsupportedApiError(`API key ${apiKey} is not in the Kafka protocol wafka knows`)
  return info.flexibleFrom
}

export function encodeRequestHeader(w: Writer, headerVersion: number, h: Input<RequestHeader>): void {
  if (!(headerVersion >= 0 && headerVersion <= 2)) throw new ProtocolError(`request header v${headerVersion} does not exist`)
  w.int16(h.apiKey ?? 0)
  w.int16(h.apiVersion ?? 0)
  w.int32(h.correlationId ?? 0)
  if (headerVersion >= 1) w.nullableString(h.clientId ?? null)
  if (headerVersion >= 2) w.tags(h._unknownTags)
}

/** Reads a request header (a broker's side); its version follows from the key and version it starts with. */
export function decodeRequestHeader(r: Reader): RequestHeader {
  try {
    const h: RequestHeader = {
      apiKey: r.int16('RequestHeader.RequestApiKey'),
      apiVersion: r.int16('RequestHeader.RequestApiVersion'),
      correlationId: r.int32('RequestHeader.CorrelationId'),
      clientId: null,
    }
    const headerVersion = requestHeaderVersion(h.apiKey, h.apiVersion)
    if (headerVersion >= 1) h.clientId = r.nullableString('RequestHeader.ClientId')
    if (headerVersion >= 2) r.tags(h)
    return h
  } catch (err) {
    throw err instanceof ProtocolError ? new ProtocolError(`request header: ${err.message}`, { cause: err }) : err
  }
}

export function encodeResponseHeader(w: Writer, headerVersion: number, h: Input<ResponseHeader>): void {
  if (!(headerVersion >= 0 && headerVersion <= 1)) throw new ProtocolError(`response header v${headerVersion} does not exist`)
  w.int32(h.correlationId ?? 0)
  if (headerVersion >= 1) w.tags(h._unknownTags)
}

export function decodeResponseHeader(r: Reader, headerVersion: number): ResponseHeader {
  if (!(headerVersion >= 0 && headerVersion <= 1)) throw new ProtocolError(`response header v${headerVersion} does not exist`)
  try {
    const h: ResponseHeader = { correlationId: r.int32('ResponseHeader.CorrelationId') }
    if (headerVersion >= 1) r.tags(h)
    return h
  } catch (err) {
    throw err instanceof ProtocolError ? new ProtocolError(`response header: ${err.message}`, { cause: err }) : err
  }
}
