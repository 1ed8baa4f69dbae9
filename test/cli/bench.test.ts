// wafka bench: short runs give sane figures, check what they sent, and write a
// well-formed SVG chart holding the run's series; with --stats, the client's
// statistics snapshots and their sum; on the embedded broker (the default,
// and as a cluster named with -b) and on Apache Kafka.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { requireKafka, startKafka, type KafkaCluster } from '../peers/kafka.js'
import { built, hasScript, oneCleanLine, root, wafka, wafkaOnTty } from './support.js'
import { descendants, parseXml, type XmlElement } from './xml.js'
import { contestChartSvg, contestChartTitle } from '../../src/cli/bench/result-charts.js'
import type { ConsumerStatistics, ProducerStatistics } from '../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'wafka-bench-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Figures {
  messages: number
  seconds: number
  msgPerSec: number
  mbPerSec: number
  cpuSec: number
  cpuUsPerMessage: number
  rssPeakBytes: number
  brokerCpuSec: number | null
  firstMessageMs?: number
}

/** Figures that hang together: positive, finite, and consistent with each other. */
function expectSane(f: Figures, messages: number): void {
  expect(f.messages).toBe(messages)
  expect(f.seconds).toBeGreaterThan(0)
  expect(f.msgPerSec).toBeCloseTo(messages / f.seconds, 3)
  expect(f.mbPerSec).toBeCloseTo((f.msgPerSec * 116) / 1e6, 6)
  expect(f.cpuSec).toBeGreaterThan(0)
  expect(f.cpuUsPerMessage).toBeCloseTo((f.cpuSec * 1e6) / messages, 6)
  // A Node process with wafka loaded and 65,536 pool messages: tens of MiB at least, not gigabytes.
  expect(f.rssPeakBytes).toBeGreaterThan(20 * 2 ** 20)
  expect(f.rssPeakBytes).toBeLessThan(4 * 2 ** 30)
}

/** The timeline counts up from 0 to every message, never backwards. */
function expectTimeline(timeline: Array<[number, number]>, messages: number): void {
  expect(timeline[0]).toEqual([0, 0])
  expect(timeline[timeline.length - 1][1]).toBe(messages)
  for (let i = 1; i < timeline.length; i++) {
    expect(timeline[i][0]).toBeGreaterThanOrEqual(timeline[i - 1][0])
    expect(timeline[i][1]).toBeGreaterThanOrEqual(timeline[i - 1][1])
  }
}

function series(svg: XmlElement): Map<string, XmlElement> {
  return new Map(descendants(svg).flatMap((e) => (e.attributes.class === 'series' ? [[e.attributes['data-series'], e]] : [])))
}

/** The chart parses, is an SVG of a stated size, and its line stays inside it; returns its series. */
function readLineChart(file: string): Map<string, Array<[number, number]>> {
  const svg = parseXml(readFileSync(file, 'utf8'))
  expect(svg.name).toBe('svg')
  expect(svg.attributes.xmlns).toBe('http://www.w3.org/2000/svg')
  const [, , width, height] = svg.attributes.viewBox.split(' ').map(Number)
  const out = new Map<string, Array<[number, number]>>()
  for (const [name, g] of series(svg)) {
    const line = g.children.find((c) => c.name === 'polyline')!
    const points = line.attributes.points.split(' ').map((p) => p.split(',').map(Number) as [number, number])
    for (const [x, y] of points) {
      expect(x).toBeGreaterThanOrEqual(0)
      expect(x).toBeLessThanOrEqual(width)
      expect(y).toBeGreaterThanOrEqual(0)
      expect(y).toBeLessThanOrEqual(height)
    }
    out.set(name, points)
  }
  return out
}

