import { ConfigError } from '../errors.js'
import { RETRY_INSTEAD } from '../cluster/options.js'
import {
  checkKeys,
  countOption as count,
  msOption as ms,
  numberOption,
  oneOf,
  valueOption as value,
  type Alias,
  type OptionSpec,
} from '../config/option.js'
import { assignorByName, type PartitionAssignor } from './assignors/index.js'

export type OffsetReset = 'earliest' | 'latest' | 'none'
export type IsolationLevel = 'read_uncommitted' | 'read_committed'
export type GroupProtocol = 'classic' | 'consumer'

/**
 * The options of `kafka.consumer({...})`. The JSDoc of each property in CONSUMER_OPTIONS (below) is written from that
 * table by `npm run generate:readme`: edit the table, not the comment.
 */
export interface ConsumerConfig {
  /** Without one the consumer takes partitions by `assign()` and commits nothing. Java: `group.id`. */
  groupId?: string
  /** Static membership (KIP-345): a restart within sessionTimeoutMs keeps the assignment. Java: `group.instance.id`. */
  groupInstanceId?: string
  /** `'classic'` (JoinGroup/SyncGroup) or `'consumer'` (KIP-848). Default: `"classic"`. Java: `group.protocol`. */
  groupProtocol?: GroupProtocol
  /**
   * Classic protocol: assignors in preference order, by name or object. Default: `['range', 'cooperative-sticky']`. Java:
   * `partition.assignment.strategy`.
   */
  partitionAssigners?: Array<PartitionAssignor | string>
  /** KIP-848: the broker-side assignor (`'uniform'`, `'range'`). Default: the broker's. Java: `group.remote.assignor`. */
  serverAssignor?: string
  /** A member not heard from for this long leaves the group. Default: `45000` (1–2147483647). Java: `session.timeout.ms`. */
  sessionTimeoutMs?: number
  /** How long the coordinator waits for members to rejoin. Default: maxPollIntervalMs (1–2147483647). */
  rebalanceTimeoutMs?: number
  /** How often the member heartbeats (below sessionTimeoutMs). Default: `3000` (1–2147483647). Java: `heartbeat.interval.ms`. */
  heartbeatIntervalMs?: number
  /**
   * A handler running longer than this makes the member leave the group. Default: `300000` (1–2147483647). Java: `max.poll.interval.ms`.
   */
  maxPollIntervalMs?: number
  /**
   * Where to start without a committed offset: `'earliest'`, `'latest'` or `'none'` (fail). Default: `"latest"`. Java: `auto.offset.reset`.
   */
  autoOffsetReset?: OffsetReset
  /** `'read_committed'` skips aborted transactions and waits for open ones. Default: `"read_uncommitted"`. Java: `isolation.level`. */
  isolationLevel?: IsolationLevel
  /** A fetch waits for this many bytes (or maxWaitTimeInMs). Default: `1` (0–2147483647). Java: `fetch.min.bytes`. */
  minBytes?: number
  /** Bytes a fetch response may carry. Default: `52428800` (1–2147483647). Java: `fetch.max.bytes`. */
  maxBytes?: number
  /** Bytes of one partition a fetch response may carry. Default: `1048576` (1–2147483647). Java: `max.partition.fetch.bytes`. */
  maxBytesPerPartition?: number
  /** How long a fetch waits for minBytes. Default: `500` (0–2147483647). Java: `fetch.max.wait.ms`. */
  maxWaitTimeInMs?: number
  /** Commit processed offsets every autoCommitIntervalMs; on with a groupId. Default: `true` with a groupId. Java: `enable.auto.commit`. */
  autoCommit?: boolean
  /** How often offsets are committed. Default: `5000` (1–2147483647). Java: `auto.commit.interval.ms`. */
  autoCommitIntervalMs?: number
  /** Verify each batch's CRC. Default: `true`. Java: `check.crcs`. */
  checkCrcs?: boolean
  /** Fetch from the nearest replica in this rack (KIP-392). Java: `client.rack`. */
  rackId?: string
  /** Create subscribed topics where the broker allows it. Default: `true`. Java: `allow.auto.create.topics`. */
  allowAutoTopicCreation?: boolean
  /**
   * How long a request may wait for its response (a fetch: plus maxWaitTimeInMs). Default: `30000` (1–2147483647). Java:
   * `request.timeout.ms`.
   */
  requestTimeoutMs?: number
  /** The first backoff between retries. Default: `100` (0–2147483647). Java: `retry.backoff.ms`. */
  retryBackoffMs?: number
  /** The largest backoff between retries. Default: `1000` (0–2147483647). Java: `retry.backoff.max.ms`. */
  retryBackoffMaxMs?: number
  /**
   * Every this many ms, a `consumer.stats` event (and `wafka:stats` channel message) with the consumer's statistics; 0: never. Default: `0`
   * (0–2147483647). Java: `statistics.interval.ms`.
   */
  statisticsIntervalMs?: number
  /**
   * How often to look for new topics matching a regex subscription (and partition count changes). Default: `300000` (1–2147483647). Java:
   * `metadata.max.age.ms`.
   */
  metadataMaxAgeMs?: number
}

