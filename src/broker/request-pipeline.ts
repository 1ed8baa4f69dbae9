import type { Buffer } from 'node:buffer'
import type { ApiSpec, Input } from '../protocol/api.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion, type RequestHeader } from '../protocol/header.js'
import { apis } from '../protocol/messages/index.js'
import { Reader } from '../protocol/reader.js'
import { Writer } from '../protocol/writer.js'
import type { VirtualBroker } from './broker.js'
import type { EmbeddedCluster } from './cluster.js'
import { handlers } from './dispatch.js'
import { CLOSE_CONNECTION, NO_RESPONSE, type Handler, type HandlerResult, type RequestContext } from './handler.js'
import type { ClientConnection } from './listener.js'
import { BrokerError } from './broker-error.js'
import { AuthorizationRefused } from './auth/authorizer.js'
import { ApiKeys } from '../protocol/messages/api-keys.js'
import { clientOf } from './quotas/client-quotas.js'

/** What a frame gets back: a response, none, the connection closed, or a last response before the close. */
export type Answer = Buffer | null | 'close' | { last: Buffer }

/** A request read and ready to answer. */
interface Decoded {
  spec: ApiSpec
  handler: Handler | undefined
  req: unknown
  ctx: RequestContext
  /** The broker's time on the request in ms: its handler's until it first waits (a long poll's wait is not work). */
  spentMs: number
}

/** What request_percentage does not count nor throttle, as Kafka exempts them: a client must be able to connect and authenticate. */
const QUOTA_EXEMPT = new Set<number>([ApiKeys.ApiVersions, ApiKeys.SaslHandshake, ApiKeys.SaslAuthenticate])

/** An error a request is answered with before the connection closes (a request in the middle of a SASL exchange). */
type Refusal = { code: number; why: string }

/** A step's result: go on with `T`, or the frame's answer is settled. */
type Step<T> = { next: T } | { answer: Answer }

/**
 * How a virtual broker serves one request frame, as named steps: the SASL
 * gate, decoding, the answer (refused, unserved version, injected fault or
 * the handler's), and the response frame. What differs by API lives in its
 * handler (errorResponse, refuseVersion), not here.
 */
export class RequestPipeline {
  constructor(
    private readonly broker: VirtualBroker,
    private readonly cluster: EmbeddedCluster,
  ) {}

  readonly serve = async (frame: Buffer, connection: ClientConnection): Promise<Answer> => {
    const sasl = connection.sasl
    if (sasl?.expectsRawTokens) {
      const out = await sasl.rawToken(frame)
      if (out.kind === 'raw') return out.bytes
      return this.close(connection, out.why)
    }
    const r = new Reader(frame)
    let header: RequestHeader
    try {
      header = decodeRequestHeader(r)
    } catch (err) {
      // An unknown API key has no header version to read the rest by, nor a response format: Kafka closes too.
      return this.close(connection, `unreadable request header: ${(err as Error).message}`)
    }
    const gate = await this.gate(header, r, connection)
    if ('answer' in gate) return gate.answer
    const refusal = gate.next
    const decoded = this.decode(header, r, connection)
    if ('answer' in decoded) return decoded.answer
    const res = await this.answer(decoded.next, refusal)
    if (!refusal) this.throttle(decoded.next, res)
    if (res === NO_RESPONSE) return null
    if (res === CLOSE_CONNECTION) return 'close'
    await this.cluster.faults.delay()
    const out = this.frame(header, decoded.next.spec, header.apiVersion, res)
    return refusal ? this.lastBeforeClose(out, connection, refusal.why) : out
  }

  /** The SASL gate of a connection that authenticates: passed, refused (answered, then closed), or answered by the session itself. */
  private async gate(header: RequestHeader, r: Reader, connection: ClientConnection): Promise<Step<Refusal | null>> {
    const sasl = connection.sasl
    if (!sasl) return { next: null }
    const verdict = await sasl.intercept(header, r)
    switch (verdict.kind) {
      case 'pass':
        return { next: null }
      case 'refuse':
        return { next: { code: verdict.code, why: verdict.thenClose } }
      case 'close':
        return { answer: this.close(connection, verdict.why) }
      case 'reply': {
        const out = this.frame(header, verdict.spec, verdict.version, verdict.body as Input<unknown>)
        return { answer: verdict.thenClose ? this.lastBeforeClose(out, connection, verdict.thenClose) : out }
      }
    }
  }

