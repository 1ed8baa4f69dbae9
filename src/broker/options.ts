import type { Buffer } from 'node:buffer'
import { checkKeys, type OptionSpec } from '../config/option.js'
import { ConfigError } from '../errors.js'
import { INT32_MAX } from '../int32.js'
import { logLevel, type LogCreator, type LogLevel } from '../logger.js'
import type { FromKafkaNames } from './kafka-names.js'
import type { BrokerSaslOptions } from './sasl/credentials.js'

/**
 * The embedded broker's options: `startCluster()`'s object and, by their
 * Kafka names, `wafka broker --config server.properties` and
 * `startCluster({ config })`. BROKER_OPTIONS is the one table of them: each
 * option's default, bounds and Kafka name, read by the resolver below (which
 * refuses unknown keys with the nearest, as the client's tables do), by the
 * reader of Kafka names (kafka-names.ts) and by DescribeConfigs.
 */

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
  /** Kafka's ssl.client.auth (wins over requestCert): required, requested (a certificate is asked for, not required) or none. */
  clientAuth?: 'required' | 'requested' | 'none'
  /**
   * Kafka's ssl.principal.mapping.rules: how a client certificate's subject
   * (RFC 2253, `CN=app,OU=billing,O=Acme`) becomes its principal's name,
   * e.g. `RULE:^CN=([^,]+),.*$/$1/L,DEFAULT`. Default DEFAULT (the subject).
   */
  principalMappingRules?: string
}

