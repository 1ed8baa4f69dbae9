// `wafka demo` end to end on the embedded broker, as `npm run demo` runs it:
// plain periodic lines when stdout is not a terminal, bars redrawn with
// carriage returns on a pseudo-terminal, and the summary in both.
import { describe, expect, it } from 'vitest'
import { built, hasScript, wafka, wafkaOnTty } from './support.js'

describe.skipIf(!built)('wafka demo', () => {
  it('without a terminal: plain lines, a verified summary, exit 0', async () => {
    const r = await wafka(['demo', '--messages', '20000', '--size', '64', '--partitions', '4'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^embedded broker: 3 virtual brokers at 127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/m)
    expect(r.stdout).toMatch(/^topic wafka-demo-\S+: 4 partitions, replication factor 3; 20,000 messages of 64 B, none$/m)
    expect(r.stdout).toMatch(/^produce: 100%  20,000\/20,000 acknowledged  /m)
    expect(r.stdout).toMatch(/^consume: 100%  20,000\/20,000 received  /m)
    expect(r.stdout.match(/^produce: 100%/gm)).toHaveLength(1) // the final figures once, not again on each tick
    expect(r.stdout).not.toContain('\r')
    expect(r.stdout).not.toContain('\x1b[')
    expect(r.stdout).toMatch(/^messages +20,000 +20,000$/m)
    expect(r.stdout).toMatch(/^throughput +[\d.]+ [kM]? ?msg\/s +[\d.]+ [kM]? ?msg\/s$/m)
    expect(r.stdout).toMatch(/^latency p50 \/ p99 +[\d.]+ \/ [\d.]+ ms +\d+ \/ \d+ ms$/m)
    expect(r.stdout).toMatch(/^CPU +[\d.]+ s user \+ [\d.]+ s system/m)
    expect(r.stdout).toMatch(/^peak memory \d+ MiB RSS$/m)
    expect(r.stdout).toMatch(/^verified +all 20,000 messages arrived exactly once$/m)
  })

  it('--json: one JSON summary on stdout that adds up', async () => {
    const r = await wafka(['demo', '--messages', '5000', '--compression', 'lz4', '--json'])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s).toMatchObject({ messages: 5000, compression: 'lz4', consumers: 3, partitions: 6, replicationFactor: 3 })
    expect(s.failover).toBeUndefined()
    expect(s.verified).toEqual({ received: 5000, missing: 0, duplicates: 0, unexpected: 0, exactlyOnce: true })
    expect(s.produce.messagesPerSecond).toBeGreaterThan(0)
    expect(s.consume.endToEndLatencyMs.p99).toBeGreaterThanOrEqual(s.consume.endToEndLatencyMs.p50)
    expect(s.peakRssBytes).toBeGreaterThan(10 * 2 ** 20)
  })

  it('--failover: the leader of partition 0 stopped halfway; its partitions move to in-sync replicas and nothing is lost', async () => {
    const r = await wafka(['demo', '--messages', '60000', '--partitions', '3', '--failover'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const stopped = r.stdout.match(/^failover: broker (\d) stopped at ([\d,]+) acknowledged \(it led partitions ([\d, ]+)\)$/m)
    expect(stopped).not.toBeNull()
    const [, broker, at, led] = stopped!
    expect(Number(at.replace(/,/g, ''))).toBeGreaterThanOrEqual(30_000)
    expect(led.split(', ')).toContain('0')
    const summary = r.stdout.match(/^failover +broker (\d) stopped at [\d,]+ acknowledged \([\d.]+ s\); new leaders: (.+)$/m)
    expect(summary?.[1]).toBe(broker)
    const moved = [...summary![2].matchAll(/partition (\d) -> broker (-?\d)/g)]
    expect(moved.map((m) => m[1])).toEqual(led.split(', '))
    for (const m of moved) expect(['0', '1', '2'].filter((b) => b !== broker)).toContain(m[2])
    expect(r.stdout).toMatch(/^verified +all 60,000 messages arrived exactly once$/m)
  })

  it('--failover --json: the failover in the summary', async () => {
    const r = await wafka(['demo', '--messages', '20000', '--failover', '--json', '--quiet'])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.failover.partitions).toContain(0)
    expect(Object.keys(s.failover.newLeaders).map(Number)).toEqual(s.failover.partitions)
    for (const b of Object.values(s.failover.newLeaders)) expect(b).not.toBe(s.failover.broker)
    expect(s.verified).toEqual({ received: 20000, missing: 0, duplicates: 0, unexpected: 0, exactlyOnce: true })
  })

  it('--quiet: only the summary', async () => {
    const r = await wafka(['demo', '--messages', '2000', '--quiet'])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/^(produce|consume|embedded broker)/m)
    expect(r.stdout).toMatch(/verified +all 2,000 messages arrived exactly once/)
  })

  it.skipIf(!hasScript())('on a terminal: progress bars redrawn in place with carriage returns', async () => {
    const r = await wafkaOnTty(['demo', '--messages', '200000', '--partitions', '3'])
    expect(r.code).toBe(0)
    // Each redraw returns to the line start and clears the rest; the second bar moves the cursor up first.
    expect(r.stdout).toMatch(/\rproduce  \[[█░]{28}\] +\d+%  [\d,]+\/200,000 acknowledged/)
    expect(r.stdout).toMatch(/\x1b\[1A\rproduce  \[/)
    expect(r.stdout).toContain('\rconsume  [████████████████████████████] 100%  200,000/200,000 received')
    expect(r.stdout).not.toMatch(/^produce: /m)
    expect(r.stdout).toMatch(/verified +all 200,000 messages arrived exactly once/)
  })

  it('bad arguments: one line on stderr, exit 2', async () => {
    for (const args of [
      ['demo', '--messages', 'lots'],
      ['demo', '--compression', 'brotli'],
      ['demo', '--frobnicate'],
      ['demo', '-b', '127.0.0.1:1', '--failover'],
    ]) {
      const r = await wafka(args)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^wafka demo: /)
    }
  })
})
