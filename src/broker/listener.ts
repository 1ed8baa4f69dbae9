import type { Buffer } from 'node:buffer'
import { createServer, type Server, type Socket } from 'node:net'
import { duplexPair, type Duplex } from 'node:stream'
import { createServer as createTlsServer, type TlsOptions, type TLSSocket } from 'node:tls'
import { FrameSplitter } from '../net/frames.js'
import type { FirstAnswers, NetworkThread, ThreadServer } from './network-thread.js'
import { RemoteSocket } from './remote-socket.js'
import { recordRequestTime, requestTimingsOn } from './request-timings.js'
import type { SaslSession } from './sasl/session.js'
import type { SslPrincipalMapper } from './ssl-principal-mapper.js'
import { rfc2253Subject } from './x500-name.js'

/**
 * What a listener hands each request frame to: the response frame, null for
 * none, 'close', or `{ last }`: a response sent before the connection closes
 * (a refused authentication, as Kafka answers it).
 */
export type FrameHandler = (frame: Buffer, connection: ClientConnection) => Promise<Buffer | null | 'close' | { last: Buffer }>

/** A TLS listener's certificate, key and, for mutual TLS, the CA client certificates must chain to. */
export interface ListenerTls {
  cert: string | Buffer
  key: string | Buffer
  ca?: string | Buffer | Array<string | Buffer>
  /**
   * ssl.client.auth: required (a client certificate signed by `ca`, or no
   * connection), requested (one is asked for; none: ANONYMOUS, an untrusted
   * one: no connection), none.
   */
  clientAuth: 'required' | 'requested' | 'none'
  /** ssl.principal.mapping.rules: a client certificate's subject to its principal's name. */
  principalMapper: SslPrincipalMapper
}

const NO_LIMITS: ConnectionLimits = { maxConnections: Infinity, maxConnectionsPerIp: Infinity, connectionsMaxIdleMs: 0 }

/** How many connections may wait to be taken (Kafka's socket.listen.backlog.size default, its kernel backlog). */
const LISTEN_BACKLOG = 50

/** How long a client may take over its TLS handshake before it is dropped. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000

/**
 * One client connection: requests are served one at a time, responses in
 * request order, and the socket is muted (not read) from a request until its
 * response is written, as Kafka mutes a channel: a client that pipelines
 * holds its requests in its own socket buffers, not in the broker's memory.
 */
export class ClientConnection {
  private queue: Buffer[] = []
  /** When each queued frame arrived (only with the request-timings debug counter on). */
  private arrivals: number[] = []
  private serving = false
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false
  /** A last response is being flushed: nothing more is read. */
  private closing = false
  private readonly closeListeners = new Set<() => void>()
  private readonly frames: FrameSplitter
  private limitName = 'socket.request.max.bytes'
  /** Until when (Date.now() ms) the connection stays muted once its response is sent: a quota's throttle (KIP-219). */
  private mutedUntil = 0
  /** Ends the throttle's wait early when the connection closes. */
  private wake: (() => void) | null = null
  /** On a SASL listener, this connection's authentication state (null: none needed, or an in-process peer). */
  sasl: SaslSession | null = null
  /** The principal name ssl.principal.mapping.rules made of the client certificate's subject (null: no certificate); see principal.ts. */
  tlsUser: string | null = null

  constructor(
    readonly socket: Socket | Duplex,
    private readonly handle: FrameHandler,
    maxRequestBytes: number,
    private readonly onProblem: (why: string, level?: 'warn' | 'info' | 'debug') => void,
    private readonly label?: string,
  ) {
    this.frames = new FrameSplitter(maxRequestBytes, (f) => this.enqueue(f))
    socket.on('data', (chunk: Buffer) => {
      try {
        this.frames.push(chunk)
      } catch (err) {
        // A size past socket.request.max.bytes (or the pre-authentication limit), or one too small to hold a header.
        this.close(
          `bad frame: ${(err as Error).message.replace('broker sent', 'client sent').replace(' (maxResponseBytes)', ` (${this.limitName})`)}`,
        )
      }
    })
    socket.on('error', () => this.close())
    socket.on('close', () => this.closed || this.close())
  }

