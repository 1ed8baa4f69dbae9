/**
 * A share group's share.auto.offset.reset as Kafka 4.4 takes it: earliest,
 * latest, or by_duration:<ISO-8601 duration> (java.time.Duration's
 * PnDTnHnMn.nS; negative refused) — a share partition then starts at the
 * first record no older than that duration.
 */
export type ShareAutoOffsetReset = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'by_duration'; ms: number }

const BY_DURATION = 'by_duration:'

/** Duration.parse's form: sign, P, days, then T with hours, minutes, seconds (fraction up to nanoseconds). */
const DURATION = /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i

/** `value` read, or why it is not one (Kafka's words). */
export function parseShareAutoOffsetReset(value: string): ShareAutoOffsetReset | string {
  const v = value.trim().toLowerCase()
  if (v === 'earliest' || v === 'latest') return { kind: v }
  if (!v.startsWith(BY_DURATION)) return `Invalid value ${value}: must be earliest, latest or by_duration:<duration>`
  const text = value.trim().slice(BY_DURATION.length)
  if (text === '') return '<:duration> part is missing in by_duration auto offset reset strategy.'
  const ms = durationMs(text)
  if (ms === null) return 'Unable to parse duration string in by_duration offset reset strategy.'
  if (ms < 0) return 'Negative duration is not supported in by_duration offset reset strategy.'
  return { kind: 'by_duration', ms }
}

/** An ISO-8601 duration in milliseconds, or null when it is not one (a T with nothing after it, no part at all). */
function durationMs(text: string): number | null {
  const m = DURATION.exec(text)
  if (!m || /T$/i.test(text) || m.slice(2, 6).every((p) => p === undefined)) return null
  const [, sign, d, h, min, s, frac] = m
  const n = (p: string | undefined) => (p === undefined ? 0 : Number(p))
  const fraction = frac ? Number(frac.padEnd(9, '0')) / 1e6 : 0
  const seconds = n(s)
  const ms = n(d) * 86_400_000 + n(h) * 3_600_000 + n(min) * 60_000 + seconds * 1000 + (s?.startsWith('-') ? -fraction : fraction)
  return sign === '-' ? -ms : ms
}
