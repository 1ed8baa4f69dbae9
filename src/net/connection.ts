import { Buffer } from 'node:buffer'
import * as net from 'node:net'
import { ConnectionError, ProtocolError, TimeoutError, TlsError, UnsupportedApiError, WafkaError, kafkaError } from '../errors.js'
import { SaslAuthenticator } from './sasl/authenticator.js'
import { tlsError } from './tls-errors.js'
import type { ApiSpec, Input } from '../protocol/api.js'
import { ApiVersions } from '../protocol/messages/index.js'
import { newestInUse } from '../protocol/versions-in-use.js'
import { abortable } from './backoff.js'
import { INT32_MAX } from '../int32.js'
import { FrameSplitter } from './frames.js'
import { builtin, preloadBuiltins } from '../node-builtins.js'
import { decodeResponseFrame, encodeRequestParts } from './wire.js'
import { clientThrottles, ThrottleGate, throttleTimeOf } from './throttle.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { CONNECTION_DEFAULTS, type ConnectionOptions, type RequestEvent, type RequestTiming } from './connection-options.js'
import { definedOnly } from '../defined-only.js'
import { describeError, silentLogger, type Logger } from '../logger.js'
import { channels, type RequestContext } from '../observe/channels.js'

export type { ConnectionOptions, RequestEvent, RequestListener, RequestTiming } from './connection-options.js'

export interface RequestOptions {
  /** Default: the highest version both sides support, up to maxVersion. */
  version?: number
  /** The newest version to negotiate, when the caller implements less than the codec knows. */
  maxVersion?: number
  timeoutMs?: number
  /** false for Produce with acks=0: the broker sends nothing back. */
  expectResponse?: boolean
  /** SASL's own requests: sent while exclusive() holds the others back. */
  exclusive?: boolean
}

interface Call {
  api: ApiSpec<any, any>
  version: number
  body: unknown
  expectResponse: boolean
  timeoutMs: number
  resolve(value: any): void
  reject(error: Error): void
  correlationId?: number
  /** Epoch ms, recorded only when someone listens (onRequest, or the `wafka:request` channel). */
  createdAt: number
  sentAt: number
  /** Order of writing, for telling which unanswered requests came before. */
  seq?: number
  timer?: ReturnType<typeof setTimeout>
  /** The `wafka:request` channel's context, when it has subscribers: told what onRequest is told. */
  traced?: RequestContext
}

export const CLIENT_SOFTWARE_NAME = 'wafka'
export const CLIENT_SOFTWARE_VERSION = '0.1.0'

/**
 * One socket to one broker: framing, correlation ids, pipelining up to
 * maxInFlight, timeouts, and the API versions the broker speaks (negotiated
 * once, on connect). Responses arrive in request order; anything else, or a
 * request timing out, leaves the stream in an unknown state, so the
 * connection is closed and every call on it fails (retriably).
 */
export class Connection {
  readonly host: string
  readonly port: number
  readonly nodeId: number | undefined
  /** Broker's supported versions by API key: [min, max]. */
  readonly apiVersions = new Map<number, [number, number]>()
  /** The ApiVersions version the broker finally accepted. */
  apiVersionsVersion = 0

  private readonly options: Required<Omit<ConnectionOptions, 'nodeId' | 'tls' | 'ssl' | 'sasl' | 'onClose' | 'signal' | 'onRequest'>> &
    ConnectionOptions
  private socket: net.Socket | undefined
  private readonly inFlight: Call[] = []
  private readonly waiting: Call[] = []
  private nextCorrelationId = 0
  private sent = 0
  /**
   * Requests sent expecting no response (acks=0). Kafka brokers send none,
   * but some implementations (librdkafka's mock) answer anyway: such an
   * answer is recognised and dropped instead of breaking the stream.
   */
  private readonly unanswered: Array<{ id: number; seq: number }> = []
  private closed = false
  private closeError: Error | undefined
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private sasl: SaslAuthenticator | undefined
  /** While set (exclusive()), only SASL's requests are written; the rest wait in order. */
  private held = false
  private drained: Array<() => void> = []
  /** Broker quotas (KIP-219): after a throttled answer, sends wait here until the throttle has passed. */
  private readonly throttle: ThrottleGate

  private get log(): Logger {
    return this.options.logger ?? silentLogger
  }