  /** The largest request frame accepted from now on, and the setting it comes from (for the refusal's message). */
  limitRequests(bytes: number, setting: string): void {
    this.frames.maxFrameBytes = bytes
    this.limitName = setting
  }

  /** Calls `listener` once when the connection closes (at once if it has); returns a cancel. */
  onClose(listener: () => void): () => void {
    if (this.closed) {
      listener()
      return () => {}
    }
    this.closeListeners.add(listener)
    return () => this.closeListeners.delete(listener)
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** The client's IP address (empty for an in-process peer). */
  get remoteAddress(): string {
    return (this.socket as Socket).remoteAddress ?? ''
  }

  /** An in-process peer's connection (another virtual broker), not a client's. */
  get internal(): boolean {
    return this.label !== undefined
  }

  /** Mutes the connection for `ms` after the response being made is sent (Kafka's throttled channel): nothing more is read nor served. */
  throttle(ms: number): void {
    this.mutedUntil = Math.max(this.mutedUntil, Date.now() + ms)
  }

  get remote(): string {
    const s = this.socket as Socket
    return this.label ?? `${s.remoteAddress}:${s.remotePort}`
  }

  /**
   * Closes the connection when it has had no request (nor response) for
   * `ms` (connections.max.idle.ms); a request being served, however long
   * (a JoinGroup, a long poll), is activity.
   */
  expireWhenIdle(ms: number): void {
    const socket = this.socket as Socket
    if (typeof socket.setTimeout !== 'function') return
    socket.setTimeout(ms, () => {
      if (this.serving) socket.setTimeout(ms)
      else this.close(`idle for ${ms} ms (connections.max.idle.ms)`)
    })
  }

  /** Closes the connection after `ms` unless `done()` says by then that what it had to do is done (why it closes, else null). */
  deadline(ms: number, undone: () => string | null): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      const why = undone()
      if (why) this.close(why)
    }, ms)
    timer.unref?.()
    this.timers.add(timer)
  }

  close(why?: string): void {
    if (this.closed && !why) return
    if (why) this.onProblem(`${this.remote}: ${why}; connection closed`, 'info')
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    this.queue = []
    this.wake?.()
    this.arrivals = []
    this.socket.destroy()
    const listeners = [...this.closeListeners]
    this.closeListeners.clear()
    for (const l of listeners) l()
  }

  /** Sends a last response, then closes once it is flushed (or after a second, whichever is first). */
  private closeAfter(last: Buffer): void {
    this.closing = true
    this.queue = []
    this.arrivals = []
    const timer = setTimeout(() => this.close(), 1000)
    timer.unref?.()
    this.socket.end(last, () => {
      clearTimeout(timer)
      this.close()
    })
    this.socket.pause()
  }

  /** Waits out a throttle (the socket stays paused: the client's requests wait in its own buffers). */
  private mutedFor(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms)
      this.wake = () => {
        clearTimeout(timer)
        this.wake = null
        resolve()
      }
    })
  }

  private enqueue(frame: Buffer): void {
    if (this.closed || this.closing) return
    this.queue.push(frame)
    if (requestTimingsOn) this.arrivals.push(performance.now())
    // Muted until the response is written (frames already in the chunk just read are queued and served in turn).
    this.socket.pause()
    if (!this.serving) void this.serve()
  }

  private async serve(): Promise<void> {
    this.serving = true
    try {
      while (this.queue.length && !this.closed) {
        const frame = this.queue.shift()!
        const out = await this.handle(frame, this)
        // Client requests only: in-process peers (a label) are the brokers' own replica fetchers.
        if (requestTimingsOn) {
          const ms = performance.now() - this.arrivals.shift()!
          if (this.label === undefined) recordRequestTime(frame.readInt16BE(0), ms)
        }
        if (this.closed) return
        if (out === 'close') return this.close()
        if (out && 'last' in out) return this.closeAfter(out.last)
        if (out) this.socket.write(out)
        if (this.mutedUntil > Date.now()) await this.mutedFor(this.mutedUntil - Date.now())
      }
      if (!this.closed && !this.closing) this.socket.resume()
    } catch (err) {
      this.close(`request failed: ${(err as Error).message}`)
    } finally {
      this.serving = false
    }
  }
}

