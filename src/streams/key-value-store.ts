// A key-value store in memory, as Java's timestamped in-memory store: keys
// and values kept as their serdes' bytes (so a restore writes them back as
// read from the changelog), each value with the timestamp of the record that
// wrote it. Every change goes to the changelog through `logChange`: at once,
// or, when the store caches (Java's CachingKeyValueStore over it), once per
// key at each flush of its record cache (record-cache.ts), which also hands
// the change to the flush listener (the processor's children). The values
// are written at once either way, so reads always see the latest. Entries
// are keyed by their key bytes as a latin1 string (a byte a character, so
// comparing two compares their bytes); the key's bytes are not kept beside it.
// A restored entry is kept packed in one string (packed-entry.ts) until a put
// replaces it.
import { pack, unpack } from './packed-entry.js'
import type { Serde } from './serdes.js'
import type { HeldBytes } from './store-file.js'
import { CachedStore, type CacheNode, type NamedCache } from './record-cache.js'
import type { RecordContext } from './topology.js'

export interface KeyValueStore<K, V> {
  readonly name: string
  get(key: K): V | null
  /** The value and the timestamp of the record that wrote it. */
  getWithTimestamp(key: K): { value: V; timestamp: number } | null
  put(key: K, value: V | null, timestamp: number): void
  delete(key: K, timestamp: number): void
  /** Every entry, in no set order. */
  all(): Array<{ key: K; value: V }>
  /** Every entry, by its key's bytes (as Java's stores iterate). */
  allInKeyOrder(): Array<{ key: K; value: V }>
  approximateNumEntries(): number
}

/** A change as its changelog record: key and value bytes (null: deleted), the record's timestamp. */
export type LogChange = (key: Buffer, value: Buffer | null, timestamp: number) => void

/** A cached store's flushed change, as Java's TimestampedCacheFlushListener forwards it: the new value, the old one (the last flushed), in the context of the record that made it. */
export type FlushListener<K, V> = (key: K, value: V | null, oldValue: V | null, timestamp: number, context: RecordContext) => void

interface Entry {
  value: Buffer
  timestamp: number
}

export class InMemoryKeyValueStore<K, V> extends CachedStore<FlushListener<K, V>> implements KeyValueStore<K, V> {
  /** An entry put, or one restored (packed). */
  private readonly entries = new Map<string, Entry | string>()
  /** The entries' key and value bytes, summed (what a persistent store's file holds live, less framing). */
  private bytes = 0

  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    /** The changelog topic, for the serdes (Java serializes a store's keys for its changelog). */
    private readonly topic: string,
    protected readonly logChange: LogChange,
  ) {
    super()
  }

  get(key: K): V | null {
    return this.getWithTimestamp(key)?.value ?? null
  }

  /** The value and its timestamp; a processor's read, so a caching store's key becomes its most recently used (Java's CachingKeyValueStore.get). */
  getWithTimestamp(key: K): { value: V; timestamp: number } | null {
    const k = this.keyBytes(key)
    const id = k.toString('latin1')
    const e = this.entryAt(id)
    if (!e) return null
    if (this.cache) this.cache.touch(id, k, e.value.length, this.context!())
    return { value: this.valueSerde.deserialize(this.topic, e.value) as V, timestamp: e.timestamp }
  }

  put(key: K, value: V | null, timestamp: number): void {
    const k = this.keyBytes(key)
    const v = value === null ? null : this.valueSerde.serialize(this.topic, value)
    const id = k.toString('latin1')
    if (!this.cache) {
      this.set(id, v, v === null ? null : { value: v, timestamp })
      this.logChange(k, v, timestamp)
      return
    }
    const before = this.entryAt(id)?.value ?? null
    this.set(id, v, v === null ? null : { value: v, timestamp })
    // After the write: an eviction it causes flushes this change too, as Java's put-then-evict does.
    this.cache.changed(id, k, before, v === null ? -1 : v.length, timestamp, this.context!(), v)
  }

  /** The store's own entry (a cache node of a key-value store carries no value). */
  protected override latest(node: CacheNode): Buffer | null {
    return this.entryAt(node.id)?.value ?? null
  }

  protected forwardFlushed(listener: FlushListener<K, V>, node: CacheNode, value: Buffer | null, old: Buffer | null): void {
    listener(
      this.keySerde.deserialize(this.topic, node.key) as K,
      value === null ? null : (this.valueSerde.deserialize(this.topic, value) as V),
      old === null ? null : (this.valueSerde.deserialize(this.topic, old) as V),
      node.timestamp,
      node.context,
    )
  }

  delete(key: K, timestamp: number): void {
    this.put(key, null, timestamp)
  }

  all(): Array<{ key: K; value: V }> {
    return [...this.entries].map(([id, e]) => this.entry(id, e))
  }

  /** Every entry, by its key's bytes (as Java's stores iterate). */
  allInKeyOrder(): Array<{ key: K; value: V }> {
    return this.inKeyOrder([...this.entries])
  }

  /** The entries whose key's bytes lie between `from`'s and `to`'s, both included, by those bytes (Java's range()). */
  range(from: K, to: K): Array<{ key: K; value: V }> {
    const lo = this.keyBytes(from).toString('latin1')
    const hi = this.keyBytes(to).toString('latin1')
    return this.inKeyOrder([...this.entries].filter(([id]) => id >= lo && id <= hi))
  }

  private inKeyOrder(entries: Array<[string, Entry | string]>): Array<{ key: K; value: V }> {
    return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, e]) => this.entry(id, e))
  }

  private entry(id: string, e: Entry | string): { key: K; value: V } {
    return {
      key: this.keySerde.deserialize(this.topic, Buffer.from(id, 'latin1')) as K,
      value: this.valueSerde.deserialize(this.topic, typeof e === 'string' ? unpack(e).value : e.value) as V,
    }
  }

  approximateNumEntries(): number {
    return this.entries.size
  }

  /** Whether the store has a value under these key bytes (what a persistent store's file keeps when compacted). @internal */
  holds(key: Buffer): boolean {
    return this.entries.has(key.toString('latin1'))
  }

  /** A changelog record written back as it was logged (a null value deletes); `id`: the key's latin1 string, if the caller has it. @internal */
  restore(key: Buffer, value: Buffer | null, timestamp: number, _headers?: unknown, id = key.toString('latin1')): void {
    this.set(id, value, value === null ? null : pack(value, timestamp))
  }

  /** What the store holds, for its file (store-file.ts). @internal */
  held(): HeldBytes {
    return { entries: this.entries.size, bytes: this.bytes }
  }

  /** The entry under `id`, a packed (restored) one unpacked. */
  private entryAt(id: string): Entry | undefined {
    const found = this.entries.get(id)
    return typeof found === 'string' ? unpack(found) : found
  }

  private set(id: string, value: Buffer | null, entry: Entry | string | null): void {
    const before = this.entries.get(id)
    if (before !== undefined) this.bytes -= id.length + (typeof before === 'string' ? before.length - 8 : before.value.length)
    if (entry === null) {
      if (before !== undefined) this.entries.delete(id)
    } else {
      this.entries.set(id, entry)
      this.bytes += id.length + value!.length
    }
  }

  private keyBytes(key: K): Buffer {
    const k = this.keySerde.serialize(this.topic, key)
    if (k === null) throw new TypeError(`store ${this.name} takes no null key`)
    return k
  }
}
