import type { TopicImage } from './controller.js'
import { INT32_MAX } from '../int32.js'

/**
 * The topic configs the embedded broker knows, with Kafka's defaults. Only
 * these may be set; those marked `enforced` change what the broker does,
 * the rest are kept and described.
 */
export const TOPIC_CONFIG_DEFAULTS: Record<string, { value: string; enforced: boolean }> = {
  'cleanup.policy': { value: 'delete', enforced: true },
  'compression.type': { value: 'producer', enforced: true },
  // KIP-390: the level a batch re-encoded in the topic's codec takes (lz4's is kept and described: the wasm LZ4 has one level).
  'compression.gzip.level': { value: '-1', enforced: true },
  'compression.lz4.level': { value: '9', enforced: false },
  'compression.zstd.level': { value: '3', enforced: true },
  'delete.retention.ms': { value: '86400000', enforced: true },
  // Segments the cleaner or retention replaced are deleted at once here: there is no reader of an old file to wait for.
  'file.delete.delay.ms': { value: '60000', enforced: false },
  // Kafka's defaults (Long.MAX): no forced fsync, the OS writes back; a segment roll and a clean shutdown flush (DiskLog).
  'flush.messages': { value: '9223372036854775807', enforced: true },
  'flush.ms': { value: '9223372036854775807', enforced: true },
  'max.message.bytes': { value: '1048588', enforced: true },
  'max.compaction.lag.ms': { value: '9223372036854775807', enforced: true },
  'message.timestamp.type': { value: 'CreateTime', enforced: true },
  'min.cleanable.dirty.ratio': { value: '0.5', enforced: true },
  'min.compaction.lag.ms': { value: '0', enforced: true },
  'min.insync.replicas': { value: '1', enforced: true },
  'retention.bytes': { value: '-1', enforced: true },
  'retention.ms': { value: '604800000', enforced: true },
  'segment.bytes': { value: '1073741824', enforced: true },
  'segment.ms': { value: '604800000', enforced: true },
  'index.interval.bytes': { value: '4096', enforced: true },
  'unclean.leader.election.enable': { value: 'false', enforced: true },
  // The replicas kafka-reassign-partitions throttles (--throttle) and clears (--verify): quotas/replication-quota.ts.
  'leader.replication.throttled.replicas': { value: '', enforced: true },
  'follower.replication.throttled.replicas': { value: '', enforced: true },
}

/**
 * The dynamic broker configs that are topic defaults (Kafka's LogConfig
 * synonyms), by the topic config each stands for: set for every broker,
 * they change the topics without their own value at once, as Kafka's
 * DynamicLogConfig reconfigures its logs.
 */
export const TOPIC_DEFAULT_SYNONYMS: Readonly<Record<string, string>> = {
  'log.cleanup.policy': 'cleanup.policy',
  'log.retention.ms': 'retention.ms',
  'log.retention.bytes': 'retention.bytes',
  'log.segment.bytes': 'segment.bytes',
  'message.max.bytes': 'max.message.bytes',
  'compression.type': 'compression.type',
  'min.insync.replicas': 'min.insync.replicas',
  'unclean.leader.election.enable': 'unclean.leader.election.enable',
}

/** The LIST-typed topic configs (comma-separated values): IncrementalAlterConfigs may APPEND to and SUBTRACT from them. */
export const LIST_TOPIC_CONFIGS: ReadonlySet<string> = new Set([
  'cleanup.policy',
  'leader.replication.throttled.replicas',
  'follower.replication.throttled.replicas',
])

/** compression.type's values, in Kafka's order: `producer` keeps a batch's codec, any other is the codec batches are stored in. */
export const TOPIC_COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer']
const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime']
/** Each codec's level range, as Kafka's CompressionType (gzip also takes -1, zlib's default). */
const COMPRESSION_LEVELS: Record<string, [number, number]> = {
  'compression.gzip.level': [1, 9],
  'compression.lz4.level': [1, 17],
  'compression.zstd.level': [-131072, 22],
}

/** unclean.leader.election.enable: whether an out-of-sync replica may lead when no ISR member is live. */
export function uncleanElectionEnabled(t: TopicImage): boolean {
  return topicConfig(t, 'unclean.leader.election.enable').toLowerCase() === 'true'
}

/** Whether cleanup.policy names delete: retention.ms and retention.bytes apply only then, as Kafka's. */
export function cleanupDeletes(t: TopicImage): boolean {
  return topicConfig(t, 'cleanup.policy')
    .split(',')
    .some((p) => p.trim() === 'delete')
}

/** A config's value for a topic: set, or the broker's default for it (log.retention.ms...), or Kafka's. */
export function topicConfig(t: TopicImage, key: string): string {
  return t.configs.get(key) ?? t.dynamicDefaults.get(key) ?? t.defaults.get(key) ?? TOPIC_CONFIG_DEFAULTS[key]?.value ?? ''
}