export interface BrokerOptions {
  /** Virtual brokers, ids 0..n-1. Default 1. */
  brokers?: number
  /** The first broker's port, the next ones' following it; 0 (default): ephemeral ports. */
  port?: number
  /** The address every broker listens on (listeners' host). Default 127.0.0.1. */
  host?: string
  /** The host brokers give clients (advertised.listeners' host). Default: host (127.0.0.1 when host is a wildcard). */
  advertisedHost?: string
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
  /** min.insync.replicas: the default of topics that do not set their own. Default 1. */
  minInsyncReplicas?: number
  /** log.segment.bytes: the default segment.bytes of topics. Default 1 GiB. */
  logSegmentBytes?: number
  /** log.retention.ms (or .minutes, .hours): the default retention.ms of topics; -1 keeps everything. Default 7 days. */
  logRetentionMs?: number
  /** log.retention.bytes: the default retention.bytes of topics (per partition); -1: no limit. Default -1. */
  logRetentionBytes?: number
  /** log.cleanup.policy: the default cleanup.policy of topics ('delete', 'compact' or 'compact,delete'). Default 'delete'. */
  logCleanupPolicy?: string
  /** unclean.leader.election.enable: the default of topics. Default false. */
  uncleanLeaderElectionEnable?: boolean
  /**
   * offsets.topic.replication.factor: the replication factor of
   * __consumer_offsets when the broker creates it (at the first
   * FindCoordinator for a group), placed as Kafka places it on the
   * registered brokers, a stopped one too. Default min(3, brokers).
   */
  offsetsTopicReplicationFactor?: number
  /** offsets.topic.num.partitions: the partitions of __consumer_offsets when created (a group's is abs(hashCode) % partitions). Default 50. */
  offsetsTopicNumPartitions?: number
  /** offsets.topic.segment.bytes: the segment.bytes __consumer_offsets is created with. Default 104857600. */
  offsetsTopicSegmentBytes?: number
  /**
   * offsets.commit.timeout.ms: how long an offset commit or a group's record
   * waits for the ISR of its __consumer_offsets partition (then
   * COORDINATOR_NOT_AVAILABLE, as Kafka). Default 5000.
   */
  offsetsCommitTimeoutMs?: number
  /** transaction.state.log.replication.factor: as offsetsTopicReplicationFactor, for transaction state. Default min(3, brokers). */
  transactionStateLogReplicationFactor?: number
  /** transaction.state.log.min.isr: at most transactionStateLogReplicationFactor. Default min(2, that). */
  transactionStateLogMinIsr?: number
  /** transaction.state.log.num.partitions: the partitions of __transaction_state when created (a transactional id's is abs(hashCode) % partitions). Default 50. */
  transactionStateLogNumPartitions?: number
  /** transaction.state.log.segment.bytes: the segment.bytes __transaction_state is created with. Default 104857600. */
  transactionStateLogSegmentBytes?: number
  /**
   * The finalized `transaction.version` feature ApiVersions advertises
   * (KIP-890; Kafka sets it with `kafka-storage format --feature` or
   * `kafka-features.sh`): at 2, Kafka 4 clients use the second transaction
   * protocol; at 0 or 1, the first. Default 2, as Kafka 4.4. It sets a new
   * metadata log's level; a dataDir's log keeps its own, which
   * UpdateFeatures (kafka-features.sh) changes.
   */
  transactionVersion?: number
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
   * max.connections, per broker: at it, a new client connection waits (unread)
   * until one goes, as Kafka's acceptor waits for a slot; at most 50 wait
   * (Kafka's socket.listen.backlog.size), more are closed at once. Default
   * 10000 (Kafka's is unlimited), so a client opening thousands cannot
   * exhaust memory.
   */
  maxConnections?: number
  /** max.connections.per.ip, per broker: a connection past it is closed at once. Default 2147483647 (Kafka's). */
  maxConnectionsPerIp?: number
  /**
   * max.connection.creation.rate, per broker (KIP-612): past this many new
   * connections a second the listener waits before taking the next (none is
   * refused). Default 2147483647 (Kafka's: no limit).
   */
  maxConnectionCreationRate?: number
  /**
   * connections.max.idle.ms: a client connection with no request for this
   * long is closed (one being served is not idle). Default 600000, as Kafka.
   */
  connectionsMaxIdleMs?: number
  /**
   * Serve the client listeners' sockets from a thread of their own (Kafka's
   * acceptor and network threads): accepting, TLS and socket reads and writes
   * go on while the brokers' thread is busy with requests, and that thread
   * answers a connection's first request when it is an ApiVersions. Default
   * false: the sockets are served in the brokers' thread.
   */
  networkThread?: boolean
  /**
   * quota.window.num: client quotas measure rates over this many samples
   * (KIP-13). Default 11, as Kafka.
   */
  quotaWindowNum?: number
  /** quota.window.size.seconds: each quota sample's length. Default 1, as Kafka. */
  quotaWindowSizeSeconds?: number
  /**
   * controller.quota.window.num: a controller_mutation_rate quota's burst is
   * this many windows of mutations (KIP-599). Default 11, as Kafka.
   */
  controllerQuotaWindowNum?: number
  /** controller.quota.window.size.seconds: each controller quota window's length. Default 1, as Kafka. */
  controllerQuotaWindowSizeSeconds?: number
  /**
   * replication.quota.window.num: replication throttles measure rates over
   * this many samples. Default 11, as Kafka.
   */
  replicationQuotaWindowNum?: number
  /** replication.quota.window.size.seconds: each replication quota sample's length. Default 1, as Kafka. */
  replicationQuotaWindowSizeSeconds?: number
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
  /**
   * producer.id.expiration.ms: a partition forgets an idempotent or
   * transactional producer's state (its epoch and last sequences) this long
   * after its last batch's timestamp, unless its transaction there is open.
   * Default 86400000 (a day), as Kafka.
   */
  producerIdExpirationMs?: number
  /** producer.id.expiration.check.interval.ms: how often partitions look for expired producers. Default 600000, as Kafka. */
  producerIdExpirationCheckIntervalMs?: number
  /**
   * transactional.id.expiration.ms: the transaction coordinator forgets a
   * transactional id with no transaction open this long after its last
   * state change (a tombstone in __transaction_state). Default 604800000
   * (7 days), as Kafka.
   */
  transactionalIdExpirationMs?: number
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often the coordinator looks for expired ids. Default 3600000, as Kafka. */
  transactionRemoveExpiredTransactionCleanupIntervalMs?: number
  /**
   * log.flush.interval.messages: flush.messages of topics that set none (an
   * fsync once this many messages are unflushed). Default: never
   * (Number.MAX_SAFE_INTEGER, Kafka's Long.MAX): the OS writes back.
   */
  logFlushIntervalMessages?: number
  /** log.flush.interval.ms: flush.ms of topics that set none. Default: logFlushSchedulerIntervalMs, as Kafka. */
  logFlushIntervalMs?: number
  /**
   * log.flush.scheduler.interval.ms: how often logs are checked against
   * flush.ms. Default: never (Kafka's Long.MAX), so flush.ms needs it set.
   */
  logFlushSchedulerIntervalMs?: number
  /** group.consumer.session.timeout.ms: a KIP-848 member not heard from for this long is fenced. Default 45000. */
  consumerGroupSessionTimeoutMs?: number
  /** group.consumer.heartbeat.interval.ms: how often KIP-848 members are told to heartbeat. Default 5000. */
  consumerGroupHeartbeatIntervalMs?: number
  /**
   * group.consumer.assignment.interval.ms: a KIP-848 group's target
   * assignment is computed at most this often (KIP-1263); changes meanwhile
   * wait for the first heartbeat after it. Default 1000.
   */
  consumerGroupAssignmentIntervalMs?: number
  /**
   * group.coordinator.append.linger.ms: how long a group coordinator's
   * write waits for others to join its batch before it is answered (-1:
   * Kafka's adaptive linger, here no wait). Default -1.
   */
  groupCoordinatorAppendLingerMs?: number
  /** group.share.session.timeout.ms: a share-group member not heard from for this long leaves (its records are released). Default 45000. */
  shareGroupSessionTimeoutMs?: number
  /** group.share.min.session.timeout.ms: the least share.session.timeout.ms a group may set. Default 45000. */
  shareGroupMinSessionTimeoutMs?: number
  /** group.share.heartbeat.interval.ms: how often share-group members heartbeat. Default 5000. */
  shareGroupHeartbeatIntervalMs?: number
  /** group.share.min.heartbeat.interval.ms: the least share.heartbeat.interval.ms a group may set. Default 5000. */
  shareGroupMinHeartbeatIntervalMs?: number
  /** group.share.record.lock.duration.ms: how long an acquired record stays a member's before it is available again. Default 30000. */
  shareGroupRecordLockDurationMs?: number
  /** group.share.min.record.lock.duration.ms: the least share.record.lock.duration.ms a group may set. Default 15000. */
  shareGroupMinRecordLockDurationMs?: number
  /** group.share.delivery.count.limit: a record delivered this many times is archived when released or its lock expires. Default 5. */
  shareGroupDeliveryCountLimit?: number
  /** group.share.partition.max.record.locks: the most records of a share partition in flight at once. Default 2000. */
  shareGroupPartitionMaxRecordLocks?: number
  /** group.streams.session.timeout.ms: a streams-group member not heard from for this long is fenced. Default 45000. */
  streamsGroupSessionTimeoutMs?: number
  /** group.streams.min.session.timeout.ms: the least streams.session.timeout.ms a group may set. Default 45000. */
  streamsGroupMinSessionTimeoutMs?: number
  /** group.streams.heartbeat.interval.ms: how often streams-group members heartbeat. Default 5000. */
  streamsGroupHeartbeatIntervalMs?: number
  /** group.streams.min.heartbeat.interval.ms: the least streams.heartbeat.interval.ms a group may set. Default 5000. */
  streamsGroupMinHeartbeatIntervalMs?: number
  /** group.streams.initial.rebalance.delay.ms: how long a new streams group's first assignment waits for more members. Default 3000, as Kafka. */
  streamsGroupInitialRebalanceDelayMs?: number
  /** group.streams.num.standby.replicas: standby tasks of each stateful task. Default 0. */
  streamsGroupNumStandbyReplicas?: number
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
  /**
   * How much the broker logs: ERROR (a handler crashed, a write failed),
   * WARN (data cut at recovery, a follower behind, a refused change), INFO
   * (connections closed for cause, authentication refused). Default WARN,
   * as the client's.
   */
  logLevel?: LogLevel
  /** Where the broker's log entries go, as the client's logCreator. Default: a JSON line each on stderr. */
  logCreator?: LogCreator
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
  /**
   * authorizer.class.name: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
   * turns on authorization as Kafka's StandardAuthorizer, over the ACLs that
   * CreateAcls stores in the metadata log. Default: none, every request is
   * allowed.
   */
  authorizer?: string
  /** super.users: principals allowed everything ('User:alice;User:bob'), with the authorizer. */
  superUsers?: string
  /** allow.everyone.if.no.acl.found: a resource no ACL covers is open to all. Default false, as Kafka. */
  allowEveryoneIfNoAclFound?: boolean
  /**
   * delegation.token.secret.key: the key delegation tokens' HMACs are made
   * with (KIP-48). Unset or empty: delegation tokens are disabled, as Kafka.
   * Never reported: DescribeConfigs says it is sensitive.
   */
  delegationTokenSecretKey?: string
  /** delegation.token.max.lifetime.ms: a token's longest life, renewals included. Default 7 days. */
  delegationTokenMaxLifetimeMs?: number
  /** delegation.token.expiry.time.ms: how long a token lives before it must be renewed, and the longest renewal. Default 1 day. */
  delegationTokenExpiryTimeMs?: number
  /** delegation.token.expiry.check.interval.ms: how often expired tokens are removed. Default 1 hour. */
  delegationTokenExpiryCheckIntervalMs?: number
  /**
   * Options by their Kafka broker names, as server.properties gives them
   * (`{ 'num.partitions': '4', 'listeners': 'PLAINTEXT://:9092' }`): each
   * is read as the option it names; an option given here and by its own
   * name takes the latter (as a `wafka broker` flag overrides the file).
   * A name the embedded broker does not support is refused, with the
   * nearest it does.
   */
  config?: Record<string, string | number | boolean>
}

type Structured =
  'topics' | 'logCreator' | 'ssl' | 'sasl' | 'dataDir' | 'config' | 'advertisedHost' | 'authorizer' | 'delegationTokenSecretKey'

export type ResolvedOptions = Required<Omit<BrokerOptions, Structured>> & Pick<BrokerOptions, Exclude<Structured, 'config' | 'topics'>>

/** One broker option: the client's OptionSpec, `java` being Kafka's broker property. */
export interface BrokerOptionSpec extends OptionSpec {
  /** The topic config it is the default of (log.segment.bytes: segment.bytes). */
  topic?: string
  /** A comma-separated list (DescribeConfigs' LIST type). */
  list?: boolean
  /** The accepted values of a string (each element of a list). */
  allowed?: readonly string[]
  /** Kafka's own default is null, the value derived where it is read: DescribeConfigs reports null unless given (log.flush.interval.ms). */
  nullUnlessGiven?: boolean
  /** A secret (Kafka's PASSWORD type): DescribeConfigs reports it sensitive, its value null. */
  sensitive?: boolean
}

/** The one authorizer the embedded broker has: Kafka's, by its class name. */
export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'

/** Most values a number option may take: Kafka's longs, as far as a JS number is exact. */
const LONG_MAX = Number.MAX_SAFE_INTEGER

const int = (
  dflt: number | undefined,
  doc: string,
  java: string | undefined,
  min: number,
  max = INT32_MAX,
  extra: Partial<BrokerOptionSpec> = {},
) => ({ kind: 'integer', default: dflt, doc, java, min, max, ...extra }) satisfies BrokerOptionSpec
const ms = (dflt: number, doc: string, java: string, min = 0) => int(dflt, doc, java, min)
const bool = (dflt: boolean, doc: string, java: string, extra: Partial<BrokerOptionSpec> = {}) =>
  ({ kind: 'boolean', default: dflt, doc, java, ...extra }) satisfies BrokerOptionSpec
const str = (dflt: string | undefined, doc: string, java?: string, extra: Partial<BrokerOptionSpec> = {}) =>
  ({ kind: 'string', default: dflt, doc, java, ...extra }) satisfies BrokerOptionSpec
const other = (kind: OptionSpec['kind'], doc: string, dflt?: unknown) => ({ kind, doc, default: dflt }) satisfies BrokerOptionSpec

/**
 * Every option of startCluster(), in one place: defaults, bounds, the Kafka
 * broker name (`java`) that server.properties, `startCluster({ config })`
 * and DescribeConfigs use. A new option is a row here and a property of
 * BrokerOptions (a key in one and not the other does not compile).
 */
export const BROKER_OPTIONS = {
  brokers: int(1, 'Virtual brokers, ids 0..n-1.', undefined, 1, 1000),
  port: int(0, "The first broker's port, the next ones' following it; 0: ephemeral ports.", undefined, 0, 65535),
  host: str('127.0.0.1', 'The address every broker listens on.'),
  advertisedHost: str(undefined, 'The host brokers give clients.', undefined, { defaultDoc: 'host' }),
  topics: other('array', 'Topics made at start (kept when a data dir has them already).'),
  autoCreateTopics: bool(true, 'Metadata and Produce create unknown topics.', 'auto.create.topics.enable'),
  defaultPartitions: int(1, 'Partitions of auto-created topics and those created without a count.', 'num.partitions', 1, 10_000),
  defaultReplicationFactor: int(
    undefined,
    'Replicas of auto-created topics and those created without a factor.',
    'default.replication.factor',
    1,
    1000,
    {
      defaultDoc: 'min(3, brokers)',
    },
  ),
  minInsyncReplicas: int(1, "Topics' default min.insync.replicas.", 'min.insync.replicas', 1, INT32_MAX, { topic: 'min.insync.replicas' }),
  logSegmentBytes: int(1_073_741_824, "Topics' default segment.bytes.", 'log.segment.bytes', 1_048_576, INT32_MAX, {
    topic: 'segment.bytes',
  }),
  logRetentionMs: int(604_800_000, "Topics' default retention.ms (-1: no limit).", 'log.retention.ms', -1, LONG_MAX, {
    topic: 'retention.ms',
  }),
  logRetentionBytes: int(-1, "Topics' default retention.bytes (-1: no limit).", 'log.retention.bytes', -1, LONG_MAX, {
    topic: 'retention.bytes',
  }),
  logCleanupPolicy: str('delete', "Topics' default cleanup.policy.", 'log.cleanup.policy', {
    topic: 'cleanup.policy',
    list: true,
    allowed: ['delete', 'compact'],
  }),
  uncleanLeaderElectionEnable: bool(false, "Topics' default unclean.leader.election.enable.", 'unclean.leader.election.enable', {
    topic: 'unclean.leader.election.enable',
  }),
  offsetsTopicReplicationFactor: int(
    undefined,
    "__consumer_offsets' replication factor when the broker creates it (a stopped broker takes replicas too, as Kafka's).",
    'offsets.topic.replication.factor',
    1,
    1000,
    { defaultDoc: 'min(3, brokers)' },
  ),
  offsetsTopicNumPartitions: int(
    50,
    "__consumer_offsets' partitions when created; a group's is abs(hashCode) % partitions.",
    'offsets.topic.num.partitions',
    1,
    10_000,
  ),
  offsetsTopicSegmentBytes: int(
    104_857_600,
    "__consumer_offsets' segment.bytes when created.",
    'offsets.topic.segment.bytes',
    1,
    INT32_MAX,
  ),
  offsetsCommitTimeoutMs: int(
    5000,
    "How long an offset commit or a group's record waits for the ISR of its __consumer_offsets partition.",
    'offsets.commit.timeout.ms',
    1,
    INT32_MAX,
  ),
  transactionStateLogReplicationFactor: int(
    undefined,
    'As offsetsTopicReplicationFactor, for the transaction state.',
    'transaction.state.log.replication.factor',
    1,
    1000,
    { defaultDoc: 'min(3, brokers)' },
  ),
  transactionStateLogMinIsr: int(undefined, 'At most transactionStateLogReplicationFactor.', 'transaction.state.log.min.isr', 1, 1000, {
    defaultDoc: 'min(2, transactionStateLogReplicationFactor)',
  }),
  transactionStateLogNumPartitions: int(
    50,
    "__transaction_state's partitions when created; a transactional id's is abs(hashCode) % partitions.",
    'transaction.state.log.num.partitions',
    1,
    10_000,
  ),
  transactionStateLogSegmentBytes: int(
    104_857_600,
    "__transaction_state's segment.bytes when created.",
    'transaction.state.log.segment.bytes',
    1,
    INT32_MAX,
  ),
  transactionVersion: int(
    2,
    'The finalized transaction.version feature a new metadata log starts with (UpdateFeatures changes it, kept in the log): 2 lets Kafka 4 clients use the second transaction protocol (KIP-890).',
    undefined,
    0,
    2,
  ),
  replicaLagTimeMaxMs: ms(30_000, 'A follower not caught up with its leader for this long leaves the ISR.', 'replica.lag.time.max.ms', 1),
  replicaFetchWaitMaxMs: ms(500, "A follower's fetch long poll.", 'replica.fetch.wait.max.ms', 1),
  maxRequestBytes: int(100 * 1024 * 1024, 'Larger requests close the connection.', 'socket.request.max.bytes', 1),
  maxConnections: int(
    10_000,
    'Client connections per broker; at it a new one waits to be taken (up to 50 waiting, as a listen backlog).',
    'max.connections',
    1,
  ),
  maxConnectionsPerIp: int(
    INT32_MAX,
    'Client connections from one address per broker; one past it is closed at once.',
    'max.connections.per.ip',
    0,
  ),
  maxConnectionCreationRate: int(
    INT32_MAX,
    'New client connections a second per broker; past it the listener waits before taking the next.',
    'max.connection.creation.rate',
    0,
  ),
  connectionsMaxIdleMs: ms(600_000, 'A client connection with no request for this long is closed.', 'connections.max.idle.ms', 1),
  networkThread: {
    kind: 'boolean',
    default: false,
    doc: "Serve client sockets (accepting, TLS, reads, writes, a connection's first ApiVersions) from a thread of their own.",
  },
  quotaWindowNum: int(11, 'Client quotas measure rates over this many samples.', 'quota.window.num', 1),
  quotaWindowSizeSeconds: int(1, "Each client quota sample's length, in seconds.", 'quota.window.size.seconds', 1),
  controllerQuotaWindowNum: int(11, "A controller_mutation_rate quota's burst, in windows of mutations.", 'controller.quota.window.num', 1),
  controllerQuotaWindowSizeSeconds: int(1, 'Each controller quota window, in seconds.', 'controller.quota.window.size.seconds', 1),
  replicationQuotaWindowNum: int(11, 'Replication throttles measure rates over this many samples.', 'replication.quota.window.num', 1),
  replicationQuotaWindowSizeSeconds: int(
    1,
    "Each replication throttle sample's length, in seconds.",
    'replication.quota.window.size.seconds',
    1,
  ),
  groupMinSessionTimeoutMs: ms(6000, 'The shortest session timeout a classic group member may ask for.', 'group.min.session.timeout.ms'),
  groupMaxSessionTimeoutMs: ms(1_800_000, 'The longest.', 'group.max.session.timeout.ms'),
  groupInitialRebalanceDelayMs: ms(0, "How long an empty group's first join waits for more members.", 'group.initial.rebalance.delay.ms'),
  dataDir: str(undefined, 'Where the cluster keeps its data (one directory); none: in memory.', 'log.dirs'),
  retentionCheckIntervalMs: ms(300_000, 'How often retention is applied.', 'log.retention.check.interval.ms', 1),
  producerIdExpirationMs: ms(
    86_400_000,
    "A partition forgets a producer's state this long after its last batch (unless its transaction there is open).",
    'producer.id.expiration.ms',
    1,
  ),
  producerIdExpirationCheckIntervalMs: ms(
    600_000,
    'How often partitions look for expired producers.',
    'producer.id.expiration.check.interval.ms',
    1,
  ),
  transactionalIdExpirationMs: ms(
    604_800_000,
    'The transaction coordinator forgets a transactional id with no open transaction this long after its last state change.',
    'transactional.id.expiration.ms',
    1,
  ),
  transactionRemoveExpiredTransactionCleanupIntervalMs: ms(
    3_600_000,
    'How often the transaction coordinator looks for expired transactional ids.',
    'transaction.remove.expired.transaction.cleanup.interval.ms',
    1,
  ),
  logFlushIntervalMessages: int(
    LONG_MAX,
    "Topics' default flush.messages: an fsync once this many are unflushed.",
    'log.flush.interval.messages',
    1,
    LONG_MAX,
    {
      topic: 'flush.messages',
      defaultDoc: 'never',
    },
  ),
  logFlushIntervalMs: int(undefined, "Topics' default flush.ms.", 'log.flush.interval.ms', 0, LONG_MAX, {
    topic: 'flush.ms',
    defaultDoc: 'logFlushSchedulerIntervalMs',
    nullUnlessGiven: true,
  }),
  logFlushSchedulerIntervalMs: int(
    LONG_MAX,
    'How often logs are checked against flush.ms.',
    'log.flush.scheduler.interval.ms',
    1,
    LONG_MAX,
    {
      defaultDoc: 'never',
    },
  ),
  consumerGroupSessionTimeoutMs: ms(
    45_000,
    'A KIP-848 member not heard from for this long is fenced.',
    'group.consumer.session.timeout.ms',
    1,
  ),
  consumerGroupHeartbeatIntervalMs: ms(5000, 'How often KIP-848 members heartbeat.', 'group.consumer.heartbeat.interval.ms', 1),
  consumerGroupAssignmentIntervalMs: ms(
    1000,
    'The least time between two target assignments of a KIP-848 group; changes meanwhile wait for the first heartbeat after it.',
    'group.consumer.assignment.interval.ms',
  ),
  groupCoordinatorAppendLingerMs: int(
    -1,
    "How long a group coordinator's write waits for others to join its batch before it is answered; -1, Kafka's adaptive linger, appends at once.",
    'group.coordinator.append.linger.ms',
    -1,
  ),
  shareGroupSessionTimeoutMs: ms(45_000, 'A share-group member not heard from for this long leaves.', 'group.share.session.timeout.ms', 1),
  shareGroupMinSessionTimeoutMs: ms(45_000, 'The least share.session.timeout.ms of a group.', 'group.share.min.session.timeout.ms', 1),
  shareGroupHeartbeatIntervalMs: ms(5000, 'How often share-group members heartbeat.', 'group.share.heartbeat.interval.ms', 1),
  shareGroupMinHeartbeatIntervalMs: ms(
    5000,
    'The least share.heartbeat.interval.ms of a group.',
    'group.share.min.heartbeat.interval.ms',
    1,
  ),
  shareGroupRecordLockDurationMs: ms(30_000, "How long an acquired record stays a member's.", 'group.share.record.lock.duration.ms', 1),
  shareGroupMinRecordLockDurationMs: ms(
    15_000,
    'The least share.record.lock.duration.ms of a group.',
    'group.share.min.record.lock.duration.ms',
    1,
  ),
  shareGroupDeliveryCountLimit: int(5, 'Deliveries of a record before it is archived.', 'group.share.delivery.count.limit', 2, 10),
  shareGroupPartitionMaxRecordLocks: int(
    2000,
    'Records of a share partition in flight at once.',
    'group.share.partition.max.record.locks',
    100,
    10_000,
  ),
  streamsGroupSessionTimeoutMs: ms(
    45_000,
    'A streams-group member not heard from for this long is fenced.',
    'group.streams.session.timeout.ms',
    1,
  ),
  streamsGroupMinSessionTimeoutMs: ms(
    45_000,
    'The least streams.session.timeout.ms of a group.',
    'group.streams.min.session.timeout.ms',
    1,
  ),
  streamsGroupHeartbeatIntervalMs: ms(5000, 'How often streams-group members heartbeat.', 'group.streams.heartbeat.interval.ms', 1),
  streamsGroupMinHeartbeatIntervalMs: ms(
    5000,
    'The least streams.heartbeat.interval.ms of a group.',
    'group.streams.min.heartbeat.interval.ms',
    1,
  ),
  streamsGroupInitialRebalanceDelayMs: ms(
    3000,
    "How long a new streams group's first assignment waits for more members.",
    'group.streams.initial.rebalance.delay.ms',
  ),
  streamsGroupNumStandbyReplicas: int(0, 'Standby tasks of each stateful task.', 'group.streams.num.standby.replicas', 0, 2),
  racks: other('array', "Each broker's broker.rack, by id.", []),
  replicaSelector: str('leader', "'leader' or 'rack-aware' (KIP-392).", 'replica.selector.class', { allowed: ['leader', 'rack-aware'] }),
  logCleanerBackoffMs: ms(15_000, 'How often the log cleaner looks for partitions to compact.', 'log.cleaner.backoff.ms', 1),
  logLevel: other('number', 'ERROR 1, WARN 2, INFO 4, DEBUG 5 (logLevel), or NOTHING 0.', logLevel.WARN),
  logCreator: other('function', "Where the broker's log entries go: (level) => (entry) => void, as the client's."),
  ssl: other('object', 'TLS listeners: { cert, key, ca?, requestCert?, clientAuth?, principalMappingRules? } (PEM).'),
  sasl: other('object', 'SASL on every listener: { users, mechanisms?, scramIterations?, oauthbearer? }.'),
  connectionsMaxReauthMs: ms(0, "A SASL session's lifetime (0: no limit).", 'connections.max.reauth.ms'),
  authorizer: str(undefined, "Authorization as Kafka's StandardAuthorizer, over ACLs in the metadata log.", 'authorizer.class.name', {
    allowed: [STANDARD_AUTHORIZER],
    defaultDoc: 'none',
  }),
  superUsers: str('', "Principals allowed everything, ';'-separated ('User:alice;User:bob').", 'super.users'),
  allowEveryoneIfNoAclFound: bool(false, 'A resource no ACL covers is open to all.', 'allow.everyone.if.no.acl.found'),
  delegationTokenSecretKey: str(
    undefined,
    "Delegation tokens' HMAC key; unset or empty: tokens are disabled.",
    'delegation.token.secret.key',
    {
      sensitive: true,
      defaultDoc: 'none',
    },
  ),
  delegationTokenMaxLifetimeMs: int(
    604_800_000,
    "A delegation token's longest life, renewals included.",
    'delegation.token.max.lifetime.ms',
    1,
    LONG_MAX,
  ),
  delegationTokenExpiryTimeMs: int(
    86_400_000,
    'How long a delegation token lives unless renewed, and the longest renewal.',
    'delegation.token.expiry.time.ms',
    1,
    LONG_MAX,
  ),
  delegationTokenExpiryCheckIntervalMs: int(
    3_600_000,
    'How often expired delegation tokens are removed.',
    'delegation.token.expiry.check.interval.ms',
    1,
    LONG_MAX,
  ),
  config: other('object', 'Options by their Kafka broker names (server.properties).'),
} satisfies Record<keyof BrokerOptions, BrokerOptionSpec>

export type BrokerOptionName = keyof typeof BROKER_OPTIONS

/** A default derived from other options (the replication factors follow the broker count), resolved in order. */
const DERIVED: Partial<Record<BrokerOptionName, (o: ResolvedOptions) => unknown>> = {
  defaultReplicationFactor: (o) => Math.min(3, o.brokers),
  offsetsTopicReplicationFactor: (o) => Math.min(3, o.brokers),
  transactionStateLogReplicationFactor: (o) => Math.min(3, o.brokers),
  transactionStateLogMinIsr: (o) => Math.min(2, o.transactionStateLogReplicationFactor),
  logFlushIntervalMs: (o) => o.logFlushSchedulerIntervalMs,
}

/** The options in force, and which of them were given (DescribeConfigs' STATIC_BROKER_CONFIG; the rest are defaults). */
export interface Resolved {
  options: ResolvedOptions
  given: ReadonlySet<BrokerOptionName>
}

/**
 * startCluster()'s options checked and completed: an unknown key refused
 * with the nearest valid one (a ConfigError, the client's checkKeys), Kafka
 * names under `config` read by `fromKafkaNames` (kafka-names.ts, passed in:
 * it imports this table), each value of its kind and within
 * its bounds, derived defaults filled in.
 */
export function resolveBrokerOptions(
  given: BrokerOptions | undefined,
  fromKafkaNames: (config: Record<string, string | number | boolean>) => FromKafkaNames = () => ({ options: {} }),
): Resolved {
  const checked = checkKeys('startCluster', given, BROKER_OPTIONS)
  const { config, topics: _topics, ...own } = checked
  const named = config === undefined ? { options: {} } : fromKafkaNames(checkConfigObject(config))
  const fromConfig = named.options
  const merged: Record<string, unknown> = { ...fromConfig }
  for (const [k, v] of Object.entries(own)) if (v !== undefined) merged[k] = v
  // The structured options merge by field: a file's TLS with a flag's certificate, its sasl.enabled.mechanisms with the users given.
  if (fromConfig.ssl && own.ssl) merged.ssl = { ...fromConfig.ssl, ...own.ssl }
  if (named.mechanisms || named.users || named.oauthbearer) {
    // OAUTHBEARER alone needs no users.
    const users = own.sasl?.users ?? named.users ?? (named.mechanisms?.every((m) => m === 'OAUTHBEARER') ? {} : undefined)
    if (!users)
      throw new ConfigError(
        'sasl.enabled.mechanisms needs users: listener.name.<listener>.plain.sasl.jaas.config user_NAME entries, wafka broker --sasl-users FILE, or startCluster({ sasl: { users } })',
      )
    merged.sasl = {
      ...own.sasl,
      users,
      mechanisms: own.sasl?.mechanisms ?? named.mechanisms,
      oauthbearer: own.sasl?.oauthbearer ?? named.oauthbearer,
    }
  }
  if (named.protocol) {
    const { ssl, sasl } = merged as BrokerOptions
    const served = `${sasl ? 'SASL_' : ''}${ssl ? 'SSL' : 'PLAINTEXT'}`
    if (served !== named.protocol)
      throw new ConfigError(
        `listeners names ${named.protocol}, but the broker is configured for ${served}: TLS comes with ssl.keystore.location (or --tls-cert), SASL with sasl.enabled.mechanisms and users (or --sasl-users)`,
      )
  }
  const names = Object.keys(BROKER_OPTIONS) as BrokerOptionName[]
  const options = {} as Record<string, unknown>
  const givenNames = new Set<BrokerOptionName>()
  for (const name of names) {
    if (name === 'config' || name === 'topics') continue
    const value = merged[name]
    if (value === undefined) {
      if (!(name in DERIVED)) options[name] = (BROKER_OPTIONS[name] as BrokerOptionSpec).default
      continue
    }
    checkValue(name, value)
    options[name] = value
    givenNames.add(name)
  }
  const resolved = options as ResolvedOptions
  for (const [name, derive] of Object.entries(DERIVED) as Array<[BrokerOptionName, (o: ResolvedOptions) => unknown]>)
    if (options[name] === undefined) options[name] = derive(resolved)
  checkTogether(resolved)
  return { options: resolved, given: givenNames }
}

function checkConfigObject(config: unknown): Record<string, string | number | boolean> {
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new ConfigError(`startCluster option config must map Kafka broker config names to values, not ${JSON.stringify(config)}`)
  return config as Record<string, string | number | boolean>
}

/** What the option is called in a message: its name, and its Kafka name when it has one. */
export function optionLabel(name: BrokerOptionName): string {
  const java = (BROKER_OPTIONS[name] as BrokerOptionSpec).java
  return java ? `${name} (${java})` : name
}

function checkValue(name: BrokerOptionName, value: unknown): void {
  const spec: BrokerOptionSpec = BROKER_OPTIONS[name]
  const java = spec.java ? ` (Kafka: ${spec.java})` : ''
  const bad = (expected: string) => new ConfigError(`startCluster option ${name} must be ${expected}, not ${JSON.stringify(value)}${java}`)
  switch (spec.kind) {
    case 'integer': {
      const min = spec.min ?? 0
      const max = spec.max ?? LONG_MAX
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw bad(`an integer from ${min} to ${max}`)
      return
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('true or false')
      return
    case 'string': {
      if (typeof value !== 'string' || value === '') throw bad(spec.allowed ? `one of ${spec.allowed.join(', ')}` : 'a non-empty string')
      const parts = spec.list ? value.split(',').map((p) => p.trim()) : [value]
      if (spec.allowed && parts.some((p) => !spec.allowed!.includes(p)))
        throw bad(`${spec.list ? 'a comma-separated list of' : 'one of'} ${spec.allowed.map((a) => `'${a}'`).join(', ')}`)
      return
    }
    case 'array':
      if (!Array.isArray(value)) throw bad('an array')
      if (name === 'racks' && value.some((r) => r !== null && (typeof r !== 'string' || r === '')))
        throw bad('an array of rack names (or null)')
      return
    case 'function':
      if (typeof value !== 'function') throw bad('a function')
      return
    case 'object':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('an object')
      return
  }
}

/** The checks that take two options. */
function checkTogether(o: ResolvedOptions): void {
  for (const name of ['defaultReplicationFactor', 'offsetsTopicReplicationFactor', 'transactionStateLogReplicationFactor'] as const)
    if (o[name] > o.brokers)
      throw new ConfigError(`startCluster option ${optionLabel(name)} is ${o[name]}, more than the ${o.brokers} broker(s)`)
  if (o.transactionStateLogMinIsr > o.transactionStateLogReplicationFactor)
    throw new ConfigError(
      `startCluster option ${optionLabel('transactionStateLogMinIsr')} is ${o.transactionStateLogMinIsr}, more than transaction.state.log.replication.factor (${o.transactionStateLogReplicationFactor})`,
    )
  if (o.groupMinSessionTimeoutMs > o.groupMaxSessionTimeoutMs)
    throw new ConfigError(`startCluster option ${optionLabel('groupMinSessionTimeoutMs')} is more than groupMaxSessionTimeoutMs`)
}

/**
 * The default topic configs the options set (log.segment.bytes as
 * segment.bytes...), for topics that set none of their own: those given,
 * and those derived from others (flush.ms from log.flush.scheduler.interval.ms,
 * as Kafka's logFlushIntervalMs).
 */
export function topicDefaults(o: ResolvedOptions, given: ReadonlySet<BrokerOptionName>): Map<string, string> {
  const out = new Map<string, string>()
  for (const [name, spec] of Object.entries(BROKER_OPTIONS) as Array<[BrokerOptionName, BrokerOptionSpec]>)
    if (spec.topic && (given.has(name) || DERIVED[name])) out.set(spec.topic, kafkaValue(o[name as keyof ResolvedOptions]))
  return out
}

/** An option's value as Kafka writes it: this table's LONG_MAX (never) is Java's Long.MAX_VALUE. */
export function kafkaValue(value: unknown): string {
  return value === LONG_MAX ? '9223372036854775807' : String(value)
}

/** Whether topic config `topic`'s broker default was given (DescribeConfigs' STATIC_BROKER_CONFIG), not defaulted or derived (DEFAULT_CONFIG, as Kafka). */
export function topicDefaultGiven(given: ReadonlySet<BrokerOptionName>, topic: string): boolean {
  for (const name of given) if ((BROKER_OPTIONS[name] as BrokerOptionSpec).topic === topic) return true
  return false
}

/** Each option with a Kafka name, by that name. */
export const BY_KAFKA_NAME: ReadonlyMap<string, BrokerOptionName> = new Map(
  (Object.entries(BROKER_OPTIONS) as Array<[BrokerOptionName, BrokerOptionSpec]>).flatMap(([name, spec]) =>
    spec.java ? [[spec.java, name] as const] : [],
  ),
)

/** The host brokers give clients: advertisedHost, else the listener's host, 127.0.0.1 for a wildcard (0.0.0.0, ::). */
export function advertisedHost(o: Pick<ResolvedOptions, 'host' | 'advertisedHost'>): string {
  return o.advertisedHost ?? (o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host)
}
