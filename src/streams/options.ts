// The options of `new KafkaStreams(topology, {...})`: the client's (KAFKA_OPTIONS,
// the same table `new Kafka()` checks) and Kafka Streams' own, under Java's
// names in camelCase. Unknown keys are refused, naming the nearest.
import {
  callOption,
  checkKeys,
  countOption,
  msOption as ms,
  numberOption,
  oneOf,
  valueOption as value,
  type OptionSpec,
} from '../config/option.js'
import { ConfigError } from '../errors.js'
import { KAFKA_ALIASES, KAFKA_OPTIONS, type ClusterOptions } from '../cluster/options.js'
import type { Serde } from './serdes.js'
import type { DeserializationExceptionHandler } from './deserialization-handler.js'
import type { DslStoreType } from './nodes.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type ProcessingGuarantee = 'at_least_once' | 'exactly_once_v2'

/** How the application's instances share the tasks: `'classic'` (consumer group, client-side assignment) or `'streams'` (KIP-1071: the broker assigns tasks). */
export type StreamsGroupProtocol = 'classic' | 'streams'

export interface StreamsConfig extends ClusterOptions {
  /** The consumer group, the prefix of internal topics and the default client id. Required. Java: `application.id`. */
  applicationId: string
  /**
   * `'at_least_once'`: offsets are committed after the output they led to is acknowledged;
   * `'exactly_once_v2'`: output and offsets are committed together in transactions. Java: `processing.guarantee`.
   */
  processingGuarantee?: ProcessingGuarantee
  /** How often processed offsets are committed. Default: `30000` (`100` under exactly_once_v2). Java: `commit.interval.ms`. */
  commitIntervalMs?: number
  /** The key serde where the topology gives none. Java: `default.key.serde`. */
  defaultKeySerde?: Serde<any>
  /** The value serde where the topology gives none. Java: `default.value.serde`. */
  defaultValueSerde?: Serde<any>
  /**
   * A record a source serde cannot read: `'logAndFail'` (default) stops the application, `'logAndContinue'`
   * skips it; a function decides per record. Java: `deserialization.exception.handler`.
   */
  deserializationExceptionHandler?: DeserializationExceptionHandler
  /**
   * `'classic'` (default): the instances form a consumer group and split the input partitions among
   * themselves; `'streams'`: a streams group (KIP-1071, Kafka 4.2+), where the broker assigns tasks and
   * creates the internal topics. Java: `group.protocol`.
   */
  groupProtocol?: StreamsGroupProtocol
  /** This instance's `host:port` for interactive queries, told to the streams group. Java: `application.server`. */
  applicationServer?: string
  /**
   * How many standby copies of each stateful task the group leader assigns under groupProtocol 'classic'
   * (kept warm on other instances, for a fast failover and for queries with enableStaleStores). Default: `0`.
   * Under 'streams' the group config `streams.num.standby.replicas` decides, as for Java. Java: `num.standby.replicas`.
   */
  numStandbyReplicas?: number
  /**
   * This instance's tags, sent to the group: standby tasks are spread over their values (rack-aware assignment)
   * by the streams group, or under 'classic' by a leader whose rackAwareAssignmentTags name them. Java: `client.tag.<key>`.
   */
  clientTags?: Record<string, string>
  /**
   * Under groupProtocol 'classic', when this instance leads: the clientTags keys (at most 5, each one of this
   * instance's clientTags) over whose values each task's standbys are spread. Default: none. Java: `rack.aware.assignment.tags`.
   */
  rackAwareAssignmentTags?: string[]
  /**
   * Under groupProtocol 'classic', when this instance leads: how many changelog offsets an instance may lag
   * behind and still be given a stateful task as active. Default: `10000`. Java: `acceptable.recovery.lag`.
   */
  acceptableRecoveryLag?: number
  /**
   * Under groupProtocol 'classic', when this instance leads: how many warm-up tasks (standby copies filling an
   * instance that is to take a task over) one rebalance may give. Default: `2`. Java: `max.warmup.replicas`.
   */
  maxWarmupReplicas?: number
  /**
   * Under groupProtocol 'classic', when this instance leads and gave warm-up tasks: how long until the probing
   * rebalance that moves caught-up tasks. Default: `600000`, at least `60000`. Java: `probing.rebalance.interval.ms`.
   */
  probingRebalanceIntervalMs?: number
  /**
   * The directory persistent stores live in: `<stateDir>/<applicationId>/<taskId>/`. Default:
   * `<os.tmpdir()>/kafka-streams`, as Java's. Java: `state.dir`.
   */
  stateDir?: string
  /**
   * The DSL's stores where Materialized gives no storeType: `'rocksDB'` (default) persistent, in a file
   * under stateDir (ours is a log-structured file, not RocksDB), or `'in_memory'`. Java: `default.dsl.store`.
   */
  defaultDslStore?: DslStoreType
  /**
   * How long a task directory under stateDir may go unowned (and unmodified) before the cleaner, which
   * looks every stateCleanupDelayMs while RUNNING, deletes it. Default: `600000`. Java: `state.cleanup.delay.ms`.
   */
  stateCleanupDelayMs?: number
  /**
   * The record cache's bound in bytes, shared by the caching stores of every task (the DSL's key-value,
   * window and session stores, caching by default in Materialized; Processor API stores built
   * withCachingEnabled()): each key's latest update is forwarded and logged at a commit,
   * or when the cache outgrows this. `0`: every update at once. Default: `10485760`. Java: `statestore.cache.max.bytes`.
   */
  statestoreCacheMaxBytes?: number
  /** The stream thread's consumer: how long the group waits for a member that stopped heartbeating. Default: `45000`. Java: `session.timeout.ms` (a consumer config Java's StreamsConfig passes on). */
  sessionTimeoutMs?: number
  /** The stream thread's consumer: how often it heartbeats. Default: `3000`. Java: `heartbeat.interval.ms`. */
  heartbeatIntervalMs?: number
}

