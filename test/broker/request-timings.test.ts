// The request-timings debug counter (src/broker/request-timings.ts): what
// bench/results/broker-load.md's latency figures come from.
import { describe, expect, it } from 'vitest'
import { recordRequestTime, requestTimingSummary } from '../../src/broker/request-timings.js'

describe('request timings', () => {
  it('percentiles per API key, by whole millisecond; past 60 s in the last bucket', () => {
    for (let i = 1; i <= 1000; i++) recordRequestTime(1000, i)
    recordRequestTime(1001, 90_000)
    const s = requestTimingSummary()
    expect(s[1000]).toEqual({ count: 1000, p50: 500, p99: 990, p999: 999, max: 1000 })
    expect(s[1001]).toEqual({ count: 1, p50: 60_000, p99: 60_000, p999: 60_000, max: 60_000 })
  })
})
