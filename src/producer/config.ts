import { ConfigError } from '../errors.js'
import { PRODUCER_OPTIONS, PRODUCER_ALIASES } from '../config/defaults.js'
import { checkKeys, numberOption } from '../config/option.js'
import { codecId, type CompressionType } from '../codec/compression.js'

export type Acks = -1 | 0 | 1 | 'all'

export interface ProducerConfig {
  /** -1/'all' (default), 1 (leader only) or 0 (no answer). */
  acks?: Acks
  /** Java: linger.ms (5 since Kafka 4.0). */
  lingerMs?: number
  /** Java: batch.size, bytes of records per partition batch (16 KiB). */
  batchSize?: number
  /** Java: buffer.memory, bytes buffered waiting to be sent (32 MiB). */
  bufferMemory?: number
  /** Java: max.block.ms, how long send() may wait for buffer space (60 s). */
  maxBlockMs?: number
  /** Java: max.request.size (1 MiB): a larger record fails alone. */
  maxRequestSize?: number
  compression?: CompressionType
  compressionLevel?: number
  /** Java: enable.idempotence (on by default; needs acks=all). */
  idempotent?: boolean
  transactionalId?: string
  /** Java: transaction.timeout.ms (60 s). */
  transactionTimeoutMs?: number
  /** Java: max.in.flight.requests.per.connection (5; at most 5 with idempotence). */
  maxInFlight?: number
  /** Java: delivery.timeout.ms (120 s): a record fails if not acknowledged by then. */
  deliveryTimeoutMs?: number
  /** Java: request.timeout.ms (30 s): the broker-side Produce timeout too. */
  requestTimeoutMs?: number
  /** Java: retry.backoff.ms / retry.backoff.max.ms. */
  retryBackoffMs?: number
  retryBackoffMaxMs?: number
  /** 'default' (Java's: murmur2 for keys, sticky for keyless), 'murmur2', 'kafkajs-default', 'kafkajs-legacy', or a function. */
  partitioner?: unknown
  /** Create topics on first use where the broker allows it (Java's producers ask for it). */
  allowAutoTopicCreation?: boolean
}

export interface ResolvedProducerConfig {
  acks: -1 | 0 | 1
  lingerMs: number
  batchSize: number
  bufferMemory: number
  maxBlockMs: number
  maxRequestSize: number
  codec: number
  compressionLevel: number | undefined
  idempotent: boolean
  transactionalId: string | null
  transactionTimeoutMs: number
  maxInFlight: number
  deliveryTimeoutMs: number
  requestTimeoutMs: number
  retryBackoffMs: number
  retryBackoffMaxMs: number
  partitioner: unknown
  allowAutoTopicCreation: boolean
}

export function acksValue(acks: Acks | undefined, fallback: -1 | 0 | 1): -1 | 0 | 1 {
  if (acks === undefined) return fallback
  if (acks === 'all' || acks === -1) return -1
  if (acks === 0 || acks === 1) return acks
  throw new ConfigError(`acks must be 'all' (-1), 1 or 0, not ${JSON.stringify(acks)}`)
}

/** Java's defaults, checked as Java checks them (idempotence needs acks=all and at most 5 in flight). */
export function resolveProducerConfig(given: ProducerConfig): ResolvedProducerConfig {
  const config = checkKeys('producer', given, PRODUCER_OPTIONS, PRODUCER_ALIASES)
  const transactionalId = config.transactionalId ?? null
  if (transactionalId !== null && (typeof transactionalId !== 'string' || transactionalId === '')) {
    throw new ConfigError('transactionalId must be a non-empty string')
  }
  const explicitIdempotent = config.idempotent
  if (transactionalId !== null && explicitIdempotent === false) {
    throw new ConfigError('a transactional producer is idempotent: drop idempotent: false or the transactionalId')
  }
  const acksGiven = config.acks !== undefined
  const acks = acksValue(config.acks, -1)
  // Idempotence is on by default, but only where the rest allows it (as Java 3.x does when not set explicitly).
  let idempotent = explicitIdempotent ?? acks === -1
  if (transactionalId !== null) idempotent = true
  if (idempotent && acks !== -1) {
    throw new ConfigError(
      `an idempotent producer needs acks='all'${acksGiven ? `, not ${config.acks}` : ''}: set acks: 'all' or idempotent: false`,
    )
  }
  const maxInFlight = numberOption(PRODUCER_OPTIONS, 'maxInFlight', config.maxInFlight)
  if (idempotent && maxInFlight > 5) {
    throw new ConfigError(`an idempotent producer keeps at most 5 requests in flight per broker (maxInFlight ${maxInFlight})`)
  }
  const deliveryTimeoutMs = numberOption(PRODUCER_OPTIONS, 'deliveryTimeoutMs', config.deliveryTimeoutMs)
  const lingerMs = numberOption(PRODUCER_OPTIONS, 'lingerMs', config.lingerMs)
  const requestTimeoutMs = numberOption(PRODUCER_OPTIONS, 'requestTimeoutMs', config.requestTimeoutMs)
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs && config.deliveryTimeoutMs !== undefined) {
    throw new ConfigError(
      `deliveryTimeoutMs (${deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${lingerMs + requestTimeoutMs})`,
    )
  }
  return {
    acks,
    lingerMs,
    batchSize: numberOption(PRODUCER_OPTIONS, 'batchSize', config.batchSize),
    bufferMemory: numberOption(PRODUCER_OPTIONS, 'bufferMemory', config.bufferMemory),
    maxBlockMs: numberOption(PRODUCER_OPTIONS, 'maxBlockMs', config.maxBlockMs),
    maxRequestSize: numberOption(PRODUCER_OPTIONS, 'maxRequestSize', config.maxRequestSize),
    codec: codecId(config.compression),
    compressionLevel: config.compressionLevel,
    idempotent,
    transactionalId,
    transactionTimeoutMs: numberOption(PRODUCER_OPTIONS, 'transactionTimeoutMs', config.transactionTimeoutMs),
    maxInFlight,
    deliveryTimeoutMs,
    requestTimeoutMs,
    retryBackoffMs: numberOption(PRODUCER_OPTIONS, 'retryBackoffMs', config.retryBackoffMs),
    retryBackoffMaxMs: numberOption(PRODUCER_OPTIONS, 'retryBackoffMaxMs', config.retryBackoffMaxMs),
    partitioner: config.partitioner ?? PRODUCER_OPTIONS.partitioner.default,
    allowAutoTopicCreation: config.allowAutoTopicCreation ?? PRODUCER_OPTIONS.allowAutoTopicCreation.default,
  }
}
