// wafka consume --stats, in process against the embedded broker: the
// consumer's statistics go to stderr as JSON lines (stdout keeps the
// messages), and once everything is printed each partition's position is
// its high watermark with no lag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka, logLevel, type ConsumerStatistics } from '../../src/index.js'
import { consumeCommand } from '../../src/cli/consume.js'
import { until } from '../consumer/support.js'

describe('wafka consume --stats', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'cli-stats', partitions: 2 }] })
    const kafka = new Kafka({ clientId: 'cli-stats', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING })
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'cli-stats', messages: [0, 0, 0, 1].map((partition, i) => ({ value: `m${i}`, partition })) })
    await producer.disconnect()
  })
  afterAll(() => cluster?.stop())

  it('prints statistics JSON lines on stderr: positions reach the high watermarks, lag 0', async () => {
    let out = ''
    let err = ''
    const io = { out: (s: string) => void (out += s), err: (s: string) => void (err += s), outIsTTY: false, errIsTTY: false }
    const stats = () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as ConsumerStatistics)
    const done = consumeCommand(
      ['consume', '-b', cluster.bootstrapServers, '-t', 'cli-stats', '-o', 'beginning', '--stats', '-X', 'statistics.interval.ms=50'].slice(
        1,
      ),
      io,
    )
    const caughtUp = () =>
      stats().some((s) => s.partitions.length === 2 && s.partitions.every((p) => p.lag === 0 && p.position === p.highWatermark))
    await until(caughtUp, 10_000, () => `stderr: ${err.slice(-500)}`)
    process.emit('SIGINT')
    expect(await done).toBe(0)
    expect(out.split('\n').filter(Boolean).sort()).toEqual(['m0', 'm1', 'm2', 'm3'])
    const last = stats().find((s) => s.partitions.every((p) => p.lag === 0 && p.position === p.highWatermark))!
    expect(Object.fromEntries(last.partitions.map((p) => [p.partition, p.highWatermark]))).toEqual({ 0: '3', 1: '1' })
    expect(last.brokers!.length).toBe(1)
    expect(last.brokers![0].requests).toBeGreaterThan(0)
  })
})
