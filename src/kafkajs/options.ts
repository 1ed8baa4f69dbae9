import type { Socket } from 'node:net'
import type { ConnectionOptions as TlsOptions } from 'node:tls'
import type { KafkaConfig as EngineKafkaConfig } from '../kafka.js'
import type { ProducerConfig as EngineProducerConfig } from '../producer/config.js'
import type { ConsumerConfig as EngineConsumerConfig } from '../consumer/config.js'
import type { SaslOption } from '../net/sasl/types.js'
import type { SocketFactory } from '../net/socket-factory.js'
import type { LogCreator, Logger } from '../logger.js'
import { kafkajsLogger, logLevel, type logCreator } from './logger.js'
import type { Mechanism, SASLOptions } from './sasl.js'
import type { ICustomPartitioner } from './cluster-types.js'
import { nearest } from '../config/option.js'
import { INT32_MAX } from '../int32.js'
import { definedOnly } from '../defined-only.js'
import { TLS_OPTIONS } from '../net/tls-options.js'
import { KafkaJSNonRetriableError } from './errors.js'
import { retryBudgetMs, RETRY_DEFAULTS, type RetryOptions } from './retry.js'
import { enginePartitioner } from './partitioners.js'
import { engineAssignor, PartitionAssigners, type PartitionAssigner } from './assigners.js'

export type BrokersFunction = () => string[] | Promise<string[]>

export interface ISocketFactoryArgs {
  host: string
  port: number
  /** The ssl option as given (an object, or true); absent without TLS. */
  ssl: TlsOptions
  /** Call once the socket is connected (after the TLS handshake, for TLS). */
  onConnect: () => void
}

/** KafkaJS's socketFactory: makes each broker connection's socket (a proxy, a custom TLS setup, ...). */
export type ISocketFactory = (args: ISocketFactoryArgs) => Socket

/**
 * KafkaJS's `new Kafka({...})` options, with its defaults (noted where they differ from the main entry's).
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s KafkaConfig.
 */
