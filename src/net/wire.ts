import type { Buffer } from 'node:buffer'
import type { ApiSpec } from '../protocol/api.js'
import { decodeResponseHeader, encodeRequestHeader, requestHeaderVersion, responseHeaderVersion } from '../protocol/header.js'
import { ApiVersions } from '../protocol/messages/index.js'
import { Reader } from '../protocol/reader.js'
import { Writer } from '../protocol/writer.js'
import { ErrorCodes } from '../protocol/error-codes.js'

const { UNSUPPORTED_VERSION } = ErrorCodes

/**
 * A whole request frame: size, header, body. Each frame gets its own Writer:
 * the socket may still hold the bytes after write() returns.
 */
export function encodeRequestFrame(api: ApiSpec, version: number, correlationId: number, clientId: string | null, body: unknown): Buffer {
  return frameWriter(api, version, correlationId, clientId, body, new Writer(256)).finish()
}

/**
 * The same frame as blocks for one gathering socket write: large byte fields
 * (a Produce request's record batches) are referenced, not copied into it.
 */
export function encodeRequestParts(api: ApiSpec, version: number, correlationId: number, clientId: string | null, body: unknown): Buffer[] {
  return frameWriter(api, version, correlationId, clientId, body, new Writer(256).gather()).finishParts()
}

function frameWriter(api: ApiSpec, version: number, correlationId: number, clientId: string | null, body: unknown, w: Writer): Writer {
  w.reserve(4)
  encodeRequestHeader(w, requestHeaderVersion(api.apiKey, version), { apiKey: api.apiKey, apiVersion: version, correlationId, clientId })
  api.encodeRequest(w, version, body as any)
  w.setInt32At(0, w.length - 4)
  return w
}

/** A response frame (after its size): the header is checked by the caller; returns the decoded body. */
export function decodeResponseFrame(api: ApiSpec, version: number, frame: Buffer): unknown {
  const r = new Reader(frame)
  decodeResponseHeader(r, responseHeaderVersion(api.apiKey, version))
  if (api.apiKey === ApiVersions.apiKey && r.remaining >= 2 && frame.readInt16BE(r.offset) === UNSUPPORTED_VERSION) {
    // A broker that does not know the version we asked for answers with a v0
    // body listing its range; some answer with less. Either way: retry lower.
    try {
      return api.decodeResponse(r, 0)
    } catch {
      // Safe to drop: the error code was read; an undecodable range just means "retry at v0".
      return { errorCode: UNSUPPORTED_VERSION, apiKeys: [] }
    }
  }
  return api.decodeResponse(r, version) // its errors name the API and version
}
