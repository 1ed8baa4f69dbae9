import type { Buffer } from 'node:buffer'
import type { ApiSpec, Input } from '../protocol/api.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion, type RequestHeader } from '../protocol/header.js'
import { ApiKeys } from '../protocol/messages/api-keys.js'
import { apis } from '../protocol/messages/index.js'
import { Reader } from '../protocol/reader.js'
import { Writer } from '../protocol/writer.js'
import type { EmbeddedCluster } from './cluster.js'
import { apiVersionsRefusal, handlers } from './dispatch.js'
import { CLOSE_CONNECTION, NO_RESPONSE, type RequestContext } from './handler.js'
import { Listener, type ClientConnection } from './listener.js'
import { SaslSession } from './sasl/session.js'
import type { Duplex } from 'node:stream'
import { FetchSessions } from './fetch-sessions.js'
import { PartitionLog } from './partition-log.js'
import { ProducerState } from './producer-state.js'
import { LeaderState } from './leader-state.js'
import { ReplicaFetcher } from './replica-fetcher.js'
import type { PartitionImage, TopicImage } from './controller.js'
import { join } from 'node:path'
import { readBatchHeader } from './record-batch.js'
import { openReplicaLog, readRecoveryPoints, takeSnapshot, writeRecoveryPoints } from './replica-restart.js'
import { topicConfig } from './topic-configs.js'
import { advertisedHost } from './options.js'
import { isCompacted } from './log-cleaner.js'

/** sasl.server.max.receive.size: Kafka's limit on a request before its connection is authenticated (512 KiB). */
const SASL_MAX_RECEIVE_BYTES = 524_288

/** A partition as one broker holds it: its log, the producers' idempotence state, and its followers while it leads. */
export interface Replica {
  log: PartitionLog
  producers: ProducerState
  /** The leader side, for the leader epoch this broker leads under; null while it follows. */
  leader: LeaderState | null
}

/**
 * One virtual broker: its own listener on 127.0.0.1, the replicas it holds,
 * and the request pipeline (header, dispatch by API key, the handler,
 * response frame). A stopped broker keeps its replicas, as a disk would.
 * It follows the partitions others lead (ReplicaFetcher) and, for those it
 * leads, shrinks the ISR of followers that stop keeping up.
 */
export class VirtualBroker {
  /** The host clients are given (advertised.listeners'); the listener binds options.host. */
  readonly host: string
  port = 0
  private listener: Listener | null = null
  readonly replicas = new Map<string, Replica>()
  /** Ends every waiting long poll early (on stop); each registers itself here. */
  readonly waits = new Set<() => void>()
  readonly fetchSessions = new FetchSessions()
  readonly fetcher: ReplicaFetcher
  private isrTimer: NodeJS.Timeout | null = null
  private unsubscribe: (() => void) | null = null
  /** Whether this broker's directory was stopped cleanly (known at its first start; null before). */
  private cleanStart: boolean | null = null
  /** The recovery points this broker's directory's checkpoint held at start ("<topic>-<partition>" -> offset), read at the first replica opened. */
  private recoveryPoints: Map<string, number> | null = null

  constructor(
    readonly id: number,
    private readonly cluster: EmbeddedCluster,
  ) {
    this.fetcher = new ReplicaFetcher(this, cluster)
    this.host = advertisedHost(cluster.options)
  }

  get running(): boolean {
    return this.listener !== null
  }

  /** Listens on `port` (0: an ephemeral one the first time, the same one after a stop). */
  async start(port = this.port): Promise<void> {
    if (this.listener) return
    this.cleanStart ??= this.cluster.cleanlyStopped(this.id)
    const { maxRequestBytes, maxConnections, connectionsMaxReauthMs } = this.cluster.options
    const users = this.cluster.saslUsers
    const listener = new Listener(this.handleFrame, {
      maxRequestBytes,
      maxConnections,
      onProblem: (why) => this.cluster.problem(this.id, why),
      tls: this.cluster.tls ?? undefined,
      // Every client connection of a SASL listener authenticates first (in-process peers do not), with
      // requests up to sasl.server.max.receive.size until it has, as Kafka bounds what a stranger can make it buffer.
      onAccept: users
        ? (c) => {
            c.limitRequests(Math.min(SASL_MAX_RECEIVE_BYTES, maxRequestBytes), 'sasl.server.max.receive.size')
            c.sasl = new SaslSession(users, connectionsMaxReauthMs, () => c.limitRequests(maxRequestBytes, 'socket.request.max.bytes'))
          }
        : undefined,
    })
    this.port = await listener.listen(this.cluster.options.host, port)
    this.listener = listener
    const { controller } = this.cluster
    this.unsubscribe = controller.onRecord((r) => {
      if (r.type === 'partition' || r.type === 'partition-change') {
        const t = controller.topicsById.get(r.topicId)
        const p = t?.partitions[r.partition]
        if (t && p) this.syncRole(t, p)
      }
      this.fetcher.poke()
    })
    for (const t of controller.topics.values()) for (const p of t.partitions) if (p) this.syncRole(t, p)
    const lag = this.cluster.options.replicaLagTimeMaxMs
    // Kafka checks every half of replica.lag.time.max.ms.
    this.isrTimer = setInterval(() => this.shrinkIsrs(), Math.max(5, Math.floor(lag / 2)))
    this.fetcher.poke()
  }

