// The two brokers the integration suites run on, by one description: real
// Apache Kafka (the reference for what is correct) and wafka's embedded
// broker (held to it: a test that passes on Kafka and fails on the embedded
// broker is a broker bug). A suite loops over brokerTargets() and runs the
// same tests, with the same assertions, on each.
import { startCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { javaPeer, requireKafka, startKafka, type JavaPeer, type KafkaOptions } from './kafka.js'

/** A started target: where it serves, the Java client's way to it (test/peers/java-client.ts), and its stop. */
export interface RunningTarget extends JavaPeer {
  clusterId: string
  /** Each broker's id and port (real Kafka's ids start at 1, the embedded broker's at 0). */
  brokers: Array<{ id: number; port: number }>
  stop(): Promise<void>
}

export interface BrokerTarget {
  name: string
  embedded: boolean
  /** False only on a developer machine without Java (requireKafka() throws under CI). */
  available: boolean
  start(): Promise<RunningTarget>
}

/**
 * Real Kafka (1 broker unless said) and the embedded broker (3 brokers
 * unless said, so routing crosses brokers), both with no initial rebalance
 * delay so groups form at once.
 */
export function brokerTargets(options: { kafka?: KafkaOptions; embedded?: StartClusterOptions } = {}): BrokerTarget[] {
  return [
    {
      name: 'real Kafka',
      embedded: false,
      available: requireKafka(options.kafka?.version ?? '4'),
      start: () => startKafka({ ...options.kafka, config: { 'group.initial.rebalance.delay.ms': '0', ...options.kafka?.config } }),
    },
    {
      name: 'the embedded broker',
      embedded: true,
      available: true,
      start: async () => {
        const cluster = await startCluster({ brokers: 3, groupInitialRebalanceDelayMs: 0, ...options.embedded })
        return {
          ...javaPeer(cluster.bootstrapServers),
          clusterId: cluster.clusterId,
          brokers: cluster.brokers,
          stop: () => cluster.stop(),
        }
      },
    },
  ]
}