export const STREAMS_OPTIONS = {
  ...KAFKA_OPTIONS,
  applicationId: value(
    undefined,
    'The consumer group, the prefix of internal topics and the default client id. Required.',
    'application.id',
  ),
  processingGuarantee: value(
    'at_least_once',
    "`'at_least_once'`: offsets are committed after the output they led to is acknowledged; `'exactly_once_v2'`: output and offsets are committed together in transactions.",
    'processing.guarantee',
  ),
  commitIntervalMs: {
    ...ms(30_000, 'How often processed offsets are committed.', 'commit.interval.ms', 1),
    defaultDoc: "`30000` (`100` under `'exactly_once_v2'`)",
  },
  defaultKeySerde: value(undefined, 'The key serde where the topology gives none.', 'default.key.serde'),
  defaultValueSerde: value(undefined, 'The value serde where the topology gives none.', 'default.value.serde'),
  deserializationExceptionHandler: value(
    'logAndFail',
    "A record a source serde cannot read: `'logAndFail'` stops the application, `'logAndContinue'` skips it; a function decides per record.",
    'deserialization.exception.handler',
  ),
  groupProtocol: value(
    'classic',
    "`'classic'`: the instances form a consumer group and split the input partitions; `'streams'`: a streams group (KIP-1071, Kafka 4.2+), where the broker assigns tasks and creates the internal topics.",
    'group.protocol',
  ),
  applicationServer: value(
    undefined,
    "This instance's `host:port` for interactive queries, told to the streams group.",
    'application.server',
  ),
  numStandbyReplicas: countOption(
    0,
    "How many standby copies of each stateful task the group leader assigns under groupProtocol 'classic' (under 'streams' the group config `streams.num.standby.replicas` decides).",
    'num.standby.replicas',
    0,
  ),
  clientTags: value(
    undefined,
    "This instance's tags, sent to the group: standby tasks are spread over their values (rack-aware assignment) by the streams group, or under 'classic' by a leader whose rackAwareAssignmentTags name them.",
    'client.tag.<key>',
  ),
  rackAwareAssignmentTags: value(
    undefined,
    "Under groupProtocol 'classic', when this instance leads: the clientTags keys (at most 5, each one of this instance's clientTags) over whose values each task's standbys are spread.",
    'rack.aware.assignment.tags',
  ),
  acceptableRecoveryLag: {
    default: 10_000,
    doc: "Under groupProtocol 'classic', when this instance leads: how many changelog offsets an instance may lag behind and still be given a stateful task as active.",
    java: 'acceptable.recovery.lag',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
  },
  maxWarmupReplicas: countOption(
    2,
    "Under groupProtocol 'classic', when this instance leads: how many warm-up tasks (standby copies filling an instance that is to take a task over) one rebalance may give.",
    'max.warmup.replicas',
    1,
  ),
  probingRebalanceIntervalMs: ms(
    600_000,
    "Under groupProtocol 'classic', when this instance leads and gave warm-up tasks: how long until the probing rebalance that moves caught-up tasks.",
    'probing.rebalance.interval.ms',
    60_000,
  ),
  stateDir: {
    ...value(undefined, 'The directory persistent stores live in: `<stateDir>/<applicationId>/<taskId>/`.', 'state.dir'),
    defaultDoc: '`<os.tmpdir()>/kafka-streams`',
  },
  defaultDslStore: value(
    'rocksDB',
    "The DSL's stores where Materialized gives no storeType: `'rocksDB'` persistent (a log-structured file under stateDir, not RocksDB), or `'in_memory'`.",
    'default.dsl.store',
  ),
  stateCleanupDelayMs: ms(
    600_000,
    'How long a task directory under stateDir may go unowned (and unmodified) before the cleaner, which looks every stateCleanupDelayMs while RUNNING, deletes it.',
    'state.cleanup.delay.ms',
    1,
  ),
  statestoreCacheMaxBytes: countOption(
    10_485_760,
    "The record cache's bound in bytes, shared by the DSL's key-value stores of every task: each key's latest update is forwarded and logged at a commit, or when the cache outgrows this. `0`: every update at once.",
    'statestore.cache.max.bytes',
    0,
  ),
  sessionTimeoutMs: ms(
    45_000,
    "The stream thread's consumer: how long the group waits for a member that stopped heartbeating.",
    'session.timeout.ms',
    1,
  ),
  heartbeatIntervalMs: ms(3_000, "The stream thread's consumer: how often it heartbeats.", 'heartbeat.interval.ms', 1),
} as const satisfies Record<keyof StreamsConfig, OptionSpec>