describe.skipIf(!built)('wafka bench on the embedded broker', () => {
  it('bench produce (the embedded broker by default): sane figures, every message checked, a chart of the run', async () => {
    const chart = join(dir, 'produce.svg')
    const r = await wafka(['bench', 'produce', '--messages', '30000', '-P', '6', '--json', '--chart', chart], { timeoutMs: 120_000 })
    expect(r.code, r.stderr).toBe(0)
    // With --json, stdout is the report alone; the progress goes to stderr.
    expect(r.stderr).toMatch(/^embedded broker: 3 brokers in a child process at 127\.0\.0\.1:\d+/m)
    expect(r.stderr).toMatch(/^produce: 100%  33,000\/33,000 acknowledged/m)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ bench: 'produce', target: { embedded: true } })
    expect(report.workload).toMatchObject({ partitions: 6, warmup: 3000, chunk: 1000, inflight: 64 })
    expect(report.workload.producer).toEqual({ acks: 'all', idempotent: true, lingerMs: 5, batchSize: 16384, compression: 'none' })
    expectSane(report.result, 30000)
    expect(report.result.brokerCpuSec).toBeGreaterThan(0)
    expectTimeline(report.timeline, 30000)
    expect(report.checked).toMatch(/add up to 33,000/)

    const lines = readLineChart(chart)
    expect([...lines.keys()]).toEqual(['wafka produce', 'overall rate'])
    expect(lines.get('wafka produce')!.length).toBeGreaterThanOrEqual(2)
  })

  it('bench consume -b a cluster: the data written, every partition and byte read back by a fresh group, a chart', async () => {
    const cluster: RunningCluster = await startCluster({ brokers: 1, autoCreateTopics: false })
    try {
      const chart = join(dir, 'consume.svg')
      const r = await wafka(
        ['bench', 'consume', '-b', cluster.bootstrapServers, '--messages', '30000', '-P', '4', '-z', 'lz4', '--json', '--chart', chart],
        { timeoutMs: 120_000 },
      )
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toMatch(/embedded broker/)
      const report = JSON.parse(r.stdout)
      expect(report).toMatchObject({ bench: 'consume', target: { embedded: false, bootstrap: cluster.bootstrapServers } })
      expect(report.workload).toMatchObject({ partitions: 4, compression: 'lz4' })
      expectSane(report.result, 30000)
      expect(report.result.brokerCpuSec).toBeNull()
      expect(report.result.firstMessageMs).toBeGreaterThan(0)
      expect(report.result.firstMessageMs).toBeLessThan(report.result.seconds * 1000)
      expectTimeline(report.timeline, 30000)
      expect([...readLineChart(chart).keys()]).toEqual(['wafka consume', 'overall rate'])
      // The run cleans up after itself: no topic of its own left (the group made __consumer_offsets, as on Kafka).
      const admin = await wafka(['topics', 'list', '-b', cluster.bootstrapServers])
      expect(admin.stdout).toBe('__consumer_offsets\n')
    } finally {
      await cluster.stop()
    }
  })

  it("bench produce -b a cluster with --broker-pids: the broker processes' CPU over the timed part", async () => {
    // The cluster runs in this (the test's) process: its CPU is what the child reports as the broker's.
    const cluster: RunningCluster = await startCluster({ brokers: 1, autoCreateTopics: false })
    try {
      const r = await wafka(
        [
          'bench',
          'produce',
          '-b',
          cluster.bootstrapServers,
          '--messages',
          '20000',
          '-P',
          '2',
          '--broker-pids',
          String(process.pid),
          '--json',
        ],
        { timeoutMs: 120_000 },
      )
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      expectSane(report.result, 20000)
      expect(report.result.brokerCpuSec).toBeGreaterThan(0)
      expect(report.result.brokerCpuSec).toBeLessThan(report.result.seconds * 4)
    } finally {
      await cluster.stop()
    }
  })

  it("bench produce --stats: each statistics snapshot a JSON line on stderr; the report sums them with the producer's batches", async () => {
    const cluster: RunningCluster = await startCluster({ brokers: 2, autoCreateTopics: false })
    try {
      const r = await wafka(
        [
          'bench',
          'produce',
          '-b',
          cluster.bootstrapServers,
          '--messages',
          '20000',
          '-P',
          '4',
          '--stats',
          '-X',
          'statistics.interval.ms=50',
        ],
        { timeoutMs: 120_000 },
      )
      expect(r.code, r.stderr).toBe(0)
      const snapshots = r.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as ProducerStatistics)
      expect(snapshots.length).toBeGreaterThan(0)
      expect(snapshots.every((s) => s.type === 'producer' && s.clientId === 'wafka-bench')).toBe(true)
      // A snapshot lists the connections open when taken: the first, 50 ms in, may
      // come before the second broker's (a loaded CI run saw it); the last has both.
      expect(snapshots.at(-1)!.brokers!.length).toBe(2)
      const runs = await wafka(
        [
          ...['bench', 'produce', '-b', cluster.bootstrapServers, '--messages', '20000', '-P', '4', '--stats'],
          ...['-X', 'statistics.interval.ms=50', '--json', '--quiet'],
        ],
        { timeoutMs: 120_000 },
      )
      expect(runs.code, runs.stderr).toBe(0)
      const report = JSON.parse(runs.stdout)
      const taken = runs.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ProducerStatistics)
      const s = report.statistics
      expect(s).toMatchObject({ intervalMs: 50, snapshots: taken.length })
      // The batches, read once all was acknowledged: every record sent (warm-up too), in whole batches.
      expect(s.batches.records).toBe(22000)
      expect(s.batches.batches).toBeGreaterThan(0)
      expect(s.batches.recordsPerBatchAvg).toBeCloseTo(22000 / s.batches.batches, 6)
      // Per broker: the last snapshot's request count, the largest latency any snapshot saw, the bytes of all windows.
      const last = taken.at(-1)!
      for (const b of s.brokers) {
        // (snapshots taken before this broker's connection opened do not list it)
        const seen = taken.flatMap((t) => t.brokers!.filter((x) => x.broker === b.broker))
        expect(b.requests).toBe(seen.at(-1)!.requests)
        expect(b.latencyMaxMs).toBe(Math.max(...seen.map((x) => x.latencyMaxMs)))
        expect(b.responseBytes).toBe(seen.reduce((n, x) => n + x.responseBytes, 0))
        expect(b.latencyAvgMs).toBeGreaterThanOrEqual(0)
        expect(b.latencyAvgMs).toBeLessThanOrEqual(b.latencyMaxMs)
      }
      expect(s.brokers.map((b: { broker: string }) => b.broker).sort()).toEqual(last.brokers!.map((b) => b.broker).sort())
      // As text: the same, as a table and a line.
      expect(r.stdout).toMatch(/^statistics: [\d,]+ snapshots, one every 50 ms/m)
      expect(r.stdout).toMatch(/^broker +requests +timeouts +latency avg ms +latency max ms +throttle avg ms +throttle max ms$/m)
      expect(r.stdout).toMatch(/^batches: [\d,]+ of 22,000 records, /m)
    } finally {
      await cluster.stop()
    }
  })

  it("bench consume --stats: the consumer's snapshots on stderr; at the end every partition at its high watermark, lag 0", async () => {
    const cluster: RunningCluster = await startCluster({ brokers: 1, autoCreateTopics: false })
    try {
      const r = await wafka(
        [
          ...['bench', 'consume', '-b', cluster.bootstrapServers, '--messages', '20000', '-P', '3', '--stats'],
          ...['-X', 'statistics.interval.ms=50', '--json', '--quiet'],
        ],
        { timeoutMs: 120_000 },
      )
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      const taken = r.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ConsumerStatistics)
      expect(taken.every((t) => t.type === 'consumer' && t.groupId === report.workload.groupId)).toBe(true)
      const s = report.statistics
      expect(s.snapshots).toBe(taken.length)
      expect(s.partitions).toHaveLength(3)
      for (const p of s.partitions) expect(p).toMatchObject({ topic: report.workload.topic, lag: 0, position: p.highWatermark })
      expect(s.partitions.reduce((n: number, p: { highWatermark: string }) => n + Number(p.highWatermark), 0)).toBe(20000)
    } finally {
      await cluster.stop()
    }
  })

  it('bench produce as text: a figures table and what was checked', async () => {
    const r = await wafka(['bench', 'produce', '--messages', '10000', '-P', '3', '--acks', '1', '--quiet'], { timeoutMs: 120_000 })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(
      /^wafka bench produce: 10,000 messages \(16-byte keys, 100-byte values\), 3 partitions, on the embedded broker/,
    )
    expect(r.stdout).toMatch(/^acks=1, linger 5 ms, batch 16,384 B, none; 64 send\(\) calls of 1,000 in flight, after 1,000 warm-up$/m)
    expect(r.stdout).toMatch(/^messages\/s +MB\/s +seconds +CPU s +CPU µs\/msg +peak RSS +broker CPU s$/m)
    expect(r.stdout).toMatch(/^checked: the topic's high watermarks add up to 11,000/m)
  })

  it.skipIf(!hasScript())('bench produce on a terminal draws a bar in place; elsewhere plain lines', async () => {
    const tty = await wafkaOnTty(['bench', 'produce', '--messages', '20000', '-P', '3'], 120_000)
    expect(tty.code).toBe(0)
    expect(tty.stdout).toMatch(/\rproduce +\[[█░]{28}\] 100%  22,000\/22,000 acknowledged/)
    const plain = await wafka(['bench', 'produce', '--messages', '20000', '-P', '3'], { timeoutMs: 120_000 })
    expect(plain.stdout).not.toMatch(/\r|█/)
    expect(plain.stdout).toMatch(/^produce: 100%  22,000\/22,000 acknowledged$/m)
  })

  it("bench codec --quick: wafka's cases with their throughput, and a bar chart with a bar per case", async () => {
    const chart = join(dir, 'codec.svg')
    const r = await wafka(['bench', 'codec', '--quick', '--only', 'CRC-32C', '--json', '--chart', chart], { timeoutMs: 120_000 })
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.cases.map((c: { name: string }) => c.name)).toEqual(['1 KiB', '16 KiB', '1 MiB'])
    for (const c of report.cases) {
      expect(c).toMatchObject({ group: 'CRC-32C', unit: 'MB/s' })
      expect(c.results.map((x: { name: string }) => x.name)).toEqual(['wafka'])
      // The wasm CRC-32C does hundreds of MB/s at least, and no machine does a TB/s.
      expect(c.results[0].throughput).toBeGreaterThan(50)
      expect(c.results[0].throughput).toBeLessThan(1e6)
      expect(c.results[0].throughput).toBeCloseTo((c.results[0].opsPerSec * c.perOp) / 1e6, 3)
    }
    const svg = parseXml(readFileSync(chart, 'utf8'))
    expect(svg.name).toBe('svg')
    const bars = series(svg).get('wafka')!
    expect(bars.children.filter((c) => c.name === 'rect')).toHaveLength(3)
    expect(descendants(svg).some((e) => e.name === 'text' && e.text === 'CRC-32C')).toBe(true)
  })

  it('bad arguments and an unreachable cluster: one line on stderr, no stack, the right exit code', async () => {
    for (const args of [
      ['bench'],
      ['bench', 'fetch'],
      ['bench', 'produce', '--acks', '2'],
      ['bench', 'produce', '-z', 'brotli'],
      ['bench', 'produce', '--chart', 'out.png'],
      ['bench', 'codec', '--only', 'no such case'],
      ['bench', 'produce', '-b', '127.0.0.1:1', '--broker-pids', 'kafka'],
      ['bench', 'produce', '--broker-pids', '1234'],
      ['bench', 'codec', '--stats'],
    ]) {
      const r = await wafka(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(oneCleanLine(r.stderr), r.stderr).toBe(true)
    }
    const down = await wafka(['bench', 'produce', '-b', '127.0.0.1:1', '-X', 'defaultApiTimeoutMs=2000', '-X', 'retryBackoffMaxMs=200'])
    expect(down.code).toBe(1)
    expect(oneCleanLine(down.stderr), down.stderr).toBe(true)
    // The client's own log is there when asked for: the lost broker's WARN, then the command's line.
    const logged = await wafka(['bench', 'produce', '-b', '127.0.0.1:1', '-X', 'defaultApiTimeoutMs=2000'], {
      env: { WAFKA_LOG_LEVEL: 'warn' },
    })
    expect(logged.code).toBe(1)
    const [first, ...rest] = logged.stderr.trimEnd().split('\n')
    expect(JSON.parse(first)).toMatchObject({ level: 'WARN', namespace: 'Connection', broker: '127.0.0.1:1' })
    expect(rest.at(-1)).toMatch(/^wafka bench: /)
    const unwritable = await wafka(['bench', 'codec', '--quick', '--only', 'CRC-32C: 1 KiB', '--chart', '/no/such/dir/x.svg'])
    expect(unwritable).toMatchObject({ code: 1, stderr: 'wafka bench: cannot write --chart /no/such/dir/x.svg: ENOENT\n' })
  })
})

