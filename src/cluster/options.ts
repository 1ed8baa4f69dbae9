import { msOption as ms, valueOption as value, type Alias, type OptionSpec } from '../config/option.js'
import { logLevel, type LogCreator, type LogLevel } from '../logger.js'
import { CONNECTION_OPTIONS, type ConnectionOptions, type PerConnection } from '../net/connection-options.js'

/**
 * The options of `new Kafka({...})` and of a Cluster. The JSDoc of each property in KAFKA_OPTIONS (below) is written from that
 * table by `npm run generate:readme`: edit the table, not the comment.
 */
export interface ClusterOptions extends Omit<ConnectionOptions, PerConnection> {
  /**
   * Bootstrap addresses, `host:port` (IPv6 as `[::1]:9092`): an array, or one comma-separated string. Required. Java: `bootstrap.servers`.
   */
  brokers: string[] | string
  /** `logLevel.NOTHING` (0), `ERROR` (1), `WARN` (2), `INFO` (4) or `DEBUG` (5), as KafkaJS. Default: `2`. */
  logLevel?: LogLevel
  /** KafkaJS's `(level) => ({ namespace, level, label, log }) => void`; default: one JSON line a entry on stderr. */
  logCreator?: LogCreator
  /**
   * The first backoff between retries; doubles (with jitter) up to retryBackoffMaxMs. Default: `100` (0–2147483647). Java:
   * `retry.backoff.ms`.
   */
  retryBackoffMs?: number
  /** The largest backoff between retries. Default: `1000` (0–2147483647). Java: `retry.backoff.max.ms`. */
  retryBackoffMaxMs?: number
  /** The first backoff before reconnecting to a broker that failed. Default: `50` (0–2147483647). Java: `reconnect.backoff.ms`. */
  reconnectBackoffMs?: number
  /** The largest backoff before reconnecting. Default: `1000` (0–2147483647). Java: `reconnect.backoff.max.ms`. */
  reconnectBackoffMaxMs?: number
  /** Metadata older than this is refreshed. Default: `300000` (1–2147483647). Java: `metadata.max.age.ms`. */
  metadataMaxAgeMs?: number
  /**
   * How long a call (an admin request, a coordinator lookup) may retry. Default: `60000` (1–2147483647). Java: `default.api.timeout.ms`.
   */
  defaultApiTimeoutMs?: number
}

const { onRequest, ...connection } = CONNECTION_OPTIONS

/**
 * Every option of `new Kafka({...})` (and `kafka.admin({...})`'s overrides):
 * the connection's (net/connection-options.ts) and the cluster's own.
 * `satisfies` ties the table to ClusterOptions (a key added to one and not
 * the other does not compile); the README's reference and ClusterOptions'
 * JSDoc are generated from it (`npm run generate:readme`).
 */
export const KAFKA_OPTIONS = {
  brokers: value(
    undefined,
    'Bootstrap addresses, `host:port` (IPv6 as `[::1]:9092`): an array, or one comma-separated string. Required.',
    'bootstrap.servers',
  ),
  ...connection,
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
  onRequest,
} as const satisfies Record<keyof ClusterOptions, OptionSpec>

/** What a KafkaJS client's `retry` becomes here (the Kafka, producer and consumer options refuse it with this). */
export const RETRY_INSTEAD =
  "KafkaJS's retry { retries, initialRetryTime, maxRetryTime } is a count; wafka retries until a deadline: set retryBackoffMs, retryBackoffMaxMs and defaultApiTimeoutMs (deliveryTimeoutMs for a producer)"

/** KafkaJS's names: the same meaning under ours (`use`), or what to do instead. */
export const KAFKA_ALIASES: Record<string, Alias> = {
  connectionTimeout: { use: 'connectTimeoutMs' },
  requestTimeout: { use: 'requestTimeoutMs' },
  authenticationTimeout: { use: 'authenticationTimeoutMs' },
  reauthenticationThreshold: { use: 'reauthenticationThresholdMs' },
  maxInFlightRequests: { use: 'maxInFlight' },
  enforceRequestTimeout: { instead: 'every request times out after requestTimeoutMs; drop the option' },
  retry: { instead: RETRY_INSTEAD },
}
