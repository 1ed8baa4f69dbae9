import { Buffer } from 'node:buffer'
import type { TlsOptions } from 'node:tls'
import { Worker } from 'node:worker_threads'
import { networkThreadBody } from './network-thread-body.js'
import { ApiKeys } from '../protocol/messages/api-keys.js'
import { recordRequestTime, requestTimingsOn } from './request-timings.js'
import { RemoteSocket, type RemoteCertificate, type SocketCommands } from './remote-socket.js'

/** The ApiVersions answers the network thread may give a connection's first request itself. */
export interface FirstAnswers {
  /** Response bodies (after the correlation id) by request version. */
  bodies: Record<number, Uint8Array>
  clusterId: string
  nodeId: number
}

/** A listener served by the network thread: where its connections go. */
export interface ThreadListener {
  onConnection(socket: RemoteSocket): void
  onTlsClientError(remote: string, message: string): void
}

/** A listening port in the network thread, as the brokers' thread holds it. */
export interface ThreadServer {
  readonly port: number
  /** The first-request answers (null: none; every request goes to the brokers' thread). */
  answerFirst(answers: FirstAnswers | null): void
  close(): Promise<void>
}

type FromThread =
  | { t: 'listening'; lid: number; port: number }
  | { t: 'listenError'; lid: number; message: string; code?: string }
  | { t: 'unlistened'; lid: number }
  | { t: 'conn'; lid: number; cid: number; remoteAddress: string; remotePort: number; cert: RemoteCertificate | null }
  | { t: 'data'; cid: number; chunk: Uint8Array; paused: boolean }
  | { t: 'answered'; cid: number; version: number; ms: number }
  | { t: 'ended' | 'timeout' | 'close'; cid: number }
  | { t: 'tlsClientError'; lid: number; remote: string; message: string }

interface Served {
  listener: ThreadListener
  host: string
  port: number
  tls: TlsOptions | null
  answers: FirstAnswers | null
  started: { resolve(port: number): void; reject(err: Error): void } | null
  stopped: (() => void) | null
}

/**
 * The embedded cluster's network thread (`networkThread: true`), as Kafka
 * keeps accepting and socket work apart from request handling: its
 * listeners' sockets live in a worker thread (network-thread-body.ts), so
 * accepting, TLS and socket writes do not wait for the brokers' busy thread,
 * nor it for them. Each socket is a RemoteSocket here. Should the thread
 * fail, its connections close (clients reconnect) and a new thread listens
 * on the same ports.
 */
export class NetworkThread {
  private worker!: Worker
  private readonly served = new Map<number, Served>()
  private readonly sockets = new Map<number, RemoteSocket>()
  private nextLid = 1
  private stopping = false
  private readonly commands: SocketCommands
  /**
   * The commands of this turn of the event loop, sent together once its I/O
   * is done: one message a turn, not one per write, and a connection's next
   * request is read after the turn that answered its last, as when this
   * thread read its own sockets.
   */
  private outbox: object[] = []
  private moved: ArrayBuffer[] = []
  private readonly flush = () => {
    const [commands, moved] = [this.outbox, this.moved]
    this.outbox = []
    this.moved = []
    this.worker.postMessage({ t: 'batch', commands }, moved)
  }

  constructor(private readonly problem: (why: string, level: 'error' | 'warn' | 'info') => void) {
    this.commands = {
      send: (cid, command) => {
        if (command.t === 'write' || command.t === 'end') {
          // Its own exact copy, moved: a response is often a view on a larger buffer, which postMessage would copy whole.
          const buf = new Uint8Array(command.bytes)
          this.outbox.push({ t: command.t, cid, buf })
          this.moved.push(buf.buffer)
        } else this.outbox.push({ ...command, cid })
        if (this.outbox.length === 1) setImmediate(this.flush)
      },
    }
    this.spawn()
  }

