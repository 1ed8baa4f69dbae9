// A fake Kafka cluster of the project's own, for hostile-broker tests: each
// broker is a node:net server on 127.0.0.1 that reads requests and writes
// answers with wafka's own generated codecs (decodeRequest/encodeResponse),
// speaks just enough of ApiVersions, Metadata, Produce, Fetch, ListOffsets
// and InitProducerId to serve a producer, a consumer and an admin client, and
// misbehaves on cue: a test replaces a broker's answer to an API with one of
// the misbehaviours below (or its own function of the request).
import { Buffer } from 'node:buffer'
import * as net from 'node:net'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import type { RecordInput } from '../../src/codec/types.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../../src/protocol/header.js'
import {
  apis,
  ApiVersions,
  Fetch,
  InitProducerId,
  ListOffsets,
  Metadata,
  Produce,
  type ApiSpec,
} from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

/** What the fake speaks: the versions of the report (Kafka 0.11-era, non-flexible). */
export const FAKE_VERSIONS: Array<[ApiSpec, number, number]> = [
  [ApiVersions, 0, 0],
  [Metadata, 0, 1],
  [Produce, 3, 3],
  [Fetch, 4, 4],
  [ListOffsets, 0, 1],
  [InitProducerId, 0, 0],
]

export interface FakeRequest {
  apiKey: number
  apiVersion: number
  correlationId: number
  api: ApiSpec
  body: any
  at: number
}

/** A connection's side of the fake: what a misbehaviour writes with. */
export class FakeSocket {
  constructor(
    readonly socket: net.Socket,
    readonly broker: FakeBroker,
  ) {}

  /** A whole response frame for `req` with `body`, encoded by wafka's codecs. */
  frame(req: FakeRequest, body: any, correlationId = req.correlationId): Buffer {
    const w = new Writer(256)
    w.reserve(4)
    encodeResponseHeader(w, responseHeaderVersion(req.apiKey, req.apiVersion), { correlationId })
    req.api.encodeResponse(w, req.apiVersion, body)
    w.setInt32At(0, w.length - 4)
    return w.finish()
  }

  answer(req: FakeRequest, body: any): void {
    if (!this.socket.destroyed) this.socket.write(this.frame(req, body))
  }

  write(bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes)
  }

  /** Writes `bytes` one byte every `everyMs` (a broker on a dying link). */
  drip(bytes: Buffer, everyMs: number): void {
    let i = 0
    const timer = setInterval(() => {
      if (this.socket.destroyed || i >= bytes.length) return clearInterval(timer)
      this.socket.write(bytes.subarray(i, ++i))
    }, everyMs)
    this.broker.timers.add(timer)
  }

  /** Sends a TCP RST. */
  reset(): void {
    this.socket.resetAndDestroy()
  }
}

/** Answers a request instead of the fake's protocol; returning false lets the default answer go. */
export type Behaviour = (req: FakeRequest, socket: FakeSocket) => boolean | void

export interface PartitionModel {
  leader: number
  /** Record batches, in offset order. */
  log: Array<{ baseOffset: bigint; bytes: Buffer }>
  end: bigint
  errorCode: number
}

export class FakeBroker {
  readonly server: net.Server
  port = 0
  /** TCP connections accepted. */
  connections = 0
  readonly requests: FakeRequest[] = []
  readonly sockets = new Set<net.Socket>()
  readonly timers = new Set<ReturnType<typeof setInterval>>()
  /** By API key (or 'any'): what this broker does instead of answering. */
  readonly behaviours = new Map<number | 'any', Behaviour>()

  constructor(
    readonly nodeId: number,
    readonly cluster: FakeCluster,
  ) {
    this.server = net.createServer((socket) => this.accept(socket))
  }

  /** API names and versions asked for, in order: for asserting what the client did. */
  asked(api: ApiSpec): number {
    return this.requests.filter((r) => r.apiKey === api.apiKey).length
  }

  on(api: ApiSpec | 'any', behaviour: Behaviour): void {
    this.behaviours.set(api === 'any' ? 'any' : api.apiKey, behaviour)
  }

