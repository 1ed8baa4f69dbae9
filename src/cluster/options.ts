import type { ClusterOptions } from '../cluster/cluster.js'
import type { ConsumerConfig } from '../consumer/config.js'
import type { ProducerConfig } from '../producer/config.js'
import { MAX_INT32, type Alias, type OptionSpec } from './option.js'
import { logLevel } from '../logger.js'

/**
 * Every option of `new Kafka({...})`, `.producer({...})` and
 * `.consumer({...})`: default, meaning and range, the Java client's where it
 * has one. The resolvers take their defaults from here, validation refuses a
 * key that is not here, `satisfies` ties each table to its options type (a
 * key added to one and not the other does not compile), and the README's
 * configuration reference is generated from it (`npm run generate:readme`).
 */

const ms = (dflt: number | undefined, doc: string, java?: string, min = 0): OptionSpec => ({
  default: dflt,
  doc,
  java,
  min,
  max: MAX_INT32,
})
const count = (dflt: number | undefined, doc: string, java?: string, min = 1): OptionSpec => ({
  default: dflt,
  doc,
  java,
  min,
  max: MAX_INT32,
})
const value = <const T>(dflt: T, doc: string, java?: string) => ({ default: dflt, doc, java }) satisfies OptionSpec

export const KAFKA_OPTIONS = {
  brokers: value(
    undefined,
    'Bootstrap addresses, `host:port` (IPv6 as `[::1]:9092`): an array, or one comma-separated string. Required.',
    'bootstrap.servers',
  ),
  clientId: value('wafka', 'Sent with every request; brokers log and quota by it.', 'client.id'),
  connectTimeoutMs: ms(10_000, 'How long a TCP (and TLS) connect may take.', 'socket.connection.setup.timeout.ms', 1),
  requestTimeoutMs: ms(30_000, 'How long a request may wait for its response.', 'request.timeout.ms', 1),
  maxInFlight: count(5, 'Requests written to one connection before their responses arrive.', 'max.in.flight.requests.per.connection'),
  maxResponseBytes: count(100 * 1024 * 1024, 'A response frame larger than this is a protocol error, not an allocation.'),
  idleTimeoutMs: ms(540_000, 'An idle connection is closed after this long.', 'connections.max.idle.ms', 1),
  tls: value(undefined, '`true`, or node:tls options (`ca`, `cert`, `key`, `servername`, ...); an unknown key is refused.'),
  ssl: value(undefined, "KafkaJS's name for `tls`."),
  sasl: value(undefined, "`{ mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer' | 'aws', ... }` (see Security)."),
  socketFactory: value(
    undefined,
    "KafkaJS's `({ host, port, ssl, onConnect }) => socket`: makes each connection's socket (a proxy, a tunnel); default node:net / node:tls.",
  ),
  authenticationTimeoutMs: ms(10_000, 'The bound on one whole SASL authentication.', undefined, 1),
  reauthenticationThresholdMs: ms(10_000, "Re-authenticate this long before the broker's session ends (KIP-368)."),
  retryBackoffMs: ms(100, 'The first backoff between retries; doubles (with jitter) up to retryBackoffMaxMs.', 'retry.backoff.ms'),
  retryBackoffMaxMs: ms(1000, 'The largest backoff between retries.', 'retry.backoff.max.ms'),
  reconnectBackoffMs: ms(50, 'The first backoff before reconnecting to a broker that failed.', 'reconnect.backoff.ms'),
  reconnectBackoffMaxMs: ms(1000, 'The largest backoff before reconnecting.', 'reconnect.backoff.max.ms'),
  metadataMaxAgeMs: ms(300_000, 'Metadata older than this is refreshed.', 'metadata.max.age.ms', 1),
  defaultApiTimeoutMs: ms(60_000, 'How long a call (an admin request, a coordinator lookup) may retry.', 'default.api.timeout.ms', 1),
  logLevel: value(logLevel.WARN, '`logLevel.NOTHING` (0), `ERROR` (1), `WARN` (2), `INFO` (4) or `DEBUG` (5), as KafkaJS.'),
  logCreator: value(
    undefined,
    "KafkaJS's `(level) => ({ namespace, level, label, log }) => void`; default: one JSON line a entry on stderr.",
  ),
  onRequest: value(
    undefined,
    "`(event) => void`, told of each request answered (`request`, with its timing and the broker's `throttleTimeMs`) or timed out (`timeout`), and of requests queueing (`queueSize`).",
  ),
} as const satisfies Record<keyof ClusterOptions, OptionSpec>

