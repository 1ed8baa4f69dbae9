import { ErrorCodes } from '../protocol/error-codes.js'
import type { EmbeddedCluster } from './cluster.js'
import { duplicateKeysProblem, listAfter, notListProblem, OP_APPEND, OP_DELETE, OP_SET, OP_SUBTRACT } from './config-ops.js'
import { parseShareAutoOffsetReset } from './share/auto-offset-reset.js'
import { BROKER_OPTIONS, BY_KAFKA_NAME, kafkaValue, type BrokerOptionSpec } from './options.js'

/**
 * The dynamic configs of brokers and groups, as Kafka 4.4 serves them:
 * what DescribeConfigs lists for a GROUP resource (type 32) or a BROKER's
 * dynamic keys, what AlterConfigs and IncrementalAlterConfigs may set, and
 * the checks they pass. The values live in the controller's config records
 * (so a data dir keeps them), read at each use, as Kafka applies them at
 * once: a group's consumer.session.timeout.ms and consumer.heartbeat.interval.ms
 * govern its KIP-848 members, its share.* keys its share group, its
 * streams.* keys its streams group (warm-up and assignor-offload keys are
 * kept, not acted on); a broker's topic defaults set for every broker
 * (TOPIC_DEFAULT_SYNONYMS), connection limits and rates, and replication
 * throttles and producer.id.expiration.ms act (brokerConfigValue); the thread counts, Kerberos relogin and
 * the log-dir move rate have nothing here to act on and are kept.
 */

/** ConfigResource types. */
export const RESOURCE_TOPIC = 2
export const RESOURCE_BROKER = 4
export const RESOURCE_GROUP = 32

/** DescribeConfigs config sources. */
export const SOURCE_DYNAMIC_TOPIC = 1
export const SOURCE_DYNAMIC_BROKER = 2
export const SOURCE_DYNAMIC_DEFAULT_BROKER = 3
export const SOURCE_STATIC_BROKER = 4
export const SOURCE_DEFAULT = 5
export const SOURCE_GROUP = 8

/** DescribeConfigs config types. */
export const TYPE_BOOLEAN = 1
export const TYPE_STRING = 2
export const TYPE_INT = 3
export const TYPE_LONG = 5
export const TYPE_LIST = 7
export const TYPE_PASSWORD = 9

interface ConfigDef {
  type: number
  /** The value when nothing sets it. */
  value: (cluster: EmbeddedCluster) => string
  /** The accepted range of a number; Kafka's bounds (its group.*.min/max configs), widened to take in this broker's default. */
  min?: number | ((cluster: EmbeddedCluster) => number)
  max?: number | ((cluster: EmbeddedCluster) => number)
  /** The range includes the default (`value`). */
  boundsTakeDefault?: boolean
  /** The accepted values (each element of a list). */
  allowed?: string[]
  /** A group config's broker config (group.*), whose value it takes when not set: its synonym below it. */
  brokerSynonym?: string
  /** Why a value is refused beyond its type (a config with a grammar of its own), or null. */
  check?: (value: string) => string | null
}

const fixed = (value: string) => () => value

/** Broker configs Kafka lets a client change at run time (a subset of its DynamicBrokerConfig's), with Kafka's defaults. */
const BROKER_DYNAMIC: Record<string, ConfigDef> = {
  'background.threads': { type: TYPE_INT, value: fixed('10'), min: 1 },
  'num.io.threads': { type: TYPE_INT, value: fixed('8'), min: 1 },
  'num.network.threads': { type: TYPE_INT, value: fixed('3'), min: 1 },
  'num.replica.fetchers': { type: TYPE_INT, value: fixed('1'), min: 1 },
  'log.cleaner.threads': { type: TYPE_INT, value: fixed('1'), min: 0 },
  'log.cleanup.policy': { type: TYPE_LIST, value: fixed('delete'), allowed: ['delete', 'compact'] },
  'log.retention.ms': { type: TYPE_LONG, value: fixed('604800000'), min: -1 },
  'log.retention.bytes': { type: TYPE_LONG, value: fixed('-1'), min: -1 },
  'log.segment.bytes': { type: TYPE_INT, value: fixed('1073741824'), min: 1048576 },
  'message.max.bytes': { type: TYPE_INT, value: fixed('1048588'), min: 0 },
  'compression.type': {
    type: TYPE_STRING,
    value: fixed('producer'),
    allowed: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
  },
  'min.insync.replicas': { type: TYPE_INT, value: fixed('1'), min: 1 },
  'unclean.leader.election.enable': { type: TYPE_BOOLEAN, value: fixed('false') },
  'producer.id.expiration.ms': { type: TYPE_INT, value: (c) => String(c.options.producerIdExpirationMs), min: 1 },
  'max.connections': { type: TYPE_INT, value: (c) => String(c.options.maxConnections), min: 0 },
  'max.connections.per.ip': { type: TYPE_INT, value: (c) => String(c.options.maxConnectionsPerIp), min: 0 },
  'max.connection.creation.rate': { type: TYPE_INT, value: (c) => String(c.options.maxConnectionCreationRate), min: 0 },
  'sasl.kerberos.min.time.before.relogin': { type: TYPE_LONG, value: fixed('60000') },
  // The replication throttles kafka-reassign-partitions sets (--throttle) and clears (--verify): quotas/replication-quota.ts.
  'leader.replication.throttled.rate': { type: TYPE_LONG, value: fixed('9223372036854775807'), min: 0 },
  'follower.replication.throttled.rate': { type: TYPE_LONG, value: fixed('9223372036854775807'), min: 0 },
  'replica.alter.log.dirs.io.max.bytes.per.second': { type: TYPE_LONG, value: fixed('9223372036854775807'), min: 0 },
}