  off(api: ApiSpec | 'any'): void {
    this.behaviours.delete(api === 'any' ? 'any' : api.apiKey)
  }

  private accept(socket: net.Socket): void {
    this.connections++
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => {})
    const fake = new FakeSocket(socket, this)
    let buffered = Buffer.alloc(0)
    socket.on('data', (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
      while (buffered.length >= 4) {
        const size = buffered.readInt32BE(0)
        if (buffered.length < 4 + size) break
        const frame = buffered.subarray(4, 4 + size)
        buffered = buffered.subarray(4 + size)
        try {
          this.handle(frame, fake)
        } catch {
          // A request it cannot read or answer: as a Kafka broker does, it closes the connection.
          socket.destroy()
        }
      }
    })
  }

  private handle(frame: Buffer, socket: FakeSocket): void {
    const r = new Reader(frame)
    const header = decodeRequestHeader(r)
    const api = apis[header.apiKey]
    const req: FakeRequest = {
      apiKey: header.apiKey,
      apiVersion: header.apiVersion,
      correlationId: header.correlationId,
      api,
      body: undefined,
      at: Date.now(),
    }
    const range = FAKE_VERSIONS.find(([a]) => a.apiKey === header.apiKey)
    const known = api !== undefined && range !== undefined && header.apiVersion >= range[1] && header.apiVersion <= range[2]
    // A version past the fake's own (one a test made it advertise) is read with the codec, which knows them all.
    const readable = api !== undefined && header.apiVersion >= api.minVersion && header.apiVersion <= api.maxVersion
    if (readable) req.body = api.decodeRequest(r, header.apiVersion)
    this.requests.push(req)
    if (!known && header.apiKey === ApiVersions.apiKey && !this.behaviours.has(ApiVersions.apiKey)) {
      // KIP-511: a version it does not know is answered in v0, with its range.
      req.apiVersion = 0
      socket.answer(req, { ...this.cluster.answer(this, req), errorCode: UNSUPPORTED_VERSION })
      return
    }
    const behaviour = this.behaviours.get(header.apiKey) ?? this.behaviours.get('any')
    if (behaviour && behaviour(req, socket) !== false) return
    socket.answer(req, this.cluster.answer(this, req))
  }

  listen(port = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen({ host: '127.0.0.1', port }, () => {
        this.port = (this.server.address() as net.AddressInfo).port
        resolve()
      })
    })
  }

  /** Closes the listener and every connection (a broker going away). */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t)
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

const NONE = 0
const UNSUPPORTED_VERSION = 35
const OFFSET_OUT_OF_RANGE = 1

/**
 * Brokers 1..n and their topics. Metadata lists `advertised` addresses for
 * brokers (default: the fake's own), so a leader can be moved to an address
 * that is silent (a powered-off host) by `advertise()`.
 */
export class FakeCluster {
  readonly brokers = new Map<number, FakeBroker>()
  readonly topics = new Map<string, PartitionModel[]>()
  private readonly advertised = new Map<number, { host: string; port: number }>()

  static async start(options: { brokers?: number; topics?: Record<string, number> } = {}): Promise<FakeCluster> {
    const cluster = new FakeCluster()
    for (let id = 1; id <= (options.brokers ?? 1); id++) {
      const b = new FakeBroker(id, cluster)
      await b.listen()
      cluster.brokers.set(id, b)
    }
    for (const [name, count] of Object.entries(options.topics ?? {})) cluster.createTopic(name, count)
    return cluster
  }

  get bootstrap(): string[] {
    return [...this.brokers.values()].map((b) => `127.0.0.1:${b.port}`)
  }

  broker(id: number): FakeBroker {
    return this.brokers.get(id)!
  }

  createTopic(name: string, partitions: number, leader = 1): void {
    this.topics.set(
      name,
      Array.from({ length: partitions }, () => ({ leader, log: [], end: 0n, errorCode: NONE })),
    )
  }

  partition(topic: string, partition: number): PartitionModel {
    return this.topics.get(topic)![partition]
  }

  /** Moves a partition's leadership (Metadata answers with the new leader from now on). */
  setLeader(topic: string, partition: number, leader: number): void {
    this.partition(topic, partition).leader = leader
  }

