// Share groups (KIP-932) on 3-broker clusters, real Apache Kafka 4.4 and the
// embedded broker, with the same assertions (test/kafka/share-scenarios.ts):
// each topic's 3 partitions are led by 3 different brokers, so a member's
// ShareFetch goes to every broker, each keeping its own share session and
// its partitions' in-flight state, while one share coordinator holds the
// group. Against the built package (the built-esm and built-cjs projects,
// test/vitest.config.ts) the embedded broker's run only: there the client
// and the broker are dist/'s, and real Kafka adds nothing about the package.
import { startCluster } from '../../src/broker/index.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { shareScenarios } from './share-scenarios.js'

const spread = { partitions: 3, replicationFactor: 1, leaders: 3 }

shareScenarios(
  'share groups on a 3-broker Apache Kafka 4.4',
  !!process.env.WAFKA_BUILT || !requireKafka(),
  async () => {
    const k = await startKafka({ brokers: 3, config: SHARE_GROUP_TEST_CONFIG })
    return { bootstrap: k.bootstrap, stop: () => k.stop() }
  },
  spread,
)

shareScenarios(
  `share groups on a 3-broker embedded broker${process.env.WAFKA_BUILT ? ` (the package as built, ${process.env.WAFKA_BUILT})` : ''}`,
  false,
  async () => {
    const c = await startCluster({ brokers: 3, config: SHARE_GROUP_TEST_CONFIG })
    return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
  },
  spread,
)
