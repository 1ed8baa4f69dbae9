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
  if (!allowed.includes(value))
    throw new ConfigError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, not ${JSON.stringify(value)}`)
  return value
}
