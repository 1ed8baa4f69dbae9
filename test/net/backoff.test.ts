import { expect, it } from 'vitest'
import { backoffMs } from '../../src/net/backoff.js'

it('backs off exponentially, capped, with +/-20% jitter', () => {
  expect(backoffMs(0, 50, 1000, () => 0.5)).toBe(50)
  expect(backoffMs(3, 50, 1000, () => 0.5)).toBe(400)
  expect(backoffMs(10, 50, 1000, () => 0.5)).toBe(1000)
  expect(backoffMs(2, 100, 1000, () => 0)).toBe(320)
  expect(backoffMs(2, 100, 1000, () => 0.999999)).toBe(480)
  expect(backoffMs(1e6, 100, 1000, () => 0.5)).toBe(1000)
})
