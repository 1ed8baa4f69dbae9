import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ErrorCodes } from '../protocol/error-codes.js'
import { Controller, uuid, type PartitionImage, type TopicImage } from './controller.js'
import type { MetadataRecord } from './metadata-records.js'
import { SnapshotPolicy, snapshotRecords } from './metadata-snapshot.js'
import { GroupStore } from './storage/group-store.js'
import { RecordFile } from './storage/record-file.js'
import { unknownPartitionDirs } from './storage/disk-log.js'
import { cleanupDeletes, topicConfig } from './topic-configs.js'
import type { Buffer } from 'node:buffer'
import type { ListenerTls } from './listener.js'
import { SaslUsers, type BrokerSaslOptions } from './sasl/credentials.js'
import { linkScramChanges } from './sasl/scram-admin.js'
import { VirtualBroker, type Replica } from './broker.js'
import { Faults } from './faults.js'
import { LogCleaner } from './log-cleaner.js'
import { GroupCoordinator } from './groups/group-coordinator.js'
import { TransactionCoordinator } from './transactions/transaction-coordinator.js'

export interface TopicSpec {
  name: string
  /** Default: the cluster's defaultPartitions. */
  partitions?: number
  /** Default: the cluster's defaultReplicationFactor. At most the broker count. */
  replicationFactor?: number
  configs?: Record<string, string>
}

/** TLS for every broker's listener (the same certificate for all; it must name 127.0.0.1 or the host clients use). */
export interface BrokerTlsOptions {
  /** PEM certificate chain. */
  cert: string | Buffer
  /** PEM private key. */
  key: string | Buffer
  /** PEM CA certificate(s) client certificates must chain to: given, clients must present one (mutual TLS). */
  ca?: string | Buffer | Array<string | Buffer>
  /** Require client certificates (ssl.client.auth=required). Default: true when `ca` is given. */
  requestCert?: boolean
}

export type { BrokerSaslOptions }

export interface BrokerOptions {
  /** Virtual brokers, ids 0..n-1. Default 1. */
  brokers?: number
  /** The first broker's port, the next ones' following it; 0 (default): ephemeral ports. */
  port?: number
  topics?: TopicSpec[]
  /** auto.create.topics.enable: Metadata and Produce create unknown topics. Default true, as Kafka. */
  autoCreateTopics?: boolean
  /** num.partitions for auto-created topics. Default 1. */
  defaultPartitions?: number
  /**
   * default.replication.factor: for auto-created topics and those created
   * without one. Default min(3, brokers).
   */
  defaultReplicationFactor?: number
  /**
   * replica.lag.time.max.ms: a follower not caught up with its leader for
   * this long leaves the ISR. Default 30000, as Kafka.
   */
  replicaLagTimeMaxMs?: number
  /** replica.fetch.wait.max.ms: a follower's fetch long poll (kept below a third of the lag time). Default 500. */
  replicaFetchWaitMaxMs?: number
  /** socket.request.max.bytes: larger requests close the connection. Default 100 MiB. */
  maxRequestBytes?: number
  /**
   * max.connections, per broker: a connection past it is closed at once, so a
   * client opening thousands cannot exhaust memory. Default 10000 (Kafka's is
   * unlimited).
   */
  maxConnections?: number
  /** group.min.session.timeout.ms. Default 6000. */
  groupMinSessionTimeoutMs?: number
  /** group.max.session.timeout.ms. Default 1800000. */
  groupMaxSessionTimeoutMs?: number
  /**
   * group.initial.rebalance.delay.ms: how long the first join of an empty
   * group waits for more members. Default 0, where Kafka's is 3000: an
   * embedded broker serves tests, as Kafka's own test configs set it.
   */
  groupInitialRebalanceDelayMs?: number
  /**
   * log.dirs: where the cluster keeps its data, in Kafka's layout (a
   * directory per broker, `broker-<id>`, holding one per partition,
   * `<topic>-<partition>`, of segments and indexes; the cluster metadata
   * log; the group log), recovered and replayed at start. Default: none,
   * everything in memory.
   */
  dataDir?: string
  /** log.retention.check.interval.ms: how often retention.ms and retention.bytes are applied. Default 300000, as Kafka. */
  retentionCheckIntervalMs?: number
  /** group.consumer.session.timeout.ms: a KIP-848 member not heard from for this long is fenced. Default 45000. */
  consumerGroupSessionTimeoutMs?: number
  /** group.consumer.heartbeat.interval.ms: how often KIP-848 members are told to heartbeat. Default 5000. */
  consumerGroupHeartbeatIntervalMs?: number
  /**
   * broker.rack of each broker, by id (missing or null: no rack). Metadata
   * shows them; with replicaSelector 'rack-aware' consumers fetch from a
   * replica in their own rack (KIP-392).
   */
  racks?: Array<string | null>
  /**
   * replica.selector.class: 'leader' (Kafka's default: consumers always
   * fetch from the leader) or 'rack-aware' (Kafka's RackAwareReplicaSelector:
   * the leader names an in-sync replica in the consumer's client.rack as its
   * preferred read replica).
   */
  replicaSelector?: 'leader' | 'rack-aware'
  /**
   * log.cleaner.backoff.ms: how often the log cleaner looks for compacted
   * partitions dirty enough (min.cleanable.dirty.ratio) or holding
   * tombstones past delete.retention.ms. Default 15000, as Kafka.
   */
  logCleanerBackoffMs?: number
  /** Where the broker reports what it refused and why (closed connections, failed handlers). Default: nowhere. */
  onProblem?: (message: string) => void
  /** TLS listeners (SSL, or SASL_SSL with `sasl`). */
  ssl?: BrokerTlsOptions
  /** SASL on every listener (SASL_PLAINTEXT, or SASL_SSL with `ssl`): PLAIN and SCRAM-SHA-256/512 for the users given. */
  sasl?: BrokerSaslOptions
  /**
   * connections.max.reauth.ms: a SASL session's lifetime, sent to clients so
   * they re-authenticate (KIP-368); a request on an expired session closes
   * the connection. Default 0: sessions do not expire, as Kafka.
   */
  connectionsMaxReauthMs?: number
}

