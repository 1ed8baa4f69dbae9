// franz-go's own kgo integration tests (v1.22.3, from the Go module proxy)
// against the embedded broker: `wafka broker --brokers 3` from the built
// package (dist/cli.js), as a user runs it, RF 3, 50,000 records per ETL
// test, and a second `wafka broker` with SCRAM users for the SASL tests.
// The list holds every test that does not fail on Apache Kafka 4.4 in the
// committed reference run (test/peers/franz-go-results/kafka.json) less the
// known differences, each with its reason (test/peers/franz-go-suite/lists.mjs);
// a listed test must pass, and so must each of its subtests that passed on
// Kafka (a subtest that skips itself, a KIP-848 one when the broker stopped
// advertising it, fails here). The runner is test/peers/franz-go-suite.mjs,
// the code the command line uses.
//
// Go is a peer: missing (or older than franz-go's go 1.26), the file fails
// under CI and skips elsewhere. FRANZ_GO_SUITE picks the lists (memory; loop:
// in memory with --no-network-thread; disk; comma-separated; default
// memory,loop; or none); FRANZ_GO_SUITE_TESTS narrows the tests
// (comma-separated names) for a quick check.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { goStatus, prepareSuite, runGoTests, runPattern, startTarget } from '../peers/franz-go-suite.mjs'
import { CI_RECORDS, CI_TESTS, mustPass } from '../peers/franz-go-suite/lists.mjs'

function requireGo(): boolean {
  const status = goStatus()
  if (status.ok) return true
  const message = `franz-go's test suite needs Go: ${status.why} (.ci/run; see test/peers/README.md)`
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}\nskipping it (it fails under CI)`)
  return false
}

// memory and disk: wafka broker as it starts (its client sockets in its network thread); loop: in memory, the
// sockets served in the brokers' thread (--no-network-thread).
const LISTS = {
  memory: { disk: false, args: [] },
  loop: { disk: false, args: ['--no-network-thread'] },
  disk: { disk: true, args: [] },
} as const
type List = keyof typeof LISTS
const wanted = process.env.FRANZ_GO_SUITE ?? 'memory,loop'
const chosen = (wanted === 'none' ? [] : wanted.split(',').filter(Boolean)) as List[]
for (const list of chosen) if (!(list in LISTS)) throw new Error(`FRANZ_GO_SUITE: no list ${list} (memory, loop, disk, none)`)
const only = process.env.FRANZ_GO_SUITE_TESTS?.split(',').filter(Boolean)
const tests = only ? CI_TESTS.filter((t) => only.includes(t)) : CI_TESTS

describe.skipIf(!requireGo())('franz-go v1.22.3 kgo integration tests against the embedded broker', () => {
  it('has a list (test/peers/franz-go-results/kafka.json is committed)', () => {
    expect(CI_TESTS.length).toBeGreaterThan(20)
  })
  if (chosen.length === 0) it.skip('skipped: FRANZ_GO_SUITE=none', () => {})
  for (const list of chosen) {
    it.skipIf(tests.length === 0)(
      `${list}: ${tests.length} tests pass as on Kafka 4.4 (3 brokers, RF 3, ${CI_RECORDS} records)`,
      async () => {
        const { moduleDir } = prepareSuite(() => {})
        const dataDir = LISTS[list].disk ? mkdtempSync(join(tmpdir(), 'wafka-franz-go-')) : undefined
        const target = await startTarget(dataDir ? 'wafka-disk' : 'wafka', { dataDir, brokerArgs: [...LISTS[list].args] })
        try {
          const { rows, logDir } = await runGoTests({
            moduleDir,
            env: { ...target.env, KGO_TEST_RECORDS: String(CI_RECORDS), KGO_TEST_RF: '3' },
            run: runPattern(tests),
            timeoutS: 600,
            log: () => {},
          })
          const byName = new Map(rows.map((r) => [r.name, r]))
          const wrong = mustPass(tests)
            .filter((name) => byName.get(name)?.state !== 'PASS')
            .map((name) => `${name}: ${byName.get(name)?.state ?? 'did not run'} ${byName.get(name)?.reason ?? ''}`.trim())
          expect(wrong, `franz-go tests not passing on wafka (${list}); logs in ${logDir}`).toEqual([])
        } finally {
          await target.stop()
          if (dataDir) rmSync(dataDir, { recursive: true, force: true })
        }
      },
      16 * 60_000,
    )
  }
})