  async stop(): Promise<void> {
    const listener = this.listener
    this.listener = null
    this.unsubscribe?.()
    this.unsubscribe = null
    if (this.isrTimer) clearInterval(this.isrTimer)
    this.isrTimer = null
    for (const end of [...this.waits]) end()
    // Sessions live in a broker's memory: a restarted broker knows none.
    this.fetchSessions.clear()
    await Promise.all([listener?.close(), this.fetcher.stop()])
  }

  /** An in-process connection to this broker's listener, for another broker's replica fetcher; throws while stopped. */
  connectInternal(peer: string): Duplex {
    if (!this.listener) throw Object.assign(new Error(`connection to broker ${this.id} refused (stopped)`), { code: 'ECONNREFUSED' })
    return this.listener.connectInternal(peer)
  }

  replica(topicId: string, partition: number): Replica {
    const key = `${topicId}/${partition}`
    let r = this.replicas.get(key)
    if (!r) this.replicas.set(key, (r = this.openReplica(topicId, partition)))
    return r
  }

  /**
   * A new replica: in memory, or with a dataDir its partition directory
   * opened and recovered, the epoch cache, transactions and producer
   * state restored from its snapshot and the batches after it
   * (replica-restart.ts).
   */
  private openReplica(topicId: string, partition: number): Replica {
    const dir = this.cluster.brokerDir(this.id)
    const t = this.cluster.controller.topicsById.get(topicId)
    if (!dir || !t) return { log: new PartitionLog(), producers: new ProducerState(), leader: null }
    const config = () => ({
      segmentBytes: Number(topicConfig(t, 'segment.bytes')),
      // A compacted log rolls by max.compaction.lag.ms too, so its newest records become cleanable in time (Kafka's maxSegmentMs).
      segmentMs: isCompacted(t)
        ? Math.min(Number(topicConfig(t, 'segment.ms')), Number(topicConfig(t, 'max.compaction.lag.ms')))
        : Number(topicConfig(t, 'segment.ms')),
      indexIntervalBytes: Number(topicConfig(t, 'index.interval.bytes')),
      // The topic's own, else the broker's log.flush.interval.* (their defaults: never).
      flushMessages: Number(t.configs.get('flush.messages') ?? this.cluster.options.logFlushIntervalMessages),
      flushMs: Number(t.configs.get('flush.ms') ?? this.cluster.options.logFlushIntervalMs),
    })
    const report = (m: string) => this.cluster.problem(this.id, m)
    this.recoveryPoints ??= readRecoveryPoints(dir, report)
    const name = `${t.name}-${partition}`
    const recovery = { clean: this.cleanStart !== false, recoveryPoint: this.recoveryPoints.get(name) ?? 0 }
    const { log, producers, disk } = openReplicaLog(join(dir, name), topicId, config, recovery, report)
    const replica: Replica = { log, producers, leader: null }
    // A producer snapshot at each new segment's base (Kafka's, on roll); the directory's recovery points when one moves.
    disk.onRoll = (offset) => takeSnapshot(disk, replica.log, replica.producers, offset, report)
    disk.onRecoveryPoint = () => this.writeRecoveryPoints()
    return replica
  }

  /**
   * Writes this broker's recovery-point-offset-checkpoint: each open
   * replica's recovery point (Kafka's, on its checkpoint interval; here
   * when one moves, and at a clean stop). Returns false when the write
   * failed (said).
   */
  writeRecoveryPoints(): boolean {
    const dir = this.cluster.brokerDir(this.id)
    if (!dir) return true
    const points: [string, number, number][] = []
    for (const [key, replica] of this.replicas) {
      const slash = key.indexOf('/')
      const t = this.cluster.controller.topicsById.get(key.slice(0, slash))
      if (t && replica.log.disk) points.push([t.name, Number(key.slice(slash + 1)), replica.log.disk.recoveryPoint])
    }
    try {
      writeRecoveryPoints(dir, points)
      return true
    } catch (err) {
      this.cluster.problem(this.id, `writing its recovery points: ${(err as Error).message}`)
      return false
    }
  }

