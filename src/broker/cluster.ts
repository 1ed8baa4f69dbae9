import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createLogger, isLogLevel, type Logger } from '../logger.js'
import { ConfigError } from '../errors.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { INT32_MAX } from '../int32.js'
import { Controller, uuid, type PartitionImage, type TopicImage } from './controller.js'
import type { ClusterIdRecord, MetadataRecord } from './metadata-records.js'
import { SnapshotPolicy, snapshotRecords } from './metadata-snapshot.js'
import { RecordFile } from './storage/record-file.js'
import { DirLock } from './storage/dir-lock.js'
import { fsyncDir, StorageError, writeFileDurably } from './storage/disk-io.js'
import { partitionTopicId, unknownPartitionDirs } from './storage/disk-log.js'
import { settleClusterId } from './storage/meta-properties.js'
import { cleanupDeletes, topicConfig } from './topic-configs.js'
import type { ListenerTls } from './listener.js'
import { SslPrincipalMapper } from './ssl-principal-mapper.js'
import { optionsFromKafkaNames } from './kafka-names.js'
import {
  resolveBrokerOptions,
  topicDefaults,
  type BrokerOptionName,
  type BrokerOptions,
  type BrokerTlsOptions,
  type ResolvedOptions,
  type TopicSpec,
} from './options.js'
import { SaslUsers, type BrokerSaslOptions } from './sasl/credentials.js'
import { linkScramChanges } from './sasl/scram-admin.js'
import { DelegationTokens } from './sasl/delegation-tokens.js'
import { VirtualBroker, type Replica } from './broker.js'
import { Authorizer } from './auth/authorizer.js'
import { Faults } from './faults.js'
import { NetworkThread } from './network-thread.js'
import { LogCleaner } from './log-cleaner.js'
import { bootstrapFeatures } from './features.js'
import { brokerConfigValue } from './dynamic-configs.js'
import { GroupCoordinator } from './groups/group-coordinator.js'
import { readOldGroupLog, retireOldGroupLog } from './groups/group-log-migration.js'
import type { GroupRecord } from './groups/group-records.js'
import { ShareStateStore } from './storage/share-state-store.js'
import { replicaKey } from './replica-key.js'
import { ensureOffsetsTopic } from './offsets-topic.js'
import { OFFSETS_TOPIC } from './topic-names.js'
import { TransactionCoordinator } from './transactions/transaction-coordinator.js'
import { ControllerMutationQuotas } from './quotas/controller-mutation-quota.js'

