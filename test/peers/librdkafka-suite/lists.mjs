// Which of librdkafka's test numbers the suite runner runs: every test in
// tests/test.c's table that talks to a broker (not TEST_F_LOCAL: those run
// against librdkafka's own mock cluster; not TEST_F_MANUAL), minus the ones
// below, each with why. The `consumer` list is the numbers whose sources
// use a consumer group (the only ones group.protocol=consumer changes).
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** Test numbers left out of every list, and why. */
export const SKIPPED_TESTS = {
  // test_kafka_cmd() runs $KAFKA_PATH/bin/kafka-*.sh (trivup's Kafka install) to change ACLs or topics
  // behind the client's back; neither target has one, and the test fails at once without it.
  '0109': 'needs KAFKA_PATH (runs bin/kafka-configs.sh of a Kafka install, trivup sets it)',
  '0115': 'needs KAFKA_PATH (runs bin/kafka-acls.sh of a Kafka install, trivup sets it)',
  '0119': 'needs KAFKA_PATH (runs bin/kafka-acls.sh of a Kafka install, trivup sets it)',
  // Flagged as broker tests upstream, but they only talk to librdkafka's own mock cluster.
  '0139': "runs on librdkafka's mock cluster (test_mock_cluster_new), not on the target (92 s for nothing)",
  '0150': "runs on librdkafka's mock cluster (test_mock_cluster_new), not on the target",
  // KIP-932 share groups: issue 31 is about classic and KIP-848 groups; the
  // embedded broker has no share groups.
  ...Object.fromEntries(
    ['0170', '0171', '0172', '0173', '0174', '0175', '0176', '0177', '0178', '0179', '0180', '0181', '0184', '0185', '0190'].map((n) => [
      n,
      'share groups (KIP-932): not served by the embedded broker, not part of issue 31',
    ]),
  ),
}

/** The table in test.c: `_TEST(0034_offset_reset, 0, ...)`, with its flags. */
export function parseTestTable(testC) {
  // an entry runs to the next `_TEST(`; `.scenario = "noautocreate"` marks the ones for a target without auto-creation
  const text = readFileSync(testC, 'utf8')
  const start = text.indexOf('struct test tests[]')
  const table = text.slice(start, text.indexOf('\n};', start))
  const tests = []
  const entries = table.split(/(?=_TEST\()/)
  for (const entry of entries) {
    const m = /^_TEST\(\s*(\d{4})_(\w+)\s*,\s*([^,)]*)/.exec(entry)
    if (!m) continue
    const scenario = /\.scenario\s*=\s*"([^"]+)"/.exec(entry)?.[1] ?? 'default'
    tests.push({ number: m[1], name: `${m[1]}_${m[2]}`, flags: m[3].trim(), scenario })
  }
  return tests
}

/** Test numbers that use a consumer group (subscribe, group.id or commits) in their source. */
function groupNumbers(testsDir, numbers) {
  const files = readdirSync(testsDir).filter((f) => /^\d{4}-.*\.(c|cpp)$/.test(f))
  const uses =
    /rd_kafka_subscribe|->subscribe\(|test_consumer_subscribe|group\.id|test_create_consumer\(\s*[a-z_]*group|KafkaConsumer::create|rd_kafka_commit|test_consumer_commit/
  return numbers.filter((n) => files.some((f) => f.startsWith(`${n}-`) && uses.test(readFileSync(join(testsDir, f), 'utf8'))))
}

/** The named tests that need a broker (the table's entries without TEST_F_LOCAL or TEST_F_MANUAL). */
export function brokerTests(testC) {
  return parseTestTable(testC).filter((t) => !/TEST_F_LOCAL|TEST_F_MANUAL/.test(t.flags))
}

/**
 * @param testC tests/test.c of the built suite
 * @param list 'classic' (every broker test), 'consumer' (the group ones), 'noautocreate' (the scenario's) or 'all'
 */
export function listNumbers(testC, list = 'classic') {
  const broker = brokerTests(testC)
  const numbers = [...new Set(broker.map((t) => t.number))].filter((n) => !(n in SKIPPED_TESTS)).sort()
  if (list === 'noautocreate') return [...new Set(broker.filter((t) => t.scenario === 'noautocreate').map((t) => t.number))].sort()
  return list === 'consumer' ? groupNumbers(dirname(testC), numbers) : numbers
}