export interface ResolvedStreamsConfig {
  applicationId: string
  processingGuarantee: ProcessingGuarantee
  commitIntervalMs: number
  defaultKeySerde: Serde<any> | undefined
  defaultValueSerde: Serde<any> | undefined
  deserializationExceptionHandler: DeserializationExceptionHandler | undefined
  groupProtocol: StreamsGroupProtocol
  /** applicationServer, parsed. */
  userEndpoint: { host: string; port: number } | null
  numStandbyReplicas: number
  clientTags: Record<string, string>
  rackAwareAssignmentTags: string[]
  acceptableRecoveryLag: number
  maxWarmupReplicas: number
  probingRebalanceIntervalMs: number
  stateDir: string
  defaultDslStore: DslStoreType
  stateCleanupDelayMs: number
  statestoreCacheMaxBytes: number
  /** The stream thread's consumer's, when given. */
  sessionTimeoutMs: number | undefined
  heartbeatIntervalMs: number | undefined
  /** What `new Kafka()` takes: the client options, the client id defaulting to the application id. */
  client: ClusterOptions
}

// Java's application.id: what a topic name may hold, as internal topics carry it.
const APPLICATION_ID = /^[a-zA-Z0-9._-]+$/

export function resolveStreamsConfig(given: StreamsConfig): ResolvedStreamsConfig {
  const {
    applicationId,
    processingGuarantee,
    commitIntervalMs,
    defaultKeySerde,
    defaultValueSerde,
    deserializationExceptionHandler,
    groupProtocol,
    applicationServer,
    numStandbyReplicas,
    clientTags,
    rackAwareAssignmentTags,
    acceptableRecoveryLag,
    maxWarmupReplicas,
    probingRebalanceIntervalMs,
    stateDir,
    defaultDslStore,
    stateCleanupDelayMs,
    statestoreCacheMaxBytes,
    sessionTimeoutMs,
    heartbeatIntervalMs,
    ...client
  } = checkKeys('KafkaStreams', given, STREAMS_OPTIONS, KAFKA_ALIASES)
  if (typeof applicationId !== 'string' || !APPLICATION_ID.test(applicationId))
    throw new ConfigError(
      `applicationId must be a non-empty string of letters, digits, '.', '_' and '-', not ${JSON.stringify(applicationId)}`,
    )
  for (const [name, serde] of [
    ['defaultKeySerde', defaultKeySerde],
    ['defaultValueSerde', defaultValueSerde],
  ] as const)
    if (serde !== undefined && (typeof serde?.serialize !== 'function' || typeof serde.deserialize !== 'function'))
      throw new ConfigError(`${name} must be a Serde (serialize and deserialize), such as Serdes.String()`)
  if (stateDir !== undefined && (typeof stateDir !== 'string' || stateDir === ''))
    throw new ConfigError(`stateDir must be a directory path, not ${JSON.stringify(stateDir)}`)
  const resolvedTags = tags(clientTags)
  const guarantee = oneOf('processingGuarantee', processingGuarantee, ['at_least_once', 'exactly_once_v2'] as const, 'at_least_once')
  return {
    applicationId,
    processingGuarantee: guarantee,
    // Java's default commit.interval.ms under EOS: 100 ms, as each commit makes output visible.
    commitIntervalMs: numberOption(
      STREAMS_OPTIONS,
      'commitIntervalMs',
      commitIntervalMs,
      guarantee === 'exactly_once_v2' ? 100 : undefined,
    ),
    defaultKeySerde,
    defaultValueSerde,
    deserializationExceptionHandler,
    groupProtocol: oneOf('groupProtocol', groupProtocol, ['classic', 'streams'] as const, 'classic'),
    userEndpoint: endpoint(applicationServer),
    numStandbyReplicas: standbyCount(numStandbyReplicas),
    clientTags: resolvedTags,
    rackAwareAssignmentTags: rackTags(rackAwareAssignmentTags, resolvedTags),
    acceptableRecoveryLag: wholeNumber('acceptableRecoveryLag', acceptableRecoveryLag),
    maxWarmupReplicas: wholeNumber('maxWarmupReplicas', maxWarmupReplicas),
    probingRebalanceIntervalMs: probingInterval(probingRebalanceIntervalMs),
    // Read now, not at load: os.tmpdir() follows TMPDIR.
    stateDir: stateDir ?? join(tmpdir(), 'kafka-streams'),
    sessionTimeoutMs: sessionTimeoutMs === undefined ? undefined : numberOption(STREAMS_OPTIONS, 'sessionTimeoutMs', sessionTimeoutMs),
    heartbeatIntervalMs:
      heartbeatIntervalMs === undefined ? undefined : numberOption(STREAMS_OPTIONS, 'heartbeatIntervalMs', heartbeatIntervalMs),
    stateCleanupDelayMs: numberOption(STREAMS_OPTIONS, 'stateCleanupDelayMs', stateCleanupDelayMs),
    statestoreCacheMaxBytes: numberOption(STREAMS_OPTIONS, 'statestoreCacheMaxBytes', statestoreCacheMaxBytes),
    defaultDslStore: oneOf('defaultDslStore', defaultDslStore, ['rocksDB', 'in_memory'] as const, 'rocksDB'),
    client: { clientId: applicationId, ...client },
  }
}

