// share.auto.offset.reset's grammar as Kafka 4.4 takes it (java.time.Duration's
// ISO-8601 form after by_duration:); what it does is in test/kafka/share-semantics.test.ts.
import { describe, expect, it } from 'vitest'
import { parseShareAutoOffsetReset } from '../../src/broker/share/auto-offset-reset.js'

describe('share.auto.offset.reset', () => {
  it('earliest, latest and by_duration with the parts of PnDTnHnMn.nS', () => {
    expect(parseShareAutoOffsetReset('earliest')).toEqual({ kind: 'earliest' })
    expect(parseShareAutoOffsetReset('LATEST')).toEqual({ kind: 'latest' })
    expect(parseShareAutoOffsetReset('by_duration:PT1H')).toEqual({ kind: 'by_duration', ms: 3_600_000 })
    expect(parseShareAutoOffsetReset('by_duration:P1DT2H3M4.5S')).toEqual({ kind: 'by_duration', ms: 93_784_500 })
    expect(parseShareAutoOffsetReset('by_duration:pt10m')).toEqual({ kind: 'by_duration', ms: 600_000 })
    expect(parseShareAutoOffsetReset('by_duration:PT0.001S')).toEqual({ kind: 'by_duration', ms: 1 })
    expect(parseShareAutoOffsetReset('by_duration:PT0S')).toEqual({ kind: 'by_duration', ms: 0 })
  })

  it('refuses a missing, unreadable or negative duration, and anything else, in Kafka’s words', () => {
    expect(parseShareAutoOffsetReset('by_duration:')).toMatch(/<:duration> part is missing/)
    for (const bad of ['by_duration:P', 'by_duration:PT', 'by_duration:1H', 'by_duration:xyz', 'by_duration:PT1.5H'])
      expect(parseShareAutoOffsetReset(bad), bad).toMatch(/Unable to parse duration/)
    expect(parseShareAutoOffsetReset('by_duration:-PT1H')).toMatch(/Negative duration/)
    expect(parseShareAutoOffsetReset('by_duration:P-1D')).toMatch(/Negative duration/)
    expect(parseShareAutoOffsetReset('none')).toMatch(/earliest, latest or by_duration/)
  })
})
