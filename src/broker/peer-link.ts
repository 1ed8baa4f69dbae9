import type { Buffer } from 'node:buffer'
import type { Duplex } from 'node:stream'
import type { ApiSpec, Input } from '../protocol/api.js'
import { FrameSplitter } from '../net/frames.js'
import { decodeResponseFrame, encodeRequestFrame } from '../net/wire.js'

/** Responses past this are refused: a leader answers a follower's fetch within its maxBytes. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024

interface Pending {
  api: ApiSpec
  version: number
  resolve(res: unknown): void
  reject(err: Error): void
  timer: NodeJS.Timeout
}

/**
 * A broker's client connection to another broker's listener (a follower to
 * its leader): requests in wafka's codecs, answered in order. It runs over
 * the leader's in-process stream (Listener.connectInternal), not a socket:
 * the brokers share a process, so replication needs neither the network
 * nor the TLS and SASL that guard client listeners. Any failure
 * (refused, closed, timed out, unreadable) closes it and fails every
 * request in flight; the owner opens a new one after a backoff.
 */
export class PeerLink {
  private readonly pending = new Map<number, Pending>()
  private correlation = 0
  private closed = false

  private constructor(
    private readonly socket: Duplex,
    private readonly clientId: string,
  ) {
    const frames = new FrameSplitter(MAX_RESPONSE_BYTES, (f) => this.onFrame(f))
    socket.on('data', (chunk: Buffer) => {
      try {
        frames.push(chunk)
      } catch (err) {
        this.close(err as Error)
      }
    })
    socket.on('error', (err) => this.close(err))
    socket.on('close', () => this.close(new Error('connection closed')))
  }

  /** A link over a connected stream (a listener's in-process end). */
  static over(stream: Duplex, clientId: string): PeerLink {
    return new PeerLink(stream, clientId)
  }

  get isClosed(): boolean {
    return this.closed
  }

  request<Req, Res>(api: ApiSpec<Req, Res>, version: number, body: Input<Req>, timeoutMs: number): Promise<Res> {
    if (this.closed) return Promise.reject(new Error('connection closed'))
    const correlationId = (this.correlation = (this.correlation + 1) & 0x7fffffff)
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => this.close(new Error(`${api.name} timed out after ${timeoutMs} ms`)), timeoutMs)
      this.pending.set(correlationId, { api, version, resolve: resolve as (r: unknown) => void, reject, timer })
      this.socket.write(encodeRequestFrame(api, version, correlationId, this.clientId, body))
    })
  }

  private onFrame(frame: Buffer): void {
    const correlationId = frame.readInt32BE(0)
    const call = this.pending.get(correlationId)
    if (!call) return this.close(new Error(`response to unknown correlation id ${correlationId}`))
    this.pending.delete(correlationId)
    clearTimeout(call.timer)
    try {
      call.resolve(decodeResponseFrame(call.api, call.version, frame))
    } catch (err) {
      call.reject(err as Error)
      this.close(err as Error)
    }
  }

  close(why = new Error('connection closed')): void {
    if (this.closed) return
    this.closed = true
    this.socket.destroy()
    for (const call of this.pending.values()) {
      clearTimeout(call.timer)
      call.reject(why)
    }
    this.pending.clear()
  }
}