  private constructor(options: ConnectionOptions) {
    this.options = { ...CONNECTION_DEFAULTS, ...definedOnly(options) } as any
    this.host = options.host
    this.port = options.port
    this.nodeId = options.nodeId
    // Capped at the request timeout: waiting longer than a request may take is a broker's bug, not a quota.
    this.throttle = new ThrottleGate(this.options.requestTimeoutMs, () => this.pump())
  }

  /**
   * Connects and negotiates API versions. A failure keeps its cause's
   * retriability: a broker that answers ApiVersions with garbage or shares no
   * version with us will not do better on the next try.
   */
  static async open(options: ConnectionOptions): Promise<Connection> {
    // `this`, not the class's own name, which makes the bundler rename the class (test/built-names).
    const connection = new this(options)
    const { signal } = options
    if (signal?.aborted) throw signal.reason
    const onAbort = () => connection.close(signal!.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await abortable(connection.connect(), signal)
      await abortable(connection.negotiateVersions(), signal)
      if (options.sasl) {
        connection.sasl = new SaslAuthenticator(connection, connection.options as Required<ConnectionOptions>)
        await abortable(connection.sasl.start(), signal)
      }
    } catch (err) {
      connection.close(err as Error)
      const cause = err instanceof ConnectionError ? err.cause : undefined
      if (cause instanceof WafkaError && !cause.retriable) throw new ConnectionError((err as Error).message, { cause, retriable: false })
      throw err
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    return connection
  }

  get name(): string {
    return this.nodeId === undefined ? `${this.host}:${this.port}` : `broker ${this.nodeId} (${this.host}:${this.port})`
  }

  get isOpen(): boolean {
    return !this.closed
  }

  /** Epoch ms until which the broker throttles this connection (KIP-219), 0 when it does not. */
  get throttledUntil(): number {
    return this.throttle.openAt
  }

  /** Requests written and awaiting their response. */
  get inFlightCount(): number {
    return this.inFlight.length
  }

  /** Requests queued behind maxInFlight (or a throttle), not yet written. */
  get waitingCount(): number {
    return this.waiting.length
  }

  /** host:port, as the request events name the broker. */
  get address(): string {
    return `${this.host}:${this.port}`
  }

  /**
   * The highest version of `api` both sides speak, at most `max` (by default
   * the newest wafka's callers implement); throws UnsupportedApiError when
   * there is none.
   */
  versionFor(api: ApiSpec<any, any>, max = Infinity): number {
    const range = this.apiVersions.get(api.apiKey)
    if (!range) throw new UnsupportedApiError(`${this.name} does not support the ${api.name} API (key ${api.apiKey})`)
    const ours = Math.min(max, newestInUse(api))
    const high = Math.min(range[1], ours)
    const low = Math.max(range[0], api.minVersion)
    if (high < low) throw unsupported(this.name, api, range, ours)
    return high
  }

  /** True when the broker supports `api` at `version` or later. */
  supports(api: ApiSpec<any, any>, version = api.minVersion): boolean {
    const range = this.apiVersions.get(api.apiKey)
    return range !== undefined && range[1] >= version && Math.min(range[1], api.maxVersion) >= Math.max(range[0], api.minVersion)
  }

  request<Req, Res>(api: ApiSpec<Req, Res>, body: Input<Req>, options: RequestOptions = {}): Promise<Res> {
    if (!channels.request.active) return this.call(api, body, options, undefined)
    const traced: RequestContext = {
      apiName: api.name,
      apiKey: api.apiKey,
      apiVersion: -1,
      broker: `${this.host}:${this.port}`,
      nodeId: this.nodeId,
      clientId: this.options.clientId,
      createdAt: Date.now(),
    }
    return channels.request.trace(() => this.call(api, body, options, traced), traced)
  }

  private call<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: Input<Req>,
    options: RequestOptions,
    traced: RequestContext | undefined,
  ): Promise<Res> {
    if (this.closed) return Promise.reject(this.closedError())
    let version: number
    try {
      version = options.version ?? this.versionFor(api, options.maxVersion)
    } catch (err) {
      return Promise.reject(err)
    }
    if (traced) traced.apiVersion = version
    return new Promise<Res>((resolve, reject) => {
      const call: Call = {
        api,
        version,
        body,
        expectResponse: options.expectResponse ?? true,
        timeoutMs: options.timeoutMs ?? this.options.requestTimeoutMs,
        resolve,
        reject,
        createdAt: traced ? traced.createdAt : this.options.onRequest ? Date.now() : 0,
        sentAt: 0,
        traced,
      }
      if (options.exclusive || (!this.held && this.inFlight.length < this.options.maxInFlight && !this.throttle.closed)) this.send(call)
      else {
        this.waiting.push(call)
        this.throttle.arm()
        if (this.options.onRequest) this.tellQueueSize()
      }
    })
  }