/**
 * Every option of `kafka.consumer({...})`: default, meaning, range and the
 * Java client's name. The resolver takes its defaults from here, checkKeys()
 * refuses a key not here, `satisfies` ties it to ConsumerConfig, and the
 * README's reference and ConsumerConfig's JSDoc are generated from it
 * (`npm run generate:readme`).
 */
export const CONSUMER_OPTIONS = {
  groupId: value(undefined, 'Without one the consumer takes partitions by `assign()` and commits nothing.', 'group.id'),
  groupInstanceId: value(
    undefined,
    'Static membership (KIP-345): a restart within sessionTimeoutMs keeps the assignment.',
    'group.instance.id',
  ),
  groupProtocol: value('classic', "`'classic'` (JoinGroup/SyncGroup) or `'consumer'` (KIP-848).", 'group.protocol'),
  partitionAssigners: {
    ...value(undefined, 'Classic protocol: assignors in preference order, by name or object.', 'partition.assignment.strategy'),
    defaultDoc: "`['range', 'cooperative-sticky']`",
  },
  serverAssignor: {
    ...value(undefined, "KIP-848: the broker-side assignor (`'uniform'`, `'range'`).", 'group.remote.assignor'),
    defaultDoc: "the broker's",
  },
  sessionTimeoutMs: ms(45_000, 'A member not heard from for this long leaves the group.', 'session.timeout.ms', 1),
  rebalanceTimeoutMs: {
    ...ms(undefined, 'How long the coordinator waits for members to rejoin.', undefined, 1),
    defaultDoc: 'maxPollIntervalMs',
  },
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
  autoCommit: {
    ...value(undefined, 'Commit processed offsets every autoCommitIntervalMs; on with a groupId.', 'enable.auto.commit'),
    defaultDoc: '`true` with a groupId',
  },
  autoCommitIntervalMs: ms(5_000, 'How often offsets are committed.', 'auto.commit.interval.ms', 1),
  checkCrcs: value(true, "Verify each batch's CRC.", 'check.crcs'),
  rackId: value(undefined, 'Fetch from the nearest replica in this rack (KIP-392).', 'client.rack'),
  allowAutoTopicCreation: value(true, 'Create subscribed topics where the broker allows it.', 'allow.auto.create.topics'),
  requestTimeoutMs: ms(30_000, 'How long a request may wait for its response (a fetch: plus maxWaitTimeInMs).', 'request.timeout.ms', 1),
  retryBackoffMs: ms(100, 'The first backoff between retries.', 'retry.backoff.ms'),
  retryBackoffMaxMs: ms(1000, 'The largest backoff between retries.', 'retry.backoff.max.ms'),
  statisticsIntervalMs: ms(
    0,
    "Every this many ms, a `consumer.stats` event (and `wafka:stats` channel message) with the consumer's statistics; 0: never.",
    'statistics.interval.ms',
  ),
  metadataMaxAgeMs: ms(
    300_000,
    'How often to look for new topics matching a regex subscription (and partition count changes).',
    'metadata.max.age.ms',
    1,
  ),
} as const satisfies Record<keyof ConsumerConfig, OptionSpec>

/** KafkaJS's names: the same meaning under ours (`use`), or what to do instead. */
export const CONSUMER_ALIASES: Record<string, Alias> = {
  sessionTimeout: { use: 'sessionTimeoutMs' },
  rebalanceTimeout: { use: 'rebalanceTimeoutMs' },
  heartbeatInterval: { use: 'heartbeatIntervalMs' },
  metadataMaxAge: { use: 'metadataMaxAgeMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  readUncommitted: { instead: "use isolationLevel: 'read_uncommitted' or 'read_committed'" },
  maxInFlightRequests: { instead: 'a consumer keeps one fetch in flight per broker; drop the option' },
  retry: { instead: RETRY_INSTEAD },
}

export interface ResolvedConsumerConfig {
  groupId: string | null
  groupInstanceId: string | null
  groupProtocol: GroupProtocol
  assignors: PartitionAssignor[]
  serverAssignor: string | null
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  heartbeatIntervalMs: number
  maxPollIntervalMs: number
  autoOffsetReset: OffsetReset
  isolationLevel: 0 | 1
  minBytes: number
  maxBytes: number
  maxBytesPerPartition: number
  maxWaitTimeInMs: number
  autoCommit: boolean
  autoCommitIntervalMs: number
  checkCrcs: boolean
  rackId: string | null
  allowAutoTopicCreation: boolean
  requestTimeoutMs: number
  retryBackoffMs: number
  retryBackoffMaxMs: number
  statisticsIntervalMs: number
  metadataMaxAgeMs: number
}

function optionalString(name: string, value: string | undefined): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${name} must be a non-empty string`)
  return value
}

function resolveAssignor(a: PartitionAssignor | string): PartitionAssignor {
  if (typeof a === 'string') {
    const found = assignorByName(a)
    if (!found)
      throw new ConfigError(
        `unknown partition assignor '${a}': use 'range', 'roundrobin', 'cooperative-sticky', 'RoundRobinAssigner' (KafkaJS's) or an assignor object`,
      )
    return found
  }
  if (!a || typeof a.name !== 'string' || typeof a.assign !== 'function')
    throw new ConfigError('a partition assignor needs a name and an assign() function')
  return a
}

