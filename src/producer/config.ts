import { duration, positive } from '../options.js'
import { ConfigError } from '../errors.js'
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
export function resolveProducerConfig(config: ProducerConfig): ResolvedProducerConfig {
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
    throw new ConfigError(`an idempotent producer needs acks='all'${acksGiven ? `, not ${config.acks}` : ''}: set acks: 'all' or idempotent: false`)
  }
  const maxInFlight = positive('maxInFlight', config.maxInFlight, 5, 1)
  if (idempotent && maxInFlight > 5) {
    throw new ConfigError(`an idempotent producer keeps at most 5 requests in flight per broker (maxInFlight ${maxInFlight})`)
  }
  const deliveryTimeoutMs = duration('deliveryTimeoutMs', config.deliveryTimeoutMs, 120_000, 1)
  const lingerMs = duration('lingerMs', config.lingerMs, 5)
  const requestTimeoutMs = duration('requestTimeoutMs', config.requestTimeoutMs, 30_000, 1)
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs && config.deliveryTimeoutMs !== undefined) {
    throw new ConfigError(`deliveryTimeoutMs (${deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${lingerMs + requestTimeoutMs})`)
  }
  return {
    acks,
    lingerMs,
    batchSize: positive('batchSize', config.batchSize, 16_384, 1),
    bufferMemory: positive('bufferMemory', config.bufferMemory, 32 * 1024 * 1024, 1),
    maxBlockMs: duration('maxBlockMs', config.maxBlockMs, 60_000),
    maxRequestSize: positive('maxRequestSize', config.maxRequestSize, 1024 * 1024, 1),
    codec: codecId(config.compression),
    compressionLevel: config.compressionLevel,
    idempotent,
    transactionalId,
    transactionTimeoutMs: duration('transactionTimeoutMs', config.transactionTimeoutMs, 60_000, 1),
    maxInFlight,
    deliveryTimeoutMs,
    requestTimeoutMs,
    retryBackoffMs: duration('retryBackoffMs', config.retryBackoffMs, 100),
    retryBackoffMaxMs: duration('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000),
    partitioner: config.partitioner ?? 'default',
    allowAutoTopicCreation: config.allowAutoTopicCreation ?? true,
  }
}