/** Kafka 4.4's GroupConfig keys, defaulting to the broker's group.* configs (Kafka's defaults where wafka has no option). */
const GROUP: Record<string, ConfigDef> = {
  'consumer.session.timeout.ms': {
    brokerSynonym: 'group.consumer.session.timeout.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.consumerGroupSessionTimeoutMs),
    min: 45000,
    max: 60000,
    boundsTakeDefault: true,
  },
  'consumer.heartbeat.interval.ms': {
    brokerSynonym: 'group.consumer.heartbeat.interval.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.consumerGroupHeartbeatIntervalMs),
    min: 5000,
    max: 15000,
    boundsTakeDefault: true,
  },
  'consumer.assignment.interval.ms': {
    brokerSynonym: 'group.consumer.assignment.interval.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.consumerGroupAssignmentIntervalMs),
    min: 0,
  },
  'consumer.assignor.offload.enable': { type: TYPE_BOOLEAN, value: fixed('true') },
  // Bounded by the broker's group.share.min.* (as Kafka's GroupConfig), so a test rig may allow short locks and sessions.
  'share.session.timeout.ms': {
    brokerSynonym: 'group.share.session.timeout.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.shareGroupSessionTimeoutMs),
    min: (c) => c.options.shareGroupMinSessionTimeoutMs,
    max: 60000,
    boundsTakeDefault: true,
  },
  'share.heartbeat.interval.ms': {
    brokerSynonym: 'group.share.heartbeat.interval.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.shareGroupHeartbeatIntervalMs),
    min: (c) => c.options.shareGroupMinHeartbeatIntervalMs,
    max: 15000,
    boundsTakeDefault: true,
  },
  'share.record.lock.duration.ms': {
    brokerSynonym: 'group.share.record.lock.duration.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.shareGroupRecordLockDurationMs),
    min: (c) => c.options.shareGroupMinRecordLockDurationMs,
    max: 60000,
    boundsTakeDefault: true,
  },
  'share.delivery.count.limit': {
    brokerSynonym: 'group.share.delivery.count.limit',
    type: TYPE_INT,
    value: (c) => String(c.options.shareGroupDeliveryCountLimit),
    min: 2,
    max: 10,
  },
  'share.partition.max.record.locks': {
    brokerSynonym: 'group.share.partition.max.record.locks',
    type: TYPE_INT,
    value: (c) => String(c.options.shareGroupPartitionMaxRecordLocks),
    min: 100,
    max: 10000,
  },
  'share.auto.offset.reset': {
    type: TYPE_STRING,
    value: fixed('latest'),
    check: (v) => {
      const r = parseShareAutoOffsetReset(v)
      return typeof r === 'string' ? r : null
    },
  },
  'share.isolation.level': { type: TYPE_STRING, value: fixed('read_uncommitted'), allowed: ['read_committed', 'read_uncommitted'] },
  'share.renew.acknowledge.enable': { type: TYPE_BOOLEAN, value: fixed('true') },
  'share.assignment.interval.ms': { brokerSynonym: 'group.share.assignment.interval.ms', type: TYPE_INT, value: fixed('1000'), min: 0 },
  'share.assignor.offload.enable': { type: TYPE_BOOLEAN, value: fixed('true') },
  // Bounded by the broker's group.streams.min.* (as Kafka's GroupConfig), so a test rig may allow short heartbeats.
  'streams.session.timeout.ms': {
    brokerSynonym: 'group.streams.session.timeout.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.streamsGroupSessionTimeoutMs),
    min: (c) => c.options.streamsGroupMinSessionTimeoutMs,
    max: 60000,
    boundsTakeDefault: true,
  },
  'streams.heartbeat.interval.ms': {
    brokerSynonym: 'group.streams.heartbeat.interval.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.streamsGroupHeartbeatIntervalMs),
    min: (c) => c.options.streamsGroupMinHeartbeatIntervalMs,
    max: 15000,
    boundsTakeDefault: true,
  },
  'streams.num.standby.replicas': {
    brokerSynonym: 'group.streams.num.standby.replicas',
    type: TYPE_INT,
    value: (c) => String(c.options.streamsGroupNumStandbyReplicas),
    min: 0,
    max: 2,
  },
  'streams.initial.rebalance.delay.ms': {
    brokerSynonym: 'group.streams.initial.rebalance.delay.ms',
    type: TYPE_INT,
    value: (c) => String(c.options.streamsGroupInitialRebalanceDelayMs),
    min: 0,
  },
  'streams.assignment.interval.ms': { brokerSynonym: 'group.streams.assignment.interval.ms', type: TYPE_INT, value: fixed('1000'), min: 0 },
  'streams.assignor.offload.enable': { type: TYPE_BOOLEAN, value: fixed('true') },
  'streams.task.offset.interval.ms': { type: TYPE_INT, value: fixed('60000'), min: 15000 },
  'streams.num.warmup.replicas': { type: TYPE_INT, value: fixed('2'), min: 0, max: 20 },
  'streams.acceptable.recovery.lag': { type: TYPE_LONG, value: fixed('10000'), min: 0 },
  'errors.deadletterqueue.topic.name': { type: TYPE_STRING, value: fixed('') },
  'errors.deadletterqueue.copy.record.enable': { type: TYPE_BOOLEAN, value: fixed('false') },
}