  /** The request's body, by the API's codec; a version no codec reads is the handler's to refuse (KIP-511), else the connection closes. */
  private decode(header: RequestHeader, r: Reader, connection: ClientConnection): Step<Decoded> {
    const { apiKey, apiVersion } = header
    const handler = handlers[apiKey]
    const refused = handler && !serves(handler, apiVersion) ? handler.refuseVersion?.() : undefined
    if (refused) return { answer: this.frame(header, handler!.spec, refused.version, refused.body) }
    const spec = apis[apiKey]
    if (!spec || apiVersion < spec.minVersion || apiVersion > spec.maxVersion)
      return { answer: this.close(connection, `${spec?.name ?? `API key ${apiKey}`} v${apiVersion} has no codec here to answer it with`) }
    try {
      const req = spec.decodeRequest(r, apiVersion)
      const ctx = { broker: this.broker, cluster: this.cluster, header, version: apiVersion, connection, size: r.buffer.length }
      return { next: { spec, handler, req, ctx, spentMs: 0 } }
    } catch (err) {
      return { answer: this.close(connection, `malformed ${spec.name} v${apiVersion} request: ${(err as Error).message}`) }
    }
  }

  /** The response: the gate's refusal, an unserved version's, a fault a test injected, or the handler's (its crash answered UNKNOWN_SERVER_ERROR). */
  private async answer(d: Decoded, refusal: Refusal | null): Promise<HandlerResult<unknown>> {
    const { handler, req, ctx, spec } = d
    if (!handler) {
      // No handler: in the middle of a SASL exchange just the close, else its codec's bare error.
      if (!refusal) return { errorCode: ErrorCodes.UNSUPPORTED_VERSION }
      this.close(ctx.connection, refusal.why)
      return CLOSE_CONNECTION
    }
    if (refusal) return handler.errorResponse(req, refusal.code, ctx)
    if (!serves(handler, ctx.version)) return handler.errorResponse(req, ErrorCodes.UNSUPPORTED_VERSION, ctx)
    const injected = this.cluster.faults.take(spec.apiKey)
    if (injected !== null) return handler.errorResponse(req, injected, ctx)
    try {
      const started = performance.now()
      const answered = handler.handle(req, ctx)
      d.spentMs = performance.now() - started
      return await answered
    } catch (err) {
      // An authorization refusal is an answer, not a failure: told at INFO, as Kafka's authorizer log tells denials.
      if (err instanceof AuthorizationRefused) {
        this.cluster.problem(this.broker.id, `${spec.name} v${ctx.version} refused: ${err.message}`, 'info')
        return handler.errorResponse(req, err.code, ctx)
      }
      this.cluster.problem(this.broker.id, `${spec.name} v${ctx.version} failed: ${(err as Error).stack ?? err}`, 'error')
      // A controller's refusal carries its code (its metadata log not written: KAFKA_STORAGE_ERROR); anything else is a bug.
      return handler.errorResponse(req, err instanceof BrokerError ? err.code : ErrorCodes.UNKNOWN_SERVER_ERROR, ctx)
    }
  }

  /**
   * Client quotas (KIP-219): the request's time counted against its
   * client's request_percentage, and the longer of that throttle and the
   * one its handler set (Produce's and Fetch's byte rates) answered as
   * throttle_time_ms; the connection is then muted for it once the response
   * is sent. In-process peers (other virtual brokers) are not clients.
   */
  private throttle(d: Decoded, res: HandlerResult<unknown>): void {
    const quotas = this.broker.quotas
    const { connection, header } = d.ctx
    if (!quotas.active || connection.internal || QUOTA_EXEMPT.has(header.apiKey)) return
    const client = clientOf(d.ctx)
    const body = typeof res === 'object' && res !== null ? (res as { throttleTimeMs?: number }) : null
    const ms = Math.max(d.ctx.requestTimeRecorded ? 0 : quotas.spent(client, d.spentMs), body?.throttleTimeMs ?? 0)
    if (ms <= 0) return
    if (body) body.throttleTimeMs = ms
    connection.throttle(ms)
  }

  /** The response frame, its header at the version the request's API and version call for. */
  private frame(header: RequestHeader, spec: ApiSpec, version: number, res: Input<unknown>): Buffer | 'close' {
    const w = new Writer(256)
    w.reserve(4)
    try {
      encodeResponseHeader(w, responseHeaderVersion(spec.apiKey, version), { correlationId: header.correlationId })
      spec.encodeResponse(w, version, res)
    } catch (err) {
      this.cluster.problem(this.broker.id, `could not encode the ${spec.name} v${version} response: ${(err as Error).message}`, 'error')
      return 'close'
    }
    w.setInt32At(0, w.length - 4)
    return w.finish()
  }

  /** A response sent as the connection's last, the reason said. */
  private lastBeforeClose(out: Buffer | 'close', connection: ClientConnection, why: string): Answer {
    if (out === 'close') return out
    this.cluster.problem(this.broker.id, `${connection.remote}: ${why}; connection closed`, 'info')
    return { last: out }
  }

  private close(connection: ClientConnection, why: string): 'close' {
    connection.close(why)
    return 'close'
  }
}

function serves(handler: Handler, version: number): boolean {
  return version >= handler.minVersion && version <= handler.maxVersion
}
