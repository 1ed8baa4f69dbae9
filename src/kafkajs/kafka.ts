import { Kafka as EngineKafka } from '../kafka.js'
import { createLogger, type Logger as EngineLogger } from '../logger.js'
import { kafkajsLogger, type Logger } from './logger.js'
import { KafkaJSNonRetriableError, translated } from './errors.js'
import { engineKafkaConfig, kafkajsBrokerList, kafkajsSsl, type ConsumerConfig, type KafkaConfig, type ProducerConfig } from './options.js'
import { Producer } from './producer.js'
import { Consumer } from './consumer.js'
import { createAdmin, type Admin, type AdminConfig } from './admin.js'
import { createRetrier, type RetryOptions } from './retry.js'
import type { RequestListener } from '../net/connection.js'

/**
 * KafkaJS's `Kafka` over wafka's engine: the same options, defaults, shapes
 * and errors, so changing `from 'kafkajs'` to `from 'wafka/kafkajs'` is the
 * only change a KafkaJS program needs.
 * KafkaJS 2.2.4-compatible client; the engine's own is `wafka`'s Kafka (Java's options and defaults).
 */
export class Kafka {
  private readonly config: KafkaConfig
  private readonly rootLogger: EngineLogger

  constructor(config: KafkaConfig) {
    if (!config) throw new KafkaJSNonRetriableError('Failed to connect: expected brokers array and got nothing')
    this.rootLogger = createLogger(engineKafkaConfig(config, []))
    // Anything else is checked when a client connects, as KafkaJS does (kafkajsBrokerList).
    this.config = config.ssl ? { ...config, ssl: kafkajsSsl(config.ssl, this.rootLogger) } : config
    // An array is checked now, where the mistake is; a function's answer on each connect.
    if (Array.isArray(config.brokers)) translatedSync(() => new EngineKafka(engineKafkaConfig(this.config, config.brokers as string[])))
  }

  logger(): Logger {
    return kafkajsLogger(this.rootLogger)
  }

  producer(config: ProducerConfig = {}): Producer {
    if (config.createPartitioner == null) warnOfDefaultPartitioner(this.rootLogger)
    return new Producer(this.connector(config.retry), config, this.config, this.rootLogger)
  }

  consumer(config: ConsumerConfig): Consumer {
    return new Consumer(this.connector(config?.retry), config, this.config, this.rootLogger)
  }

  admin(config: AdminConfig = {}): Admin {
    return createAdmin(this.connector(config.retry), this.rootLogger)
  }

  /** How a client gets its engine: brokers resolved (an async function is called on each connect), under the retry policy. */
  private connector(retry: RetryOptions | undefined): Connector {
    const policy = { ...this.config.retry, ...retry }
    return {
      retry: policy,
      engine: async (onRequest, metadataMaxAge) => {
        const given = this.config.brokers
        const brokers = kafkajsBrokerList(typeof given === 'function' ? await given() : given)
        const config = { ...engineKafkaConfig(this.config, brokers), onRequest }
        return new EngineKafka(metadataMaxAge === undefined ? config : { ...config, metadataMaxAgeMs: metadataMaxAge })
      },
      // As KafkaJS's connect: a failure retrying cannot fix (bad credentials, a bad option) ends it as it is.
      connect: <T>(open: () => Promise<T>) =>
        createRetrier(policy)((bail) =>
          translated(open).catch((e: { retriable?: boolean }) => {
            if (e?.retriable === false) bail(e as Error)
            throw e
          }),
        ),
    }
  }
}
// One bundle holds this class and the engine's Kafka, so the bundler renames one of
// them (`Kafka2`); the export says the name KafkaJS's has (test/built-names).
Object.defineProperty(Kafka, 'name', { value: 'Kafka' })

export interface Connector {
  retry: RetryOptions
  /**
   * A new engine for one client; onRequest receives its requests (its network
   * events); metadataMaxAge is the client's own (KafkaJS's producer option).
   */
  engine(onRequest?: RequestListener, metadataMaxAge?: number): Promise<EngineKafka>
  /** Runs `open` under the retry policy (KafkaJS retries a connect while the brokers are not up yet). */
  connect<T>(open: () => Promise<T>): Promise<T>
}

let partitionerWarned = false

/**
 * KafkaJS's warning that its default partitioner changed in 2.0, once a
 * process, unless KAFKAJS_NO_PARTITIONER_WARNING is set: a program moved
 * over from KafkaJS is told what KafkaJS told it.
 */
function warnOfDefaultPartitioner(logger: EngineLogger): void {
  if (partitionerWarned) return
  partitionerWarned = true
  if (globalThis.process?.env?.KAFKAJS_NO_PARTITIONER_WARNING != null) return
  logger.warn(
    'KafkaJS v2.0.0 switched default partitioner. To retain the same partitioning behavior as in previous versions, create the producer with the option "createPartitioner: Partitioners.LegacyPartitioner". See the migration guide at https://kafka.js.org/docs/migration-guide-v2.0.0#producer-new-default-partitioner for details. Silence this warning by setting the environment variable "KAFKAJS_NO_PARTITIONER_WARNING=1"',
  )
}

function translatedSync<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    throw new KafkaJSNonRetriableError(err instanceof Error ? err.message : String(err), { cause: err })
  }
}