export type { BrokerOptions, BrokerSaslOptions, BrokerTlsOptions, ResolvedOptions, TopicSpec }

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
  /** controller_mutation_rate (KIP-599): the one controller's token buckets, whichever broker a request reaches. */
  readonly mutationQuotas: ControllerMutationQuotas
  /** authorizer.class.name: Kafka's StandardAuthorizer over the controller's ACLs, or (not configured) allowing everything. */
  readonly authorizer: Authorizer
  /** Delegation tokens (KIP-48) over the controller's token records; disabled without delegation.token.secret.key. */
  readonly delegationTokens: DelegationTokens
  readonly options: ResolvedOptions
  /** The options given (by their own names or Kafka's), not defaulted: DescribeConfigs' STATIC_BROKER_CONFIG. */
  readonly given: ReadonlySet<BrokerOptionName>
  private metadataFile: RecordFile<MetadataRecord> | null = null
  /** The group log of an earlier version found in dataDir, read at construction, moved into __consumer_offsets at start. */
  private oldGroupLog: GroupRecord[] | null = null
  /** When the metadata log is rewritten as a snapshot while running (Kafka's metadata.log.max.snapshot.interval.*). */
  readonly metadataSnapshots = new SnapshotPolicy()
  /** The background chores' timers (retention, flush, expiries), cleared at stop(). */
  private readonly chores: NodeJS.Timeout[] = []
  /** The dataDir's lock, held from the constructor to stop(). */
  private lock: DirLock | null = null
  /** The listeners' TLS, null for plaintext. */
  readonly tls: ListenerTls | null
  /** The SASL users (made in start: SCRAM keys take PBKDF2), null without SASL. */
  saslUsers: SaslUsers | null = null
  /** The broker's log (options.logLevel, options.logCreator): what it refused, cut or failed, and why. */
  readonly log: Logger
  private networkThread: NetworkThread | null = null

  constructor(options: BrokerOptions) {
    const { options: resolved, given } = resolveBrokerOptions(options, (config) => optionsFromKafkaNames(config))
    this.options = resolved
    this.given = given
    if (!isLogLevel(resolved.logLevel))
      throw new ConfigError(
        `startCluster: logLevel must be one of logLevel.NOTHING (0), ERROR (1), WARN (2), INFO (4), DEBUG (5), not ${JSON.stringify(resolved.logLevel)}`,
      )
    this.log = createLogger({ logLevel: resolved.logLevel, logCreator: resolved.logCreator }).namespace('Broker')
    this.tls = resolveTls(this.options.ssl)
    if (this.options.dataDir) {
      mkdirSync(this.options.dataDir, { recursive: true })
      this.lock = DirLock.acquire(this.options.dataDir, (m) => this.problem(null, m))
    }
    try {
      this.controller = this.openMetadata()
      this.checkRegisteredBrokers()
      this.bootstrapFeatures()
      for (const [key, value] of topicDefaults(this.options, this.given)) this.controller.topicDefaults.set(key, value)
      this.authorizer = new Authorizer(
        this.controller,
        resolved.authorizer !== undefined,
        resolved.superUsers,
        resolved.allowEveryoneIfNoAclFound,
      )
      this.delegationTokens = new DelegationTokens(
        this.controller,
        {
          secretKey: resolved.delegationTokenSecretKey,
          maxLifetimeMs: resolved.delegationTokenMaxLifetimeMs,
          expiryTimeMs: resolved.delegationTokenExpiryTimeMs,
        },
        (m) => this.log.info(m),
      )
      this.groups = new GroupCoordinator(this)
      this.transactions = new TransactionCoordinator(this)
      this.openShareState()
    } catch (err) {
      // Refused (a corrupt log, a data directory of more brokers): the directory is free for the next try.
      this.metadataFile?.close()
      this.lock?.release()
      throw err
    }
    this.cleaner = new LogCleaner(this, this.options.logCleanerBackoffMs)
    this.mutationQuotas = new ControllerMutationQuotas(() => this.controller, {
      samples: this.options.controllerQuotaWindowNum,
      windowMs: this.options.controllerQuotaWindowSizeSeconds * 1000,
    })
    // A deleted topic's data goes from every broker, and its committed offsets from every group (as Kafka's coordinator does).
    this.controller.onRecord((r) => {
      if (r.type !== 'remove-topic') return
      for (const b of this.brokers.values())
        for (const [key, replica] of [...b.replicas]) {
          if (!key.startsWith(`${r.id}/`)) continue
          replica.log.destroy()
          b.replicas.delete(key)
        }
      if (r.name === OFFSETS_TOPIC) {
        // Kafka allows it: the coordinators unload the groups the topic held, and a recreated topic starts empty.
        const ids = [...this.groups.groups.keys()]
        for (const id of ids) this.groups.delete(id)
        this.problem(null, `${OFFSETS_TOPIC} was deleted: the ${ids.length} group(s) it held went with it, their committed offsets too`)
        return
      }
      for (const g of this.groups.groups.values())
        for (const partition of [...(g.offsets.get(r.name)?.keys() ?? [])]) g.deleteOffset(r.name, partition)
    })
  }

  /**
   * The finalized features a new metadata log starts with (transactionVersion);
   * one that has them keeps its own, changed since only by UpdateFeatures.
   */
  private bootstrapFeatures(): void {
    const level = this.controller.features.get('transaction.version')
    if (level !== undefined && this.given.has('transactionVersion') && level !== this.options.transactionVersion)
      this.problem(
        null,
        `transaction.version is ${level} in the metadata log of ${this.options.dataDir}: the option's ${this.options.transactionVersion} ` +
          'sets only a new log (UpdateFeatures, kafka-features.sh, changes it)',
      )
    bootstrapFeatures(this.controller, { 'transaction.version': this.options.transactionVersion })
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
    // A batch is one atomic change (torn, it goes whole), flushed before the change is acknowledged, as KRaft's.
    const dir = join(dataDir, '__cluster_metadata-0')
    const { file, records } = RecordFile.open<MetadataRecord>(join(dir, FIRST_SEGMENT), {
      sync: true,
      // A change whose write fails is taken back by the controller: the log takes the next one.
      undoneOnFailure: true,
      legacy: join(dir, 'records.jsonl'),
      report: (m) => this.problem(null, `metadata log: ${m}`),
    })
    const logged = records.find((r): r is ClusterIdRecord => r.type === 'cluster-id')?.id ?? null
    let clusterId: string
    try {
      clusterId = settleClusterId(join(dataDir, 'meta.properties'), logged, uuid, (m) => this.problem(null, m))
    } catch (err) {
      file.close()
      throw err
    }
    const controller = Controller.replay(records, clusterId)
    this.metadataFile = file
    // The log is rewritten as the image it gave (a snapshot in place of the records it covers): at each start (once the
    // group log is read too: a refused start changes no file), and as it grows.
    let due = false
    controller.persist = (batch) => {
      let bytes: number
      try {
        bytes = file.append(batch)
      } catch (err) {
        this.problem(null, `metadata log: ${(err as Error).message}; the change is not made`, 'error')
        throw err
      }
      if (!this.metadataSnapshots.appended(bytes) || due) return
      due = true
      // Once the change being made has applied (append persists before it applies).
      queueMicrotask(() => {
        due = false
        this.metadataSnapshots.taken()
        try {
          if (this.metadataFile === file) file.rewrite(snapshotRecords(controller))
        } catch (err) {
          this.problem(null, `metadata log: snapshot failed (the log is kept as it was): ${(err as Error).message}`, 'error')
        }
      })
    }
    return controller
  }

  /**
   * With a dataDir, the share-group state log there, replayed, and an
   * earlier version's group log read; then the metadata log rewritten as a
   * snapshot (only once those logs were read, so a refused start changes
   * no file).
   */
  private openShareState(): void {
    const dataDir = this.options.dataDir
    if (!dataDir) return
    // Read here (a corrupt one refuses the start before any file changes); moved into __consumer_offsets by start().
    this.oldGroupLog = readOldGroupLog(dataDir, (m) => this.problem(null, `group log: ${m}`))
    const groups = this.groups
    const shareState = ShareStateStore.open(
      join(dataDir, '__share_group_state', FIRST_SEGMENT),
      (m) => this.problem(null, `share-state log: ${m}`),
      () => ({ messages: this.options.logFlushIntervalMessages, ms: this.options.logFlushIntervalMs }),
    )
    groups.shares.store = shareState.store
    groups.shares.restored = shareState.restored
    this.metadataFile!.rewrite(snapshotRecords(this.controller))
  }

  /**
   * The groups, read back from __consumer_offsets' partitions. A data
   * directory of an earlier version has them in a group log of its own
   * instead: read once, written into the partitions as Kafka's records,
   * then moved aside (`__consumer_offsets.migrated`, never deleted). When
   * the topic cannot be made for them, the start is refused and the old
   * log kept as it was.
   */
  private loadGroups(): void {
    const dataDir = this.options.dataDir
    const old = this.oldGroupLog
    this.oldGroupLog = null
    if (old && old.length > 0 && !ensureOffsetsTopic(this, `the groups of the group log of an earlier version`))
      throw new ConfigError(
        `${dataDir}: the group log of an earlier version (${join(dataDir!, '__consumer_offsets')}) could not be moved into ` +
          `${OFFSETS_TOPIC}, which could not be created (see the log above); it is kept as it was: start with enough brokers ` +
          `for offsets.topic.replication.factor (${this.options.offsetsTopicReplicationFactor})`,
      )
    this.groups.loadAll()
    if (!old) return
    const touched = this.groups.migrate(old)
    this.flushOffsetsTopic()
    const to = retireOldGroupLog(dataDir!)
    this.problem(
      null,
      `group log of an earlier version: ${touched} group(s) written into ${OFFSETS_TOPIC}; the old log moved to ${to}`,
      'info',
    )
  }

  /** fsync of every replica of __consumer_offsets on disk (what a migration wrote is there before the old log goes aside). */
  private flushOffsetsTopic(): void {
    const t = this.controller.topics.get(OFFSETS_TOPIC)
    if (!t) return
    for (const b of this.brokers.values())
      for (const p of t.partitions) if (p) b.replicas.get(replicaKey(t, p.partition))?.log.disk?.flush()
  }

  /**
   * A data directory's metadata registers its brokers: starting fewer would
   * leave the others' replicas with no broker to serve them (their
   * partitions offline, their data unread), so the start is refused, naming
   * the count to start with. More brokers are new ones: they register.
   */
  private checkRegisteredBrokers(): void {
    const left = [...this.controller.brokers.keys()].filter((id) => id >= this.options.brokers).sort((a, b) => a - b)
    if (left.length === 0) return
    const count = left[left.length - 1] + 1
    throw new ConfigError(
      `${this.options.dataDir} holds the data of ${count} brokers (ids 0-${count - 1}, registered in its metadata log): ` +
        `starting ${this.options.brokers} would leave broker(s) ${left.join(', ')} and their replicas out; ` +
        `start with brokers: ${count} (wafka broker --brokers ${count})`,
    )
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
    // Its removal durable too: after a crash this run, the next start must check every segment.
    fsyncDir(dir)
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
          this.problem(b.id, `retention of ${t.name}: ${(err as Error).message}`, 'error')
        }
      }
    }
  }

  /** A background chore every `intervalMs`; past what a timer takes (about 24.8 days) is never, as Kafka's Long.MAX defaults. */
  private chore(intervalMs: number, run: () => void): void {
    if (intervalMs > INT32_MAX) return
    const timer = setInterval(run, intervalMs)
    timer.unref?.()
    this.chores.push(timer)
  }

  /**
   * producer.id.expiration.ms (dynamic, as Kafka's): every replica forgets
   * the producers not heard from for that long, but not one whose
   * transaction is open in it; each broker says how many went.
   */
  private expireProducers(): void {
    const now = Date.now()
    for (const b of this.brokers.values()) {
      const expirationMs = Number(brokerConfigValue(this, b.id, 'producer.id.expiration.ms'))
      let removed = 0
      for (const replica of b.replicas.values())
        removed += replica.producers.removeExpired(now, expirationMs, (pid) => replica.log.transactionFirstOffset(pid) >= 0)
      if (removed > 0) this.problem(b.id, `${removed} expired producer state entr${removed === 1 ? 'y' : 'ies'} removed`, 'debug')
    }
  }

  /** The flusher (log.flush.scheduler.interval.ms): every log unflushed for its flush.ms is flushed (the group log too). */
  private flushDue(): void {
    const now = Date.now()
    try {
      this.groups.shares.store?.flushIfDue(now)
    } catch (err) {
      this.problem(null, `share-state log: ${(err as Error).message}`, 'error')
    }
    for (const b of this.brokers.values())
      for (const replica of b.replicas.values()) {
        try {
          replica.log.disk?.flushIfDue(now)
        } catch (err) {
          this.problem(b.id, (err as Error).message, 'error')
        }
      }
  }

  async start(topics: TopicSpec[] = []): Promise<void> {
    const { brokers, port, sasl } = this.options
    if (sasl) {
      this.saslUsers = await SaslUsers.create(sasl)
      linkScramChanges(this.saslUsers, this.controller)
      this.saslUsers.token = (hash, tokenId) => this.delegationTokens.scram(hash, tokenId)
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
    this.loadGroups()
    this.transactions.loadAll()
    // What a partition's log holds open that the loaded coordinator does not know is ended now (an earlier version's data).
    for (const b of this.brokers.values()) b.endOrphanedTransactionsLedHere()
    this.chore(this.options.retentionCheckIntervalMs, () => this.applyRetention())
    this.chore(this.options.producerIdExpirationCheckIntervalMs, () => this.expireProducers())
    this.chore(this.options.transactionRemoveExpiredTransactionCleanupIntervalMs, () =>
      this.transactions.expireTransactionalIds(Date.now(), this.options.transactionalIdExpirationMs),
    )
    if (this.delegationTokens.enabled) this.chore(this.options.delegationTokenExpiryCheckIntervalMs, () => this.sweepTokens())
    if (this.options.dataDir) this.chore(this.options.logFlushSchedulerIntervalMs, () => this.flushDue())
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

  /**
   * Partition directories of topics the metadata does not know are said,
   * and kept: never deleted for it. Those of partitions a reassignment took
   * from the broker (it was stopped, or the process ended, before it
   * deleted them) are deleted, as Kafka's broker deletes its stray replicas.
   */
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
      this.removeReassignedAway(id, dir)
    }
  }

  private removeReassignedAway(id: number, dir: string): void {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      const m = /^(.+)-(\d+)$/.exec(name)
      const t = m ? this.controller.topics.get(m[1]) : undefined
      const p = t?.partitions[Number(m![2])]
      if (!t || !p || p.replicas.includes(id) || partitionTopicId(join(dir, name)) !== t.id) continue
      rmSync(join(dir, name), { recursive: true, force: true })
      this.problem(id, `${name}: reassigned to brokers ${p.replicas.join(', ')}, so its copy here was deleted`, 'info')
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
    // One key and one look-up: every partition of every Fetch and Produce comes through here.
    const replica = broker.replicas.get(replicaKey(t, partition))
    if (replica) return { p, replica }
    try {
      // Not opened when it became this broker's (its directory could not be written): opened now, with its role.
      broker.syncRole(t, p)
    } catch (err) {
      // Offline here while its directory cannot be written, as Kafka answers for a partition of a failed log directory.
      if (err instanceof StorageError) return ErrorCodes.KAFKA_STORAGE_ERROR
      throw err
    }
    return { p, replica: broker.replica(t.id, partition) }
  }

  /**
   * The partition's replica on `broker` when it follows (a consumer may
   * read from it, KIP-392), or the error code a fetch gets there otherwise.
   */
  followerReplica(broker: VirtualBroker, t: TopicImage, partition: number): { p: PartitionImage; replica: Replica } | number {
    const p = t.partitions[partition]
    if (!p) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
    const replica = p.replicas.includes(broker.id) ? broker.replicas.get(replicaKey(t, partition)) : undefined
    if (!replica || p.leader === broker.id) return ErrorCodes.NOT_LEADER_OR_FOLLOWER
    return { p, replica }
  }

  /**
   * A log entry of the broker's (`brokerId`'s, or the cluster's: null): what
   * it refused, cut or failed and why. WARN unless said.
   */
  /** The delegation-token expiry check: a failed write is said and tried again at the next check. */
  private sweepTokens(): void {
    try {
      this.delegationTokens.sweep()
    } catch (err) {
      this.problem(null, `delegation token expiry check: ${(err as Error).message}`, 'error')
    }
  }

  /** The thread that serves the client listeners' sockets (options.networkThread; made at the first listen), else null: this thread does. */
  get network(): NetworkThread | null {
    if (!this.options.networkThread) return null
    return (this.networkThread ??= new NetworkThread((why, level) => this.problem(null, why, level)))
  }

  problem(brokerId: number | null, message: string, level: 'error' | 'warn' | 'info' | 'debug' = 'warn'): void {
    this.log[level](message, brokerId === null ? undefined : { broker: brokerId })
  }

  async stop(): Promise<void> {
    for (const t of this.chores.splice(0)) clearInterval(t)
    this.faults.clear()
    this.cleaner.stop()
    try {
      // The group log is flushed as it closes: a failed fsync is said, and the stop goes on.
      this.groups.close()
    } catch (err) {
      this.problem(null, `group log: ${(err as Error).message}`, 'error')
    }
    this.transactions.close()
    await Promise.all([...this.brokers.values()].map((b) => b.stop()))
    await this.networkThread?.stop()
    this.networkThread = null
    // The logs are flushed (fsync) and closed, and each broker directory whose logs all were is marked clean for the next start's recovery.
    for (const b of this.brokers.values()) {
      let clean = true
      for (const r of b.replicas.values()) {
        try {
          b.snapshotForRestart(r)
          r.log.close()
        } catch (err) {
          clean = false
          this.problem(b.id, (err as Error).message, 'error')
        }
      }
      // The recovery points (each log's end, now flushed) before the marker: a clean start trusts every segment below them.
      if (!b.writeRecoveryPoints()) clean = false
      b.replicas.clear()
      const dir = this.brokerDir(b.id)
      try {
        if (dir && clean) writeFileDurably(join(dir, CLEAN_SHUTDOWN), '')
      } catch (err) {
        // Unmarked, the next start checks every segment: slower, never wrong.
        this.problem(b.id, `${(err as Error).message}: not marked cleanly stopped (the next start checks every segment)`, 'error')
      }
    }
    this.metadataFile?.close()
    this.metadataFile = null
    this.lock?.release()
    this.lock = null
  }
}

function resolveTls(ssl: BrokerTlsOptions | undefined): ListenerTls | null {
  if (!ssl) return null
  if (!ssl.cert || !ssl.key) throw new TypeError('startCluster: ssl needs a cert and a key (PEM)')
  const clientAuth = ssl.clientAuth ?? ((ssl.requestCert ?? ssl.ca !== undefined) ? 'required' : 'none')
  if (!['required', 'requested', 'none'].includes(clientAuth))
    throw new TypeError(`startCluster: ssl.clientAuth must be one of required, requested, none (got ${String(clientAuth)})`)
  if (clientAuth !== 'none' && !ssl.ca)
    throw new TypeError(`startCluster: ssl.clientAuth=${clientAuth} needs the CA client certificates must chain to (ssl.ca)`)
  let principalMapper: SslPrincipalMapper
  try {
    principalMapper = SslPrincipalMapper.fromRules(ssl.principalMappingRules)
  } catch (err) {
    throw new TypeError(`startCluster: ssl.principalMappingRules: ${(err as Error).message}`)
  }
  return { cert: ssl.cert, key: ssl.key, ca: ssl.ca, clientAuth, principalMapper }
}
