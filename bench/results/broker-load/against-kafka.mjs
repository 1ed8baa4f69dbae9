// The "Against Kafka 4.4" tables of bench/results/broker-load.md from the
// run.json files `franz-go-suite.mjs --timings=DIR` writes:
//   node bench/results/broker-load/against-kafka.mjs WAFKA_DIR KAFKA_DIR [WAFKA_DIR KAFKA_DIR ...]
// Per pair: the run's figures side by side, then per API count / p50 / p99 /
// p99.9 / max on both and wafka's p99 over Kafka's.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const NAMES = {
  0: 'Produce',
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  8: 'OffsetCommit',
  9: 'OffsetFetch',
  10: 'FindCoordinator',
  11: 'JoinGroup',
  12: 'Heartbeat',
  13: 'LeaveGroup',
  14: 'SyncGroup',
  15: 'DescribeGroups',
  16: 'ListGroups',
  18: 'ApiVersions',
  19: 'CreateTopics',
  20: 'DeleteTopics',
  22: 'InitProducerId',
  23: 'OffsetForLeaderEpoch',
  24: 'AddPartitionsToTxn',
  25: 'AddOffsetsToTxn',
  26: 'EndTxn',
  28: 'TxnOffsetCommit',
  29: 'DescribeAcls',
  32: 'DescribeConfigs',
  36: 'SaslAuthenticate',
  37: 'CreatePartitions',
  42: 'DeleteGroups',
  60: 'DescribeCluster',
  61: 'DescribeProducers',
  65: 'DescribeTransactions',
  66: 'ListTransactions',
  68: 'ConsumerGroupHeartbeat',
  69: 'ConsumerGroupDescribe',
}
const rows = []
const out = (s = '') => rows.push(s)
const gib = (b) => (b / 2 ** 30).toFixed(2)
const tests = (r) => r.tests.map((t) => `${t.name.replace(/^Test/, '')} ${t.state} ${t.seconds.toFixed(0)} s`).join(', ')
const args = process.argv.slice(2)
for (let i = 0; i + 1 < args.length; i += 2) {
  const [w, k] = [args[i], args[i + 1]].map((d) => JSON.parse(readFileSync(join(d, 'run.json'), 'utf8')))
  out(`#### ${args[i].split('/').pop()} / ${args[i + 1].split('/').pop()} (${w.records.toLocaleString('en')} records)`)
  out()
  out('| | wafka | Kafka 4.4 |')
  out('|---|---:|---:|')
  out(`| tests | ${tests(w)} | ${tests(k)} |`)
  out(`| run ended (UTC) | ${w.date.slice(11, 19)} | ${k.date.slice(11, 19)} |`)
  out(`| wall time | ${w.wallSeconds.toFixed(0)} s | ${k.wallSeconds.toFixed(0)} s |`)
  out(`| broker CPU | ${w.brokerCpuSeconds.toFixed(0)} s | ${k.brokerCpuSeconds.toFixed(0)} s (3 JVMs) |`)
  out(`| broker peak RSS | ${gib(w.peakRssBytes)} GiB | ${gib(k.peakRssBytes)} GiB (3 JVMs) |`)
  const la = (r) => `${r.loadAverage.min}–${r.loadAverage.max}, median ${r.loadAverage.median}`
  out(`| load average (1 min) | ${la(w)} | ${la(k)} |`)
  const pr = (r) =>
    `${r.probe.connectMs.p50} / ${r.probe.connectMs.p99} / ${r.probe.connectMs.max} ms; ${r.probe.roundTripMs.p50} / ${r.probe.roundTripMs.p99} / ${r.probe.roundTripMs.max} ms (${r.probe.roundTripMs.count} probes, ${r.probe.failures} failed)`
  out(`| new connection: connect p50 / p99 / max; + ApiVersions round trip p50 / p99 / max | ${pr(w)} | ${pr(k)} |`)
  out()
  out('| API | wafka count | p50 | p99 | p99.9 | max | Kafka count | p50 | p99 | p99.9 | max | p99 wafka / Kafka |')
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const keys = [...new Set([...Object.keys(w.timings), ...Object.keys(k.timings)])]
    .filter((x) => /^\d+$/.test(x))
    .map(Number)
    .sort((a, b) => a - b)
  for (const key of keys) {
    const a = w.timings[key]
    const b = k.timings[key]
    const cells = (t) => (t ? [t.count, t.p50, t.p99, t.p999, t.max] : ['–', '–', '–', '–', '–'])
    const ratio = a && b ? (b.p99 ? (a.p99 / b.p99).toFixed(2) : a.p99 ? `${a.p99} vs 0` : '1') : ''
    out(`| ${NAMES[key] ?? key} | ${[...cells(a), ...cells(b), ratio].join(' | ')} |`)
  }
  if (w.timings.eventLoopDelay) {
    const d = w.timings.eventLoopDelay
    out(`| (wafka's event-loop delay) | | ${d.p50} | ${d.p99} | ${d.p999} | ${d.max} | | | | | | |`)
  }
  out()
}
console.log(rows.join('\n'))