  /** A clean stop's producer snapshot of a replica, at its log end (the next start replays nothing). */
  snapshotForRestart(replica: Replica): void {
    const disk = replica.log.disk
    if (disk) takeSnapshot(disk, replica.log, replica.producers, disk.logEndOffset, (m) => this.cluster.problem(this.id, m))
  }

  /**
   * Takes the role the metadata gives this broker for a partition it is a
   * replica of: a new leader epoch it leads starts fresh follower tracking
   * (its epoch marked at its log end) and bounds the high watermark by the
   * ISR; as a follower the high watermark comes from the leader.
   */
  syncRole(t: TopicImage, p: PartitionImage): void {
    if (!p.replicas.includes(this.id)) return
    const replica = this.replica(t.id, p.partition)
    const log = replica.log
    if (p.leader !== this.id) {
      log.hwBound = () => -1
      if (replica.leader) {
        replica.leader = null
        // Waiting acks=all produces see the leadership gone.
        log.notify()
      }
      return
    }
    const now = Date.now()
    if (replica.leader?.epoch !== p.leaderEpoch) {
      replica.leader = new LeaderState(p.leaderEpoch, this.id, p.replicas, now)
      log.markEpoch(p.leaderEpoch)
      this.endOrphanedTransactions(replica, p.leaderEpoch)
      const leader = replica.leader
      const image = p
      log.hwBound = () => leader.isrLogEnd(this.cluster.controller.topicsById.get(t.id)?.partitions[image.partition]?.isr ?? [])
    } else replica.leader.track(p.replicas, now)
    log.advanceHighWatermark()
    log.notify()
  }

  /**
   * A transaction a new leader's log has open but the coordinator does not
   * (it would hold the last stable offset back for good) gets its marker
   * here, as Kafka's coordinator resends markers to a new leader: the
   * decision when the coordinator has one; ABORT when it knows nothing of
   * the producer (its state was in the memory of a process that stopped: a
   * restart on a dataDir), as Kafka aborts what it finds open past its
   * timeout. Safe: EndTxn writes its markers before it answers, so a
   * transaction no coordinator knows was never acknowledged as committed.
   */
  private endOrphanedTransactions(replica: Replica, leaderEpoch: number): void {
    for (const producerId of replica.log.openTransactions()) {
      const outcome = this.cluster.transactions.outcome(producerId)
      if (outcome === 'ongoing') continue
      const epoch = Math.max(0, replica.producers.epochOf(producerId))
      replica.log.writeMarker(producerId, epoch, outcome === 'commit', leaderEpoch)
      replica.producers.endTransaction(producerId, epoch)
    }
  }

  /** The ISR check of every partition led here: followers past replica.lag.time.max.ms leave it. */
  private shrinkIsrs(): void {
    const { controller, options } = this.cluster
    const now = Date.now()
    for (const t of controller.topics.values()) {
      for (const p of t.partitions) {
        if (!p || p.leader !== this.id || p.isr.length <= 1) continue
        const replica = this.replicas.get(`${t.id}/${p.partition}`)
        if (!replica?.leader || replica.leader.epoch !== p.leaderEpoch) continue
        const out = replica.leader.outOfSync(p.isr, replica.log.logEndOffset, now, options.replicaLagTimeMaxMs)
        if (!out.length) continue
        controller.alterIsr(
          t.id,
          p.partition,
          this.id,
          p.leaderEpoch,
          p.isr.filter((r) => !out.includes(r)),
        )
        replica.log.advanceHighWatermark()
      }
    }
  }

  /**
   * A follower's fetch of a partition led here: its log end recorded, and
   * the ISR grown when it has caught up (past the high watermark and into
   * this leader's epoch), as Kafka's Partition.maybeExpandIsr does.
   */
  followerFetched(t: TopicImage, p: PartitionImage, replica: Replica, follower: number, fetchOffset: number): void {
    const leader = replica.leader
    if (!leader || leader.epoch !== p.leaderEpoch) return
    const log = replica.log
    leader.recordFetch(follower, fetchOffset, log.logEndOffset, Date.now())
    if (!p.isr.includes(follower) && fetchOffset >= log.highWatermark && fetchOffset >= log.epochStart(p.leaderEpoch))
      this.cluster.controller.alterIsr(t.id, p.partition, this.id, p.leaderEpoch, [...p.isr, follower])
    log.advanceHighWatermark()
  }

