import { Buffer } from 'node:buffer'
import { X509Certificate } from 'node:crypto'
import { EventEmitter } from 'node:events'

/** What the network thread tells of a TLS client's certificate when it connects. */
export interface RemoteCertificate {
  raw: Uint8Array
  authorized: boolean
  authorizationError: string
}

/** A command to a socket in the network thread. */
export type SocketCommand = { t: 'write' | 'end'; bytes: Buffer } | { t: 'pause' | 'resume' | 'destroy' } | { t: 'timeout'; ms: number }

/** How a RemoteSocket reaches its socket in the network thread. */
export interface SocketCommands {
  send(cid: number, command: SocketCommand): void
}

/**
 * The brokers' thread's handle on a client socket the network thread owns:
 * the part of net.Socket (and TLSSocket) a listener and its connections use,
 * so they serve it as they serve a socket of their own. Reads arrive as
 * 'data' events; while paused they wait here, as a paused socket's would.
 */
export class RemoteSocket extends EventEmitter {
  destroyed = false
  private paused = false
  /** The thread is not reading the socket: it was told to pause, or it paused itself having relayed a whole request. */
  private remotePaused = false
  private readonly waiting: Buffer[] = []
  private endedCallback: (() => void) | null = null
  private timeoutListener: (() => void) | null = null
  private reported = false
  /** The version of the ApiVersions the network thread answered as the connection's first request, else null. */
  private answeredVersion: number | null = null
  private onAnswered: ((version: number) => void) | null = null

  constructor(
    private readonly commands: SocketCommands,
    readonly cid: number,
    readonly remoteAddress: string,
    readonly remotePort: number,
    private readonly cert: RemoteCertificate | null,
  ) {
    super()
  }

  get authorized(): boolean {
    return this.cert?.authorized ?? false
  }

  get authorizationError(): string | undefined {
    return this.cert && !this.cert.authorized ? this.cert.authorizationError : undefined
  }

  getPeerX509Certificate(): X509Certificate | undefined {
    return this.cert ? new X509Certificate(this.cert.raw) : undefined
  }

  setNoDelay(): this {
    return this // the network thread sets it on every socket
  }

  setTimeout(ms: number, listener?: () => void): this {
    if (listener) this.timeoutListener = listener
    this.send({ t: 'timeout', ms })
    return this
  }

  pause(): this {
    this.paused = true
    if (!this.remotePaused) this.send({ t: 'pause' })
    this.remotePaused = true
    return this
  }

  resume(): this {
    this.paused = false
    if (this.remotePaused) this.send({ t: 'resume' })
    this.remotePaused = false
    // Later, as a socket's resume emits what it holds: the caller (a connection ending its turn) is not re-entered.
    if (this.waiting.length) process.nextTick(() => this.emitWaiting())
    return this
  }

  private emitWaiting(): void {
    while (!this.paused && !this.destroyed && this.waiting.length) this.emit('data', this.waiting.shift()!)
  }

  write(bytes: Buffer): boolean {
    this.send({ t: 'write', bytes })
    return true
  }

  end(bytes: Buffer, done: () => void): this {
    if (this.destroyed) return this
    this.endedCallback = done
    this.send({ t: 'end', bytes })
    return this
  }

  destroy(): this {
    if (this.destroyed) return this
    this.send({ t: 'destroy' })
    // The thread confirms with its close; a thread gone cannot, so the close is not waited for.
    process.nextTick(() => this.closed())
    this.destroyed = true
    return this
  }

  private send(command: SocketCommand): void {
    if (!this.destroyed) this.commands.send(this.cid, command)
  }

  /**
   * Calls `listener` with the version of the ApiVersions the network thread
   * answered as the connection's first request (at once if it has): a
   * connection's state (SASL's) counts it as served.
   */
  whenApiVersionsAnswered(listener: (version: number) => void): void {
    if (this.answeredVersion !== null) listener(this.answeredVersion)
    else this.onAnswered = listener
  }

  /** The network thread answered the first request, an ApiVersions (before any bytes it relays). */
  answered(version: number): void {
    this.answeredVersion = version
    this.onAnswered?.(version)
  }

  /** Bytes the network thread read; `paused`: it then stopped reading (they end a request). */
  received(chunk: Buffer, paused: boolean): void {
    if (this.destroyed) return
    if (paused) this.remotePaused = true
    if (this.paused) this.waiting.push(chunk)
    else this.emit('data', chunk)
  }

  /** The thread's word that the last bytes (end) are flushed. */
  ended(): void {
    const done = this.endedCallback
    this.endedCallback = null
    done?.()
  }

  timedOut(): void {
    this.timeoutListener?.()
  }

  /** The socket is gone (closed by either side, or the thread is): 'close' once. */
  closed(): void {
    if (this.reported) return
    this.reported = true
    this.destroyed = true
    this.waiting.length = 0
    this.emit('close')
  }
}