  /** Metadata lists broker `id` at this address from now on. */
  advertise(id: number, address: { host: string; port: number }): void {
    this.advertised.set(id, address)
  }

  /** Appends records as one batch, as if produced; returns its base offset. */
  append(topic: string, partition: number, records: RecordInput[]): bigint {
    const p = this.partition(topic, partition)
    const baseOffset = p.end
    p.log.push({ baseOffset, bytes: encodeRecordBatch(records, { baseOffset }) })
    p.end += BigInt(records.length)
    return baseOffset
  }

  /** Total requests of `api` across brokers. */
  asked(api: ApiSpec): number {
    let n = 0
    for (const b of this.brokers.values()) n += b.asked(api)
    return n
  }

  /** TCP connections accepted across brokers. */
  get connections(): number {
    let n = 0
    for (const b of this.brokers.values()) n += b.connections
    return n
  }

  async close(): Promise<void> {
    await Promise.all([...this.brokers.values()].map((b) => b.close()))
  }

  /** The fake's protocol: a well-behaved broker's answer to `req`. */
  answer(broker: FakeBroker, req: FakeRequest): any {
    const body = req.body
    switch (req.apiKey) {
      case ApiVersions.apiKey:
        return { errorCode: NONE, apiKeys: FAKE_VERSIONS.map(([a, min, max]) => ({ apiKey: a.apiKey, minVersion: min, maxVersion: max })) }
      case Metadata.apiKey: {
        const names = body.topics === null || body.topics.length === 0 ? [...this.topics.keys()] : body.topics.map((t: any) => t.name)
        const v1 = req.apiVersion >= 1
        return {
          brokers: [...this.brokers.values()].map((b) => ({
            nodeId: b.nodeId,
            ...(this.advertised.get(b.nodeId) ?? { host: '127.0.0.1', port: b.port }),
          })),
          ...(v1 ? { controllerId: 1 } : {}),
          topics: names.map((name: string) => {
            const ps = this.topics.get(name)
            if (!ps) return { errorCode: 3, name, partitions: [] }
            return {
              errorCode: NONE,
              name,
              partitions: ps.map((p, i) => ({
                errorCode: p.errorCode,
                partitionIndex: i,
                leaderId: p.leader,
                replicaNodes: [p.leader],
                isrNodes: [p.leader],
              })),
            }
          }),
        }
      }
      case Produce.apiKey:
        return {
          responses: body.topicData.map((t: any) => ({
            name: t.name,
            partitionResponses: t.partitionData.map((pd: any) => {
              const p = this.topics.get(t.name)?.[pd.index]
              if (!p) return { index: pd.index, errorCode: 3, baseOffset: -1n }
              if (p.leader !== broker.nodeId) return { index: pd.index, errorCode: 6, baseOffset: -1n }
              const bytes = Buffer.from(pd.records)
              const baseOffset = p.end
              bytes.writeBigInt64BE(baseOffset, 0)
              p.log.push({ baseOffset, bytes })
              p.end += BigInt(bytes.readInt32BE(23) + 1)
              return { index: pd.index, errorCode: NONE, baseOffset, logAppendTimeMs: -1n }
            }),
          })),
        }
      case Fetch.apiKey:
        return {
          responses: body.topics.map((t: any) => ({
            topic: t.topic,
            partitions: t.partitions.map((fp: any) => {
              const p = this.topics.get(t.topic)?.[fp.partition]
              if (!p) return { partitionIndex: fp.partition, errorCode: 3, highWatermark: -1n, records: null }
              if (p.leader !== broker.nodeId) return { partitionIndex: fp.partition, errorCode: 6, highWatermark: -1n, records: null }
              if (fp.fetchOffset < 0n || fp.fetchOffset > p.end)
                return { partitionIndex: fp.partition, errorCode: OFFSET_OUT_OF_RANGE, highWatermark: p.end, records: null }
              const out: Buffer[] = []
              let size = 0
              for (const b of p.log) {
                const last = b.baseOffset + BigInt(b.bytes.readInt32BE(23))
                if (last < fp.fetchOffset) continue
                // As Kafka since KIP-74: the first batch whole even past the limit, then what fits.
                if (out.length > 0 && size + b.bytes.length > fp.partitionMaxBytes) break
                out.push(b.bytes)
                size += b.bytes.length
              }
              return {
                partitionIndex: fp.partition,
                errorCode: NONE,
                highWatermark: p.end,
                lastStableOffset: p.end,
                abortedTransactions: null,
                records: Buffer.concat(out),
              }
            }),
          })),
        }
      case ListOffsets.apiKey:
        return {
          topics: body.topics.map((t: any) => ({
            name: t.name,
            partitions: t.partitions.map((lp: any) => {
              const p = this.topics.get(t.name)?.[lp.partitionIndex]
              if (!p) return { partitionIndex: lp.partitionIndex, errorCode: 3 }
              if (p.leader !== broker.nodeId) return { partitionIndex: lp.partitionIndex, errorCode: 6 }
              const offset = lp.timestamp === -2n ? 0n : p.end
              return {
                partitionIndex: lp.partitionIndex,
                errorCode: NONE,
                ...(req.apiVersion === 0 ? { oldStyleOffsets: [offset] } : { timestamp: -1n, offset }),
              }
            }),
          })),
        }
      case InitProducerId.apiKey:
        return { errorCode: NONE, producerId: 4242n, producerEpoch: 0 }
      default:
        // An API it does not speak: as a broker answers a version it does not know.
        return { errorCode: UNSUPPORTED_VERSION }
    }
  }
}

