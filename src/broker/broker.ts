import type { EmbeddedCluster } from './cluster.js'
import { Listener } from './listener.js'
import { firstAnswers } from './handlers/api-versions.js'
import { RequestPipeline } from './request-pipeline.js'
import { SaslSession } from './sasl/session.js'
import type { Duplex } from 'node:stream'
import { FetchSessions } from './fetch-sessions.js'
import { PartitionLog } from './partition-log.js'
import { ProducerState } from './producer-state.js'
import { LeaderState } from './leader-state.js'
import { ReplicaFetcher } from './replica-fetcher.js'
import { type PartitionImage, type TopicImage } from './controller.js'
import { join } from 'node:path'
import { readBatchHeader } from './record-batch.js'
import { StorageError } from './storage/disk-io.js'
import { MARKER_RETRY_MS } from './transactions/transaction-coordinator.js'
import { openReplicaLog, readRecoveryPoints, takeSnapshot, writeRecoveryPoints } from './replica-restart.js'
import { topicConfig } from './topic-configs.js'
import { advertisedHost } from './options.js'
import { isCompacted } from './log-cleaner.js'
import { BrokerError } from './broker-error.js'
import { BrokerQuotas } from './quotas/client-quotas.js'
import { ConnectionQuotas } from './quotas/connection-quotas.js'
import { ReplicationQuota } from './quotas/replication-quota.js'
import { brokerConfigValue } from './dynamic-configs.js'

/** sasl.server.max.receive.size: Kafka's limit on a request before its connection is authenticated (512 KiB). */
const SASL_MAX_RECEIVE_BYTES = 524_288
/** How long a client connection of a SASL listener may take to authenticate (as the TLS handshake's bound). */
export const SASL_AUTHENTICATION_TIMEOUT_MS = 10_000

/** A partition as one broker holds it: its log, the producers' idempotence state, and its followers while it leads. */
export interface Replica {
  log: PartitionLog
  producers: ProducerState
  /** The leader side, for the leader epoch this broker leads under; null while it follows. */
  leader: LeaderState | null
}

