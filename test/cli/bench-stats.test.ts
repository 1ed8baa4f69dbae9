// `wafka bench --stats` sums up the client's statistics snapshots: what it
// prints on stderr and what its report counts must be the same snapshots,
// even when the client takes one more while it closes after the summing up
// (in CI a 50 ms interval and a slow close printed one snapshot more than
// the report said).
import { describe, expect, it } from 'vitest'
import { StatsGatherer } from '../../src/cli/bench/stats.js'
import type { ConsumerStatistics } from '../../src/observe/statistics.js'

const snapshot = (time: number): ConsumerStatistics => ({
  type: 'consumer',
  clientId: 'bench',
  groupId: 'g',
  time,
  brokers: [],
  partitions: [{ topic: 't', partition: 0, highWatermark: '10', position: '10', committed: null, lag: 0, queued: 0, paused: false }],
})

describe('bench --stats gathering', () => {
  it('counts and prints the same snapshots: none after the run is summed up', () => {
    const printed: string[] = []
    const gatherer = new StatsGatherer(50, (line) => void printed.push(line))
    gatherer.take(snapshot(1))
    gatherer.take(snapshot(2))
    const report = gatherer.result(snapshot(3))
    gatherer.take(snapshot(4)) // the client closing
    expect(report.snapshots).toBe(2)
    expect(printed.map((l) => JSON.parse(l).time)).toEqual([1, 2])
    expect(report.partitions).toEqual([{ topic: 't', partition: 0, highWatermark: '10', position: '10', lag: 0 }])
  })
})
