import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net'
import { encodeRequestFrame, decodeResponseFrame } from '../../src/net/wire.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../../src/protocol/header.js'
import {
  FindCoordinator,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  Metadata,
  type MetadataResponse,
  OffsetFetch,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  SyncGroup,
} from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

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
 *
 * With `coordinator: true` it also stands in as the group coordinator, for
 * @platformatic/kafka's consumer, which speaks only versions of the group
 * APIs that the mock does not know or misreads: FindCoordinator v4+ and
 * OffsetFetch v8+ (the mock knows up to v3 and v6); JoinGroup v6+,
 * SyncGroup v4+, Heartbeat v4 and LeaveGroup v4+, which the mock misreads
 * (bench/support/clients.ts caps them). The shim advertises what the client
 * needs, answers FindCoordinator itself, naming itself (node SHIM_NODE_ID,
 * its own address) as every group's coordinator, adds that node to the
 * Metadata answers that pass through it, and sends each of those requests
 * on in a version the mock reads (with wafka's protocol codecs), turning the
 * answer back into the version asked for. What it passes on goes to its
 * broker, which must therefore be the group's coordinator
 * (MockBroker.setCoordinator). Fetch and ListOffsets still go to the
 * partition leaders directly.
 */

const API_VERSIONS = 18
/** The node id the shim gives itself as a group coordinator: no mock broker has it. */
export const SHIM_NODE_ID = 999

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
      for (let i = 0, at = 14; i < count; i++, at += 6)
        ranges.push({ key: data.readInt16BE(at), min: data.readInt16BE(at + 2), max: data.readInt16BE(at + 4) })
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

/** A response frame (size, header, body) for `api` at `version`. */
function responseFrame(api: ApiSpec, version: number, correlationId: number, body: unknown): Buffer {
  const w = new Writer(256)
  w.reserve(4)
  encodeResponseHeader(w, responseHeaderVersion(api.apiKey, version), { correlationId })
  api.encodeResponse(w, version, body as never)
  w.setInt32At(0, w.length - 4)
  return Buffer.from(w.finish())
}

/** The versions advertised in coordinator mode: at least those @platformatic/kafka's consumer needs. */
function withCoordinatorVersions(ranges: ApiRange[]): ApiRange[] {
  const floor = new Map([
    [FindCoordinator.apiKey, 4],
    [OffsetFetch.apiKey, 8],
    [JoinGroup.apiKey, 6],
    [SyncGroup.apiKey, 4],
    [Heartbeat.apiKey, 4],
    [LeaveGroup.apiKey, 4],
  ])
  return ranges.map((r) => (floor.has(r.key) ? { ...r, max: Math.max(r.max, floor.get(r.key)!) } : r))
}

interface Rewrite {
  /** The frame to send to the broker, or null when the shim answers itself. */
  forward: Buffer | null
  /** The shim's own answer. */
  answer?: Buffer
  /** How to turn the broker's answer (a whole frame) into the one the client asked for. */
  response?: (frame: Buffer) => Buffer
}

/**
 * A request sent on to the broker as `api` v`as`: `request` maps the decoded
 * request to what is sent, `response` the broker's decoded answer to what
 * the client gets (same shapes: wafka's codecs decode every version to one).
 */
function relay<Req, Res>(
  frame: Buffer,
  api: ApiSpec<Req, Res>,
  as: number,
  request: (req: Req) => unknown = (req) => req,
  response: (res: Res) => unknown = (res) => res,
): Rewrite {
  const r = new Reader(frame, 4)
  const header = decodeRequestHeader(r)
  const req = api.decodeRequest(r, header.apiVersion)
  return {
    forward: encodeRequestFrame(api, as, header.correlationId, header.clientId, request(req)),
    response: (answer) =>
      responseFrame(api, header.apiVersion, header.correlationId, response(decodeResponseFrame(api, as, answer.subarray(4)) as Res)),
  }
}

/** The one item of a list the shim can rewrite only when it holds one. */
function single<T>(items: T[], what: string): T {
  if (items.length !== 1) throw new Error(`the shim rewrites ${what} of one, not ${items.length}`)
  return items[0]
}

/** Coordinator mode's rewrite of one request frame; undefined: pass it on unchanged. */
function coordinatorRewrite(frame: Buffer, self: { host: string; port: number }): Rewrite | undefined {
  const key = frame.readInt16BE(4)
  const version = frame.readInt16BE(6)
  switch (key) {
    case FindCoordinator.apiKey: {
      if (version < 4) return undefined
      const r = new Reader(frame, 4)
      const header = decodeRequestHeader(r)
      const keys = FindCoordinator.decodeRequest(r, version).coordinatorKeys
      const coordinators = keys.map((k) => ({
        key: k,
        nodeId: SHIM_NODE_ID,
        host: self.host,
        port: self.port,
        errorCode: 0,
        errorMessage: null,
      }))
      return { forward: null, answer: responseFrame(FindCoordinator, version, header.correlationId, { throttleTimeMs: 0, coordinators }) }
    }
    case Metadata.apiKey:
      return {
        forward: frame,
        response: (answer) => {
          const res = decodeResponseFrame(Metadata, version, answer.subarray(4)) as MetadataResponse
          res.brokers.push({ nodeId: SHIM_NODE_ID, host: self.host, port: self.port, rack: null })
          return responseFrame(Metadata, version, frame.readInt32BE(8), res)
        },
      }
    case OffsetFetch.apiKey: {
      // v8 asks for a list of groups; v6 for one.
      let group = { groupId: '' }
      const toV6 = (req: OffsetFetchRequest) => ({ ...(group = single(req.groups, 'OffsetFetch groups')), requireStable: false })
      const fromV6 = (res: OffsetFetchResponse) => ({
        throttleTimeMs: res.throttleTimeMs,
        groups: [{ groupId: group.groupId, topics: res.topics, errorCode: res.errorCode }],
      })
      return version >= 8 ? relay(frame, OffsetFetch, 6, toV6, fromV6) : undefined
    }
    case JoinGroup.apiKey:
    case SyncGroup.apiKey:
    case Heartbeat.apiKey: {
      const api = key === JoinGroup.apiKey ? JoinGroup : key === SyncGroup.apiKey ? SyncGroup : Heartbeat
      // Their first flexible version adds no field: the one before reads the same.
      return version >= api.flexibleFrom ? relay(frame, api as ApiSpec, api.flexibleFrom - 1) : undefined
    }
    case LeaveGroup.apiKey: {
      // v3+ names a list of members; v1 one member.
      let memberId = ''
      const toV1 = (req: LeaveGroupRequest) => ({
        groupId: req.groupId,
        memberId: (memberId = single(req.members, 'LeaveGroup members').memberId),
      })
      const fromV1 = (res: LeaveGroupResponse) => ({ ...res, members: [{ memberId, groupInstanceId: null, errorCode: res.errorCode }] })
      return version >= 3 ? relay(frame, LeaveGroup, 1, toV1, fromV1) : undefined
    }
    default:
      return undefined
  }
}

/** Splits a byte stream into size-prefixed frames (each with its size), calling `onFrame` for each. */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    while (pending.length >= 4) {
      const size = pending.readInt32BE(0)
      if (pending.length < 4 + size) break
      const frame = pending.subarray(0, 4 + size)
      pending = pending.subarray(4 + size)
      onFrame(frame)
    }
  }
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

  static async start(host: string, port: number, options: { coordinator?: boolean } = {}): Promise<ApiVersionsShim> {
    const brokerRanges = await brokerVersions(host, port)
    const ranges = options.coordinator ? withCoordinatorVersions(brokerRanges) : brokerRanges
    let shim!: ApiVersionsShim
    let self!: { host: string; port: number }
    const server = createServer((client) => {
      const upstream = connect({ host, port })
      shim.sockets.add(client).add(upstream)
      const drop = () => {
        client.destroy()
        upstream.destroy()
        shim.sockets.delete(client)
        shim.sockets.delete(upstream)
      }
      /** A frame the shim could not rewrite: said on stderr, and the client's connection dropped. */
      const failed = (err: unknown) => {
        process.stderr.write(`api-versions shim: ${(err as Error).message}\n`)
        drop()
      }
      client.on('error', drop).on('close', drop)
      upstream.on('error', drop).on('close', drop)
      /** Coordinator mode: rewrites of the broker's answers, by correlation id. */
      const rewrites = new Map<number, (frame: Buffer) => Buffer>()
      if (options.coordinator) {
        upstream.on(
          'data',
          framer((frame) => {
            const rewrite = rewrites.get(frame.readInt32BE(4))
            rewrites.delete(frame.readInt32BE(4))
            try {
              client.write(rewrite ? rewrite(frame) : frame)
            } catch (err) {
              failed(err)
            }
          }),
        )
      } else {
        upstream.pipe(client)
      }
      client.on(
        'data',
        framer((frame) => {
          if (frame.length >= 12 && frame.readInt16BE(4) === API_VERSIONS && frame.readInt16BE(6) >= 3) {
            shim.answered++
            client.write(versionsV3(frame.readInt32BE(8), ranges))
            return
          }
          let rewrite: ReturnType<typeof coordinatorRewrite>
          try {
            rewrite = options.coordinator && frame.length >= 12 ? coordinatorRewrite(frame, self) : undefined
          } catch (err) {
            return failed(err)
          }
          if (rewrite?.answer) {
            shim.answered++
            client.write(rewrite.answer)
          }
          const forward = rewrite ? rewrite.forward : frame
          if (!forward) return
          if (rewrite?.response) rewrites.set(forward.readInt32BE(8), rewrite.response)
          shim.forwardedBytes += forward.length
          upstream.write(forward)
        }),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    self = { host: '127.0.0.1', port: (server.address() as AddressInfo).port }
    shim = new ApiVersionsShim(server, `${self.host}:${self.port}`)
    return shim
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
