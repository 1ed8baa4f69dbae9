// The lists test/broker/librdkafka-suite.test.ts runs against the embedded
// broker: the test numbers whose named tests all pass (or skip themselves,
// one at least passing) on Apache Kafka 4.4 in the committed results
// (test/peers/librdkafka-results/kafka-<protocol>.json), so the list moves
// with the reference run. `minutes` is the last measured wall time of the
// list on wafka at --jobs=2 (from the wafka-*.json results), for the budget.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'librdkafka-results')

/** Numbers that pass on Kafka 4.4 with `protocol` groups (none when there is no committed run). */
export function passingOnKafka(protocol) {
  const file = join(results, `kafka-${protocol}.json`)
  if (!existsSync(file)) return []
  const byNumber = new Map()
  for (const t of JSON.parse(readFileSync(file, 'utf8')).tests) {
    const n = t.name.slice(0, 4)
    byNumber.set(n, [...(byNumber.get(n) ?? []), t.state])
  }
  return [...byNumber]
    .filter(([, states]) => states.includes('PASSED') && !states.includes('FAILED'))
    .map(([n]) => n)
    .sort()
}

/** Wall time in minutes of a committed wafka run, scaled to `numbers` by the tests' own durations. */
function measuredMinutes(name, numbers) {
  const file = join(results, `${name}.json`)
  if (!existsSync(file)) return 15
  const run = JSON.parse(readFileSync(file, 'utf8'))
  const all = run.numbers.reduce((s, n) => s + n.wall, 0) || 1
  const mine = run.numbers.filter((n) => numbers.includes(n.number)).reduce((s, n) => s + n.wall, 0)
  return Math.ceil(((run.wallSeconds * mine) / all / 60) * 10) / 10
}

/**
 * Numbers that pass on a quiet machine but were seen to fail on Kafka 4.4 too
 * under a load like CI's (`--cpu-load=2`: two busy processes beside the run,
 * where CI runs three lists and the rest of the suite on 2 cores), the same
 * way they fail on wafka. A CI gate cannot hold a broker to them; the command
 * line still runs them.
 */
const TIMED_0127 =
  'times each consume to fetch.queue.backoff.ms + 30 ms (40 ms at its 10 ms setting, one fetch answered within ' +
  "it); a loaded machine's scheduling misses that on any broker. 2026-12-05, 6 copies at --jobs=2 --cpu-load=2: " +
  'Kafka 4.4 failed 3 of 6 with classic groups and 5 of 6 with KIP-848 groups (2 or 3 of 4 messages in profile), ' +
  'wafka 1 of 6 with classic groups'
const FIRST_JOIN_0118 =
  "expects the first-subscribed consumer (c1) to get the group's first assignment; when the other (c2) reaches " +
  'the coordinator first it gets all 4 partitions, its revoke comes at its next heartbeat (5 s) once c1 has joined, ' +
  "and the test commits from that revoke expecting a closing consumer's refusal (NO_ERROR: it is not closing). " +
  '2026-12-05 at --cpu-load=2: wafka failed 3 runs of 9, Kafka 4.4 1 of 7, with TEST_DEBUG=cgrp showing the same ' +
  'sequence on both (c2 heartbeats first, c2 epoch 2 with 4 partitions and c1 epoch 2 with none, the revoke 5 s later)'
export const RACY_ON_KAFKA = {
  classic: { '0127': TIMED_0127 },
  consumer: { '0118': FIRST_JOIN_0118, '0127': TIMED_0127 },
}

/**
 * Numbers that pass on Kafka 4.4 but not reliably on wafka yet, kept out of
 * CI's lists with the reason until they are fixed (issue 31 stays open for
 * each); the command line still runs them. None today: the last, 0045 with
 * KIP-848 groups, passes since the embedded broker lingers as Kafka's
 * coordinator does (WAFKA_ONLY_CONFIG in librdkafka-suite.mjs).
 */
export const NOT_YET_RELIABLE = {
  classic: {},
  consumer: {},
}

const reliable = (protocol) => passingOnKafka(protocol).filter((n) => !(n in NOT_YET_RELIABLE[protocol]) && !(n in RACY_ON_KAFKA[protocol]))
const classic = reliable('classic')
const consumer = reliable('consumer')

/** @type {Record<string, { numbers: string[], protocol: 'classic' | 'consumer', disk: boolean, minutes: number }>} */
export const CI_LISTS = {
  'memory-classic': { numbers: classic, protocol: 'classic', disk: false, minutes: measuredMinutes('wafka-classic', classic) },
  'disk-classic': { numbers: classic, protocol: 'classic', disk: true, minutes: measuredMinutes('wafka-disk-classic', classic) },
  'memory-consumer': { numbers: consumer, protocol: 'consumer', disk: false, minutes: measuredMinutes('wafka-consumer', consumer) },
}