export type ResolvedOptions = Required<Omit<BrokerOptions, 'topics' | 'onProblem' | 'ssl' | 'sasl' | 'dataDir'>> &
  Pick<BrokerOptions, 'onProblem' | 'ssl' | 'sasl' | 'dataDir'>

export const DEFAULTS: ResolvedOptions = {
  brokers: 1,
  port: 0,
  autoCreateTopics: true,
  defaultPartitions: 1,
  defaultReplicationFactor: 1,
  replicaLagTimeMaxMs: 30_000,
  replicaFetchWaitMaxMs: 500,
  maxRequestBytes: 100 * 1024 * 1024,
  maxConnections: 10_000,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupInitialRebalanceDelayMs: 0,
  retentionCheckIntervalMs: 300_000,
  consumerGroupSessionTimeoutMs: 45_000,
  consumerGroupHeartbeatIntervalMs: 5000,
  racks: [],
  replicaSelector: 'leader',
  connectionsMaxReauthMs: 0,
  logCleanerBackoffMs: 15_000,
}

/** Marks a broker directory whose logs were closed cleanly: its recovery checks only the newest segments. */
const CLEAN_SHUTDOWN = '.clean-shutdown'
/** The metadata and group logs' one segment, named as Kafka names a log's first (so kafka-dump-log.sh reads it). */
const FIRST_SEGMENT = '00000000000000000000.log'

/** The state every virtual broker shares: the controller, the group coordinator, the faults asked for. */
export class EmbeddedCluster {
  readonly controller: Controller
  readonly brokers = new Map<number, VirtualBroker>()
  readonly faults = new Faults()
  readonly groups: GroupCoordinator
  readonly transactions: TransactionCoordinator
  readonly cleaner: LogCleaner
  readonly options: ResolvedOptions
  private metadataFile: RecordFile<MetadataRecord> | null = null
  /** When the metadata log is rewritten as a snapshot while running (Kafka's metadata.log.max.snapshot.interval.*). */
  readonly metadataSnapshots = new SnapshotPolicy()
  private retentionTimer: NodeJS.Timeout | null = null
  /** The listeners' TLS, null for plaintext. */
  readonly tls: ListenerTls | null
  /** The SASL users (made in start: SCRAM keys take PBKDF2), null without SASL. */
  saslUsers: SaslUsers | null = null