export const PRODUCER_OPTIONS = {
  acks: value('all', "`'all'` (-1), `1` (the leader only) or `0` (no answer).", 'acks'),
  lingerMs: ms(5, 'How long a batch waits for more records before it is sent.', 'linger.ms'),
  batchSize: count(16_384, 'Bytes of records per partition batch.', 'batch.size'),
  bufferMemory: count(32 * 1024 * 1024, 'Bytes buffered waiting to be sent; a send waits for room.', 'buffer.memory'),
  maxBlockMs: ms(60_000, 'How long send() may wait for buffer space.', 'max.block.ms'),
  maxRequestSize: count(1024 * 1024, 'A larger record fails alone.', 'max.request.size'),
  compression: value('none', "`'none'`, `'gzip'`, `'snappy'`, `'lz4'` or `'zstd'`.", 'compression.type'),
  compressionLevel: value(undefined, "The codec's level; its default when absent.", 'compression.<codec>.level'),
  idempotent: value(undefined, 'Exactly-once per partition; on when acks is `all` and not set.', 'enable.idempotence'),
  transactionalId: value(undefined, 'Makes the producer transactional (and idempotent).', 'transactional.id'),
  transactionTimeoutMs: ms(60_000, 'How long the coordinator lets a transaction stay open.', 'transaction.timeout.ms', 1),
  maxInFlight: count(5, 'Produce requests in flight per broker (at most 5 with idempotence).', 'max.in.flight.requests.per.connection'),
  deliveryTimeoutMs: ms(
    120_000,
    'A record fails if not acknowledged by then (at least lingerMs + requestTimeoutMs).',
    'delivery.timeout.ms',
    1,
  ),
  requestTimeoutMs: ms(30_000, 'How long a Produce may wait; the broker-side timeout too.', 'request.timeout.ms', 1),
  retryBackoffMs: ms(100, 'The first backoff between retries.', 'retry.backoff.ms'),
  retryBackoffMaxMs: ms(1000, 'The largest backoff between retries.', 'retry.backoff.max.ms'),
  partitioner: value(
    'default',
    "`'default'` (Java's), `'murmur2'`, `'kafkajs-default'`, `'kafkajs-legacy'` or a function.",
    'partitioner.class',
  ),
  allowAutoTopicCreation: value(true, 'Create topics on first use where the broker allows it.', 'allow.auto.create.topics'),
} as const satisfies Record<keyof ProducerConfig, OptionSpec>

