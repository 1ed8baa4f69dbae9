import { Admin } from './admin/admin.js'
import { Cluster, type ClusterOptions } from './cluster/cluster.js'
import { definedOnly } from './net/connection.js'
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
    const resolved = { ...this.inherited(), ...definedOnly(config) }
    return new Producer(
      new Cluster({ ...this.config, requestTimeoutMs: resolved.requestTimeoutMs, maxInFlight: Math.max(config.maxInFlight ?? 5, this.config.maxInFlight ?? 5) }),
      resolved,
    )
  }

  consumer(config: ConsumerConfig = {}): Consumer {
    const resolved = { ...this.inherited(), metadataMaxAgeMs: this.config.metadataMaxAgeMs, ...definedOnly(config) }
    return new Consumer(
      new Cluster({ ...this.config, requestTimeoutMs: resolved.requestTimeoutMs, metadataMaxAgeMs: resolved.metadataMaxAgeMs }),
      resolved,
    )
  }

  /** The options given to the Kafka object that a producer or consumer has too: their defaults there. */
  private inherited() {
    const { requestTimeoutMs, retryBackoffMs, retryBackoffMaxMs } = this.config
    return definedOnly({ requestTimeoutMs, retryBackoffMs, retryBackoffMaxMs })
  }
}

export { loadCodecs }
