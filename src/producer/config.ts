import { ConfigError } from '../errors.js'
import { RETRY_INSTEAD } from '../cluster/options.js'
import {
  checkKeys,
  countOption as count,
  msOption as ms,
  numberOption,
  valueOption as value,
  type Alias,
  type OptionSpec,
} from '../config/option.js'
import { codecId, type CompressionType } from '../codec/compression.js'

export type Acks = -1 | 0 | 1 | 'all'

/**
 * The options of `kafka.producer({...})`. The JSDoc of each property in PRODUCER_OPTIONS (below) is written from that
 * table by `npm run generate:readme`: edit the table, not the comment.
 */
export interface ProducerConfig {
  /** `'all'` (-1), `1` (the leader only) or `0` (no answer). Default: `"all"`. Java: `acks`. */
  acks?: Acks
  /** How long a batch waits for more records before it is sent. Default: `5` (0–2147483647). Java: `linger.ms`. */
  lingerMs?: number
  /**
   * Every this many ms, a `producer.stats` event (and `wafka:stats` channel message) with the producer's statistics; 0: never. Default: `0`
   * (0–2147483647). Java: `statistics.interval.ms`.
   */
  statisticsIntervalMs?: number
  /** Bytes of records per partition batch. Default: `16384` (1–2147483647). Java: `batch.size`. */
  batchSize?: number
  /** Bytes buffered waiting to be sent; a send waits for room. Default: `33554432` (1–2147483647). Java: `buffer.memory`. */
  bufferMemory?: number
  /** How long send() may wait for buffer space. Default: `60000` (0–2147483647). Java: `max.block.ms`. */
  maxBlockMs?: number
  /** A larger record fails alone. Default: `1048576` (1–2147483647). Java: `max.request.size`. */
  maxRequestSize?: number
  /** `'none'`, `'gzip'`, `'snappy'`, `'lz4'` or `'zstd'`. Default: `"none"`. Java: `compression.type`. */
  compression?: CompressionType
  /** The codec's level; its default when absent. Java: `compression.<codec>.level`. */
  compressionLevel?: number
  /** Exactly-once per partition; on when acks is `all` and not set. Default: `true` when acks is `'all'`. Java: `enable.idempotence`. */
  idempotent?: boolean
  /** Makes the producer transactional (and idempotent). Java: `transactional.id`. */
  transactionalId?: string
  /** How long the coordinator lets a transaction stay open. Default: `60000` (1–2147483647). Java: `transaction.timeout.ms`. */
  transactionTimeoutMs?: number
  /**
   * Produce requests in flight per broker (at most 5 with idempotence). Default: `5` (1–2147483647). Java:
   * `max.in.flight.requests.per.connection`.
   */
  maxInFlight?: number
  /**
   * A record fails if not acknowledged by then (at least lingerMs + requestTimeoutMs). Default: `120000` (1–2147483647). Java:
   * `delivery.timeout.ms`.
   */
  deliveryTimeoutMs?: number
  /** How long a Produce may wait; the broker-side timeout too. Default: `30000` (1–2147483647). Java: `request.timeout.ms`. */
  requestTimeoutMs?: number
  /** The first backoff between retries. Default: `100` (0–2147483647). Java: `retry.backoff.ms`. */
  retryBackoffMs?: number
  /** The largest backoff between retries. Default: `1000` (0–2147483647). Java: `retry.backoff.max.ms`. */
  retryBackoffMaxMs?: number
  /**
   * `'default'` (Java's), `'murmur2'`, `'kafkajs-default'`, `'kafkajs-legacy'` or a function. Default: `"default"`. Java:
   * `partitioner.class`.
   */
  partitioner?: unknown
  /** Create topics on first use where the broker allows it. Default: `true`. Java: `allow.auto.create.topics`. */
  allowAutoTopicCreation?: boolean
}

/**
 * Every option of `kafka.producer({...})`: default, meaning, range and the
 * Java client's name. The resolver takes its defaults from here, checkKeys()
 * refuses a key not here, `satisfies` ties it to ProducerConfig, and the
 * README's reference and ProducerConfig's JSDoc are generated from it
 * (`npm run generate:readme`).
 */
export const PRODUCER_OPTIONS = {
  acks: value('all', "`'all'` (-1), `1` (the leader only) or `0` (no answer).", 'acks'),
  lingerMs: ms(5, 'How long a batch waits for more records before it is sent.', 'linger.ms'),
  statisticsIntervalMs: ms(
    0,
    "Every this many ms, a `producer.stats` event (and `wafka:stats` channel message) with the producer's statistics; 0: never.",
    'statistics.interval.ms',
  ),
  batchSize: count(16_384, 'Bytes of records per partition batch.', 'batch.size'),
  bufferMemory: count(32 * 1024 * 1024, 'Bytes buffered waiting to be sent; a send waits for room.', 'buffer.memory'),
  maxBlockMs: ms(60_000, 'How long send() may wait for buffer space.', 'max.block.ms'),
  maxRequestSize: count(1024 * 1024, 'A larger record fails alone.', 'max.request.size'),
  compression: value('none', "`'none'`, `'gzip'`, `'snappy'`, `'lz4'` or `'zstd'`.", 'compression.type'),
  compressionLevel: value(undefined, "The codec's level; its default when absent.", 'compression.<codec>.level'),
  idempotent: {
    ...value(undefined, 'Exactly-once per partition; on when acks is `all` and not set.', 'enable.idempotence'),
    defaultDoc: "`true` when acks is `'all'`",
  },
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

/** KafkaJS's names: the same meaning under ours (`use`), or what to do instead. */
export const PRODUCER_ALIASES: Record<string, Alias> = {
  maxInFlightRequests: { use: 'maxInFlight' },
  transactionTimeout: { use: 'transactionTimeoutMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  createPartitioner: {
    instead: "pass partitioner: a function (topic, partition count, message) or a name ('kafkajs-default' is KafkaJS's default)",
  },
  metadataMaxAge: { instead: 'set metadataMaxAgeMs on new Kafka({...})' },
  retry: { instead: RETRY_INSTEAD },
}

export interface ResolvedProducerConfig {
  acks: -1 | 0 | 1
  lingerMs: number
  batchSize: number
  bufferMemory: number
  statisticsIntervalMs: number
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
    statisticsIntervalMs: numberOption(PRODUCER_OPTIONS, 'statisticsIntervalMs', config.statisticsIntervalMs),
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
