// A bare Kafka client for broker tests: one socket, requests written with
// wafka's codecs at exactly the version asked for, and raw bytes for bad input.
import { Buffer } from 'node:buffer'
import { connect, type Socket } from 'node:net'
import { connect as connectTls, type ConnectionOptions } from 'node:tls'
import type { ApiSpec, Input } from '../../src/protocol/api.js'
import { decodeResponseHeader, encodeRequestHeader, requestHeaderVersion, responseHeaderVersion } from '../../src/protocol/header.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

export class RawClient {
  private chunks: Buffer[] = []
  private waiting: (() => void) | null = null
  private correlation = 1
  closed = false
  readonly whenClosed: Promise<void>

  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.chunks.push(c)
      this.waiting?.()
    })
    this.whenClosed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closed = true
        this.waiting?.()
        resolve()
      }),
    )
    socket.on('error', () => {})
  }

  /** `localAddress`: the address to connect from (another loopback address is another client IP to the broker). */
  static open(hostPort: string, localAddress?: string): Promise<RawClient> {
    const [host, port] = hostPort.split(':')
    return new Promise((resolve, reject) => {
      const s = connect({ host, port: Number(port), localAddress }, () => resolve(new RawClient(s)))
      s.once('error', reject)
    })
  }

  /** Over TLS: `tls` gives the CA and, for mutual TLS, the client's certificate and key. */
  static openTls(hostPort: string, tls: ConnectionOptions): Promise<RawClient> {
    const [host, port] = hostPort.split(':')
    return new Promise((resolve, reject) => {
      const s = connectTls({ host, port: Number(port), servername: 'localhost', ...tls }, () => resolve(new RawClient(s)))
      s.once('error', reject)
    })
  }

  /** The request frame bytes (size prefix included). */
  static frame<Req>(spec: ApiSpec<Req, any>, version: number, req: Input<Req>, correlationId = 1, clientId = 'raw'): Buffer {
    const w = new Writer(256)
    w.reserve(4)
    encodeRequestHeader(w, requestHeaderVersion(spec.apiKey, version), {
      apiKey: spec.apiKey,
      apiVersion: version,
      correlationId,
      clientId,
    })
    spec.encodeRequest(w, version, req)
    w.setInt32At(0, w.length - 4)
    return Buffer.from(w.finish())
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  /** The next response frame's body (after the size), or null when the broker closed the connection. */
  async readFrame(timeoutMs = 10_000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const all = Buffer.concat(this.chunks)
      if (all.length >= 4) {
        const size = all.readInt32BE(0)
        if (all.length >= 4 + size) {
          this.chunks = [all.subarray(4 + size)]
          return all.subarray(4, 4 + size)
        }
      }
      if (this.closed) return null
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        this.waiting = () => (clearTimeout(t), resolve())
      })
      this.waiting = null
    }
  }

  /** Sends a request and decodes its response (throws when the broker closes the connection instead). */
  async request<Req, Res>(spec: ApiSpec<Req, Res>, version: number, req: Input<Req>, timeoutMs?: number): Promise<Res> {
    const correlationId = this.correlation++
    this.write(RawClient.frame(spec, version, req, correlationId))
    const body = await this.readFrame(timeoutMs)
    if (!body) throw new Error(`broker closed the connection instead of answering ${spec.name} v${version}`)
    const r = new Reader(body)
    const h = decodeResponseHeader(r, responseHeaderVersion(spec.apiKey, version))
    if (h.correlationId !== correlationId) throw new Error(`correlation id ${h.correlationId}, expected ${correlationId}`)
    return spec.decodeResponse(r, version)
  }

  close(): void {
    this.socket.destroy()
  }
}
