// Which of franz-go's kgo integration tests CI runs against the embedded
// broker (test/broker/franz-go-suite.test.ts), and why the others do not
// pass there. The list follows the committed reference run
// (test/peers/franz-go-results/kafka.json): every test that does not fail on
// Apache Kafka 4.4, less the known differences below, each with its reason.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'franz-go-results')

/** Test (or subtest) name -> why it does not pass on that target. */
export const KNOWN_DIFFERENCES = {
  // None: the KIP-932 share-group tests, once left out (they skipped themselves), pass since the broker serves
  // ShareFetch and ShareAcknowledge v2.
  wafka: {},
  kafka: {
    TestIssueProduceBrokerTooOldFailsRecords:
      'skips itself on Kafka 4.4: its ApiVersions still advertises Produce from v0, so a client pinned to 0.10 is not ' +
      'refused and there is nothing to test; the embedded broker advertises Produce v3 and up, and the test passes there',
  },
}

/**
 * Tests that pass on Kafka 4.4 only some of the time, by a race in the test
 * itself: CI cannot hold the embedded broker to them. The command line still
 * runs them, and its results show them.
 */
export const RACY_ON_KAFKA = {
  Test848RegexBrokerResolves:
    'polls until it has records from as many topics as it wants (orders, orders-v2) but counts every topic it gets ' +
    "records from, and the broker's regex resolution assigns __consumer_offsets too (Kafka's does), whose records " +
    "(the group's own) can make up the count before one of the two: a poll printed on Kafka 4.4 got " +
    '__consumer_offsets/5 alone, then both orders topics. Failed 3 runs of 8 on Kafka 4.4 and 2 of 14 on wafka ' +
    "(2026-12-05, --run='^Test848RegexBrokerResolves$', a 3-broker cluster each run)",
}

/** The committed run of a target (test/peers/franz-go-results/<target>.json), or undefined. */
export function committedRun(target) {
  const file = join(results, `${target}.json`)
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
}

/** Top-level tests none of whose rows (the test and its subtests) failed on Kafka 4.4. */
export function notFailingOnKafka() {
  const run = committedRun('kafka')
  if (!run) return []
  const failed = new Set(run.tests.filter((t) => t.state === 'FAIL').map((t) => t.name.split('/')[0]))
  return run.tests
    .filter((t) => !t.name.includes('/') && !failed.has(t.name))
    .map((t) => t.name)
    .sort()
}

/** CI's list: the tests that pass (or skip themselves for Kafka's own reason) on Kafka 4.4, less wafka's known differences and the racy ones. */
export const CI_TESTS = notFailingOnKafka().filter((name) => !(name in KNOWN_DIFFERENCES.wafka) && !(name in RACY_ON_KAFKA))

/** What each listed test owes: itself passing, and each of its subtests that passed on Kafka 4.4 passing too. */
export function mustPass(names) {
  const run = committedRun('kafka')
  const listed = new Set(names)
  const subtests = (run?.tests ?? []).filter((t) => t.name.includes('/') && t.state === 'PASS' && listed.has(t.name.split('/')[0]))
  return [...names, ...subtests.map((t) => t.name)].sort()
}

/** KGO_TEST_RECORDS in CI: the runner's default (the suite's own 500,000 passes too, in ~5 minutes on 2 cores: bench/results/broker-load.md). */
export const CI_RECORDS = 50_000