  /** Closes the socket; calls in flight fail with `error` (or a ConnectionError). */
  close(error?: Error): void {
    if (this.closed) return
    this.closed = true
    this.closeError = error
    this.log.debug('connection closed', { broker: this.name, ...(error ? describeError(error) : {}) })
    clearTimeout(this.idleTimer)
    this.throttle.stop()
    this.sasl?.stop()
    this.socket?.destroy()
    const failure = this.closedError()
    for (const call of this.inFlight.splice(0)) {
      clearTimeout(call.timer)
      call.reject(failure)
    }
    for (const call of this.waiting.splice(0)) call.reject(failure)
    for (const wake of this.drained.splice(0)) wake()
    this.options.onClose?.(error)
  }

  /**
   * Runs fn once the requests in flight are answered, holding every other
   * request back (in order) until it ends: SASL re-authentication must not
   * interleave with other requests on the connection.
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.held = true
    try {
      while (this.inFlight.length > 0 && !this.closed) await new Promise<void>((wake) => this.drained.push(wake))
      return await fn()
    } finally {
      this.held = false
      this.pump()
    }
  }

  private closedError(): Error {
    // A TLS failure is the answer to every call, not a reason to try again.
    if (this.closeError instanceof TlsError) return this.closeError
    const reason = this.closeError ? `: ${this.closeError.message}` : ''
    return new ConnectionError(`connection to ${this.name} is closed${reason}`, { cause: this.closeError })
  }

  private async connect(): Promise<void> {
    const tlsOptions = this.options.ssl ?? this.options.tls
    if (tlsOptions) await preloadBuiltins()
    return new Promise((resolve, reject) => {
      const { host, port, connectTimeoutMs, socketFactory } = this.options
      const timer = setTimeout(
        () => {
          const err = new TimeoutError(`connecting to ${this.name} took longer than ${connectTimeoutMs} ms`)
          this.close(err)
          reject(err)
        },
        Math.min(connectTimeoutMs, INT32_MAX),
      )
      const connected = () => {
        clearTimeout(timer)
        this.touch()
        this.log.debug('connected', { broker: this.name, tls: Boolean(tlsOptions) })
        resolve()
      }
      // A factory's socket says it is connected through onConnect (it may connect through a proxy first).
      const ssl = tlsOptions === true ? {} : tlsOptions || undefined
      let socket: net.Socket
      try {
        socket = socketFactory
          ? socketFactory({ host, port, ssl, onConnect: connected })
          : tlsOptions
            ? builtin('node:tls').connect({
                host,
                port,
                servername: net.isIP(host) ? undefined : host,
                ...(tlsOptions === true ? {} : tlsOptions),
              })
            : net.connect({ host, port })
      } catch (err) {
        clearTimeout(timer)
        return reject(new ConnectionError(`making a socket for ${this.name} failed: ${(err as Error).message}`, { cause: err }))
      }
      this.socket = socket
      socket.setNoDelay?.(true)
      const splitter = new FrameSplitter(this.options.maxResponseBytes, (frame) => this.onFrame(frame))
      if (!socketFactory) socket.once(tlsOptions ? 'secureConnect' : 'connect', connected)
      socket.on('data', (chunk: Buffer) => {
        try {
          splitter.push(chunk)
        } catch (err) {
          this.close(err as Error)
        }
      })
      socket.on('error', (err) => {
        clearTimeout(timer)
        const wrapped = tlsError(err, this.name) ?? new ConnectionError(`connection to ${this.name} failed: ${err.message}`, { cause: err })
        if (!this.closed) reject(wrapped)
        this.close(wrapped)
      })
      socket.on('close', () => {
        clearTimeout(timer)
        if (!this.closed) {
          const err = new ConnectionError(`${this.name} closed the connection`)
          reject(err)
          this.close(err)
        }
      })
    })
  }

  private send(call: Call): void {
    const correlationId = (this.nextCorrelationId = (this.nextCorrelationId + 1) | 0)
    call.correlationId = correlationId
    call.seq = this.sent++
    let frame: Buffer[]
    try {
      frame = encodeRequestParts(call.api, call.version, correlationId, this.options.clientId, call.body)
    } catch (err) {
      call.reject(err as Error)
      this.pump()
      return
    }
    this.touch()
    if (this.options.onRequest || call.traced) call.sentAt = Date.now()
    if (call.traced) this.written(call, frame)
    if (!call.expectResponse) {
      this.unanswered.push({ id: correlationId, seq: call.seq! })
      if (this.unanswered.length > 1024) this.unanswered.shift()
      this.write(frame, (err) => (err ? call.reject(this.closedError()) : call.resolve(undefined)))
      this.pump()
      return
    }
    this.inFlight.push(call)
    call.timer = setTimeout(
      () => {
        const err = new TimeoutError(`${call.api.name} v${call.version} to ${this.name} got no response within ${call.timeoutMs} ms`)
        // Responses come in order: past a lost one the stream cannot be trusted.
        this.inFlight.splice(this.inFlight.indexOf(call), 1)
        call.reject(err)
        if (this.options.onRequest) this.tell({ type: 'timeout', ...this.timing(call) })
        if (call.traced) call.traced.duration = Date.now() - call.sentAt
        this.close(err)
      },
      Math.min(call.timeoutMs, INT32_MAX),
    )
    this.write(frame)
  }

  /** A frame's blocks in one gathering write (corked: one writev), the callback after the last. */
  private write(parts: Buffer[], done?: (err?: Error | null) => void): void {
    const socket = this.socket!
    if (parts.length === 1) {
      socket.write(parts[0], done)
      return
    }
    socket.cork()
    for (let i = 0; i < parts.length - 1; i++) socket.write(parts[i])
    socket.write(parts[parts.length - 1], done)
    socket.uncork()
  }

