import { ConfigError } from '../errors.js'
import { CONSUMER_OPTIONS, CONSUMER_ALIASES } from '../config/defaults.js'
import { checkKeys, numberOption } from '../config/option.js'
import { oneOf } from '../options.js'
import { assignorByName, type PartitionAssignor } from './assignors/index.js'

export type OffsetReset = 'earliest' | 'latest' | 'none'
export type IsolationLevel = 'read_uncommitted' | 'read_committed'
export type GroupProtocol = 'classic' | 'consumer'

export interface ConsumerConfig {
  /** Without one the consumer takes partitions by `assign()` and commits nothing. */
  groupId?: string
  /** Static membership (KIP-345): a restart within sessionTimeoutMs keeps the assignment, no rebalance. */
  groupInstanceId?: string
  /** 'classic' (JoinGroup/SyncGroup, client-side assignors; default) or 'consumer' (KIP-848, server-side). */
  groupProtocol?: GroupProtocol
  /** Classic protocol: assignors offered in preference order, by name or object. Default ['range', 'cooperative-sticky'] (Java's). */
  partitionAssigners?: Array<PartitionAssignor | string>
  /** KIP-848: the broker-side assignor to ask for ('uniform', 'range'); default: the broker's choice. */
  serverAssignor?: string
  sessionTimeoutMs?: number
  /** How long the coordinator waits for members to rejoin; default maxPollIntervalMs (as Java). */
  rebalanceTimeoutMs?: number
  heartbeatIntervalMs?: number
  /** A message or batch handler running longer than this makes the member leave the group (as Java's poll deadline). */
  maxPollIntervalMs?: number
  autoOffsetReset?: OffsetReset
  isolationLevel?: IsolationLevel
  minBytes?: number
  maxBytes?: number
  maxBytesPerPartition?: number
  maxWaitTimeInMs?: number
  autoCommit?: boolean
  autoCommitIntervalMs?: number
  /** Verify each batch's CRC (Java's check.crcs). */
  checkCrcs?: boolean
  rackId?: string
  allowAutoTopicCreation?: boolean
  requestTimeoutMs?: number
  retryBackoffMs?: number
  retryBackoffMaxMs?: number
  /** How often to look for new topics matching a regex subscription (and partition count changes). Default 300000 (Java's metadata.max.age.ms). */
  metadataMaxAgeMs?: number
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
    metadataMaxAgeMs: numberOption(CONSUMER_OPTIONS, 'metadataMaxAgeMs', config.metadataMaxAgeMs),
  }
}
