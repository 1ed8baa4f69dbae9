// A window store in memory, as Java's timestamped in-memory window store:
// values per (key, window start), kept as their serdes' bytes with the
// timestamp of the record that wrote them, windows kept for retentionMs of
// stream time (the latest window start put). Its changelog key is Java's
// (WindowKeySchema's store key): the key's bytes, the window start (int64
// BE) and a sequence number (int32 BE, 0: an aggregation keeps no
// duplicates); the value is the value's bytes, the record's timestamp the
// value's. A join's store retains duplicates (Java's retainDuplicates): each
// put its own entry, numbered from 1 by a counter of the store, and logged
// even when its window has expired, as Java's change-logging layer logs it.
// An aggregation's store caches as Java's CachingWindowStore (record-cache.ts):
// its values written at once (so fetches see them), its changes logged and
// handed to the flush listener once per window at each flush of the cache.
import type { Serde } from './serdes.js'
import type { LogChange } from './key-value-store.js'
import { CachedStore, type CacheNode, type NamedCache } from './record-cache.js'
import type { RecordContext } from './topology.js'

/**
 * A cached window store's flushed change (Java's TimestampedCacheFlushListener): the window's new value and the
 * one flushed before, at the value's timestamp (a deletion: the record's), in the context of the record that made it.
 */
export type WindowFlushListener<K, V> = (
  key: K,
  windowStart: number,
  value: V | null,
  oldValue: V | null,
  timestamp: number,
  context: RecordContext,
) => void

export interface WindowStore<K, V> {
  readonly name: string
  fetch(key: K, windowStart: number): V | null
  /** The value and the timestamp of the record that wrote it. */
  fetchWithTimestamp(key: K, windowStart: number): { value: V; timestamp: number } | null
  put(key: K, value: V | null, windowStart: number, timestamp: number): void
  /** A join's store: the values of `key` with timestamps in [from, to] still retained, by timestamp then as put. */
  fetchRange(key: K, from: number, to: number): Array<{ timestamp: number; value: V }>
  /** The windows of `key` starting in [from, to] still retained, by start: each value with the timestamp of the record that wrote it. */
  fetchWindows(key: K, from: number, to: number): Array<{ windowStart: number; value: V; timestamp: number }>
  /** Every window held, in no set order. */
  all(): Array<{ key: K; windowStart: number; value: V }>
}

const SUFFIX = 12

interface Entry {
  key: Buffer
  value: Buffer
  timestamp: number
}