  private pump(): void {
    while (!this.closed && !this.held && this.waiting.length > 0 && this.inFlight.length < this.options.maxInFlight) {
      if (this.throttle.closed) return this.throttle.arm()
      this.send(this.waiting.shift()!)
      if (this.options.onRequest) this.tellQueueSize()
    }
  }

  private timing(call: Call): RequestTiming {
    return {
      broker: `${this.host}:${this.port}`,
      clientId: this.options.clientId,
      correlationId: call.correlationId!,
      apiName: call.api.name,
      apiKey: call.api.apiKey,
      apiVersion: call.version,
      createdAt: call.createdAt,
      sentAt: call.sentAt,
      pendingDuration: call.sentAt - call.createdAt,
    }
  }

  /** The channel's context learns what the request's write fixed: its correlation id, when it was sent, its size. */
  private written(call: Call, frame: Buffer[]): void {
    const traced = call.traced!
    let size = 0
    for (const part of frame) size += part.length
    traced.correlationId = call.correlationId
    traced.sentAt = call.sentAt
    traced.pendingDuration = call.sentAt - call.createdAt
    traced.requestSize = size
  }

  private tellQueueSize(): void {
    this.tell({ type: 'queueSize', broker: `${this.host}:${this.port}`, clientId: this.options.clientId, queueSize: this.waiting.length })
  }

  private tell(event: RequestEvent): void {
    try {
      this.options.onRequest!(event)
    } catch {
      // An observer must not break the connection.
    }
  }

