import { expect } from 'vitest'
import { ConfigError } from '../../src/errors.js'

/** The message of the ConfigError `fn` throws; fails the test when it throws nothing, or something else. */
export function refusal(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('no ConfigError')
}
