import { Admin } from './admin/admin.js'
import { Cluster, type ClusterOptions } from './cluster/cluster.js'
import { loadCodecs } from './codec/compression.js'
import { Consumer } from './consumer/consumer.js'
import type { ConsumerConfig } from './consumer/config.js'
import { Producer } from './producer/producer.js'
import type { ProducerConfig } from './producer/config.js'

export type KafkaConfig = ClusterOptions

/**
 * The entry point, shaped like KafkaJS's: `new Kafka({ clientId, brokers })`,
 * then `.admin()`, `.producer()` and `.consumer()`.
 * Option names follow the Java client's meaning in camelCase.
 */
export class Kafka {
  constructor(private readonly config: KafkaConfig) {
    // Validates the broker list now, where the mistake is.
    new Cluster(config)
  }

  admin(overrides: Partial<KafkaConfig> = {}): Admin {
    return new Admin(new Cluster({ ...this.config, ...overrides }))
  }

  producer(config: ProducerConfig = {}): Producer {
    return new Producer(
      new Cluster({ ...this.config, requestTimeoutMs: config.requestTimeoutMs ?? this.config.requestTimeoutMs, maxInFlight: Math.max(config.maxInFlight ?? 5, this.config.maxInFlight ?? 5) }),
      config,
    )
  }

  consumer(config: ConsumerConfig = {}): Consumer {
    return new Consumer(
      new Cluster({
        ...this.config,
        requestTimeoutMs: config.requestTimeoutMs ?? this.config.requestTimeoutMs,
        metadataMaxAgeMs: config.metadataMaxAgeMs ?? this.config.metadataMaxAgeMs,
      }),
      config,
    )
  }
}

export { loadCodecs }
