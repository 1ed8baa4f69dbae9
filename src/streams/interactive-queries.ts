// Interactive queries, as Java's KafkaStreams.store(): a read-only view of
// one store across every task this instance runs (each task holds the
// store's share for its partition). Java's composite stores ask each local
// store in turn; so do these. Reads are refused, as Java refuses them, while
// the application is not RUNNING: during a rebalance a store's tasks may be
// moving to another instance. Key-value, window and session stores.
import type { InMemoryKeyValueStore } from './key-value-store.js'
import { StreamsError } from './streams-error.js'
import type { InMemoryWindowStore } from './window-store.js'
import type { InMemorySessionStore } from './session-store.js'
import type { Window } from './windowed-serdes.js'

/** Java's InvalidStateStoreException: the store is not there to read (unknown, or the application is not RUNNING). */
export class InvalidStateStoreError extends StreamsError {
  override name = 'InvalidStateStoreError'
}

export interface ReadOnlyKeyValueStore<K, V> {
  /** The value of `key`, from whichever local task holds it; null when none does. */
  get(key: K): V | null
  /** Entries whose key's serialized bytes lie between `from`'s and `to`'s (both included), by those bytes. */
  range(from: K, to: K): Array<{ key: K; value: V }>
  /** Every entry of every local task, each task's by key bytes. */
  all(): Array<{ key: K; value: V }>
  approximateNumEntries(): number
}

export interface ReadOnlyWindowStore<K, V> {
  /** The value of `key`'s window starting at `windowStart`, or null. */
  fetch(key: K, windowStart: number): V | null
  /** `key`'s windows starting from `timeFrom` to `timeTo` (both included), by start. */
  fetch(key: K, timeFrom: number, timeTo: number): Array<{ windowStart: number; value: V }>
  /** Every window of every local task. */
  all(): Array<{ key: K; windowStart: number; value: V }>
}

/** Java's ReadOnlySessionStore: a key's sessions, each task's by session end. */
export interface ReadOnlySessionStore<K, V> {
  /** Every session of `key`. */
  fetch(key: K): Array<{ window: Window; value: V }>
  /** `key`'s sessions that end at or after `earliestSessionEndTime` and start at or before `latestSessionStartTime`. */
  findSessions(key: K, earliestSessionEndTime: number, latestSessionStartTime: number): Array<{ window: Window; value: V }>
  /** The value of `key`'s session [sessionStartTime, sessionEndTime], or null. */
  fetchSession(key: K, sessionStartTime: number, sessionEndTime: number): V | null
}

export type QueryableStoreType = 'keyValue' | 'window' | 'session'

/** The local stores named `name`, read when a query runs (tasks come and go with rebalances). */
type Locals<S> = () => S[]

export function keyValueView<K, V>(locals: Locals<InMemoryKeyValueStore<K, V>>): ReadOnlyKeyValueStore<K, V> {
  return {
    get: (key) => {
      for (const s of locals()) {
        const v = s.get(key)
        if (v !== null) return v
      }
      return null
    },
    range: (from, to) => locals().flatMap((s) => s.range(from, to)),
    all: () => locals().flatMap((s) => s.allInKeyOrder()),
    approximateNumEntries: () => locals().reduce((n, s) => n + s.approximateNumEntries(), 0),
  }
}

export function windowView<K, V>(locals: Locals<InMemoryWindowStore<K, V>>): ReadOnlyWindowStore<K, V> {
  function fetch(key: K, windowStart: number): V | null
  function fetch(key: K, timeFrom: number, timeTo: number): Array<{ windowStart: number; value: V }>
  function fetch(key: K, from: number, to?: number): V | null | Array<{ windowStart: number; value: V }> {
    if (to === undefined) {
      for (const s of locals()) {
        const v = s.fetch(key, from)
        if (v !== null) return v
      }
      return null
    }
    return locals()
      .flatMap((s) => s.fetchRange(key, from, to))
      .map((w) => ({ windowStart: w.timestamp, value: w.value }))
      .sort((a, b) => a.windowStart - b.windowStart)
  }
  return { fetch, all: () => locals().flatMap((s) => s.all()) }
}

export function sessionView<K, V>(locals: Locals<InMemorySessionStore<K, V>>): ReadOnlySessionStore<K, V> {
  const findSessions = (key: K, earliestEnd: number, latestStart: number) =>
    locals().flatMap((s) => s.findSessions(key, earliestEnd, latestStart))
  return {
    fetch: (key) => findSessions(key, -Infinity, Infinity),
    findSessions,
    fetchSession: (key, start, end) =>
      findSessions(key, end, start).find((s) => s.window.start === start && s.window.end === end)?.value ?? null,
  }
}
