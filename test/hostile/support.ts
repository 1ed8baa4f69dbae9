// Shared by the hostile-broker tests: the client settings of issue 9's
// report, timing and "nothing left behind" checks.
import { expect } from 'vitest'
import * as wafka from '../../src/index.js'
import type { WafkaError } from '../../src/index.js'
import { untilTrue } from '../support/until.js'

/** The settings every scenario of the report ran with. */
export const SETTINGS = {
  requestTimeoutMs: 3000,
  connectTimeoutMs: 2000,
  retryBackoffMs: 100,
  retryBackoffMaxMs: 1000,
  defaultApiTimeoutMs: 8000,
}

/** Generous: the machine is 2 busy cores. */
export const SLACK_MS = 2500

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Waits until `done()` holds or `ms` pass (the shared wait, its timeout not a failure: the caller asserts the time); returns how long it took. */
export async function until(done: () => boolean, ms: number): Promise<number> {
  const start = Date.now()
  await untilTrue(done, ms, () => 'a condition', 10).catch((e: Error) => {
    if (!e.message.startsWith('timed out after ')) throw e
  })
  return Date.now() - start
}

/** Runs `fn`; returns how long it took and what it threw (undefined if it resolved). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; error: unknown; value?: T }> {
  const start = Date.now()
  try {
    const value = await fn()
    return { ms: Date.now() - start, error: undefined, value }
  } catch (error) {
    return { ms: Date.now() - start, error }
  }
}

/** The error is a WafkaError of `type` with this retriability. */
export function expectTyped(error: unknown, type: abstract new (...args: any[]) => WafkaError, retriable: boolean): void {
  expect(error, String(error)).toBeInstanceOf(type)
  // The error says the name its own class is exported under (the built package once said `_KafkaError`).
  const exported = Object.entries(wafka).find(([, v]) => v === (error as Error).constructor)?.[0]
  expect(exported, `${(error as Error).name} is not an exported class`).toBeDefined()
  expect((error as Error).name).toBe(exported)
  expect((error as WafkaError).retriable, `${(error as Error).message} retriable`).toBe(retriable)
}

/** Handles that keep the process alive (unref'd timers and sockets do not count). */
export function liveResources(): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1
  return out
}

/**
 * After disconnect(): within `withinMs`, no more timers or sockets keep the
 * process alive than before the scenario (`baseline`); the process would exit.
 */
export async function expectNothingLeft(baseline: Record<string, number>, withinMs = 1000): Promise<void> {
  const deadline = Date.now() + withinMs
  let now = liveResources()
  const extra = () => Object.entries(now).filter(([k, n]) => n > (baseline[k] ?? 0) && k !== 'PipeWrap' && k !== 'TTYWrap')
  while (extra().length > 0 && Date.now() < deadline) {
    await new Promise((r) => setImmediate(r))
    await sleep(20)
    now = liveResources()
  }
  expect(Object.fromEntries(extra()), `left alive after disconnect (baseline ${JSON.stringify(baseline)})`).toEqual({})
}