  private spawn(): void {
    const source = `(${networkThreadBody.toString()})(require('node:net'), require('node:tls'), require('node:buffer').Buffer, require('node:worker_threads').parentPort)`
    const worker = new Worker(source, { eval: true, name: 'wafka network thread' })
    this.worker = worker
    if (requestTimingsOn) worker.postMessage({ t: 'timings' })
    worker.on('message', async (batch: FromThread[]) => {
      // Each entry's request runs as far as it can (its promise continuations) before the next entry's is read,
      // as when each socket's read was a task of its own: a batch does not hold every answer until its end.
      for (const m of batch) {
        this.onMessage(m)
        await undefined
      }
    })
    worker.on('error', (err) => this.failed(worker, err.stack ?? String(err)))
    worker.on('exit', (code) => this.failed(worker, `exited with code ${code}`))
    this.refresh()
  }

  /** The thread failed: its connections are gone; a new one listens again on the same ports. */
  private failed(worker: Worker, why: string): void {
    if (this.stopping || worker !== this.worker) return
    this.problem(`network thread failed (${why}): its ${this.sockets.size} client connection(s) closed; listening again`, 'error')
    for (const s of [...this.sockets.values()]) s.closed()
    this.sockets.clear()
    this.spawn()
    for (const [lid, s] of this.served) this.worker.postMessage({ t: 'listen', lid, host: s.host, port: s.port, tls: s.tls })
  }

  /** Listens on host:port (0: an ephemeral port) in the thread. */
  listen(host: string, port: number, tls: TlsOptions | null, listener: ThreadListener): Promise<ThreadServer> {
    const lid = this.nextLid++
    const served: Served = { listener, host, port, tls, answers: null, started: null, stopped: null }
    this.served.set(lid, served)
    this.refresh()
    return new Promise<number>((resolve, reject) => {
      served.started = { resolve, reject }
      this.worker.postMessage({ t: 'listen', lid, host, port, tls })
    }).then((bound) => {
      served.port = bound
      return {
        port: bound,
        answerFirst: (answers) => {
          served.answers = answers
          this.worker.postMessage({ t: 'answers', lid, answers })
        },
        close: () =>
          new Promise<void>((resolve) => {
            served.stopped = resolve
            this.worker.postMessage({ t: 'unlisten', lid })
          }),
      }
    })
  }

  /** Ends the thread (its listeners are closed by then). */
  async stop(): Promise<void> {
    this.stopping = true
    await this.worker.terminate()
  }

  /** The thread keeps the process alive while it listens, as a listening socket does. */
  private refresh(): void {
    if (this.served.size > 0) this.worker.ref()
    else this.worker.unref()
  }

  private onMessage(m: FromThread): void {
    switch (m.t) {
      case 'listening':
      case 'listenError': {
        const s = this.served.get(m.lid)
        const started = s?.started
        if (!s || !started) {
          // A listen again after the thread failed.
          if (m.t === 'listenError') this.problem(`network thread: could not listen again on port ${s?.port}: ${m.message}`, 'error')
          else if (s?.answers) this.worker.postMessage({ t: 'answers', lid: m.lid, answers: s.answers })
          return
        }
        s.started = null
        if (m.t === 'listening') return started.resolve(m.port)
        this.served.delete(m.lid)
        this.refresh()
        return started.reject(Object.assign(new Error(m.message), { code: m.code }))
      }
      case 'unlistened': {
        const s = this.served.get(m.lid)
        this.served.delete(m.lid)
        this.refresh()
        s?.stopped?.()
        return
      }
      case 'conn': {
        const s = this.served.get(m.lid)
        const socket = new RemoteSocket(this.commands, m.cid, m.remoteAddress, m.remotePort, m.cert)
        this.sockets.set(m.cid, socket)
        socket.once('close', () => this.sockets.delete(m.cid))
        if (s) s.listener.onConnection(socket)
        else socket.destroy()
        return
      }
      case 'tlsClientError':
        return this.served.get(m.lid)?.listener.onTlsClientError(m.remote, m.message)
    }
    const socket = this.sockets.get(m.cid)
    if (!socket) return
    switch (m.t) {
      case 'data':
        return socket.received(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength), m.paused)
      case 'answered':
        if (requestTimingsOn) recordRequestTime(ApiKeys.ApiVersions, m.ms)
        return socket.answered(m.version)
      case 'ended':
        return socket.ended()
      case 'timeout':
        return socket.timedOut()
      case 'close':
        return socket.closed()
    }
  }
}