/** How long a replica reassigned away is kept before its log is deleted: the requests reading it finish first. */
const DROP_REPLICA_DELAY_MS = 1000

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
  /** Client quotas, measured per broker as Kafka's are. */
  readonly quotas: BrokerQuotas
  /** Connection creation rates (KIP-612): max.connection.creation.rate and the ip quotas, for this broker's listener. */
  readonly connectionQuotas: ConnectionQuotas
  /** Replication throttles: the bytes this broker sends as leader and fetches as follower for throttled replicas. */
  readonly replicationQuotas: { leader: ReplicationQuota; follower: ReplicationQuota }
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
    const { quotaWindowNum, quotaWindowSizeSeconds } = cluster.options
    const windows = { samples: quotaWindowNum, windowMs: quotaWindowSizeSeconds * 1000 }
    this.quotas = new BrokerQuotas(() => cluster.controller, windows)
    const { replicationQuotaWindowNum, replicationQuotaWindowSizeSeconds } = cluster.options
    const replicationWindows = { samples: replicationQuotaWindowNum, windowMs: replicationQuotaWindowSizeSeconds * 1000 }
    const throttledRate = (side: string) => () => Number(brokerConfigValue(cluster, id, `${side}.replication.throttled.rate`))
    this.replicationQuotas = {
      leader: new ReplicationQuota('leader', id, replicationWindows, throttledRate('leader')),
      follower: new ReplicationQuota('follower', id, replicationWindows, throttledRate('follower')),
    }
    this.connectionQuotas = new ConnectionQuotas(
      () => cluster.controller,
      windows,
      () => Number(brokerConfigValue(cluster, id, 'max.connection.creation.rate')),
    )
  }

  get running(): boolean {
    return this.listener !== null
  }

  /** Listens on `port` (0: an ephemeral one the first time, the same one after a stop). */
  async start(port = this.port): Promise<void> {
    if (this.listener) return
    this.cleanStart ??= this.cluster.cleanlyStopped(this.id)
    const { maxRequestBytes, connectionsMaxReauthMs, connectionsMaxIdleMs } = this.cluster.options
    const dynamic = (key: string) => Number(brokerConfigValue(this.cluster, this.id, key))
    const users = this.cluster.saslUsers
    const listener = new Listener(new RequestPipeline(this, this.cluster).serve, {
      maxRequestBytes,
      // max.connections and max.connections.per.ip are dynamic: read at each new connection, as Kafka's ConnectionQuotas takes their updates.
      limits: () => ({
        maxConnections: dynamic('max.connections'),
        maxConnectionsPerIp: dynamic('max.connections.per.ip'),
        // Static in Kafka 4.4 (kafka-configs cannot change it at run time).
        connectionsMaxIdleMs,
      }),
      onProblem: (why, level) => this.cluster.problem(this.id, why, level),
      tls: this.cluster.tls ?? undefined,
      connectionRates: this.connectionQuotas,
      thread: this.cluster.network ?? undefined,
      // Every client connection of a SASL listener authenticates first (in-process peers do not), with
      // requests up to sasl.server.max.receive.size until it has, as Kafka bounds what a stranger can make it buffer.
      onAccept: users
        ? (c) => {
            c.limitRequests(Math.min(SASL_MAX_RECEIVE_BYTES, maxRequestBytes), 'sasl.server.max.receive.size')
            c.sasl = new SaslSession(users, connectionsMaxReauthMs, () => c.limitRequests(maxRequestBytes, 'socket.request.max.bytes'))
            // A stranger cannot hold a connection open half-authenticated.
            c.deadline(SASL_AUTHENTICATION_TIMEOUT_MS, () =>
              c.sasl?.authenticated ? null : `not authenticated within ${SASL_AUTHENTICATION_TIMEOUT_MS} ms`,
            )
          }
        : undefined,
    })
    this.port = await listener.listen(this.cluster.options.host, port)
    this.listener = listener
    const answerFirst = () => this.cluster.network && listener.answerFirst(firstAnswers(this.cluster, this.id))
    answerFirst()
    const { controller } = this.cluster
    this.unsubscribe = controller.onRecord((r) => {
      if (r.type === 'feature') answerFirst()
      if (r.type === 'partition' || r.type === 'partition-change') {
        const t = controller.topicsById.get(r.topicId)
        const p = t?.partitions[r.partition]
        if (t && p) this.syncRoleOrReport(t, p)
        if (t && p && !p.replicas.includes(this.id)) this.dropReplica(t.id, p.partition)
      }
      this.fetcher.poke()
    })
    for (const t of controller.topics.values()) for (const p of t.partitions) if (p) this.syncRole(t, p)
    // Replicas reassigned away while this broker was stopped go now.
    for (const key of [...this.replicas.keys()]) {
      const [topicId, partition] = [key.slice(0, key.indexOf('/')), Number(key.slice(key.indexOf('/') + 1))]
      const p = controller.topicsById.get(topicId)?.partitions[partition]
      if (p && !p.replicas.includes(this.id)) this.dropReplica(topicId, partition)
    }
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
    if (disk.lostAtOpen)
      // After the metadata change that opened it is applied (a change from inside one would nest), before any follower fetches.
      queueMicrotask(() => {
        const to = this.cluster.controller.resign(topicId, partition, this.id)
        if (to !== null)
          report(`${name}: its log lost records at open, so broker ${to} (in sync) leads it now; this replica catches up from it`)
      })
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
      this.cluster.problem(this.id, `writing its recovery points: ${(err as Error).message}`, 'error')
      return false
    }
  }

  /** A clean stop's producer snapshot of a replica, at its log end (the next start replays nothing). */
  snapshotForRestart(replica: Replica): void {
    const disk = replica.log.disk
    if (disk) takeSnapshot(disk, replica.log, replica.producers, disk.logEndOffset, (m) => this.cluster.problem(this.id, m))
  }

  /**
   * A replica a reassignment took from this broker: deleted (Kafka's
   * StopReplica with deletion), after the request that moved it away has
   * been answered (the leader's own fetch handling may be reading it). Kept
   * if the partition came back to this broker meanwhile.
   */
  private dropReplica(topicId: string, partition: number): void {
    const key = `${topicId}/${partition}`
    const replica = this.replicas.get(key)
    if (!replica) return
    if (replica.leader) {
      replica.leader = null
      replica.log.notify()
    }
    const timer = setTimeout(() => {
      const p = this.cluster.controller.topicsById.get(topicId)?.partitions[partition]
      if (this.replicas.get(key) !== replica || (p && p.replicas.includes(this.id))) return
      this.replicas.delete(key)
      replica.log.destroy()
      this.writeRecoveryPoints()
    }, DROP_REPLICA_DELAY_MS)
    timer.unref?.()
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
      this.endOrphanedTransactions(t, p.partition, replica, p.leaderEpoch)
      const leader = replica.leader
      const image = p
      log.hwBound = () => leader.isrLogEnd(this.cluster.controller.topicsById.get(t.id)?.partitions[image.partition]?.isr ?? [])
    } else replica.leader.track(p.replicas, now)
    log.advanceHighWatermark()
    log.notify()
  }

  /**
   * syncRole for a change the metadata log holds already: a replica whose
   * directory cannot be written (StorageError: its partition.metadata, a
   * marker) is reported and left unopened here (offline on this broker, as
   * Kafka's partitions of a failed log directory), the rest of the change
   * going on; it is opened at its next use as leader (cluster.leaderReplica)
   * or role change.
   */
  private syncRoleOrReport(t: TopicImage, p: PartitionImage): void {
    try {
      this.syncRole(t, p)
    } catch (err) {
      if (!(err instanceof StorageError)) throw err
      this.cluster.problem(this.id, `${t.name}-${p.partition} not opened here: ${err.message}`, 'error')
    }
  }

  /**
   * A transaction a new leader's log has open but the coordinator does not
   * (it would hold the last stable offset back for good) gets its marker
   * here, as Kafka's coordinator resends markers to a new leader: the
   * decision when the coordinator has one; ABORT when it knows nothing of
   * the producer (no record of it in __transaction_state: the data
   * directory of an earlier version, which kept that state in memory), as
   * Kafka aborts what it finds open past its timeout. Safe: EndTxn writes its markers before it answers, so a
   * transaction no coordinator knows was never acknowledged as committed.
   * A marker whose write fails (StorageError) is tried again while this
   * broker leads at that epoch, as the coordinator retries its own.
   */
  private endOrphanedTransactions(t: TopicImage, partition: number, replica: Replica, leaderEpoch: number, attempt = 0): void {
    try {
      for (const producerId of replica.log.openTransactions()) {
        const outcome = this.cluster.transactions.outcome(producerId)
        if (outcome === 'ongoing') continue
        const epoch = Math.max(0, replica.producers.epochOf(producerId))
        replica.log.writeMarker(producerId, epoch, outcome === 'commit', leaderEpoch)
        replica.producers.endTransaction(producerId, epoch, Date.now())
      }
    } catch (err) {
      if (!(err instanceof StorageError)) throw err
      if (attempt === 0)
        this.cluster.problem(
          this.id,
          `a transaction marker of ${t.name}-${partition} not written: ${err.message}; written again every ${MARKER_RETRY_MS} ms`,
          'error',
        )
      const again = setTimeout(() => {
        const still = this.listener && this.replicas.get(`${t.id}/${partition}`) === replica && replica.leader?.epoch === leaderEpoch
        if (still) this.endOrphanedTransactions(t, partition, replica, leaderEpoch, attempt + 1)
      }, MARKER_RETRY_MS)
      again.unref?.()
      return
    }
    if (attempt > 0)
      this.cluster.problem(this.id, `the transaction markers of ${t.name}-${partition} written after ${attempt} retries`, 'info')
  }

  /** endOrphanedTransactions for every partition led here (once the transaction coordinator has loaded its state). */
  endOrphanedTransactionsLedHere(): void {
    for (const t of this.cluster.controller.topics.values())
      for (const p of t.partitions) {
        if (!p || p.leader !== this.id) continue
        const replica = this.replicas.get(`${t.id}/${p.partition}`)
        if (replica?.leader?.epoch === p.leaderEpoch) this.endOrphanedTransactions(t, p.partition, replica, p.leaderEpoch)
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
        this.alterIsr(
          t,
          p,
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
    const moved = leader.recordFetch(follower, fetchOffset, log.logEndOffset, Date.now())
    if (!p.isr.includes(follower) && fetchOffset >= log.highWatermark && fetchOffset >= log.epochStart(p.leaderEpoch))
      this.alterIsr(t, p, [...p.isr, follower])
    // A follower's fetch at the same position moves no ISR log end: the high watermark stays (the ISR's own changes
    // and appends advance it themselves). This runs for every partition of a follower's session at every fetch.
    if (moved) log.advanceHighWatermark()
  }

  /**
   * AlterPartition to the controller for a partition led here. Its record
   * not written (the metadata log's disk failing), the ISR stays as it is
   * and the next check or fetch asks again, as Kafka's leader retries.
   */
  private alterIsr(t: TopicImage, p: PartitionImage, isr: number[]): void {
    try {
      this.cluster.controller.alterIsr(t.id, p.partition, this.id, p.leaderEpoch, isr)
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      this.cluster.problem(this.id, `ISR change of ${t.name}-${p.partition} to [${isr}] not made: ${err.message}`)
    }
  }
}
