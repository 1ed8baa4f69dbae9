import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net'

/**
 * A bootstrap address for clients that only speak ApiVersions v3 (as
 * @platformatic/kafka does: it sends v3 and gives up on UNSUPPORTED_VERSION
 * instead of retrying v0, as the protocol intends). librdkafka's mock
 * cluster advertises ApiVersions v0-2, and its v3 answer, when widened, is
 * malformed (no tag buffers, a plain count for the compact array).
 *
 * The shim listens on its own port in front of one broker. It answers
 * ApiVersions v3+ requests itself, with the versions the broker gave a v0
 * request, correctly encoded; every other request goes to the broker
 * unchanged, and the broker's answers come back unchanged. Only bootstrap
 * traffic passes through it: Metadata names the brokers' own addresses, and
 * the client produces to those. `forwardedBytes` shows how much did pass.
 */

const API_VERSIONS = 18

interface ApiRange {
  key: number
  min: number
  max: number
}

function uvarint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n >>>= 7
  }
  out.push(n)
  return out
}

/** The broker's answer to ApiVersions v0. */
function brokerVersions(host: string, port: number): Promise<ApiRange[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port })
    const clientId = Buffer.from('bench-shim')
    const request = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length)
    request.writeInt32BE(request.length - 4, 0)
    request.writeInt16BE(API_VERSIONS, 4)
    request.writeInt16BE(0, 6)
    request.writeInt32BE(1, 8)
    request.writeInt16BE(clientId.length, 12)
    clientId.copy(request, 14)
    let data = Buffer.alloc(0)
    socket.on('error', reject)
    socket.on('connect', () => socket.write(request))
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      if (data.length < 4 || data.length < 4 + data.readInt32BE(0)) return
      socket.destroy()
      // size, correlation id, error code, count, then (key, min, max) int16 triples.
      const error = data.readInt16BE(8)
      if (error !== 0) return reject(new Error(`ApiVersions v0 answered error ${error}`))
      const count = data.readInt32BE(10)
      const ranges: ApiRange[] = []
      for (let i = 0, at = 14; i < count; i++, at += 6) ranges.push({ key: data.readInt16BE(at), min: data.readInt16BE(at + 2), max: data.readInt16BE(at + 4) })
      resolve(ranges)
    })
  })
}

/** An ApiVersions v3 response (header v0, as ApiVersions' always is). */
function versionsV3(correlationId: number, ranges: ApiRange[]): Buffer {
  const body: number[] = []
  const i16 = (v: number) => body.push((v >> 8) & 0xff, v & 0xff)
  const i32 = (v: number) => body.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff)
  i32(correlationId)
  i16(0) // error code
  body.push(...uvarint(ranges.length + 1))
  for (const r of ranges) {
    i16(r.key)
    i16(r.min)
    i16(r.max)
    body.push(0) // no tagged fields
  }
  i32(0) // throttle time
  body.push(0) // no tagged fields
  const out = Buffer.alloc(4 + body.length)
  out.writeInt32BE(body.length, 0)
  Buffer.from(body).copy(out, 4)
  return out
}

export class ApiVersionsShim {
  forwardedBytes = 0
  answered = 0
  private readonly sockets = new Set<Socket>()

  private constructor(
    private readonly server: Server,
    /** "127.0.0.1:port" */
    readonly address: string,
  ) {}

  static async start(host: string, port: number): Promise<ApiVersionsShim> {
    const ranges = await brokerVersions(host, port)
    let shim!: ApiVersionsShim
    const server = createServer((client) => {
      const upstream = connect({ host, port })
      shim.sockets.add(client).add(upstream)
      const drop = () => {
        client.destroy()
        upstream.destroy()
        shim.sockets.delete(client)
        shim.sockets.delete(upstream)
      }
      client.on('error', drop).on('close', drop)
      upstream.on('error', drop).on('close', drop)
      upstream.pipe(client)
      let pending: Buffer = Buffer.alloc(0)
      client.on('data', (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
        while (pending.length >= 12) {
          const size = pending.readInt32BE(0)
          if (pending.length < 4 + size) break
          const frame = pending.subarray(0, 4 + size)
          pending = pending.subarray(4 + size)
          if (frame.readInt16BE(4) === API_VERSIONS && frame.readInt16BE(6) >= 3) {
            shim.answered++
            client.write(versionsV3(frame.readInt32BE(8), ranges))
          } else {
            shim.forwardedBytes += frame.length
            upstream.write(frame)
          }
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    shim = new ApiVersionsShim(server, `127.0.0.1:${(server.address() as AddressInfo).port}`)
    return shim
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
