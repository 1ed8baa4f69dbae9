import { type KafkaCluster, startKafka } from '../../test/peers/kafka.js'
import { option } from './environment.js'

/**
 * The real-Kafka target of the end-to-end benchmarks (--target=kafka): one
 * Apache Kafka broker on this machine (KRaft, combined broker and
 * controller), started fresh through the test rig's launcher
 * (test/peers/kafka.ts) and stopped at the end.
 */

export { processCpuSeconds } from '../../src/cli/bench/process-cpu.js'
import { processCpuSeconds } from '../../src/cli/bench/process-cpu.js'

export class KafkaBroker {
  private constructor(private readonly kafka: KafkaCluster) {}

  /** Starts one broker, of --kafka-version (4, the default, or 3.9). */
  static async start(): Promise<KafkaBroker> {
    const version = option('kafka-version') === '3.9' ? '3.9' : '4'
    return new KafkaBroker(await startKafka({ brokers: 1, version }))
  }

  get bootstrap(): string {
    return this.kafka.bootstrap
  }

  /** The Kafka version the broker, the Java client and the perf tools are. */
  get version(): string {
    return this.kafka.version
  }

  /** The class path of the broker's jars: kafka-tools and kafka-clients included. */
  get classPath(): string {
    return this.kafka.classPath
  }

  cpuSeconds(): number {
    return processCpuSeconds(this.kafka.pid(1))
  }

  stop(): Promise<void> {
    return this.kafka.stop()
  }
}
