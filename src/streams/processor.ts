// The Processor API, as Java's (org.apache.kafka.streams.processor.api):
// `KStream.process(() => processor, ...storeNames)` runs a processor of the
// user's in a task, with its context: forward records to the children, read
// and write the stores connected to it, and schedule punctuations by stream
// time or wall-clock time. Stores for it are added with
// `builder.addStateStore(Stores.keyValueStoreBuilder(...))`.
import type { Serde } from './serdes.js'
import type { KeyValueStore } from './key-value-store.js'
import type { StoreDef } from './nodes.js'
import type { StreamRecord } from './topology.js'

/** Java's PunctuationType: by the task's stream time (advanced by records), or by the clock. */
export type PunctuationType = 'STREAM_TIME' | 'WALL_CLOCK_TIME'

export type Punctuator = (timestamp: number) => void

export interface Cancellable {
  cancel(): void
}

/** Where the record in hand came from; null while a punctuator runs (no input record). */
export interface RecordMetadata {
  topic: string
  partition: number
  offset: bigint
}

export interface ProcessorContext<KOut = any, VOut = any> {
  readonly applicationId: string
  /** `<subtopology>_<partition>`. */
  readonly taskId: string
  /** To every child, or to the child named `childName` alone. */
  forward(record: StreamRecord<KOut, VOut>, childName?: string): void
  /** A key-value store connected to this processor (named in `process()`). */
  getStateStore<K, V>(name: string): KeyValueStore<K, V>
  /**
   * Calls `punctuator` every `intervalMs`: by stream time (first as soon as the
   * task has a record, then at the next multiple of the interval that stream
   * time reaches; missed ones are not made up), or by wall-clock time (first
   * `intervalMs` from now). Java's ProcessorContext.schedule.
   */
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable
  recordMetadata(): RecordMetadata | null
  /** The task's stream time: the largest record timestamp it has seen (-1 before any). */
  currentStreamTimeMs(): number
  currentSystemTimeMs(): number
}

export interface Processor<KIn = any, VIn = any, KOut = any, VOut = any> {
  init?(context: ProcessorContext<KOut, VOut>): void
  process(record: StreamRecord<KIn, VIn>): void
  /** When the task closes (its partition revoked, the application closing). */
  close?(): void
}

export type ProcessorSupplier<KIn = any, VIn = any, KOut = any, VOut = any> = () => Processor<KIn, VIn, KOut, VOut>

/** What `Stores.inMemoryKeyValueStore(name)` or `Stores.persistentKeyValueStore(name)` supplies: a store's name and kind. */
export interface KeyValueBytesStoreSupplier {
  readonly name: string
  /** A file under stateDir (persistentKeyValueStore) or memory only (inMemoryKeyValueStore). */
  readonly persistent?: boolean
}

/** A store for `StreamsBuilder.addStateStore`, logged to `<applicationId>-<name>-changelog` as every store is. */
export interface StoreBuilder<K = any, V = any> {
  readonly name: string
  /** @internal */
  readonly def: StoreDef
  /** Types only: the serdes' key and value. */
  readonly _types?: [K, V]
  /**
   * Java's StoreBuilder.withCachingEnabled(): the store sits behind the record cache (statestoreCacheMaxBytes),
   * so its changes reach the changelog once per key at each commit (or on eviction) instead of at each write.
   * Reads see every write at once; nothing is forwarded. Off by default, as Java's builders.
   */
  withCachingEnabled(): StoreBuilder<K, V>
  /** Java's withCachingDisabled() (the default): every write is logged at once. */
  withCachingDisabled(): StoreBuilder<K, V>
}

function storeBuilder<K, V>(def: StoreDef): StoreBuilder<K, V> {
  return {
    name: def.name,
    def,
    withCachingEnabled: () => storeBuilder<K, V>({ ...def, caching: true }),
    withCachingDisabled: () => storeBuilder<K, V>({ ...def, caching: false }),
  }
}

/** Java's Stores, for the stores a processor uses. */
export const Stores = {
  inMemoryKeyValueStore(name: string): KeyValueBytesStoreSupplier {
    if (typeof name !== 'string' || name === '') throw new TypeError('a store needs a name')
    return { name, persistent: false }
  },
  /** Java's persistentKeyValueStore (RocksDB there): ours is a log-structured file in the task's directory under stateDir. */
  persistentKeyValueStore(name: string): KeyValueBytesStoreSupplier {
    if (typeof name !== 'string' || name === '') throw new TypeError('a store needs a name')
    return { name, persistent: true }
  },
  keyValueStoreBuilder<K, V>(supplier: KeyValueBytesStoreSupplier, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<K, V> {
    return storeBuilder({ name: supplier.name, keySerde, valueSerde, persistent: supplier.persistent ?? true, caching: false })
  },
}
