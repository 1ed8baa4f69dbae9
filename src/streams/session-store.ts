// A session store in memory, as Java's in-memory session store: one
// aggregate per key and session [start, end], kept as its serdes' bytes,
// sessions kept while their end is within retentionMs of stream time (the
// latest session end put). Its changelog key is Java's (SessionKeySchema's
// toBinary, the same bytes as a session-windowed key): the key's bytes, the
// session's end, then its start (int64 BE each); the value is the
// aggregate's bytes, null for a removed session. Every put and remove is
// logged, as Java's change-logging layer logs them, expired or not, with the
// input record's timestamp. An aggregation's store caches as Java's
// CachingSessionStore (record-cache.ts): puts and removes written at once (so
// findSessions, and the merging built on it, sees them), logged and handed to
// the flush listener once per session at each flush of the cache.
import type { Serde } from './serdes.js'
import type { LogChange } from './key-value-store.js'
import { CachedStore, type CacheNode, type NamedCache } from './record-cache.js'
import type { RecordContext } from './topology.js'
import type { Window } from './windowed-serdes.js'

/** A cached session store's flushed change (Java's SessionCacheFlushListener): the new aggregate (null: removed) and the one flushed before. */
export type SessionFlushListener<K, V> = (key: K, window: Window, value: V | null, oldValue: V | null, context: RecordContext) => void

const SUFFIX = 16

interface Session {
  /** The changelog key. */
  id: Buffer
  start: number
  end: number
  value: Buffer
}

export interface SessionStore<K, V> {
  readonly name: string
  /** `key`'s sessions that end at or after `earliestEnd` and start at or before `latestStart`, by end (Java's findSessions). */
  findSessions(key: K, earliestEnd: number, latestStart: number): Array<{ window: Window; value: V }>
  /** `timestamp`: the changelog record's, the input record's (Java's context.timestamp()). */
  put(key: K, window: Window, value: V, timestamp: number): void
  remove(key: K, window: Window, timestamp: number): void
  /** Every session held, by end then key bytes then start. */
  all(): Array<{ key: K; window: Window; value: V }>
}

export class InMemorySessionStore<K, V> extends CachedStore<SessionFlushListener<K, V>> implements SessionStore<K, V> {
  /** Sessions by changelog key. */
  private readonly sessions = new Map<string, Session>()
  private observedStreamTime = -Infinity

  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly retentionMs: number,
    private readonly topic: string,
    protected readonly logChange: LogChange,
  ) {
    super()
  }

  findSessions(key: K, earliestEnd: number, latestStart: number): Array<{ window: Window; value: V }> {
    this.expire()
    const k = this.keyBytes(key)
    return this.inOrder()
      .filter((s) => s.end >= earliestEnd && s.start <= latestStart && sameKey(s.id, k))
      .map((s) => ({ window: { start: s.start, end: s.end }, value: this.valueSerde.deserialize(this.topic, s.value) as V }))
  }

  put(key: K, window: Window, value: V, timestamp: number): void {
    const id = this.storeKey(key, window)
    const v = this.valueSerde.serialize(this.topic, value)
    this.write(id, v, timestamp)
  }

  remove(key: K, window: Window, timestamp: number): void {
    this.write(this.storeKey(key, window), null, timestamp)
  }

  /** A put (a null value: a remove), logged at once or, caching, at the cache's flush. */
  private write(id: Buffer, v: Buffer | null, timestamp: number): void {
    const latin1 = id.toString('latin1')
    const before = this.cache ? (this.sessions.get(latin1)?.value ?? null) : null
    if (v === null) this.sessions.delete(latin1)
    else this.apply(id, v, latin1)
    // After the write: an eviction it causes flushes this change too, as Java's put-then-evict does.
    if (this.cache) this.cache.changed(latin1, id, before, v === null ? -1 : v.length, timestamp, this.context!(), v)
    else this.logChange(id, v, timestamp)
  }

  /** A session's change: its key and window out of the store key (key, end, start). */
  protected forwardFlushed(listener: SessionFlushListener<K, V>, node: CacheNode, value: Buffer | null, old: Buffer | null): void {
    const k = node.key
    listener(
      this.keySerde.deserialize(this.topic, k.subarray(0, k.length - SUFFIX)) as K,
      { start: Number(k.readBigInt64BE(k.length - 8)), end: Number(k.readBigInt64BE(k.length - SUFFIX)) },
      value === null ? null : (this.valueSerde.deserialize(this.topic, value) as V),
      old === null ? null : (this.valueSerde.deserialize(this.topic, old) as V),
      node.context,
    )
  }

  all(): Array<{ key: K; window: Window; value: V }> {
    this.expire()
    return this.inOrder().map((s) => ({
      key: this.keySerde.deserialize(this.topic, s.id.subarray(0, s.id.length - SUFFIX)) as K,
      window: { start: s.start, end: s.end },
      value: this.valueSerde.deserialize(this.topic, s.value) as V,
    }))
  }

  /** Whether the store still has this changelog key's session (what a persistent store's file keeps when compacted). @internal */
  holds(key: Buffer): boolean {
    return this.sessions.has(key.toString('latin1'))
  }

  /** A changelog record written back as it was logged (a null value removes). @internal */
  restore(key: Buffer, value: Buffer | null, _timestamp: number, _headers?: unknown, id?: string): void {
    if (key.length < SUFFIX)
      throw new RangeError(`a changelog key of session store ${this.name} has ${key.length} bytes, fewer than ${SUFFIX}`)
    this.apply(key, value, id)
  }

  /** As Java's put: a session ending within the retention is kept (a null value removes it), an older one skipped. */
  private apply(id: Buffer, value: Buffer | null, latin1 = id.toString('latin1')): void {
    const end = Number(id.readBigInt64BE(id.length - SUFFIX))
    const start = Number(id.readBigInt64BE(id.length - 8))
    this.expire()
    this.observedStreamTime = Math.max(this.observedStreamTime, end)
    if (end <= this.observedStreamTime - this.retentionMs) return
    if (value === null) this.sessions.delete(latin1)
    else this.sessions.set(latin1, { id, start, end, value })
  }

  private expire(): void {
    const minLive = Math.max(0, this.observedStreamTime - this.retentionMs + 1)
    for (const [k, s] of this.sessions) if (s.end < minLive) this.sessions.delete(k)
  }

  private inOrder(): Session[] {
    return [...this.sessions.values()].sort(
      (a, b) => a.end - b.end || Buffer.compare(a.id.subarray(0, -SUFFIX), b.id.subarray(0, -SUFFIX)) || a.start - b.start,
    )
  }

  private keyBytes(key: K): Buffer {
    const k = this.keySerde.serialize(this.topic, key)
    if (k === null) throw new TypeError(`store ${this.name} takes no null key`)
    return k
  }

  private storeKey(key: K, window: Window): Buffer {
    const k = this.keyBytes(key)
    const out = Buffer.alloc(k.length + SUFFIX)
    k.copy(out, 0)
    out.writeBigInt64BE(BigInt(window.end), k.length)
    out.writeBigInt64BE(BigInt(window.start), k.length + 8)
    return out
  }
}

function sameKey(id: Buffer, key: Buffer): boolean {
  return id.length - SUFFIX === key.length && id.subarray(0, key.length).equals(key)
}