/**
 * Sets the connection's TLS principal from its client certificate (Kafka's
 * DefaultKafkaPrincipalBuilder): why the connection is refused, else null.
 */
function clientCertificate(socket: TLSSocket, tls: ListenerTls, connection: ClientConnection): string | null {
  if (tls.clientAuth === 'none') return null
  const cert = socket.getPeerX509Certificate()
  if (!cert) return null
  if (!socket.authorized) return `TLS client certificate refused: ${String(socket.authorizationError)}`
  let subject: string
  try {
    subject = rfc2253Subject(cert.raw)
  } catch (err) {
    return `TLS client certificate unreadable: ${(err as Error).message}`
  }
  try {
    connection.tlsUser = tls.principalMapper.name(subject)
  } catch (err) {
    return `Failed to map name for '${subject}' based on SSL principal mapping rules: ${(err as Error).message}`
  }
  return null
}

export interface ListenerOptions {
  maxRequestBytes: number
  /** Where the listener says why it closed or refused a connection (refusals past a limit: WARN; a client's doing: INFO). */
  onProblem: (why: string, level?: 'warn' | 'info' | 'debug') => void
  /**
   * The connection limits in force, asked at each new connection (the first
   * two are dynamic broker configs): max.connections, max.connections.per.ip
   * (client connections from one address), connections.max.idle.ms (for client connections).
   */
  limits?: () => ConnectionLimits
  /** Serve TLS (node:tls) instead of plain TCP. */
  tls?: ListenerTls
  /** Called for every accepted client connection (not in-process ones) before its first frame. */
  onAccept?: (connection: ClientConnection) => void
  /** Connection creation rates (KIP-612): none, and every connection is taken at once. */
  connectionRates?: ConnectionRates
  /** The network thread whose sockets the listener serves (none: its own, in this thread). */
  thread?: NetworkThread
}

export interface ConnectionLimits {
  maxConnections: number
  maxConnectionsPerIp: number
  connectionsMaxIdleMs: number
}

/** What the listener asks of the connection creation quotas (quotas/connection-quotas.ts) for each new connection. */
export interface ConnectionRates {
  /** The connection counted against max.connection.creation.rate: ms to wait before taking it and those after it. */
  acceptDelayMs(): number
  /** The connection counted against its address's connection_creation_rate: 0 to take it, else ms to hold it before closing it unserved. */
  ipThrottleMs(address: string): number
}

/**
 * A broker's listener: accepts TCP (or TLS) connections and hands their
 * frames to the broker. In-process peers (other virtual brokers) connect
 * through connectInternal instead: a stream pair that never touches the
 * network, so it needs no TLS and no SASL of its own.
 */
export class Listener {
  /** Stops listening (null: not listening). */
  private stopListening: (() => Promise<void>) | null = null
  /** The listening port in the network thread, when the listener has one. */
  private threadServer: ThreadServer | null = null
  private readonly connections = new Set<ClientConnection>()
  /** Client connections per remote address (max.connections.per.ip). */
  private readonly perIp = new Map<string, number>()
  private internalCount = 0
  /** Connections not yet taken while the listener waits out max.connection.creation.rate, in arrival order. */
  private readonly acceptQueue: Socket[] = []
  private acceptTimer: NodeJS.Timeout | null = null
  /** Client connections taken (in-process peers are not counted against max.connections). */
  private clients = 0
  /** Connections over their address's connection_creation_rate, held unread until they are closed. */
  private readonly held = new Map<Socket, NodeJS.Timeout>()

