import type { ApiSpec, Input } from '../protocol/api.js'
import type { RequestHeader } from '../protocol/header.js'
import type { VirtualBroker } from './broker.js'
import type { EmbeddedCluster } from './cluster.js'
import type { ClientConnection } from './listener.js'

export interface RequestContext {
  broker: VirtualBroker
  cluster: EmbeddedCluster
  header: RequestHeader
  /** The request's API version. */
  version: number
  connection: ClientConnection
  /** The request frame's size in bytes (what Produce counts against producer_byte_rate, as Kafka's request.sizeInBytes). */
  size: number
  /**
   * Set by a handler that counted the request's time against
   * request_percentage itself, before choosing its answer (Fetch, which
   * answers a throttled fetch empty, as Kafka's): the pipeline then does not.
   */
  requestTimeRecorded?: boolean
}

/** A handler's answer for a request that gets no response (Produce with acks=0). */
export const NO_RESPONSE = Symbol('no response')
/** A handler's answer that closes the connection instead (Produce with acks=0 that failed, as Kafka does). */
export const CLOSE_CONNECTION = Symbol('close connection')

export type HandlerResult<Res> = Input<Res> | typeof NO_RESPONSE | typeof CLOSE_CONNECTION

/** How the broker serves one API: the versions it really serves, and for which error answers. */
export interface Handler<Req = any, Res = any> {
  spec: ApiSpec<Req, Res>
  minVersion: number
  maxVersion: number
  handle(req: Req, ctx: RequestContext): HandlerResult<Res> | Promise<HandlerResult<Res>>
  /** The response that reports `code` for everything the request asked (injected faults, failures, unserved versions). */
  errorResponse(req: Req, code: number, ctx: RequestContext): HandlerResult<Res>
  /**
   * How a version outside minVersion-maxVersion is answered before its body
   * is read, when the API has such an answer (ApiVersions, KIP-511); absent,
   * the body is read and errorResponse reports UNSUPPORTED_VERSION.
   */
  refuseVersion?(): { version: number; body: Input<Res> }
}

export function defineHandler<Req, Res>(h: Handler<Req, Res>): Handler<Req, Res> {
  return h
}
