// What a node of a topology sees while a task runs: the record's origin, its
// children (forward), and the stores connected to it.
import type { Logger } from '../logger.js'
import type { Serde } from './serdes.js'
import type { KeyValueStore } from './key-value-store.js'
import type { InMemoryWindowStore } from './window-store.js'
import type { InMemorySessionStore } from './session-store.js'
import type { TimeOrderedKeyValueBuffer } from './suppress-buffer.js'
import type { RecordContext, StreamRecord } from './topology.js'
import type { Cancellable, Punctuator, PunctuationType } from './processor.js'

/** A state store of the topology: its serdes (defaults when absent); every store is logged to a changelog. */
export interface StoreDef {
  name: string
  keySerde?: Serde<any>
  valueSerde?: Serde<any>
  /** A window store, keeping windows for retentionMs of stream time; else a key-value store. */
  window?: { retentionMs: number; retainDuplicates?: boolean }
  /** A session store, keeping sessions for retentionMs of stream time past their end. */
  session?: { retentionMs: number }
  /** A suppression buffer (suppress-buffer.ts), logged in Java's format at each commit. */
  suppressBuffer?: true
  /** Kept in a file under stateDir (true) or in memory only (false); unset: the application's defaultDslStore. */
  persistent?: boolean
  /**
   * Behind the record cache when statestoreCacheMaxBytes > 0: a DSL key-value, window or session store with
   * caching enabled (Java's Materialized default), a Processor API store whose builder said withCachingEnabled().
   */
  caching?: boolean
}

/** Java's default.dsl.store / Materialized.StoreType: 'rocksDB' names our persistent store (a log-structured file, store-file.ts). */
export type DslStoreType = 'rocksDB' | 'in_memory'

/** StoreDef.persistent for a store type given (unset: the application's default). */
export function persistentOf(storeType: DslStoreType | undefined): boolean | undefined {
  if (storeType === undefined) return undefined
  if (storeType !== 'rocksDB' && storeType !== 'in_memory')
    throw new TypeError(`a store type is 'rocksDB' (persistent) or 'in_memory', not ${JSON.stringify(storeType)}`)
  return storeType === 'rocksDB'
}

export interface NodeRuntime {
  /** Hands a record to each child of the node, in the order they were added, or to the child named `to` alone. */
  forward(record: StreamRecord, to?: string): void
  store<K, V>(name: string): KeyValueStore<K, V>
  /**
   * Java's TimestampedTupleForwarder: if key-value store `name` caches, its flushed changes go to this
   * node's children (with the old value when `sendOldValues`), in the context of the record that made
   * each, and true is returned: the node must not forward its own updates. False: it forwards them.
   */
  forwardOnFlush(name: string, sendOldValues: boolean): boolean
  /** A window store; a caching one takes a flush listener (setFlushListener), as Java's TimestampedTupleForwarder sets it. */
  windowStore<K, V>(name: string): InMemoryWindowStore<K, V>
  /** A session store; a caching one takes a flush listener (setFlushListener), as Java's TimestampedTupleForwarder sets it. */
  sessionStore<K, V>(name: string): InMemorySessionStore<K, V>
  /** Runs `fn` in the context of `context`'s record (a cache flush forwards each change in the context of the record that made it). */
  inContext(context: RecordContext, fn: () => void): void
  suppressionBuffer<K, V>(name: string): TimeOrderedKeyValueBuffer<K, V>
  /** A global table's store (every node may read one, as Java's getStateStore). */
  globalStore<K, V>(name: string): KeyValueStore<K, V>
  /** The input record in hand (while a punctuator runs: offset -1 and the punctuation's time). */
  context(): RecordContext
  /** Whether a punctuator is running (no input record in hand). */
  punctuating(): boolean
  readonly taskId: string
  readonly applicationId: string
  /** The task's stream time: the largest record timestamp it has seen, -1 before any. */
  streamTime(): number
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable
  /** Called when the task closes. */
  onClose(fn: () => void): void
  readonly log: Logger
}
