// librdkafka's own test suite (v2.15, full mode) against the embedded broker:
// 3 brokers, 4 partitions per auto-created topic, in memory and on disk,
// classic and KIP-848 groups. Each list holds the test numbers whose named
// tests pass on Apache Kafka 4.4 (test/peers/librdkafka-results/), so a
// failure here is a place where wafka serves librdkafka worse than Kafka.
// The runner is test/peers/librdkafka-suite.mjs (the same code the command
// line uses); the first run builds test-runner into ~/.cache/wafka-peers/.
//
// The three lists CI owes (classic in memory and on disk, KIP-848 in
// memory) run by default, at the same time: their tests mostly wait on
// timers and the broker, so they share the cores with the rest of the suite
// (the vitest config starts this file first). Each list's broker is
// `wafka broker` from the built package (dist/cli.js), as a user runs it.
// LIBRDKAFKA_SUITE picks other lists (comma-separated names, `all`, or
// `none` to skip locally); LIBRDKAFKA_SUITE_TESTS narrows the numbers
// (e.g. 0034,0045) for a quick check.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requirePeers } from '../peers/available.js'
import { buildSuite, kafkaToolsEnv, runSuite, startWafka } from '../peers/librdkafka-suite.mjs'
import { CI_LISTS, type CiRun } from '../peers/librdkafka-suite/ci-lists.mjs'

const peers = requirePeers({ builds: ['modern'], kcat: false })
const wanted = process.env.LIBRDKAFKA_SUITE ?? 'memory-classic,disk-classic,memory-consumer'
const chosen = (wanted === 'all' ? Object.keys(CI_LISTS) : wanted === 'none' ? [] : wanted.split(',').filter(Boolean)) as CiRun[]
for (const run of chosen)
  if (!(run in CI_LISTS)) throw new Error(`LIBRDKAFKA_SUITE: no list ${run} (${Object.keys(CI_LISTS).join(', ')}, all, none)`)
const only = process.env.LIBRDKAFKA_SUITE_TESTS?.split(',').filter(Boolean)

describe.skipIf(!peers).concurrent('librdkafka 2.15 test suite against the embedded broker', () => {
  if (chosen.length === 0) it.skip('skipped: LIBRDKAFKA_SUITE=none', () => {})
  for (const run of chosen) {
    const { numbers, protocol, disk, minutes } = CI_LISTS[run]
    const list = only ? numbers.filter((n) => only.includes(n)) : numbers
    it.skipIf(list.length === 0)(
      `${run}: ${list.length} test numbers pass as on Kafka 4.4`,
      async () => {
        const { testsDir } = buildSuite(() => {})
        const dataDir = disk ? mkdtempSync(join(tmpdir(), 'wafka-rdk-suite-')) : undefined
        const broker = await startWafka({ dataDir })
        try {
          const { results, logDir } = await runSuite({
            env: await kafkaToolsEnv(broker.bootstrap), // KAFKA_PATH's kafka-topics.sh for 0045, 0052, 0077
            testsDir,
            bootstrap: broker.bootstrap,
            numbers: list,
            protocol,
            jobs: 2,
            timeoutS: 300,
            log: () => {},
          })
          const failed = results
            .flatMap((r) => r.rows.map((row) => ({ ...row, log: r.log })))
            .filter((row) => row.state === 'FAILED')
            .map((row) => `${row.name}: ${row.failure} (log: ${row.log})`)
          expect(failed, `librdkafka tests failing on wafka (${run}); logs in ${logDir}`).toEqual([])
        } finally {
          await broker.stop()
          if (dataDir) rmSync(dataDir, { recursive: true, force: true })
        }
      },
      (minutes * 3 + 5) * 60_000,
    )
  }
})
