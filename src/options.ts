import { ConfigError } from './errors.js'

/** A numeric option: `fallback` when absent, else a finite number >= min (a ConfigError naming it otherwise). */
export function positive(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ConfigError(`${name} must be a number >= ${min}, not ${JSON.stringify(value)}`)
  }
  return value
}

/** An option taking one of `allowed`: `fallback` when absent. */
export function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (!allowed.includes(value)) throw new ConfigError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, not ${JSON.stringify(value)}`)
  return value
}

/** Longest delay a timer takes (Node clamps anything longer to 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1

/** A duration in ms: as positive(), and at most 2^31-1 (what a timer can wait). */
export function duration(name: string, value: number | undefined, fallback: number, min = 0): number {
  const ms = positive(name, value, fallback, min)
  if (ms > MAX_TIMER_MS) throw new ConfigError(`${name} must be at most ${MAX_TIMER_MS} ms (2^31-1), not ${ms}`)
  return ms
}