export type DynamicKind = 'broker' | 'group'

const DEFS: Record<DynamicKind, Record<string, ConfigDef>> = { broker: BROKER_DYNAMIC, group: GROUP }

export function dynamicKind(resourceType: number): DynamicKind | null {
  return resourceType === RESOURCE_BROKER ? 'broker' : resourceType === RESOURCE_GROUP ? 'group' : null
}

/** A refusal: the Kafka error code and why. */
export interface Refusal {
  code: number
  message: string | null
}

/** Why a broker or group resource name cannot be configured here, or null. */
export function resourceProblem(cluster: EmbeddedCluster, kind: DynamicKind, name: string): Refusal | null {
  if (kind === 'group') return name === '' ? { code: ErrorCodes.INVALID_REQUEST, message: 'Group name must not be empty.' } : null
  if (name === '') return null
  const id = Number(name)
  if (!/^-?\d+$/.test(name) || !cluster.brokers.has(id))
    return { code: ErrorCodes.INVALID_REQUEST, message: `Unexpected broker id, expected a broker of this cluster, got ${name}` }
  return null
}

/** Why `value` (null: removed) is not a valid `key` for a broker or group, or null. */
export function dynamicConfigProblem(cluster: EmbeddedCluster, kind: DynamicKind, key: string, value: string | null): string | null {
  const def = DEFS[kind][key]
  if (!def) return kind === 'group' ? `Unknown group config name: ${key}` : `Cannot update these configs dynamically: Set(${key})`
  if (value === null) return null
  const bad = `Invalid value ${value} for configuration ${key}`
  if (def.type === TYPE_INT || def.type === TYPE_LONG) {
    if (!/^-?\d+$/.test(value.trim())) return `${bad}: Not a number of type ${def.type === TYPE_INT ? 'INT' : 'LONG'}`
    const n = Number(value)
    const own = def.boundsTakeDefault ? Number(def.value(cluster)) : undefined
    const bound = (b: ConfigDef['min']) => (typeof b === 'function' ? b(cluster) : b)
    const [lo, hi] = [bound(def.min), bound(def.max)]
    const min = lo === undefined ? undefined : Math.min(lo, own ?? lo)
    const max = hi === undefined ? undefined : Math.max(hi, own ?? hi)
    if (min !== undefined && n < min) return `${bad}: Value must be at least ${min}`
    if (max !== undefined && n > max) return `${bad}: Value must be no more than ${max}`
  } else if (def.type === TYPE_BOOLEAN) {
    if (!/^(true|false)$/i.test(value.trim())) return `${bad}: Expected value to be either true or false`
  } else if (def.allowed) {
    const parts = def.type === TYPE_LIST ? value.split(',').map((v) => v.trim()) : [value]
    const wrong = parts.find((p) => !def.allowed!.includes(p))
    if (wrong !== undefined) return `${bad}: String must be one of: ${def.allowed.join(', ')}`
  }
  const why = def.check?.(value)
  if (why) return `${bad}: ${why}`
  return null
}