export const CONSUMER_OPTIONS = {
  groupId: value(undefined, 'Without one the consumer takes partitions by `assign()` and commits nothing.', 'group.id'),
  groupInstanceId: value(
    undefined,
    'Static membership (KIP-345): a restart within sessionTimeoutMs keeps the assignment.',
    'group.instance.id',
  ),
  groupProtocol: value('classic', "`'classic'` (JoinGroup/SyncGroup) or `'consumer'` (KIP-848).", 'group.protocol'),
  partitionAssigners: value(
    undefined,
    'Classic protocol: assignors in preference order, by name or object.',
    'partition.assignment.strategy',
  ),
  serverAssignor: value(undefined, "KIP-848: the broker-side assignor (`'uniform'`, `'range'`).", 'group.remote.assignor'),
  sessionTimeoutMs: ms(45_000, 'A member not heard from for this long leaves the group.', 'session.timeout.ms', 1),
  rebalanceTimeoutMs: ms(undefined, 'How long the coordinator waits for members to rejoin.', undefined, 1),
  heartbeatIntervalMs: ms(3_000, 'How often the member heartbeats (below sessionTimeoutMs).', 'heartbeat.interval.ms', 1),
  maxPollIntervalMs: ms(300_000, 'A handler running longer than this makes the member leave the group.', 'max.poll.interval.ms', 1),
  autoOffsetReset: value(
    'latest',
    "Where to start without a committed offset: `'earliest'`, `'latest'` or `'none'` (fail).",
    'auto.offset.reset',
  ),
  isolationLevel: value('read_uncommitted', "`'read_committed'` skips aborted transactions and waits for open ones.", 'isolation.level'),
  minBytes: count(1, 'A fetch waits for this many bytes (or maxWaitTimeInMs).', 'fetch.min.bytes', 0),
  maxBytes: count(52_428_800, 'Bytes a fetch response may carry.', 'fetch.max.bytes'),
  maxBytesPerPartition: count(1_048_576, 'Bytes of one partition a fetch response may carry.', 'max.partition.fetch.bytes'),
  maxWaitTimeInMs: ms(500, 'How long a fetch waits for minBytes.', 'fetch.max.wait.ms'),
  autoCommit: value(undefined, 'Commit processed offsets every autoCommitIntervalMs; on with a groupId.', 'enable.auto.commit'),
  autoCommitIntervalMs: ms(5_000, 'How often offsets are committed.', 'auto.commit.interval.ms', 1),
  checkCrcs: value(true, "Verify each batch's CRC.", 'check.crcs'),
  rackId: value(undefined, 'Fetch from the nearest replica in this rack (KIP-392).', 'client.rack'),
  allowAutoTopicCreation: value(true, 'Create subscribed topics where the broker allows it.', 'allow.auto.create.topics'),
  requestTimeoutMs: ms(30_000, 'How long a request may wait for its response (a fetch: plus maxWaitTimeInMs).', 'request.timeout.ms', 1),
  retryBackoffMs: ms(100, 'The first backoff between retries.', 'retry.backoff.ms'),
  retryBackoffMaxMs: ms(1000, 'The largest backoff between retries.', 'retry.backoff.max.ms'),
  metadataMaxAgeMs: ms(
    300_000,
    'How often to look for new topics matching a regex subscription (and partition count changes).',
    'metadata.max.age.ms',
    1,
  ),
} as const satisfies Record<keyof ConsumerConfig, OptionSpec>

/** Defaults that read better as words. */
const DERIVED: Record<string, string> = {
  'consumer.rebalanceTimeoutMs': 'maxPollIntervalMs',
  'consumer.partitionAssigners': "`['range', 'cooperative-sticky']`",
  'consumer.serverAssignor': "the broker's",
  'consumer.autoCommit': '`true` with a groupId',
  'producer.idempotent': "`true` when acks is `'all'`",
}
export function defaultDoc(scope: string, name: string): string | undefined {
  return DERIVED[`${scope}.${name}`]
}

const RETRY =
  "KafkaJS's retry { retries, initialRetryTime, maxRetryTime } is a count; wafka retries until a deadline: set retryBackoffMs, retryBackoffMaxMs and defaultApiTimeoutMs (deliveryTimeoutMs for a producer)"

/** KafkaJS's names: the same meaning under ours (`use`), or what to do instead. */
export const KAFKA_ALIASES: Record<string, Alias> = {
  connectionTimeout: { use: 'connectTimeoutMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  authenticationTimeout: { use: 'authenticationTimeoutMs' },
  reauthenticationThreshold: { use: 'reauthenticationThresholdMs' },
  maxInFlightRequests: { use: 'maxInFlight' },
  enforceRequestTimeout: { instead: 'every request times out after requestTimeoutMs; drop the option' },
  retry: { instead: RETRY },
}

export const PRODUCER_ALIASES: Record<string, Alias> = {
  maxInFlightRequests: { use: 'maxInFlight' },
  transactionTimeout: { use: 'transactionTimeoutMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  createPartitioner: {
    instead: "pass partitioner: a function (topic, partition count, message) or a name ('kafkajs-default' is KafkaJS's default)",
  },
  metadataMaxAge: { instead: 'set metadataMaxAgeMs on new Kafka({...})' },
  retry: { instead: RETRY },
}

export const CONSUMER_ALIASES: Record<string, Alias> = {
  sessionTimeout: { use: 'sessionTimeoutMs' },
  rebalanceTimeout: { use: 'rebalanceTimeoutMs' },
  heartbeatInterval: { use: 'heartbeatIntervalMs' },
  metadataMaxAge: { use: 'metadataMaxAgeMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  readUncommitted: { instead: "use isolationLevel: 'read_uncommitted' or 'read_committed'" },
  maxInFlightRequests: { instead: 'a consumer keeps one fetch in flight per broker; drop the option' },
  retry: { instead: RETRY },
}