  private readonly handleFrame = async (
    frame: Buffer,
    connection: ClientConnection,
  ): Promise<Buffer | null | 'close' | { last: Buffer }> => {
    const sasl = connection.sasl
    if (sasl?.expectsRawTokens) {
      const out = await sasl.rawToken(frame)
      if (out.kind === 'raw') return out.bytes
      connection.close(out.why)
      return 'close'
    }
    const r = new Reader(frame)
    let header: RequestHeader
    try {
      header = decodeRequestHeader(r)
    } catch (err) {
      // An unknown API key has no header version to read the rest by, nor a response format: Kafka closes too.
      connection.close(`unreadable request header: ${(err as Error).message}`)
      return 'close'
    }
    const { apiKey, apiVersion } = header
    const handler = handlers[apiKey]
    let refusal: { code: number; why: string } | null = null
    if (sasl) {
      const verdict = await sasl.intercept(header, r)
      if (verdict.kind === 'close') {
        connection.close(verdict.why)
        return 'close'
      }
      if (verdict.kind === 'reply') {
        const out = this.frame(
          header,
          verdict.spec,
          verdict.version,
          verdict.body as Input<unknown>,
          responseHeaderVersion(apiKey, apiVersion),
        )
        if (!verdict.thenClose || out === 'close') return out
        this.cluster.problem(this.id, `${connection.remote}: ${verdict.thenClose}; connection closed`)
        return { last: out }
      }
      if (verdict.kind === 'refuse') refusal = { code: verdict.code, why: verdict.thenClose }
    }
    if (!refusal && apiKey === ApiKeys.ApiVersions && !(handler && apiVersion >= handler.minVersion && apiVersion <= handler.maxVersion)) {
      // KIP-511: a version this broker does not speak gets the v0 answer listing the versions it does.
      return this.frame(header, apis[apiKey], 0, apiVersionsRefusal(), 0)
    }
    const spec = apis[apiKey]
    if (!spec || apiVersion < spec.minVersion || apiVersion > spec.maxVersion) {
      connection.close(`${spec?.name ?? `API key ${apiKey}`} v${apiVersion} has no codec here to answer it with`)
      return 'close'
    }
    let req: unknown
    try {
      req = spec.decodeRequest(r, apiVersion)
    } catch (err) {
      connection.close(`malformed ${spec.name} v${apiVersion} request: ${(err as Error).message}`)
      return 'close'
    }
    const ctx: RequestContext = { broker: this, cluster: this.cluster, header, version: apiVersion, connection }
    if (refusal) {
      // A request in the middle of a SASL exchange: its own error response (ILLEGAL_SASL_STATE), then the close, as Kafka does.
      if (!handler) {
        connection.close(refusal.why)
        return 'close'
      }
      const out = this.frame(
        header,
        spec,
        apiVersion,
        handler.errorResponse(req, refusal.code, ctx) as Input<unknown>,
        responseHeaderVersion(apiKey, apiVersion),
      )
      if (out === 'close') return out
      this.cluster.problem(this.id, `${connection.remote}: ${refusal.why}; connection closed`)
      return { last: out }
    }
    let res: unknown
    if (!handler || apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
      res = handler ? handler.errorResponse(req, ErrorCodes.UNSUPPORTED_VERSION, ctx) : { errorCode: ErrorCodes.UNSUPPORTED_VERSION }
    } else {
      const injected = this.cluster.faults.take(apiKey)
      if (injected !== null) {
        res = handler.errorResponse(req, injected, ctx)
        // A failed acks=0 produce closes the connection, as Kafka's does (there is no response to carry the error).
        if (apiKey === ApiKeys.Produce && (req as { acks: number }).acks === 0) res = CLOSE_CONNECTION
      } else {
        try {
          res = await handler.handle(req, ctx)
        } catch (err) {
          this.cluster.problem(this.id, `${spec.name} v${apiVersion} failed: ${(err as Error).stack ?? err}`)
          res = handler.errorResponse(req, ErrorCodes.UNKNOWN_SERVER_ERROR, ctx)
        }
      }
    }
    if (res === NO_RESPONSE) return null
    if (res === CLOSE_CONNECTION) return 'close'
    await this.cluster.faults.delay()
    return this.frame(header, spec, apiVersion, res as Input<unknown>, responseHeaderVersion(apiKey, apiVersion))
  }

  private frame(header: RequestHeader, spec: ApiSpec, version: number, res: Input<unknown>, headerVersion: number): Buffer | 'close' {
    const w = new Writer(256)
    w.reserve(4)
    try {
      encodeResponseHeader(w, headerVersion, { correlationId: header.correlationId })
      spec.encodeResponse(w, version, res)
    } catch (err) {
      this.cluster.problem(this.id, `could not encode the ${spec.name} v${version} response: ${(err as Error).message}`)
      return 'close'
    }
    w.setInt32At(0, w.length - 4)
    return w.finish()
  }
}