export interface DescribedConfig {
  name: string
  value: string | null
  source: number
  type: number
  /** A secret (Kafka's PASSWORD type): reported without its value. */
  sensitive?: boolean
  /** What DescribeConfigs lists as its synonyms, in order (absent: itself alone). */
  synonyms?: Array<{ name: string; value: string | null; source: number }>
}

/** Every dynamic config of a broker (set for it, for every broker, or default) or group (set or default). */
export function describeDynamic(cluster: EmbeddedCluster, kind: DynamicKind, name: string): DescribedConfig[] {
  const sets = cluster.controller.dynamicConfigs[kind]
  const own = sets.get(name)
  const clusterWide = kind === 'broker' && name !== '' ? sets.get('') : undefined
  return Object.entries(DEFS[kind]).map(([key, def]) => {
    const mine = own?.get(key)
    if (kind === 'group') return describeGroupConfig(cluster, key, def, mine)
    if (mine !== undefined)
      return {
        name: key,
        value: mine,
        type: def.type,
        source: name === '' ? SOURCE_DYNAMIC_DEFAULT_BROKER : SOURCE_DYNAMIC_BROKER,
      }
    const wide = clusterWide?.get(key)
    if (wide !== undefined) return { name: key, value: wide, type: def.type, source: SOURCE_DYNAMIC_DEFAULT_BROKER }
    // Below the dynamic values, as Kafka orders them: the broker's static config (its options), then the default.
    return (
      staticBrokerConfig(cluster, key) ?? {
        name: key,
        value: def.value(cluster),
        type: def.type,
        source: SOURCE_DEFAULT,
      }
    )
  })
}

/**
 * A group config as Kafka's ConfigHelper describes it: its own value when set
 * (DYNAMIC_GROUP_CONFIG), then the broker config it defaults to (group.*, as
 * the broker has it: static or default), or, where no broker config is one,
 * its own default under its own name.
 */
function describeGroupConfig(cluster: EmbeddedCluster, key: string, def: ConfigDef, mine: string | undefined): DescribedConfig {
  const broker = def.brokerSynonym === undefined ? undefined : staticBrokerConfig(cluster, def.brokerSynonym)
  const fallback = broker
    ? { name: broker.name, value: broker.value, source: broker.source }
    : { name: def.brokerSynonym ?? key, value: def.value(cluster), source: SOURCE_DEFAULT }
  if (mine === undefined) return { name: key, value: def.value(cluster), type: def.type, source: fallback.source, synonyms: [fallback] }
  return {
    name: key,
    value: mine,
    type: def.type,
    source: SOURCE_GROUP,
    synonyms: [{ name: key, value: mine, source: SOURCE_GROUP }, fallback],
  }
}

/** Whether a broker config may change at run time (DescribeConfigs lists it among the dynamic ones). */
export function isDynamicBrokerConfig(key: string): boolean {
  return Object.hasOwn(BROKER_DYNAMIC, key)
}

/**
 * A broker config the options table names (src/broker/options.ts): its value
 * in force, STATIC_BROKER_CONFIG when startCluster's options or the
 * properties file gave it, DEFAULT_CONFIG otherwise; undefined for a name
 * the table does not have, or an option with no value (dataDir in memory).
 */