// ---- misbehaviours ----

/** Reads the request and never answers. */
export const stall: Behaviour = () => true

/** Answers with `bytes` written one at a time, every `everyMs`. */
export const drip =
  (everyMs: number): Behaviour =>
  (req, s) => {
    s.drip(s.frame(req, s.broker.cluster.answer(s.broker, req)), everyMs)
    return true
  }

/** Writes the first `keep` bytes of the answer, then RST. */
export const resetMidFrame =
  (keep = 10): Behaviour =>
  (req, s) => {
    s.write(s.frame(req, s.broker.cluster.answer(s.broker, req)).subarray(0, keep))
    setTimeout(() => s.reset(), 20)
    return true
  }

/** Writes part of the answer and closes the socket cleanly (FIN). */
export const truncateAndClose =
  (keep = 10): Behaviour =>
  (req, s) => {
    s.socket.end(s.frame(req, s.broker.cluster.answer(s.broker, req)).subarray(0, keep))
    return true
  }

/** Answers with another request's correlation id. */
export const wrongCorrelationId: Behaviour = (req, s) => {
  s.write(s.frame(req, s.broker.cluster.answer(s.broker, req), req.correlationId + 7))
  return true
}

/** A frame whose size field claims `size` bytes (e.g. 0x7fffffff, or 0x80000000 read as unsigned). */
export const claimSize =
  (size: number): Behaviour =>
  (_req, s) => {
    const b = Buffer.alloc(8)
    b.writeUInt32BE(size >>> 0, 0)
    s.write(b)
    return true
  }

/** A body of the answer's header followed by `body` bytes as they are (e.g. a huge array count). */
export const rawBody =
  (body: Buffer): Behaviour =>
  (req, s) => {
    const frame = Buffer.alloc(8 + body.length)
    frame.writeInt32BE(4 + body.length, 0)
    frame.writeInt32BE(req.correlationId, 4)
    body.copy(frame, 8)
    s.write(frame)
    return true
  }

/** A Fetch answer whose only partition carries `records` as given (corrupt, truncated, a bomb). */
export const fetchRecords =
  (records: (req: FakeRequest) => Buffer | null): Behaviour =>
  (req, s) => {
    s.answer(req, {
      responses: req.body.topics.map((t: any) => ({
        topic: t.topic,
        partitions: t.partitions.map((fp: any) => ({
          partitionIndex: fp.partition,
          errorCode: 0,
          highWatermark: 1_000_000n,
          lastStableOffset: 1_000_000n,
          abortedTransactions: null,
          records: records(req),
        })),
      })),
    })
    return true
  }
