import type { Buffer as NodeBuffer } from 'node:buffer'
import type * as Net from 'node:net'
import type * as Tls from 'node:tls'
import type { MessagePort } from 'node:worker_threads'

/**
 * What the network thread runs: Kafka's acceptor and network threads in one
 * worker_threads Worker. It owns the client listeners' sockets (accept, TLS,
 * reads, writes) and relays bytes to and from the brokers' thread, which
 * keeps every decision (limits, framing, SASL, the requests themselves). The
 * one request it answers is a connection's first when it is ApiVersions at a
 * version the brokers gave it the answer for: a client connecting while the
 * brokers' thread is busy gets its first answer at once.
 *
 * The Worker is made from this function's source text, so the body uses
 * nothing from outside itself: the node modules come in as arguments.
 */
export function networkThreadBody(net: typeof Net, tls: typeof Tls, Buffer: typeof NodeBuffer, parent: MessagePort): void {
  type Buffer = NodeBuffer
  interface Conn {
    socket: Net.Socket
    lid: number
    /** The first frame is still being read (and may be answered here). */
    first: boolean
    head: Buffer | null
    /** Not read until the brokers' thread says resume: it asked, or it was sent a whole request (as Kafka mutes a channel). */
    pausedByMain: boolean
    /** Bytes read while the connection is paused. */
    held: Buffer[]
    /** Where the frame being relayed is: its size prefix's bytes read so far, then the bytes of it still to come. */
    sizeRead: number
    size: number
    remaining: number
  }
  interface Answers {
    /** ApiVersions response bodies by request version. */
    bodies: Record<number, Uint8Array>
    /** v5 (KIP-1242): the cluster and node a client may name. */
    clusterId: string
    nodeId: number
  }
  const servers = new Map<number, Net.Server>()
  const conns = new Map<number, Conn>()
  const answers = new Map<number, Answers>()
  let nextCid = 1
  let timings = false
  /** The first frame is answered here only if it is this small (an ApiVersions is a few dozen bytes). */
  const FIRST_FRAME_MAX = 4096
  const API_VERSIONS = 18

  /** What this turn of the loop tells the brokers' thread, sent together at its end (one message a turn). */
  let outbox: object[] = []
  let moved: ArrayBuffer[] = []
  const flush = () => {
    parent.postMessage(outbox, moved)
    outbox = []
    moved = []
  }
  const post = (msg: object, transfer?: ArrayBuffer[]) => {
    outbox.push(msg)
    if (transfer) moved.push(...transfer)
    if (outbox.length === 1) setImmediate(flush)
  }
  /** A chunk the other thread may own: its own ArrayBuffer, moved rather than copied twice. */
  const owned = (b: Buffer): Uint8Array => {
    const exact = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b)
    return new Uint8Array(exact.buffer, exact.byteOffset, exact.byteLength)
  }

  /** A v5 request's cluster id and node id (after its client name and version); null if unreadable. */
  function target(frame: Buffer, from: number): { clusterId: string | null; nodeId: number } | null {
    let at = from
    const uvarint = () => {
      let v = 0
      for (let shift = 0; shift < 35; shift += 7) {
        if (at >= frame.length) return -1
        const b = frame[at++]
        v |= (b & 0x7f) << shift
        if (!(b & 0x80)) return v >>> 0
      }
      return -1
    }
    // Header v2: client id (int16-sized), tagged fields.
    if (at + 2 > frame.length) return null
    const idLen = frame.readInt16BE(at)
    at += 2 + Math.max(idLen, 0)
    for (let n = uvarint(); n > 0; n--) {
      if (uvarint() < 0) return null
      const size = uvarint()
      if (size < 0) return null
      at += size
    }
    // Body: client software name and version (compact strings), cluster id (compact nullable), node id.
    for (let i = 0; i < 2; i++) {
      const len = uvarint()
      if (len < 1) return null
      at += len - 1
    }
    const len = uvarint()
    if (len < 0) return null
    const clusterId = len === 0 ? null : frame.toString('utf8', at, at + len - 1)
    at += Math.max(len - 1, 0)
    if (at + 4 > frame.length) return null
    return { clusterId, nodeId: frame.readInt32BE(at) }
  }

  /** The answer to a first frame that is an ApiVersions this thread may answer, else null. */
  function answer(lid: number, frame: Buffer): Uint8Array | null {
    const a = answers.get(lid)
    if (!a || frame.readInt16BE(4) !== API_VERSIONS) return null
    const version = frame.readInt16BE(6)
    const body = a.bodies[version]
    if (!body) return null
    if (version >= 5) {
      // Naming no target, or this one: the usual answer; anything else is the brokers' thread's to refuse.
      const t = target(frame, 12)
      if (!t) return null
      const none = t.clusterId === null && t.nodeId === -1
      if (!none && (t.clusterId !== a.clusterId || t.nodeId !== a.nodeId)) return null
    }
    return body
  }

  /** Reads the first frame; answers it if it may. Returns what is left for the brokers' thread (null: nothing yet). */
  function firstFrame(cid: number, c: Conn, chunk: Buffer): Buffer | null {
    const head = c.head ? Buffer.concat([c.head, chunk]) : chunk
    c.head = null
    const size = head.length >= 4 ? head.readInt32BE(0) : -1
    if (head.length < 4 || (size >= 8 && size <= FIRST_FRAME_MAX && head.length < 4 + size)) {
      c.head = head
      return null
    }
    c.first = false
    if (size < 8 || size > FIRST_FRAME_MAX) return head
    const started = timings ? performance.now() : 0
    const frame = head.subarray(0, 4 + size)
    const body = answer(c.lid, frame)
    if (!body) return head
    const out = Buffer.allocUnsafe(8 + body.length)
    out.writeInt32BE(4 + body.length, 0)
    out.writeInt32BE(frame.readInt32BE(8), 4)
    out.set(body, 8)
    c.socket.write(out)
    post({ t: 'answered', cid, version: frame.readInt16BE(6), ms: timings ? performance.now() - started : 0 })
    const rest = head.subarray(4 + size)
    return rest.length ? rest : null
  }

  /** Whether `chunk` ends at least one request frame (the sizes are counted, nothing is copied). */
  function endsFrame(c: Conn, chunk: Buffer): boolean {
    let ended = false
    let at = 0
    while (at < chunk.length) {
      if (c.remaining > 0) {
        const n = Math.min(c.remaining, chunk.length - at)
        c.remaining -= n
        at += n
        if (c.remaining === 0) ended = true
        continue
      }
      c.size = c.size * 256 + chunk[at++]
      if (++c.sizeRead < 4) continue
      // A size the brokers' thread refuses closes the connection there; an empty frame ends at once.
      c.remaining = c.size | 0
      c.size = c.sizeRead = 0
      if (c.remaining <= 0) ended = true
    }
    return ended
  }

  /**
   * Relays bytes to the brokers' thread. Once they end a request, the
   * connection is not read until that thread resumes it: it serves one
   * request at a time, and the client's next ones wait in its own buffers.
   */
  function toMain(cid: number, c: Conn, chunk: Buffer): void {
    if (c.pausedByMain) {
      c.held.push(chunk)
      c.socket.pause()
      return
    }
    const paused = endsFrame(c, chunk)
    if (paused) {
      c.pausedByMain = true
      c.socket.pause()
    }
    const bytes = owned(chunk)
    post({ t: 'data', cid, chunk: bytes, paused }, [bytes.buffer as ArrayBuffer])
  }

  function connection(lid: number, socket: Net.Socket, secure: boolean): void {
    const cid = nextCid++
    const c: Conn = { socket, lid, first: answers.has(lid), head: null, pausedByMain: false, held: [], sizeRead: 0, size: 0, remaining: 0 }
    conns.set(cid, c)
    socket.setNoDelay(true)
    let cert: { raw: Uint8Array; authorized: boolean; authorizationError: string } | null = null
    if (secure) {
      const s = socket as Tls.TLSSocket
      const x509 = s.getPeerX509Certificate()
      if (x509) cert = { raw: new Uint8Array(x509.raw), authorized: s.authorized, authorizationError: String(s.authorizationError) }
    }
    post({ t: 'conn', lid, cid, remoteAddress: socket.remoteAddress ?? '', remotePort: socket.remotePort ?? 0, cert })
    socket.on('data', (chunk: Buffer) => {
      const rest = c.first ? firstFrame(cid, c, chunk) : chunk
      if (rest) toMain(cid, c, rest)
    })
    socket.on('timeout', () => post({ t: 'timeout', cid }))
    socket.on('error', () => {})
    socket.on('close', () => {
      conns.delete(cid)
      post({ t: 'close', cid })
    })
  }

  function listen(m: { lid: number; host: string; port: number; tls: Tls.TlsOptions | null }): void {
    const server = m.tls ? tls.createServer(m.tls, (s) => connection(m.lid, s, true)) : net.createServer((s) => connection(m.lid, s, false))
    if (m.tls)
      server.on('tlsClientError', (err: Error, s: Tls.TLSSocket) =>
        post({ t: 'tlsClientError', lid: m.lid, remote: `${s.remoteAddress}:${s.remotePort}`, message: err.message }),
      )
    server.once('error', (err: NodeJS.ErrnoException) => post({ t: 'listenError', lid: m.lid, message: err.message, code: err.code }))
    server.listen({ host: m.host, port: m.port }, () => {
      servers.set(m.lid, server)
      post({ t: 'listening', lid: m.lid, port: (server.address() as Net.AddressInfo).port })
    })
  }

  function unlisten(lid: number): void {
    const server = servers.get(lid)
    servers.delete(lid)
    answers.delete(lid)
    for (const c of conns.values()) if (c.lid === lid) c.socket.destroy()
    if (!server) return void post({ t: 'unlistened', lid })
    server.close(() => post({ t: 'unlistened', lid }))
  }

  function resume(cid: number, c: Conn): void {
    c.pausedByMain = false
    while (c.held.length && !c.pausedByMain) toMain(cid, c, c.held.shift()!)
    if (!c.pausedByMain) c.socket.resume()
  }

  /** A command from the brokers' thread (each kind uses some of the fields). */
  interface Command {
    t: string
    lid: number
    cid: number
    host: string
    port: number
    tls: Tls.TlsOptions | null
    answers: Answers | null
    buf: Uint8Array
    ms: number
  }
  parent.on('message', (m: Command | { t: 'batch'; commands: Command[] }) => {
    if (m.t === 'batch') for (const c of (m as { commands: Command[] }).commands) command(c)
    else command(m as Command)
  })

  function command(m: Command): void {
    if (m.t === 'listen') return listen(m)
    if (m.t === 'unlisten') return unlisten(m.lid)
    if (m.t === 'answers') return void (m.answers ? answers.set(m.lid, m.answers) : answers.delete(m.lid))
    if (m.t === 'timings') return void (timings = true)
    const c = conns.get(m.cid)
    if (!c) return
    const s = c.socket
    switch (m.t) {
      case 'write':
        s.write(m.buf)
        return
      case 'end':
        s.end(m.buf, () => post({ t: 'ended', cid: m.cid }))
        return
      case 'destroy':
        s.destroy()
        return
      case 'pause':
        c.pausedByMain = true
        if (!c.first) s.pause()
        return
      case 'resume':
        return resume(m.cid, c)
      case 'timeout':
        s.setTimeout(m.ms)
        return
    }
  }
}