export interface KafkaConfig {
  brokers: string[] | BrokersFunction
  ssl?: TlsOptions | boolean
  sasl?: SASLOptions | Mechanism
  clientId?: string
  /** KafkaJS: 1000 ms. */
  connectionTimeout?: number
  authenticationTimeout?: number
  reauthenticationThreshold?: number
  requestTimeout?: number
  /** KafkaJS: true; false lets requests wait without a bound (here: the int32 maximum). */
  enforceRequestTimeout?: boolean
  retry?: RetryOptions
  /** Makes each connection's socket, as KafkaJS's does; default: node:net / node:tls. */
  socketFactory?: ISocketFactory
  /** KafkaJS: INFO; the KAFKAJS_LOG_LEVEL environment variable wins, as in KafkaJS. */
  logLevel?: logLevel
  logCreator?: logCreator
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s ProducerConfig. */
export interface ProducerConfig {
  createPartitioner?: ICustomPartitioner
  retry?: RetryOptions
  /** How old the producer's metadata may get before it is refreshed (KafkaJS: 300000). */
  metadataMaxAge?: number
  allowAutoTopicCreation?: boolean
  /** KafkaJS: false. */
  idempotent?: boolean
  transactionalId?: string
  transactionTimeout?: number
  maxInFlightRequests?: number
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s ConsumerConfig. */
export interface ConsumerConfig {
  groupId: string
  /** KafkaJS: [PartitionAssigners.roundRobin]. */
  partitionAssigners?: PartitionAssigner[]
  metadataMaxAge?: number
  /** KafkaJS: 30000. */
  sessionTimeout?: number
  /** KafkaJS: 60000. */
  rebalanceTimeout?: number
  heartbeatInterval?: number
  maxBytesPerPartition?: number
  minBytes?: number
  /** KafkaJS: 10 MB. */
  maxBytes?: number
  /** KafkaJS: 5000. */
  maxWaitTimeInMs?: number
  retry?: RetryOptions
  allowAutoTopicCreation?: boolean
  maxInFlightRequests?: number
  /** KafkaJS: false, so a KafkaJS consumer reads committed records only (read_committed). */
  readUncommitted?: boolean
  rackId?: string
}

/**
 * KafkaJS hands `ssl` to node:tls as it is, and node:tls ignores a key it
 * does not know: so does the drop-in (a program runs as it did), but not
 * silently: each such key is one WARN naming the nearest real option (a
 * misspelt rejectUnauthorized), and is left out of what the engine checks.
 */
export function kafkajsSsl<T>(ssl: T, logger: Logger): T {
  if (ssl === null || typeof ssl !== 'object' || Array.isArray(ssl)) return ssl
  let known: Record<string, unknown> | undefined
  for (const key of Object.keys(ssl)) {
    if (Object.hasOwn(TLS_OPTIONS, key)) continue
    const near = nearest(key, Object.keys(TLS_OPTIONS))
    logger.warn(`ssl option ${key} is not a node:tls option: ignored${near ? ` (did you mean ${near}?)` : ''}`, { option: key })
    known ??= { ...(ssl as Record<string, unknown>) }
    delete known[key]
  }
  return (known ?? ssl) as T
}

/**
 * The broker list, checked as KafkaJS checks it: when a client connects (its
 * constructor takes anything), with its messages. A string is not split,
 * as KafkaJS does not split one (it connects to its first character and
 * retries until it gives up); here it fails at once, saying so.
 */
export function kafkajsBrokerList(brokers: unknown): string[] {
  if (brokers === null || brokers === undefined) throw new KafkaJSNonRetriableError('Failed to connect: brokers should not be null')
  if (typeof brokers === 'string') {
    const list = brokers
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b !== '')
    throw new KafkaJSNonRetriableError(
      `Failed to connect: brokers must be an array of "host:port" strings, not a string (KafkaJS does not split one): ${JSON.stringify(list)}`,
    )
  }
  if (!Array.isArray(brokers)) throw new KafkaJSNonRetriableError(`Failed to connect: brokers must be an array, not ${typeof brokers}`)
  if (brokers.length === 0) throw new KafkaJSNonRetriableError('Failed to connect: brokers array is empty')
  brokers.forEach((broker, index) => {
    if (typeof broker !== 'string' || broker.length === 0)
      throw new KafkaJSNonRetriableError(`Failed to connect: broker at index ${index} is invalid "${typeof broker}"`)
  })
  return brokers
}

/**
 * Level names KAFKAJS_LOG_LEVEL takes (KafkaJS reads it over the logLevel
 * option, so an operator can turn logging up without a code change).
 */
function envLogLevel(): logLevel | undefined {
  const name = globalThis.process?.env?.KAFKAJS_LOG_LEVEL?.toUpperCase()
  return name !== undefined && Object.hasOwn(logLevel, name) ? logLevel[name as keyof typeof logLevel] : undefined
}

/**
 * The engine's Kafka options for KafkaJS's, with KafkaJS's defaults. The
 * retry policy's backoff becomes the engine's (retry.initialRetryTime,
 * maxRetryTime), and its total time bounds how long a call retries.
 */
export function engineKafkaConfig(config: KafkaConfig, brokers: string[]): EngineKafkaConfig {
  // KafkaJS passes options it does not know over silently: so does its drop-in.
  const requestTimeout = config.enforceRequestTimeout === false ? INT32_MAX : (config.requestTimeout ?? 30_000)
  const retry = { ...RETRY_DEFAULTS, ...definedOnly(config.retry ?? {}) }
  return definedOnly({
    brokers,
    clientId: config.clientId ?? 'kafkajs',
    tls: config.ssl,
    sasl: config.sasl as SaslOption | undefined,
    socketFactory: config.socketFactory as SocketFactory | undefined,
    connectTimeoutMs: config.connectionTimeout ?? 1000,
    requestTimeoutMs: requestTimeout,
    authenticationTimeoutMs: config.authenticationTimeout,
    reauthenticationThresholdMs: config.reauthenticationThreshold,
    retryBackoffMs: retry.initialRetryTime,
    retryBackoffMaxMs: Math.max(retry.initialRetryTime, retry.maxRetryTime),
    defaultApiTimeoutMs: Math.min(INT32_MAX, (config.requestTimeout ?? 30_000) + retryBudgetMs(retry)),
    logLevel: envLogLevel() ?? config.logLevel ?? logLevel.INFO,
    logCreator: config.logCreator && kafkajsEntries(config.logCreator as LogCreator),
  }) as EngineKafkaConfig
}

/** Entries as KafkaJS writes them: the root logger has no namespace, the logger is 'kafkajs'. */
function kafkajsEntries(logCreator: LogCreator): LogCreator {
  return (level) => {
    const sink = logCreator(level)
    return (entry) =>
      sink({
        ...entry,
        namespace: entry.namespace === '' ? (undefined as unknown as string) : entry.namespace,
        log: { ...entry.log, logger: 'kafkajs' as 'wafka' },
      })
  }
}

export function engineProducerConfig(config: ProducerConfig, kafka: KafkaConfig): EngineProducerConfig {
  const retry = { ...RETRY_DEFAULTS, ...definedOnly(kafka.retry ?? {}), ...definedOnly(config.retry ?? {}) }
  const requestTimeout = kafka.enforceRequestTimeout === false ? INT32_MAX : (kafka.requestTimeout ?? 30_000)
  // KafkaJS retries a failed send `retries` times: the engine retries for as long (and keeps order doing it).
  const deadline = Math.min(INT32_MAX, requestTimeout + retryBudgetMs(retry))
  const transactional = config.transactionalId !== undefined
  return definedOnly({
    // KafkaJS sends at once; the engine batches what is sent together, and waits for nothing more.
    lingerMs: 0,
    idempotent: config.idempotent ?? transactional,
    transactionalId: config.transactionalId,
    transactionTimeoutMs: config.transactionTimeout,
    maxInFlight: config.maxInFlightRequests == null ? undefined : Math.min(5, config.maxInFlightRequests),
    allowAutoTopicCreation: config.allowAutoTopicCreation ?? true,
    partitioner: enginePartitioner(config.createPartitioner),
    retryBackoffMs: retry.initialRetryTime,
    retryBackoffMaxMs: Math.max(retry.initialRetryTime, retry.maxRetryTime),
    requestTimeoutMs: Math.min(requestTimeout, deadline),
    deliveryTimeoutMs: deadline,
    maxBlockMs: deadline,
  }) as EngineProducerConfig
}

export function engineConsumerConfig(config: ConsumerConfig, kafka: KafkaConfig, logger: Logger): EngineConsumerConfig {
  if (!config || typeof config.groupId !== 'string' || config.groupId === '')
    throw new KafkaJSNonRetriableError('Consumer groupId must be a non-empty string.')
  const sessionTimeout = config.sessionTimeout ?? 30_000
  const heartbeatInterval = config.heartbeatInterval ?? 3000
  if (heartbeatInterval >= sessionTimeout)
    throw new KafkaJSNonRetriableError(
      `Consumer heartbeatInterval (${heartbeatInterval}) must be lower than sessionTimeout (${sessionTimeout}). It is recommended to set heartbeatInterval to approximately a third of the sessionTimeout.`,
    )
  const retry = { ...RETRY_DEFAULTS, ...definedOnly(kafka.retry ?? {}), ...definedOnly(config.retry ?? {}) }
  const assigners = config.partitionAssigners ?? [PartitionAssigners.roundRobin]
  return definedOnly({
    groupId: config.groupId,
    partitionAssigners: assigners.map((a) => engineAssignor(a, config.groupId, kafkajsLogger(logger))),
    sessionTimeoutMs: sessionTimeout,
    rebalanceTimeoutMs: config.rebalanceTimeout ?? 60_000,
    heartbeatIntervalMs: heartbeatInterval,
    // KafkaJS has no poll deadline: a slow handler is never made to leave the group.
    maxPollIntervalMs: INT32_MAX,
    metadataMaxAgeMs: config.metadataMaxAge,
    maxBytesPerPartition: config.maxBytesPerPartition ?? 1_048_576,
    minBytes: config.minBytes ?? 1,
    maxBytes: config.maxBytes ?? 10_485_760,
    maxWaitTimeInMs: config.maxWaitTimeInMs ?? 5000,
    allowAutoTopicCreation: config.allowAutoTopicCreation ?? true,
    isolationLevel: config.readUncommitted === true ? 'read_uncommitted' : 'read_committed',
    rackId: config.rackId === '' ? undefined : config.rackId,
    autoOffsetReset: 'latest',
    retryBackoffMs: retry.initialRetryTime,
    retryBackoffMaxMs: Math.max(retry.initialRetryTime, retry.maxRetryTime),
  }) as EngineConsumerConfig
}
