// Types of librdkafka-suite.mjs (plain JavaScript: it runs as a command, without a TypeScript loader).
export interface SuiteRow {
  name: string
  state: 'PASSED' | 'FAILED' | 'SKIPPED' | string
  seconds: number
  extra: string
  failure?: string
}
export interface SuiteNumberResult {
  number: string
  wall: number
  code: number | null
  signal: string | null
  timedOut: boolean
  rows: SuiteRow[]
  log: string
}
export declare const TEST_KAFKA_VERSION: string
export declare function librdkafkaVersion(dir?: string): string
export declare function buildSuite(log?: (line: string) => void): { version: string; testsDir: string }
export declare function testConf(bootstrap: string): string
export declare function runSuite(options: {
  testsDir: string
  bootstrap: string
  numbers: string[]
  protocol: 'classic' | 'consumer'
  jobs?: number
  timeoutS?: number
  log?: (line: string) => void
  /** More environment for every test-runner (kafkaToolsEnv's KAFKA_PATH and BROKERS). */
  env?: Record<string, string>
}): Promise<{ results: SuiteNumberResult[]; wallSeconds: number; logDir: string }>
/** KAFKA_PATH (bin/kafka-topics.sh, bin/kafka-configs.sh over the rig's Kafka jars) and BROKERS; {} without Java. */
export declare function kafkaToolsEnv(bootstrap: string): Promise<Record<string, string>>
/** `wafka broker --brokers 3 --partitions 4` from the built package (dist/cli.js), as a child process. */
export declare function startWafka(options?: { dataDir?: string; autoCreate?: boolean }): Promise<{
  bootstrap: string
  describe: string
  stop: () => Promise<void>
}>
/** The one change made to the suite's harness (tests/test.c), and its application. */
export declare const HARNESS_PATCH: { id: string; from: string; to: string; helper: string }
export declare function patchHarness(file: string): void
/** Where @confluentinc/kafka-javascript's librdkafka sources are (the suite's tests/ among them). */
export declare const librdkafkaSourceDir: string
