import { Admin } from './admin/admin.js'
import { Cluster, type ClusterOptions } from './cluster/cluster.js'
import { definedOnly } from './defined-only.js'
import { KAFKA_ALIASES, KAFKA_OPTIONS } from './cluster/options.js'
import { loadCodecs } from './codec/compression.js'
import { Consumer } from './consumer/consumer.js'
import { CONSUMER_ALIASES, CONSUMER_OPTIONS, type ConsumerConfig } from './consumer/config.js'
import { ShareConsumer } from './consumer/share/share-consumer.js'
import { SHARE_CONSUMER_ALIASES, SHARE_CONSUMER_OPTIONS, type ShareConsumerConfig } from './consumer/share/config.js'
import { Producer } from './producer/producer.js'
import { PRODUCER_ALIASES, PRODUCER_OPTIONS, resolveProducerConfig, type ProducerConfig } from './producer/config.js'
import { createLogger, isLogLevel, type Logger } from './logger.js'
import { ConfigError } from './errors.js'
import { checkKeys, numberOption } from './config/option.js'
import { RequestStatistics, composeListeners } from './cluster/request-statistics.js'

export type KafkaConfig = ClusterOptions

/**
 * The entry point, shaped like KafkaJS's: `new Kafka({ clientId, brokers })`,
 * then `.admin()`, `.producer()` and `.consumer()`.
 * Option names follow the Java client's meaning in camelCase.
 */
export class Kafka {
  private readonly config: KafkaConfig
  private readonly rootLogger: Logger

  constructor(config: KafkaConfig) {
    this.config = resolveKafkaConfig(config)
    this.rootLogger = createLogger(this.config)
    // Validates the broker list now, where the mistake is.
    new Cluster(this.config, this.rootLogger)
  }

  /** The logger every client of this Kafka writes to (KafkaJS: kafka.logger()). */
  logger(): Logger {
    return this.rootLogger
  }

  admin(overrides: Partial<KafkaConfig> = {}): Admin {
    return new Admin(
      new Cluster(resolveKafkaConfig({ ...this.config, ...checkKeys('admin', overrides, KAFKA_OPTIONS, KAFKA_ALIASES) }), this.rootLogger),
    )
  }

  producer(given: ProducerConfig = {}): Producer {
    // Under our names first, so a KafkaJS name is not given twice with what the Kafka object passes on.
    const config = { ...this.inherited(), ...definedOnly(checkKeys('producer', given, PRODUCER_OPTIONS, PRODUCER_ALIASES)) }
    // Resolved once, before any connection exists (maxInFlight at most 5 with idempotence, as Java), and handed down.
    const resolved = resolveProducerConfig(config)
    const stats = this.statistics(resolved.statisticsIntervalMs)
    const cluster = new Cluster(
      {
        ...this.config,
        onRequest: stats.onRequest,
        requestTimeoutMs: resolved.requestTimeoutMs,
        // A connection carries this producer's Produce requests and its other requests besides.
        maxInFlight: Math.max(resolved.maxInFlight, this.config.maxInFlight ?? (KAFKA_OPTIONS.maxInFlight.default as number)),
      },
      this.rootLogger,
    )
    return new Producer(cluster, resolved, { clientId: this.clientId(), brokers: stats.brokers(cluster) })
  }

  consumer(given: ConsumerConfig = {}): Consumer {
    const config = checkKeys('consumer', given, CONSUMER_OPTIONS, CONSUMER_ALIASES)
    const resolved = { ...this.inherited(), metadataMaxAgeMs: this.config.metadataMaxAgeMs, ...definedOnly(config) }
    const stats = this.statistics(numberOption(CONSUMER_OPTIONS, 'statisticsIntervalMs', resolved.statisticsIntervalMs))
    const cluster = new Cluster(
      {
        ...this.config,
        onRequest: stats.onRequest,
        requestTimeoutMs: resolved.requestTimeoutMs,
        metadataMaxAgeMs: resolved.metadataMaxAgeMs,
      },
      this.rootLogger,
    )
    return new Consumer(cluster, resolved, { clientId: this.clientId(), brokers: stats.brokers(cluster) })
  }

  /** A share-group consumer (KIP-932 queues): records shared among the group's members, each acknowledged on its own. */
  shareConsumer(given: ShareConsumerConfig): ShareConsumer {
    const config = checkKeys('shareConsumer', given, SHARE_CONSUMER_OPTIONS, SHARE_CONSUMER_ALIASES)
    const resolved = { ...this.inherited(), ...definedOnly(config) }
    const cluster = new Cluster(
      {
        ...this.config,
        requestTimeoutMs: resolved.requestTimeoutMs,
      },
      this.rootLogger,
    )
    return new ShareConsumer(cluster, resolved)
  }

  /**
   * With statisticsIntervalMs on, the client's connections also tell a
   * RequestStatistics (beside the user's onRequest), read with each
   * connection's load by the client's stats snapshots.
   */
  private statistics(intervalMs: number) {
    if (intervalMs <= 0) return { onRequest: this.config.onRequest, brokers: () => undefined }
    const requests = new RequestStatistics()
    return {
      onRequest: composeListeners(this.config.onRequest, requests.listen),
      brokers: (cluster: Cluster) => () => requests.snapshot(cluster.connectionLoad()),
    }
  }

  /** The clientId its connections send (the table's default when none was given). */
  private clientId(): string | null {
    return this.config.clientId !== undefined ? this.config.clientId : (KAFKA_OPTIONS.clientId.default as string)
  }

  /** The options given to the Kafka object that a producer or consumer has too: their defaults there. */
  private inherited() {
    const { requestTimeoutMs, retryBackoffMs, retryBackoffMaxMs } = this.config
    return definedOnly({ requestTimeoutMs, retryBackoffMs, retryBackoffMaxMs })
  }
}

export { loadCodecs }

const NUMBERS = Object.entries(KAFKA_OPTIONS)
  .filter(([, spec]) => 'max' in spec)
  .map(([name]) => name)

/** The options under our names (KafkaJS's taken where they mean the same), unknown keys refused, numbers in range. */
export function resolveKafkaConfig(given: KafkaConfig): KafkaConfig {
  const config = checkKeys('Kafka', given, KAFKA_OPTIONS, KAFKA_ALIASES)
  for (const name of NUMBERS) numberOption(KAFKA_OPTIONS, name, (config as unknown as Record<string, unknown>)[name], 0)
  if (config.logLevel !== undefined && !isLogLevel(config.logLevel))
    throw new ConfigError(
      `logLevel must be one of logLevel.NOTHING (0), ERROR (1), WARN (2), INFO (4), DEBUG (5), not ${JSON.stringify(config.logLevel)}`,
    )
  if (config.logCreator !== undefined && typeof config.logCreator !== 'function')
    throw new ConfigError('logCreator must be a function (level) => (entry) => void')
  if (config.socketFactory !== undefined && typeof config.socketFactory !== 'function')
    throw new ConfigError('socketFactory must be a function ({ host, port, ssl, onConnect }) => socket')
  if (config.onRequest !== undefined && typeof config.onRequest !== 'function')
    throw new ConfigError(
      "onRequest must be a function (event) => void, told of each request ({ type: 'request' | 'timeout' | 'queueSize', ... })",
    )
  return config
}
