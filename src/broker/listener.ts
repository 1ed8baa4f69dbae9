import type { Buffer } from 'node:buffer'
import { createServer, type Server, type Socket } from 'node:net'
import { FrameSplitter } from '../net/frames.js'

/** What a listener hands each request frame to: the response frame, null for none, or 'close'. */
export type FrameHandler = (frame: Buffer, connection: ClientConnection) => Promise<Buffer | null | 'close'>

/** Requests read ahead of the one being served before the socket is paused. */
const MAX_QUEUED = 16

/** One client connection: requests are served one at a time, responses in request order (as Kafka does). */
export class ClientConnection {
  private queue: Buffer[] = []
  private serving = false
  private closed = false
  private readonly closeListeners = new Set<() => void>()

  constructor(
    readonly socket: Socket,
    private readonly handle: FrameHandler,
    maxRequestBytes: number,
    private readonly onProblem: (why: string) => void,
  ) {
    const frames = new FrameSplitter(maxRequestBytes, (f) => this.enqueue(f))
    socket.on('data', (chunk: Buffer) => {
      try {
        frames.push(chunk)
      } catch (err) {
        // A size past socket.request.max.bytes, or one too small to hold a header.
        this.close(
          `bad frame: ${(err as Error).message.replace('broker sent', 'client sent').replace(' (maxResponseBytes)', ' (socket.request.max.bytes)')}`,
        )
      }
    })
    socket.on('error', () => this.close())
    socket.on('close', () => this.closed || this.close())
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

  get remote(): string {
    return `${this.socket.remoteAddress}:${this.socket.remotePort}`
  }

  close(why?: string): void {
    if (this.closed && !why) return
    if (why) this.onProblem(`${this.remote}: ${why}; connection closed`)
    this.closed = true
    this.queue = []
    this.socket.destroy()
    const listeners = [...this.closeListeners]
    this.closeListeners.clear()
    for (const l of listeners) l()
  }

  private enqueue(frame: Buffer): void {
    if (this.closed) return
    this.queue.push(frame)
    if (this.queue.length >= MAX_QUEUED) this.socket.pause()
    if (!this.serving) void this.serve()
  }

  private async serve(): Promise<void> {
    this.serving = true
    try {
      while (this.queue.length && !this.closed) {
        const frame = this.queue.shift()!
        if (this.queue.length < MAX_QUEUED && this.socket.isPaused()) this.socket.resume()
        const out = await this.handle(frame, this)
        if (this.closed) return
        if (out === 'close') return this.close()
        if (out) this.socket.write(out)
      }
    } catch (err) {
      this.close(`request failed: ${(err as Error).message}`)
    } finally {
      this.serving = false
    }
  }
}

/** A broker's TCP listener: accepts connections and hands their frames to the broker. */
export class Listener {
  private server: Server | null = null
  private readonly connections = new Set<ClientConnection>()

  constructor(
    private readonly handle: FrameHandler,
    private readonly maxRequestBytes: number,
    private readonly onProblem: (why: string) => void,
    private readonly maxConnections = Infinity,
  ) {}

  /** Starts listening; resolves with the port (an ephemeral one for port 0). */
  listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => {
      if (this.connections.size >= this.maxConnections) {
        this.onProblem(`${socket.remoteAddress}:${socket.remotePort}: past max.connections (${this.maxConnections}); connection closed`)
        socket.destroy()
        return
      }
      socket.setNoDelay(true)
      const c = new ClientConnection(socket, this.handle, this.maxRequestBytes, this.onProblem)
      this.connections.add(c)
      socket.once('close', () => this.connections.delete(c))
    })
    this.server = server
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', reject)
        resolve((server.address() as { port: number }).port)
      })
    })
  }

  /** Stops accepting and closes every connection; resolves once the port is free. */
  async close(): Promise<void> {
    const server = this.server
    this.server = null
    for (const c of this.connections) c.close()
    this.connections.clear()
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