  private onFrame(frame: Buffer): void {
    const correlationId = frame.readInt32BE(0)
    const call = this.inFlight[0]
    if (!call || call.correlationId !== correlationId) {
      const stray = this.unanswered.findIndex((u) => u.id === correlationId)
      if (stray >= 0) {
        this.unanswered.splice(0, stray + 1)
        return
      }
      this.close(new ProtocolError(`${this.name} answered correlation id ${correlationId}, expected ${call?.correlationId ?? 'none'}`))
      return
    }
    this.inFlight.shift()
    clearTimeout(call.timer)
    // Answers come in order: acks=0 requests written before this one will get none now.
    while (this.unanswered.length > 0 && this.unanswered[0].seq < call.seq!) this.unanswered.shift()
    this.touch()
    if (this.inFlight.length === 0) for (const wake of this.drained.splice(0)) wake()
    let response: unknown
    let failure: Error | undefined
    try {
      response = decodeResponseFrame(call.api, call.version, frame)
    } catch (err) {
      // Framing is intact, so the connection stays usable for the others.
      failure =
        err instanceof WafkaError ? err : new ProtocolError(`${call.api.name} response from ${this.name}: ${(err as Error).message}`)
    }
    const throttleTimeMs = throttleTimeOf(response)
    // One clock read: the throttle runs from the instant the event reports as the answer's.
    const answeredAt = throttleTimeMs > 0 || this.options.onRequest || call.traced ? Date.now() : 0
    if (throttleTimeMs > 0) this.throttled(call, throttleTimeMs, answeredAt)
    if (this.options.onRequest)
      this.tell({ type: 'request', ...this.timing(call), size: frame.length, duration: answeredAt - call.sentAt, throttleTimeMs })
    if (call.traced) {
      call.traced.size = frame.length
      call.traced.duration = answeredAt - call.sentAt
      call.traced.throttleTimeMs = throttleTimeMs
    }
    if (failure) call.reject(failure)
    else call.resolve(response)
    this.pump()
  }

  /** A broker over its quota said how long to wait: from KIP-219's versions, this connection waits that long. */
  private throttled(call: Call, throttleTimeMs: number, answeredAt: number): void {
    if (!clientThrottles(call.api.name, call.version)) {
      this.log.debug('throttled by the broker (it delayed the response)', { broker: this.name, api: call.api.name, throttleTimeMs })
      return
    }
    const waitMs = this.throttle.throttle(throttleTimeMs, answeredAt)
    // DEBUG as KafkaJS ("Client side throttling in effect"); Java logs it at TRACE.
    this.log.debug('throttled by the broker: holding requests back', { broker: this.name, api: call.api.name, throttleTimeMs, waitMs })
  }

  private touch(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(
      () => {
        if (this.inFlight.length === 0 && this.waiting.length === 0) this.close()
        else this.touch()
      },
      Math.min(this.options.idleTimeoutMs, INT32_MAX),
    )
    this.idleTimer.unref?.()
  }

  /**
   * ApiVersions at our highest version; a broker that does not know it
   * answers UNSUPPORTED_VERSION with its own range in a v0 body: retry there.
   */
  private async negotiateVersions(): Promise<void> {
    let version = ApiVersions.maxVersion
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await this.request(
        ApiVersions,
        { clientSoftwareName: CLIENT_SOFTWARE_NAME, clientSoftwareVersion: CLIENT_SOFTWARE_VERSION } as any,
        { version },
      )
      if (res.errorCode === ErrorCodes.UNSUPPORTED_VERSION && version > 0) {
        const theirs = res.apiKeys?.find((k: any) => k.apiKey === ApiVersions.apiKey)
        // Nothing in common: asking again lower cannot help, and neither can reconnecting.
        if (theirs && theirs.minVersion > ApiVersions.maxVersion)
          throw unsupported(this.name, ApiVersions, [theirs.minVersion, theirs.maxVersion], ApiVersions.maxVersion)
        version = theirs ? Math.min(theirs.maxVersion, version - 1) : 0
        continue
      }
      if (res.errorCode !== 0) throw kafkaError(res.errorCode, { api: 'ApiVersions', broker: this.name })
      for (const k of res.apiKeys) this.apiVersions.set(k.apiKey, [k.minVersion, k.maxVersion])
      this.apiVersionsVersion = version
      this.log.debug('negotiated API versions', { broker: this.name, apiVersionsVersion: version, apis: res.apiKeys.length })
      return
    }
    throw new ProtocolError(`${this.name} rejected every ApiVersions version offered`)
  }
}

/** No version of `api` both sides speak: names the API and both ranges. Not retriable: the broker will not change its mind. */
function unsupported(broker: string, api: ApiSpec<any, any>, theirs: [number, number], ours: number): UnsupportedApiError {
  return new UnsupportedApiError(
    `${broker} supports ${api.name} (key ${api.apiKey}) versions ${theirs[0]}-${theirs[1]}; wafka speaks ${api.minVersion}-${ours}`,
  )
}
