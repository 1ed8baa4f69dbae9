// Kafka 4.4's kafka-configs (ConfigCommand, on the rig's JVM) describing an
// embedded broker configured with Kafka's names: every value the broker was
// given shows as STATIC_BROKER_CONFIG, the rest as DEFAULT_CONFIG.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { javaPeer, requireKafka } from '../peers/kafka.js'

const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'

describe.skipIf(!requireKafka())('kafka-configs --describe --entity-type brokers --all on the embedded broker', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      config: {
        'num.partitions': '4',
        'log.retention.hours': '12',
        'min.insync.replicas': '2',
        'advertised.listeners': 'PLAINTEXT://127.0.0.1:0',
      },
    })
  })
  afterAll(() => cluster?.stop())

  it('shows the values in force with their sources', async () => {
    const r = await javaPeer(cluster.bootstrapServers).runJava(
      CONFIGS,
      ['--bootstrap-server', cluster.bootstrapServers, '--describe', '--entity-type', 'brokers', '--entity-name', '0', '--all'],
      { timeoutMs: 90_000 },
    )
    expect(r.code, r.stderr.slice(-3000)).toBe(0)
    const lines = r.stdout.split('\n').map((l) => l.trim())
    expect(lines[0]).toBe('All configs for broker 0 are:')
    const entry = (name: string) => lines.find((l) => l.startsWith(`${name}=`))
    expect(entry('num.partitions')).toBe('num.partitions=4 sensitive=false synonyms={STATIC_BROKER_CONFIG:num.partitions=4}')
    expect(entry('log.retention.ms')).toBe(
      'log.retention.ms=43200000 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.retention.ms=43200000}',
    )
    expect(entry('min.insync.replicas')).toBe('min.insync.replicas=2 sensitive=false synonyms={STATIC_BROKER_CONFIG:min.insync.replicas=2}')
    expect(entry('default.replication.factor')).toBe(
      'default.replication.factor=3 sensitive=false synonyms={DEFAULT_CONFIG:default.replication.factor=3}',
    )
    expect(entry('advertised.listeners')).toMatch(
      /^advertised\.listeners=PLAINTEXT:\/\/127\.0\.0\.1:\d+ sensitive=false synonyms=\{STATIC_BROKER_CONFIG:/,
    )
  })
})