describe('the charts of the committed bench results', () => {
  it.each([
    ['producer-kafka', /^producer: [\d,]+ messages, \d+ rounds, on one Apache Kafka broker, \d{4}-/],
    ['producer-kafka-cold', /^producer: [\d,]+ messages, cold \(no warm-up\), \d+ rounds, on one Apache Kafka broker, \d{4}-/],
    ['consumer', /^consumer: [\d,]+ messages, \d+ rounds, on librdkafka's mock cluster, \d{4}-/],
  ])(
    "a contest's chart (%s): a series per client, a bar per scenario it finished, in both panels, and a title saying where",
    (name, title) => {
      const results = JSON.parse(readFileSync(join(root, `bench/results/${name}.json`), 'utf8'))
      const svg = parseXml(contestChartSvg(contestChartTitle(name, results), results.summaries))
      const bars = series(svg)
      const clients = [...new Set(results.summaries.map((s: { contender: string }) => s.contender))]
      expect([...bars.keys()]).toEqual(clients)
      for (const client of clients) {
        const finished = results.summaries.filter((s: { contender: string; rounds: number }) => s.contender === client && s.rounds > 0)
        expect(bars.get(client as string)!.children.filter((c) => c.name === 'rect')).toHaveLength(finished.length * 2)
      }
      const text = descendants(svg).find((e) => e.name === 'text')!.text
      expect(text).toMatch(title)
      expect(text).toContain(`${results.messages.toLocaleString('en-US')} messages`)
    },
  )
})

describe.skipIf(!built || !requireKafka())('wafka bench on Apache Kafka', () => {
  let kafka: KafkaCluster
  beforeAll(async () => {
    kafka = await startKafka({ brokers: 1 })
  }, 120_000)
  afterAll(() => kafka?.stop())

  it('bench produce and bench consume: every message checked, sane figures', async () => {
    for (const what of ['produce', 'consume']) {
      const r = await wafka(['bench', what, '-b', kafka.bootstrap, '--messages', '20000', '-P', '3', '-r', '1', '--json'], {
        timeoutMs: 120_000,
      })
      expect(r.code, r.stderr).toBe(0)
      const report = JSON.parse(r.stdout)
      expect(report).toMatchObject({ bench: what, target: { embedded: false } })
      expectSane(report.result, 20000)
      expectTimeline(report.timeline, 20000)
    }
  })
})