export function staticBrokerConfig(cluster: EmbeddedCluster, key: string): DescribedConfig | undefined {
  const name = BY_KAFKA_NAME.get(key)
  if (!name) return undefined
  const value = (cluster.options as unknown as Record<string, unknown>)[name]
  if (value === undefined) return undefined
  const spec: BrokerOptionSpec = BROKER_OPTIONS[name]
  const type =
    spec.kind === 'boolean'
      ? TYPE_BOOLEAN
      : spec.kind === 'integer'
        ? (spec.max ?? Infinity) <= 2147483647
          ? TYPE_INT
          : TYPE_LONG
        : spec.list
          ? TYPE_LIST
          : TYPE_STRING
  const given = cluster.given.has(name)
  if (spec.sensitive)
    return { name: key, value: null, type: TYPE_PASSWORD, source: given ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT, sensitive: true }
  // Kafka's null default (log.flush.interval.ms): reported null, not the value derived from another option.
  const reported = spec.nullUnlessGiven && !given ? null : kafkaValue(value)
  return { name: key, value: reported, type, source: given ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT }
}

/**
 * A dynamic broker config in force on broker `id`, as Kafka orders them: set
 * for that broker, else for every broker, else its static value or default.
 */
export function brokerConfigValue(cluster: EmbeddedCluster, id: number, key: string): string {
  const sets = cluster.controller.dynamicConfigs.broker
  return (
    sets.get(String(id))?.get(key) ??
    sets.get('')?.get(key) ??
    staticBrokerConfig(cluster, key)?.value ??
    BROKER_DYNAMIC[key].value(cluster)
  )
}

/** A group's config value: set for the group, else the broker's default. */
export function groupConfig(cluster: EmbeddedCluster, group: string, key: string): string {
  return cluster.controller.dynamicConfigs.group.get(group)?.get(key) ?? GROUP[key].value(cluster)
}

/**
 * IncrementalAlterConfigs for a broker or group resource: every change
 * checked first, then all applied (or none, under validateOnly or a
 * refusal). APPEND and SUBTRACT apply to list configs only, as Kafka's.
 */
export function alterDynamicIncrementally(
  cluster: EmbeddedCluster,
  kind: DynamicKind,
  name: string,
  changes: Array<{ name: string; configOperation: number; value: string | null }>,
  validateOnly: boolean,
): Refusal | null {
  const where = resourceProblem(cluster, kind, name)
  if (where) return where
  const duplicates = duplicateKeysProblem(changes.map((c) => c.name))
  if (duplicates) return { code: ErrorCodes.INVALID_REQUEST, message: duplicates }
  const current = new Map(cluster.controller.dynamicConfigs[kind].get(name) ?? [])
  const next = new Map<string, string | null>()
  for (const c of changes) {
    const def = DEFS[kind][c.name]
    let value: string | null
    if (c.configOperation === OP_SET) value = c.value
    else if (c.configOperation === OP_DELETE) value = null
    else if (c.configOperation === OP_APPEND || c.configOperation === OP_SUBTRACT) {
      if (def && def.type !== TYPE_LIST) return { code: ErrorCodes.INVALID_CONFIG, message: notListProblem(c.configOperation, c.name) }
      value = listAfter(current.get(c.name) ?? def?.value(cluster) ?? '', c.configOperation, c.value ?? '')
    } else return { code: ErrorCodes.INVALID_REQUEST, message: `Unknown alter config operation ${c.configOperation}` }
    const problem = dynamicConfigProblem(cluster, kind, c.name, value)
    if (problem) return { code: ErrorCodes.INVALID_CONFIG, message: problem }
    next.set(c.name, value)
  }
  if (!validateOnly) cluster.controller.atomically(() => next.forEach((v, k) => cluster.controller.setDynamicConfig(kind, name, k, v)))
  return null
}

/**
 * Legacy AlterConfigs for a broker or group: the configs given replace all
 * the resource's dynamic ones (those not given are removed), as Kafka's
 * controller does.
 */
export function replaceDynamicConfigs(
  cluster: EmbeddedCluster,
  kind: DynamicKind,
  name: string,
  configs: Array<{ name: string; value: string | null }>,
  validateOnly: boolean,
): Refusal | null {
  const where = resourceProblem(cluster, kind, name)
  if (where) return where
  for (const c of configs) {
    const problem = dynamicConfigProblem(cluster, kind, c.name, c.value)
    if (problem) return { code: ErrorCodes.INVALID_CONFIG, message: problem }
  }
  if (validateOnly) return null
  const given = new Set(configs.map((c) => c.name))
  const current = cluster.controller.dynamicConfigs[kind].get(name) ?? new Map<string, string>()
  cluster.controller.atomically(() => {
    for (const c of configs) cluster.controller.setDynamicConfig(kind, name, c.name, c.value)
    for (const key of [...current.keys()]) if (!given.has(key)) cluster.controller.setDynamicConfig(kind, name, key, null)
  })
  return null
}