function standbyCount(given: unknown): number {
  return wholeNumber('numStandbyReplicas', given)
}

function wholeNumber(name: keyof typeof STREAMS_OPTIONS, given: unknown): number {
  const n = numberOption(STREAMS_OPTIONS, name, given)
  if (!Number.isInteger(n)) throw new ConfigError(`${name} must be a whole number, not ${n}`)
  return n
}

/**
 * The least probingRebalanceIntervalMs taken: Java's one minute. @internal
 * Only tests lower it, to see a probing rebalance without waiting a minute.
 */
export const probingRebalanceBound = { minMs: 60_000 }

function probingInterval(given: unknown): number {
  const { minMs } = probingRebalanceBound
  if (given === undefined) return STREAMS_OPTIONS.probingRebalanceIntervalMs.default as number
  if (typeof given !== 'number' || !Number.isInteger(given) || given < minMs || given > 2 ** 31 - 1)
    throw new ConfigError(
      `probingRebalanceIntervalMs must be a whole number of milliseconds from ${minMs} to ${2 ** 31 - 1}, not ${JSON.stringify(given)}`,
    )
  return given
}

/** Java's rack.aware.assignment.tags: at most 5 keys, each one of this instance's client tags. */
function rackTags(given: unknown, clientTags: Record<string, string>): string[] {
  if (given === undefined || given === null) return []
  if (!Array.isArray(given) || given.some((t) => typeof t !== 'string' || t === ''))
    throw new ConfigError(`rackAwareAssignmentTags must be an array of clientTags keys, such as ['zone'], not ${JSON.stringify(given)}`)
  if (given.length > 5) throw new ConfigError(`rackAwareAssignmentTags may name at most 5 tags (Java's bound), not ${given.length}`)
  const missing = given.filter((t) => !(t in clientTags))
  if (missing.length > 0)
    throw new ConfigError(
      `rackAwareAssignmentTags names ${missing.map((t) => JSON.stringify(t)).join(', ')}, which clientTags does not set`,
    )
  return [...given]
}

/** Java's application.server: `host:port`. */
function endpoint(given: unknown): { host: string; port: number } | null {
  if (given === undefined || given === null || given === '') return null
  const m = typeof given === 'string' ? /^(.+):(\d{1,5})$/.exec(given) : null
  const port = m ? Number(m[2]) : NaN
  if (!m || port > 65_535) throw new ConfigError(`applicationServer must be 'host:port', not ${JSON.stringify(given)}`)
  return { host: m[1], port }
}

function tags(given: unknown): Record<string, string> {
  if (given === undefined || given === null) return {}
  if (typeof given !== 'object' || Array.isArray(given) || Object.values(given).some((v) => typeof v !== 'string'))
    throw new ConfigError(`clientTags must be an object of strings, such as { zone: 'eu-1' }, not ${JSON.stringify(given)}`)
  return { ...(given as Record<string, string>) }
}

/** KafkaStreams.close()'s options (Java's KafkaStreams.CloseOptions). */
export interface CloseOptions {
  /** Send a leave request (default true); false: the group keeps the instance's tasks until its session times out. */
  leaveGroup?: boolean
}

export const CLOSE_OPTIONS = {
  leaveGroup: callOption('boolean', 'Leave the group (default true); false: the group keeps the tasks until the session times out.'),
} as const satisfies Record<keyof CloseOptions, OptionSpec>