export class InMemoryWindowStore<K, V> extends CachedStore<WindowFlushListener<K, V>> implements WindowStore<K, V> {
  /** Windows by start, then by changelog key. */
  private readonly segments = new Map<number, Map<string, Entry>>()
  private observedStreamTime = -Infinity
  private seqnum = 0

  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly retentionMs: number,
    private readonly topic: string,
    protected readonly logChange: LogChange,
    private readonly retainDuplicates = false,
  ) {
    super()
  }

  fetch(key: K, windowStart: number): V | null {
    return this.fetchWithTimestamp(key, windowStart)?.value ?? null
  }

  /** A read of one window: a caching store's key becomes its most recently used (Java's CachingWindowStore.fetch). */
  fetchWithTimestamp(key: K, windowStart: number): { value: V; timestamp: number } | null {
    const k = this.storeKey(key, windowStart)
    const id = k.toString('latin1')
    const e = this.segments.get(windowStart)?.get(id)
    if (!e) return null
    if (this.cache) this.cache.touch(id, k, e.value.length, this.context!())
    return { value: this.valueSerde.deserialize(this.topic, e.value) as V, timestamp: e.timestamp }
  }

  put(key: K, value: V | null, windowStart: number, timestamp: number): void {
    const v = value === null ? null : this.valueSerde.serialize(this.topic, value)
    if (this.retainDuplicates) {
      this.seqnum = (this.seqnum + 1) & 0x7fffffff
      const k = this.storeKey(key, windowStart, this.seqnum)
      if (v !== null) this.apply(k, windowStart, v, timestamp)
      this.logChange(k, v, timestamp)
      return
    }
    const k = this.storeKey(key, windowStart)
    const id = k.toString('latin1')
    const before = this.cache ? (this.segments.get(windowStart)?.get(id)?.value ?? null) : null
    if (!this.apply(k, windowStart, v, timestamp, id)) return
    // After the write: an eviction it causes flushes this change too, as Java's put-then-evict does.
    if (this.cache) this.cache.changed(id, k, before, v === null ? -1 : v.length, timestamp, this.context!(), v)
    else this.logChange(k, v, timestamp)
  }

  /** A join's store (retaining duplicates) never caches, as Java's. @internal */
  override enableCaching(cache: NamedCache, context: () => RecordContext): void {
    if (this.retainDuplicates)
      throw new TypeError(`window store ${this.name} retains duplicates: a join's store does not cache (as Java's)`)
    super.enableCaching(cache, context)
  }

  /** A window's change: its value's timestamp, or the deleting record's for a tombstone (as Java's). */
  protected forwardFlushed(listener: WindowFlushListener<K, V>, node: CacheNode, value: Buffer | null, old: Buffer | null): void {
    const k = node.key
    listener(
      this.keySerde.deserialize(this.topic, k.subarray(0, k.length - SUFFIX)) as K,
      Number(k.readBigInt64BE(k.length - SUFFIX)),
      value === null ? null : (this.valueSerde.deserialize(this.topic, value) as V),
      old === null ? null : (this.valueSerde.deserialize(this.topic, old) as V),
      value === null ? node.context.timestamp : node.timestamp,
      node.context,
    )
  }

  fetchRange(key: K, from: number, to: number): Array<{ timestamp: number; value: V }> {
    return this.fetchWindows(key, from, to).map((w) => ({ timestamp: w.windowStart, value: w.value }))
  }

  fetchWindows(key: K, from: number, to: number): Array<{ windowStart: number; value: V; timestamp: number }> {
    // As Java's segmented store: nothing older than its retention (by the latest window start put), even if still held.
    const lower = Math.max(from, this.observedStreamTime - this.retentionMs + 1)
    const k = this.storeKey(key, 0).subarray(0, -SUFFIX)
    const starts = [...this.segments.keys()].filter((s) => s >= lower && s <= to).sort((a, b) => a - b)
    const out: Array<{ windowStart: number; value: V; timestamp: number }> = []
    for (const start of starts)
      for (const e of this.segments.get(start)!.values())
        if (e.key.length - SUFFIX === k.length && e.key.subarray(0, k.length).equals(k))
          out.push({ windowStart: start, value: this.valueSerde.deserialize(this.topic, e.value) as V, timestamp: e.timestamp })
    return out
  }

  all(): Array<{ key: K; windowStart: number; value: V }> {
    return [...this.segments].flatMap(([windowStart, entries]) =>
      [...entries.values()].map((e) => ({
        key: this.keySerde.deserialize(this.topic, e.key.subarray(0, e.key.length - SUFFIX)) as K,
        windowStart,
        value: this.valueSerde.deserialize(this.topic, e.value) as V,
      })),
    )
  }

  /** Whether the store still has this changelog key's window value (what a persistent store's file keeps when compacted). @internal */
  holds(key: Buffer): boolean {
    return key.length >= SUFFIX && !!this.segments.get(Number(key.readBigInt64BE(key.length - SUFFIX)))?.has(key.toString('latin1'))
  }

  /** A changelog record written back as it was logged (a null value deletes). @internal */
  restore(key: Buffer, value: Buffer | null, timestamp: number, _headers?: unknown, id?: string): void {
    if (key.length < SUFFIX)
      throw new RangeError(`a changelog key of window store ${this.name} has ${key.length} bytes, fewer than ${SUFFIX}`)
    this.apply(key, Number(key.readBigInt64BE(key.length - SUFFIX)), value, timestamp, id)
  }

  /** Applies a change unless its window has expired; true when applied. `id`: the key's latin1 string, if made already. */
  private apply(key: Buffer, windowStart: number, value: Buffer | null, timestamp: number, id?: string): boolean {
    this.observedStreamTime = Math.max(this.observedStreamTime, windowStart)
    const expiredBefore = this.observedStreamTime - this.retentionMs
    for (const start of this.segments.keys()) if (start <= expiredBefore) this.segments.delete(start)
    if (windowStart <= expiredBefore) return false
    id ??= key.toString('latin1')
    let segment = this.segments.get(windowStart)
    if (value === null) {
      segment?.delete(id)
      if (segment?.size === 0) this.segments.delete(windowStart)
    } else {
      if (!segment) this.segments.set(windowStart, (segment = new Map()))
      segment.set(id, { key, value, timestamp })
    }
    return true
  }

  private storeKey(key: K, windowStart: number, seqnum = 0): Buffer {
    const k = this.keySerde.serialize(this.topic, key)
    if (k === null) throw new TypeError(`store ${this.name} takes no null key`)
    const out = Buffer.alloc(k.length + SUFFIX)
    k.copy(out, 0)
    out.writeBigInt64BE(BigInt(windowStart), k.length)
    out.writeInt32BE(seqnum, k.length + 8)
    return out
  }
}