/**
 * Why a topic's configs taken together are not acceptable (Kafka's
 * LogConfig.validateValues), or null: `get` gives each config's value as it
 * would be, set or default.
 */
export function topicConfigsConflict(get: (key: string) => string): string | null {
  const min = BigInt(get('min.compaction.lag.ms'))
  const max = BigInt(get('max.compaction.lag.ms'))
  return min > max ? `conflict topic config setting min.compaction.lag.ms (${min}) > max.compaction.lag.ms (${max})` : null
}

/** Why `value` is not acceptable for `key`, or null when it is. */
export function topicConfigProblem(key: string, value: string | null): string | null {
  const known = TOPIC_CONFIG_DEFAULTS[key]
  if (!known) return `Unknown topic config name: ${key}`
  if (value === null) return null
  if (key === 'message.timestamp.type')
    return TIMESTAMP_TYPES.includes(value)
      ? null
      : `Invalid value ${value} for configuration message.timestamp.type: String must be one of: ${TIMESTAMP_TYPES.join(', ')}`
  if (key === 'cleanup.policy') {
    // An empty list is a policy too (Kafka 4.4 takes it): neither retention nor compaction.
    if (value.trim() === '') return null
    const policies = value.split(',').map((p) => p.trim())
    const bad = policies.find((p) => p !== 'delete' && p !== 'compact')
    return bad === undefined ? null : `Invalid value ${value} for configuration cleanup.policy: String must be one of: compact, delete`
  }
  if (key === 'leader.replication.throttled.replicas' || key === 'follower.replication.throttled.replicas') {
    const parts = value.split(',').map((p) => p.trim())
    return value.trim() === '' || value.trim() === '*' || parts.every((p) => /^\d+:\d+$/.test(p))
      ? null
      : `Invalid value ${value} for configuration ${key}: ${key} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`
  }
  if (key === 'min.cleanable.dirty.ratio') {
    const ratio = Number(value)
    return value.trim() !== '' && ratio >= 0 && ratio <= 1
      ? null
      : `Invalid value ${value} for configuration min.cleanable.dirty.ratio: Value must be between 0 and 1`
  }
  if (key === 'compression.type')
    return TOPIC_COMPRESSION_TYPES.includes(value)
      ? null
      : `Invalid value ${value} for configuration compression.type: String must be one of: ${TOPIC_COMPRESSION_TYPES.join(', ')}`
  const levels = COMPRESSION_LEVELS[key]
  if (levels) {
    const level = Number(value)
    if (!/^-?\d+$/.test(value) || level > INT32_MAX) return `Invalid value ${value} for configuration ${key}: Not a number of type INT`
    if (key === 'compression.gzip.level')
      return level === -1 || (level >= 1 && level <= 9)
        ? null
        : `Invalid value ${value} for configuration ${key}: Value must be between 1 and 9 or equal to -1`
    if (level < levels[0]) return `Invalid value ${value} for configuration ${key}: Value must be at least ${levels[0]}`
    if (level > levels[1]) return `Invalid value ${value} for configuration ${key}: Value must be no more than ${levels[1]}`
    return null
  }
  if (key === 'unclean.leader.election.enable')
    return /^(true|false)$/i.test(value)
      ? null
      : `Invalid value ${value} for configuration unclean.leader.election.enable: Expected value to be either true or false`
  if (!/^-?\d+$/.test(value)) return `Invalid value ${value} for configuration ${key}: Not a number of type LONG`
  // Kafka's lower bounds (TopicConfig / LogConfig).
  // INT configs (positions in a segment are int32, as Kafka's).
  if ((key === 'segment.bytes' || key === 'index.interval.bytes') && Number(value) > INT32_MAX)
    return `Invalid value ${value} for configuration ${key}: Not a number of type INT`
  if (key === 'segment.bytes' && Number(value) < 1048576)
    return `Invalid value ${value} for configuration segment.bytes: Value must be at least 1048576`
  if (key === 'segment.ms' && Number(value) < 1) return `Invalid value ${value} for configuration segment.ms: Value must be at least 1`
  if (key === 'index.interval.bytes' && Number(value) < 0)
    return `Invalid value ${value} for configuration index.interval.bytes: Value must be at least 0`
  if ((key === 'delete.retention.ms' || key === 'min.compaction.lag.ms' || key === 'file.delete.delay.ms') && Number(value) < 0)
    return `Invalid value ${value} for configuration ${key}: Value must be at least 0`
  if (key === 'flush.messages' && Number(value) < 1)
    return `Invalid value ${value} for configuration flush.messages: Value must be at least 1`
  if (key === 'flush.ms' && Number(value) < 0) return `Invalid value ${value} for configuration flush.ms: Value must be at least 0`
  if (key === 'max.compaction.lag.ms' && Number(value) < 1)
    return `Invalid value ${value} for configuration max.compaction.lag.ms: Value must be at least 1`
  if (key === 'min.insync.replicas' && Number(value) < 1)
    return `Invalid value ${value} for configuration min.insync.replicas: Value must be at least 1`
  return null
}