/** Java's consumer defaults, checked as Java checks them. */
export function resolveConsumerConfig(given: ConsumerConfig): ResolvedConsumerConfig {
  const config = checkKeys('consumer', given, CONSUMER_OPTIONS, CONSUMER_ALIASES)
  const groupId = optionalString('groupId', config.groupId)
  const groupInstanceId = optionalString('groupInstanceId', config.groupInstanceId)
  if (groupInstanceId !== null && groupId === null) throw new ConfigError('groupInstanceId needs a groupId')
  const sessionTimeoutMs = numberOption(CONSUMER_OPTIONS, 'sessionTimeoutMs', config.sessionTimeoutMs)
  const heartbeatIntervalMs = numberOption(CONSUMER_OPTIONS, 'heartbeatIntervalMs', config.heartbeatIntervalMs)
  if (heartbeatIntervalMs >= sessionTimeoutMs) {
    throw new ConfigError(`heartbeatIntervalMs (${heartbeatIntervalMs}) must be lower than sessionTimeoutMs (${sessionTimeoutMs})`)
  }
  const maxPollIntervalMs = numberOption(CONSUMER_OPTIONS, 'maxPollIntervalMs', config.maxPollIntervalMs)
  const autoCommit = config.autoCommit ?? groupId !== null
  if (autoCommit && groupId === null && config.autoCommit === true) throw new ConfigError('autoCommit needs a groupId')
  const assignors = (config.partitionAssigners ?? ['range', 'cooperative-sticky']).map(resolveAssignor)
  if (assignors.length === 0) throw new ConfigError('partitionAssigners needs at least one assignor')
  const maxBytes = numberOption(CONSUMER_OPTIONS, 'maxBytes', config.maxBytes)
  return {
    groupId,
    groupInstanceId,
    groupProtocol: oneOf('groupProtocol', config.groupProtocol, ['classic', 'consumer'], CONSUMER_OPTIONS.groupProtocol.default),
    assignors,
    serverAssignor: optionalString('serverAssignor', config.serverAssignor),
    sessionTimeoutMs,
    rebalanceTimeoutMs: numberOption(CONSUMER_OPTIONS, 'rebalanceTimeoutMs', config.rebalanceTimeoutMs, maxPollIntervalMs),
    heartbeatIntervalMs,
    maxPollIntervalMs,
    autoOffsetReset: oneOf(
      'autoOffsetReset',
      config.autoOffsetReset,
      ['earliest', 'latest', 'none'],
      CONSUMER_OPTIONS.autoOffsetReset.default,
    ),
    isolationLevel:
      oneOf('isolationLevel', config.isolationLevel, ['read_uncommitted', 'read_committed'], CONSUMER_OPTIONS.isolationLevel.default) ===
      'read_committed'
        ? 1
        : 0,
    minBytes: numberOption(CONSUMER_OPTIONS, 'minBytes', config.minBytes),
    maxBytes,
    maxBytesPerPartition: numberOption(CONSUMER_OPTIONS, 'maxBytesPerPartition', config.maxBytesPerPartition),
    maxWaitTimeInMs: numberOption(CONSUMER_OPTIONS, 'maxWaitTimeInMs', config.maxWaitTimeInMs),
    autoCommit,
    autoCommitIntervalMs: numberOption(CONSUMER_OPTIONS, 'autoCommitIntervalMs', config.autoCommitIntervalMs),
    checkCrcs: config.checkCrcs ?? CONSUMER_OPTIONS.checkCrcs.default,
    rackId: optionalString('rackId', config.rackId),
    allowAutoTopicCreation: config.allowAutoTopicCreation ?? CONSUMER_OPTIONS.allowAutoTopicCreation.default,
    requestTimeoutMs: numberOption(CONSUMER_OPTIONS, 'requestTimeoutMs', config.requestTimeoutMs),
    retryBackoffMs: numberOption(CONSUMER_OPTIONS, 'retryBackoffMs', config.retryBackoffMs),
    retryBackoffMaxMs: numberOption(CONSUMER_OPTIONS, 'retryBackoffMaxMs', config.retryBackoffMaxMs),
    statisticsIntervalMs: numberOption(CONSUMER_OPTIONS, 'statisticsIntervalMs', config.statisticsIntervalMs),
    metadataMaxAgeMs: numberOption(CONSUMER_OPTIONS, 'metadataMaxAgeMs', config.metadataMaxAgeMs),
  }
}
