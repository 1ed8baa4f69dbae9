import type { Buffer } from 'node:buffer'
import type { ApiSpec, Input } from '../protocol/api.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion, type RequestHeader } from '../protocol/header.js'
import { ApiKeys } from '../protocol/messages/api-keys.js'
import { apis } from '../protocol/messages/index.js'
import { Reader } from '../protocol/reader.js'
import { Writer } from '../protocol/writer.js'
import type { EmbeddedCluster } from './cluster.js'
import { apiVersionsRefusal, handlers } from './dispatch.js'
import { CLOSE_CONNECTION, NO_RESPONSE, type RequestContext } from './handler.js'
import { Listener, type ClientConnection } from './listener.js'
import { FetchSessions } from './fetch-sessions.js'
import { PartitionLog } from './partition-log.js'
import { ProducerState } from './producer-state.js'

/** A partition as one broker holds it: its log and the producers' idempotence state. */
export interface Replica {
  log: PartitionLog
  producers: ProducerState
}

/**
 * One virtual broker: its own listener on 127.0.0.1, the replicas it holds,
 * and the request pipeline (header, dispatch by API key, the handler,
 * response frame). A stopped broker keeps its replicas, as a disk would.
 */
export class VirtualBroker {
  host = '127.0.0.1'
  port = 0
  private listener: Listener | null = null
  readonly replicas = new Map<string, Replica>()
  /** Ends every waiting long poll early (on stop); each registers itself here. */
  readonly waits = new Set<() => void>()
  readonly fetchSessions = new FetchSessions()

  constructor(
    readonly id: number,
    private readonly cluster: EmbeddedCluster,
  ) {}

  get running(): boolean {
    return this.listener !== null
  }

  /** Listens on `port` (0: an ephemeral one the first time, the same one after a stop). */
  async start(port = this.port): Promise<void> {
    if (this.listener) return
    const { maxRequestBytes, maxConnections } = this.cluster.options
    const listener = new Listener(this.handleFrame, maxRequestBytes, (why) => this.cluster.problem(this.id, why), maxConnections)
    this.port = await listener.listen(this.host, port)
    this.listener = listener
  }

  async stop(): Promise<void> {
    const listener = this.listener
    this.listener = null
    for (const end of [...this.waits]) end()
    // Sessions live in a broker's memory: a restarted broker knows none.
    this.fetchSessions.clear()
    await listener?.close()
  }

  replica(topicId: string, partition: number): Replica {
    const key = `${topicId}/${partition}`
    let r = this.replicas.get(key)
    if (!r) this.replicas.set(key, (r = { log: new PartitionLog(), producers: new ProducerState() }))
    return r
  }

  private readonly handleFrame = async (frame: Buffer, connection: ClientConnection): Promise<Buffer | null | 'close'> => {
    const r = new Reader(frame)
    let header: RequestHeader
    try {
      header = decodeRequestHeader(r)
    } catch (err) {
      // An unknown API key has no header version to read the rest by, nor a response format: Kafka closes too.
      connection.close(`unreadable request header: ${(err as Error).message}`)
      return 'close'
    }
    const { apiKey, apiVersion } = header
    const handler = handlers[apiKey]
    if (apiKey === ApiKeys.ApiVersions && !(handler && apiVersion >= handler.minVersion && apiVersion <= handler.maxVersion)) {
      // KIP-511: a version this broker does not speak gets the v0 answer listing the versions it does.
      return this.frame(header, apis[apiKey], 0, apiVersionsRefusal(), 0)
    }
    const spec = apis[apiKey]
    if (!spec || apiVersion < spec.minVersion || apiVersion > spec.maxVersion) {
      connection.close(`${spec?.name ?? `API key ${apiKey}`} v${apiVersion} has no codec here to answer it with`)
      return 'close'
    }
    let req: unknown
    try {
      req = spec.decodeRequest(r, apiVersion)
    } catch (err) {
      connection.close(`malformed ${spec.name} v${apiVersion} request: ${(err as Error).message}`)
      return 'close'
    }
    const ctx: RequestContext = { broker: this, cluster: this.cluster, header, version: apiVersion, connection }
    let res: unknown
    if (!handler || apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
      res = handler ? handler.errorResponse(req, ErrorCodes.UNSUPPORTED_VERSION, ctx) : { errorCode: ErrorCodes.UNSUPPORTED_VERSION }
    } else {
      const injected = this.cluster.faults.take(apiKey)
      if (injected !== null) {
        res = handler.errorResponse(req, injected, ctx)
        // A failed acks=0 produce closes the connection, as Kafka's does (there is no response to carry the error).
        if (apiKey === ApiKeys.Produce && (req as { acks: number }).acks === 0) res = CLOSE_CONNECTION
      } else {
        try {
          res = await handler.handle(req, ctx)
        } catch (err) {
          this.cluster.problem(this.id, `${spec.name} v${apiVersion} failed: ${(err as Error).stack ?? err}`)
          res = handler.errorResponse(req, ErrorCodes.UNKNOWN_SERVER_ERROR, ctx)
        }
      }
    }
    if (res === NO_RESPONSE) return null
    if (res === CLOSE_CONNECTION) return 'close'
    await this.cluster.faults.delay()
    return this.frame(header, spec, apiVersion, res as Input<unknown>, responseHeaderVersion(apiKey, apiVersion))
  }

  private frame(header: RequestHeader, spec: ApiSpec, version: number, res: Input<unknown>, headerVersion: number): Buffer | 'close' {
    const w = new Writer(256)
    w.reserve(4)
    try {
      encodeResponseHeader(w, headerVersion, { correlationId: header.correlationId })
      spec.encodeResponse(w, version, res)
    } catch (err) {
      this.cluster.problem(this.id, `could not encode the ${spec.name} v${version} response: ${(err as Error).message}`)
      return 'close'
    }
    w.setInt32At(0, w.length - 4)
    return w.finish()
  }
}