  constructor(
    private readonly handle: FrameHandler,
    private readonly options: ListenerOptions,
  ) {}

  /** Starts listening; resolves with the port (an ephemeral one for port 0). */
  async listen(host: string, port: number): Promise<number> {
    const { tls, maxRequestBytes, onProblem } = this.options
    const rates = this.options.connectionRates
    const take = (socket: Socket) => {
      const ip = socket.remoteAddress ?? ''
      // Over its address's connection_creation_rate: held unread, then closed, as Kafka's acceptor delays the close.
      const throttleMs = rates?.ipThrottleMs(ip) ?? 0
      if (throttleMs > 0) {
        onProblem(`${ip}:${socket.remotePort}: past its connection_creation_rate; closing it in ${throttleMs} ms`, 'debug')
        socket.pause()
        const timer = setTimeout(() => {
          this.held.delete(socket)
          socket.destroy()
        }, throttleMs)
        this.held.set(socket, timer)
        socket.once('close', () => {
          clearTimeout(timer)
          this.held.delete(socket)
        })
        return
      }
      const fromIp = this.perIp.get(ip) ?? 0
      const { maxConnectionsPerIp, connectionsMaxIdleMs } = this.options.limits?.() ?? NO_LIMITS
      const refused = fromIp >= maxConnectionsPerIp ? `max.connections.per.ip (${maxConnectionsPerIp} from ${ip})` : null
      if (refused) {
        onProblem(`${socket.remoteAddress}:${socket.remotePort}: past ${refused}; connection closed`, 'warn')
        socket.destroy()
        return
      }
      socket.setNoDelay(true)
      const c = new ClientConnection(socket, this.handle, maxRequestBytes, onProblem)
      if (tls) {
        const refused = clientCertificate(socket as TLSSocket, tls, c)
        if (refused) {
          onProblem(`${socket.remoteAddress}:${socket.remotePort}: ${refused}; connection closed`, 'info')
          socket.destroy()
          return
        }
      }
      // Read from now on (a connection that waited for its turn was paused).
      socket.resume()
      if (connectionsMaxIdleMs) c.expireWhenIdle(connectionsMaxIdleMs)
      this.options.onAccept?.(c)
      // The network thread may have answered the first request, an ApiVersions, itself: the connection's SASL state counts it.
      if (socket instanceof RemoteSocket) socket.whenApiVersionsAnswered((version) => c.sasl?.apiVersionsServed(version))
      this.connections.add(c)
      this.clients++
      this.perIp.set(ip, fromIp + 1)
      socket.once('close', () => {
        this.connections.delete(c)
        this.clients--
        const left = (this.perIp.get(ip) ?? 1) - 1
        if (left > 0) this.perIp.set(ip, left)
        else this.perIp.delete(ip)
        // A slot under max.connections is free: the next connection waiting is taken.
        drain()
      })
    }
    // At max.connections, or past max.connection.creation.rate, the listener waits before taking the next
    // connection, as Kafka's acceptor blocks: connections queue (unread) in arrival order, none is refused.
    const drain = () => {
      while (!this.acceptTimer && this.acceptQueue.length) {
        if (this.acceptQueue[0].destroyed) {
          this.acceptQueue.shift()
          continue
        }
        const { maxConnections } = this.options.limits?.() ?? NO_LIMITS
        if (this.clients >= maxConnections) return
        const socket = this.acceptQueue.shift()!
        if (socket.destroyed) continue
        const delayMs = rates?.acceptDelayMs() ?? 0
        if (delayMs <= 0) {
          take(socket)
          continue
        }
        onProblem(`past max.connection.creation.rate: taking the next connection in ${delayMs} ms`, 'debug')
        socket.pause()
        this.acceptTimer = setTimeout(() => {
          this.acceptTimer = null
          if (!socket.destroyed) take(socket)
          drain()
        }, delayMs)
      }
    }
    const accept = (socket: Socket) => {
      // Kafka's waiting connections are in the kernel's backlog (socket.listen.backlog.size); past it, refused.
      if (this.acceptQueue.length >= LISTEN_BACKLOG) {
        onProblem(
          `${socket.remoteAddress}:${socket.remotePort}: ${LISTEN_BACKLOG} connections already wait to be taken; connection closed`,
          'warn',
        )
        socket.destroy()
        return
      }
      // A queued or held socket reset by its client must not throw.
      socket.on('error', () => {})
      socket.pause()
      this.acceptQueue.push(socket)
      drain()
    }
    const tlsOptions = tls ? tlsServerOptions(tls) : null
    const handshakeFailed = (remote: string, message: string) =>
      onProblem(`${remote}: TLS handshake failed: ${message}; connection closed`, 'info')
    const thread = this.options.thread
    if (thread) {
      const served = await thread.listen(host, port, tlsOptions, {
        onConnection: (socket) => accept(socket as unknown as Socket),
        onTlsClientError: handshakeFailed,
      })
      this.threadServer = served
      this.stopListening = () => served.close()
      return served.port
    }
    const server: Server = tlsOptions ? createTlsServer(tlsOptions, (socket: TLSSocket) => accept(socket)) : createServer(accept)
    // A failed handshake (no or an untrusted client certificate, a client speaking plaintext): reported, the socket is gone.
    if (tlsOptions)
      server.on('tlsClientError', (err: Error, socket: TLSSocket) =>
        handshakeFailed(`${socket.remoteAddress}:${socket.remotePort}`, err.message),
      )
    const bound = await new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', reject)
        resolve((server.address() as { port: number }).port)
      })
    })
    this.stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()))
    return bound
  }

  /** The ApiVersions answers the network thread may give a connection's first request itself (no thread: nothing to do). */
  answerFirst(answers: FirstAnswers | null): void {
    this.threadServer?.answerFirst(answers)
  }

  /**
   * An in-process connection to this listener, for another virtual broker:
   * served like any client's, but already trusted (no TLS, no SASL).
   * Throws, as a refused connection would, while the listener is stopped.
   */
  connectInternal(peer: string): Duplex {
    if (!this.stopListening) throw Object.assign(new Error('connection refused (broker stopped)'), { code: 'ECONNREFUSED' })
    const [ours, theirs] = duplexPair()
    const c = new ClientConnection(
      ours,
      this.handle,
      this.options.maxRequestBytes,
      this.options.onProblem,
      `${peer} (in-process #${++this.internalCount})`,
    )
    this.connections.add(c)
    c.onClose(() => {
      this.connections.delete(c)
      theirs.destroy()
    })
    theirs.once('close', () => c.close())
    return theirs
  }

  /** Stops accepting and closes every connection; resolves once the port is free. */
  async close(): Promise<void> {
    const stop = this.stopListening
    this.stopListening = null
    this.threadServer = null
    if (this.acceptTimer) clearTimeout(this.acceptTimer)
    this.acceptTimer = null
    for (const s of this.acceptQueue.splice(0)) s.destroy()
    for (const [s, timer] of this.held) {
      clearTimeout(timer)
      s.destroy()
    }
    this.held.clear()
    for (const c of this.connections) c.close()
    this.connections.clear()
    this.perIp.clear()
    await stop?.()
  }
}

/** A TLS listener's server options (its certificate, and what it asks of clients'). */
function tlsServerOptions(tls: ListenerTls): TlsOptions {
  return {
    cert: tls.cert,
    key: tls.key,
    ca: tls.ca,
    requestCert: tls.clientAuth !== 'none',
    // requested: a client without a certificate is served (as ANONYMOUS); an untrusted one is refused on accept.
    rejectUnauthorized: tls.clientAuth === 'required',
    handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
    minVersion: 'TLSv1.2',
  }
}