  constructor(options: BrokerOptions) {
    const { topics: _topics, ...rest } = options as BrokerOptions & { topics?: unknown }
    // An option given as undefined takes its default, as one left out does.
    this.options = { ...DEFAULTS, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) }
    if (this.options.dataDir !== undefined && (typeof this.options.dataDir !== 'string' || this.options.dataDir === ''))
      throw new RangeError(`startCluster: dataDir must be a directory path, not ${JSON.stringify(this.options.dataDir)}`)
    if (options.defaultReplicationFactor === undefined)
      this.options.defaultReplicationFactor = Math.min(3, Number.isInteger(this.options.brokers) ? this.options.brokers : 1)
    const positive = [
      'brokers',
      'maxRequestBytes',
      'maxConnections',
      'defaultReplicationFactor',
      'replicaLagTimeMaxMs',
      'replicaFetchWaitMaxMs',
      'retentionCheckIntervalMs',
      'consumerGroupSessionTimeoutMs',
      'consumerGroupHeartbeatIntervalMs',
      'logCleanerBackoffMs',
    ]
    for (const [k, v] of Object.entries(this.options)) {
      if (typeof DEFAULTS[k as keyof ResolvedOptions] !== 'number') continue
      const least = positive.includes(k) ? 1 : 0
      if (!(Number.isInteger(v) && (v as number) >= least))
        throw new RangeError(`startCluster: ${k} must be an integer >= ${least}, not ${v}`)
    }
    const { racks, replicaSelector } = this.options
    if (!Array.isArray(racks) || racks.some((r) => r !== null && (typeof r !== 'string' || r === '')))
      throw new RangeError(`startCluster: racks must be an array of rack names (or null), not ${JSON.stringify(racks)}`)
    if (replicaSelector !== 'leader' && replicaSelector !== 'rack-aware')
      throw new RangeError(`startCluster: replicaSelector must be 'leader' or 'rack-aware', not ${JSON.stringify(replicaSelector)}`)
    this.tls = resolveTls(options.ssl)
    this.controller = this.openMetadata()
    this.groups = new GroupCoordinator(this)
    this.transactions = new TransactionCoordinator(this)
    const dataDir = this.options.dataDir
    if (dataDir) {
      const groups = this.groups
      try {
        groups.store = GroupStore.open(
          join(dataDir, '__consumer_offsets', FIRST_SEGMENT),
          (m) => this.options.onProblem?.(`group log: ${m}`),
          (id) => groups.classicOrCreate(id)!,
          () => groups.groups.values(),
          (id) => groups.groups.delete(id),
        )
      } catch (err) {
        // A group log refused at open leaves the metadata log closed behind it.
        this.metadataFile?.close()
        throw err
      }
      for (const g of groups.groups.values()) g.changes = groups.store
      this.metadataFile!.rewrite(snapshotRecords(this.controller))
    }
    this.cleaner = new LogCleaner(this, this.options.logCleanerBackoffMs)
    // A deleted topic's data goes from every broker, and its committed offsets from every group (as Kafka's coordinator does).
    this.controller.onRecord((r) => {
      if (r.type !== 'remove-topic') return
      for (const b of this.brokers.values())
        for (const [key, replica] of [...b.replicas]) {
          if (!key.startsWith(`${r.id}/`)) continue
          replica.log.destroy()
          b.replicas.delete(key)
        }
      for (const g of this.groups.groups.values())
        for (const partition of [...(g.offsets.get(r.name)?.keys() ?? [])]) g.deleteOffset(r.name, partition)
    })
  }

  /**
   * The controller: with a dataDir, the replay of the metadata log there
   * (KRaft's __cluster_metadata, as JSON records), every new record appended
   * to it before it takes effect anywhere else; else a new one in memory.
   */
  private openMetadata(): Controller {
    const dataDir = this.options.dataDir
    if (!dataDir) return new Controller()
    mkdirSync(dataDir, { recursive: true })
    const props = join(dataDir, 'meta.properties')
    let clusterId = existsSync(props) ? /cluster\.id=(\S+)/.exec(readFileSync(props, 'utf8'))?.[1] : undefined
    if (!clusterId) {
      clusterId = uuid()
      writeFileSync(props, `version=1\ncluster.id=${clusterId}\n`)
    }
    // A batch is one atomic change (torn, it goes whole), flushed before the change is acknowledged, as KRaft's.
    const dir = join(dataDir, '__cluster_metadata-0')
    const { file, records } = RecordFile.open<MetadataRecord>(join(dir, FIRST_SEGMENT), {
      sync: true,
      legacy: join(dir, 'records.jsonl'),
      report: (m) => this.options.onProblem?.(`metadata log: ${m}`),
    })
    const controller = Controller.replay(records, clusterId)
    this.metadataFile = file
    // The log is rewritten as the image it gave (a snapshot in place of the records it covers): at each start (once the
    // group log is read too: a refused start changes no file), and as it grows.
    let due = false
    controller.persist = (batch) => {
      if (!this.metadataSnapshots.appended(file.append(batch)) || due) return
      due = true
      // Once the change being made has applied (append persists before it applies).
      queueMicrotask(() => {
        due = false
        this.metadataSnapshots.taken()
        try {
          if (this.metadataFile === file) file.rewrite(snapshotRecords(controller))
        } catch (err) {
          this.options.onProblem?.(`metadata log: snapshot failed (the log is kept as it was): ${(err as Error).message}`)
        }
      })
    }
    return controller
  }

  /** A broker's own directory under dataDir, or null in memory. */
  brokerDir(id: number): string | null {
    return this.options.dataDir ? join(this.options.dataDir, `broker-${id}`) : null
  }

  /** Whether broker `id`'s logs were closed cleanly last time (its recovery need not read every segment); consumes the marker. */
  cleanlyStopped(id: number): boolean {
    const dir = this.brokerDir(id)
    if (!dir) return true
    mkdirSync(dir, { recursive: true })
    const marker = join(dir, CLEAN_SHUTDOWN)
    if (!existsSync(marker)) return false
    rmSync(marker)
    return true
  }

  /** Retention: every replica's log applies its topic's retention.ms and retention.bytes (when its cleanup.policy deletes). */
  private applyRetention(): void {
    const now = Date.now()
    for (const b of this.brokers.values()) {
      for (const [key, replica] of b.replicas) {
        const t = this.controller.topicsById.get(key.slice(0, key.indexOf('/')))
        if (!t || !cleanupDeletes(t)) continue
        try {
          replica.log.applyRetention(now, Number(topicConfig(t, 'retention.ms')), Number(topicConfig(t, 'retention.bytes')))
        } catch (err) {
          this.problem(b.id, `retention of ${t.name}: ${(err as Error).message}`)
        }
      }
    }
  }

  async start(topics: TopicSpec[] = []): Promise<void> {
    const { brokers, port, sasl } = this.options
    if (sasl) {
      this.saslUsers = await SaslUsers.create(sasl)
      linkScramChanges(this.saslUsers, this.controller)
    }
    this.reportUnknownPartitions()
    for (let id = 0; id < brokers; id++) {
      const b = new VirtualBroker(id, this)
      this.brokers.set(id, b)
      // A broker stopped when the cluster last stopped (replayed metadata) comes back: it takes back what it led.
      if (this.controller.brokers.get(id)?.fenced) this.controller.setFenced(id, false)
      await b.start(port === 0 ? 0 : port + id)
      this.controller.registerBroker(id, b.host, b.port, this.options.racks[id] ?? null)
    }
    this.retentionTimer = setInterval(() => this.applyRetention(), this.options.retentionCheckIntervalMs)
    for (const t of topics) {
      // Restarted on a dataDir, the topics asked for may be there already.
      if (this.controller.topics.has(t.name)) continue
      this.controller.createTopic(t.name, {
        partitions: t.partitions ?? this.options.defaultPartitions,
        replicationFactor: t.replicationFactor ?? this.options.defaultReplicationFactor,
        configs: t.configs,
      })
    }
    this.cleaner.start()
  }

  /** Partition directories of topics the metadata does not know are said, and kept: never deleted for it. */
  private reportUnknownPartitions(): void {
    for (let id = 0; id < this.options.brokers; id++) {
      const dir = this.brokerDir(id)
      if (!dir) return
      for (const u of unknownPartitionDirs(dir, (topicId) => this.controller.topicsById.has(topicId)))
        this.problem(
          id,
          `${u.dir} holds topic id ${u.topicId}, which the metadata log does not know: kept as it is ` +
            '(a topic created under its name moves it aside as -stray)',
        )
    }
  }

  get bootstrapServers(): string {
    return [...this.brokers.values()].map((b) => `${b.host}:${b.port}`).join(',')
  }

  broker(id: number): VirtualBroker {
    const b = this.brokers.get(id)
    if (!b) throw new RangeError(`no broker ${id} (brokers are 0-${this.brokers.size - 1})`)
    return b
  }

  /** Stops a broker: its port closes, it leaves every ISR, and the partitions it led elect a new leader from theirs. */
  async stopBroker(id: number): Promise<void> {
    const b = this.broker(id)
    this.controller.setFenced(id, true)
    await b.stop()
  }

  /** Starts a stopped broker: it truncates its replicas to its leaders' logs, catches up and rejoins the ISRs. */
  async startBroker(id: number): Promise<void> {
    const b = this.broker(id)
    await b.start()
    this.controller.setFenced(id, false)
  }

  /** Stops (or resumes) a broker's fetching as a follower; it keeps serving clients, but falls out of the ISRs. */
  pauseFollower(id: number, paused = true): void {
    const b = this.broker(id)
    b.fetcher.paused = paused
    b.fetcher.poke()
  }

  /**
   * Makes `brokerId` the partition's leader under a new leader epoch: an
   * in-sync replica is elected; a broker outside the replica set takes the
   * current leader's place, and its data goes with it (a reassignment).
   */
  moveLeader(topic: string, partition: number, brokerId: number): void {
    const t = this.controller.topics.get(topic)
    const p = t?.partitions[partition]
    const target = this.broker(brokerId)
    const from = p && p.leader >= 0 ? this.brokers.get(p.leader) : undefined
    const key = `${t?.id}/${partition}`
    const replica = from?.replicas.get(key)
    const how = this.controller.moveLeader(topic, partition, brokerId)
    if (how === 'reassigned' && from && replica && from !== target) {
      from.replicas.delete(key)
      const fromDir = replica.log.disk?.dir
      if (fromDir) {
        // On disk the partition's directory moves to its new broker's, which opens it as its own.
        replica.log.close()
        const toDir = join(this.brokerDir(brokerId)!, `${t!.name}-${partition}`)
        rmSync(toDir, { recursive: true, force: true })
        mkdirSync(this.brokerDir(brokerId)!, { recursive: true })
        renameSync(fromDir, toDir)
        target.replicas.delete(key)
        target.replica(t!.id, partition)
      } else target.replicas.set(key, replica)
      replica.leader = null
      // The moved replica takes its leadership at the new epoch.
      target.syncRole(t!, t!.partitions[partition])
    }
  }

  /** The partition led by `broker`, with its replica there, or the Kafka error code saying why not. */
  leaderReplica(broker: VirtualBroker, t: TopicImage, partition: number): { p: PartitionImage; replica: Replica } | number {
    const p = t.partitions[partition]
    if (!p) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
    // No leader (every ISR member down): a broker answers as for any partition it does not lead, as Kafka's do.
    if (p.leader !== broker.id) return ErrorCodes.NOT_LEADER_OR_FOLLOWER
    return { p, replica: broker.replica(t.id, partition) }
  }

  /**
   * The partition's replica on `broker` when it follows (a consumer may
   * read from it, KIP-392), or the error code a fetch gets there otherwise.
   */
  followerReplica(broker: VirtualBroker, t: TopicImage, partition: number): { p: PartitionImage; replica: Replica } | number {
    const p = t.partitions[partition]
    if (!p) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
    const replica = p.replicas.includes(broker.id) ? broker.replicas.get(`${t.id}/${partition}`) : undefined
    if (!replica || p.leader === broker.id) return ErrorCodes.NOT_LEADER_OR_FOLLOWER
    return { p, replica }
  }

  problem(brokerId: number, message: string): void {
    this.options.onProblem?.(`broker ${brokerId}: ${message}`)
  }

  async stop(): Promise<void> {
    if (this.retentionTimer) clearInterval(this.retentionTimer)
    this.retentionTimer = null
    this.faults.clear()
    this.cleaner.stop()
    this.groups.close()
    this.transactions.close()
    await Promise.all([...this.brokers.values()].map((b) => b.stop()))
    // The logs close (flushed to the OS) and each broker directory is marked clean for the next start's recovery.
    for (const b of this.brokers.values()) {
      for (const r of b.replicas.values()) r.log.close()
      b.replicas.clear()
      const dir = this.brokerDir(b.id)
      if (dir) writeFileSync(join(dir, CLEAN_SHUTDOWN), '')
    }
    this.metadataFile?.close()
    this.metadataFile = null
  }
}

function resolveTls(ssl: BrokerTlsOptions | undefined): ListenerTls | null {
  if (!ssl) return null
  if (!ssl.cert || !ssl.key) throw new TypeError('startCluster: ssl needs a cert and a key (PEM)')
  const requestCert = ssl.requestCert ?? ssl.ca !== undefined
  if (requestCert && !ssl.ca) throw new TypeError('startCluster: ssl.requestCert needs the CA client certificates must chain to (ssl.ca)')
  return { cert: ssl.cert, key: ssl.key, ca: ssl.ca, requestCert }
}
