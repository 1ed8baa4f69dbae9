// Java's record cache (ThreadCache split into one NamedCache per store of a
// task): the keys a caching store touched, least recently used first, and
// which of them changed since the last flush. Key-value, window and session
// stores cache through it alike (Java's CachingKeyValueStore,
// CachingWindowStore, CachingSessionStore). The store keeps the values
// (it writes them at once, so its reads and range reads see them, as Java's
// MergedSortedCache iterators merge the cache over the store); the cache
// decides when a change leaves the store: at a flush (each commit) or when
// the thread's cache outgrows its bound and a changed key is evicted, which
// flushes every change of that store, the evicted key's first (as Java's
// NamedCache.evict). A flush hands over each changed key once, whatever the
// number of updates since the last one.
import type { RecordContext } from './topology.js'

/** A key the cache holds. */
export interface CacheNode {
  /** The key's bytes as a latin1 string (the store's map key). */
  readonly id: string
  readonly key: Buffer
  /** The value the store held at the last flush (null: none): the changelog's and downstream's old value. */
  flushed: Buffer | null
  /** Changed since the last flush. */
  dirty: boolean
  /** Its last change deleted it. */
  deleted: boolean
  /** Its latest value (null: deleted): what a flush writes, though a window or session store may have expired it since. */
  value: Buffer | null
  /** The timestamp of its last change. */
  timestamp: number
  /** The record whose processing made the last change (forwarded in its context, as Java's LRUCacheEntry). */
  context: RecordContext
  /** Java's estimate of what the entry costs (LRUNode.size). */
  size: number
}

/** Java's NamedCache.LRUNode.size with an LRUCacheEntry of a timestamped value: key, value and timestamp, record context, 25 bytes of the node. */
const nodeSize = (key: Buffer, valueBytes: number, topic: string): number => key.length + valueBytes + 8 + 1 + 20 + topic.length + 24

/** One stream thread's cache: its bound is shared by every store of its tasks (Java's ThreadCache). */
export class ThreadCache {
  /** Bytes held by all named caches. */
  sizeBytes = 0

  constructor(readonly maxBytes: number) {}

  /**
   * The cache of one store of one task; `flush` writes its changed keys on (the store's flush listener).
   * `keyOverhead`: bytes Java's cache key adds to the store key (8, the segment id, for window and session stores).
   */
  named(name: string, flush: (dirty: CacheNode[]) => void, keyOverhead = 0): NamedCache {
    return new NamedCache(name, this, flush, keyOverhead)
  }

  /** After `cache` grew: its least recently used keys go until the thread is within bounds (Java evicts only from the cache written to). */
  maybeEvict(cache: NamedCache): void {
    while (this.sizeBytes > this.maxBytes && !cache.isEmpty()) cache.evict()
  }
}

export class NamedCache {
  /** Least recently used first (a Map keeps insertion order; a touch re-inserts). */
  private readonly nodes = new Map<string, CacheNode>()
  /** Changed keys, least recently changed first (Java's LinkedHashSet, re-added on each change). */
  private readonly dirty = new Set<CacheNode>()
  private sizeBytes = 0
  private closed = false

  constructor(
    readonly name: string,
    private readonly thread: ThreadCache,
    private readonly flushListener: (dirty: CacheNode[]) => void,
    private readonly keyOverhead = 0,
  ) {}

  isEmpty(): boolean {
    return this.nodes.size === 0
  }

  hasDirty(): boolean {
    return this.dirty.size > 0
  }

  /** A read of the store found this key's value (`valueBytes` long): the key becomes the most recently used. */
  touch(id: string, key: Buffer, valueBytes: number, context: RecordContext): void {
    if (this.closed) return
    const node = this.nodes.get(id)
    if (node !== undefined) {
      this.nodes.delete(id)
      this.nodes.set(id, node)
      return
    }
    const size = nodeSize(key, valueBytes, context.topic) + this.keyOverhead
    const fresh: CacheNode = { id, key, flushed: null, value: null, dirty: false, deleted: false, timestamp: -1, context, size }
    this.nodes.set(id, fresh)
    this.grow(size)
    this.thread.maybeEvict(this)
  }

  /**
   * The store changed this key (value `valueBytes` long, -1: deleted); `before` is what it held just before,
   * the old value to flush if the key was clean; `value` the new one. May evict, and so flush.
   */
  changed(
    id: string,
    key: Buffer,
    before: Buffer | null,
    valueBytes: number,
    timestamp: number,
    context: RecordContext,
    value: Buffer | null = null,
  ): void {
    if (this.closed) return
    const size = nodeSize(key, valueBytes < 0 ? 0 : valueBytes, context.topic) + this.keyOverhead
    let node = this.nodes.get(id)
    if (node === undefined) {
      node = { id, key, flushed: before, value, dirty: true, deleted: valueBytes < 0, timestamp, context, size }
      this.nodes.set(id, node)
      this.grow(size)
    } else {
      if (!node.dirty) node.flushed = before
      node.dirty = true
      node.value = value
      node.deleted = valueBytes < 0
      node.timestamp = timestamp
      node.context = context
      this.grow(size - node.size)
      node.size = size
      this.nodes.delete(id)
      this.nodes.set(id, node)
    }
    this.dirty.delete(node)
    this.dirty.add(node)
    this.thread.maybeEvict(this)
  }

  /** Every changed key to the listener, least recently changed first; deleted keys leave the cache. */
  flush(): void {
    this.flushWith(undefined)
  }

  /** Java's NamedCache.evict: the least recently used key goes; if it had changed, every change is flushed, its own first. */
  evict(): void {
    const first = this.nodes.values().next()
    if (first.done === true) return
    const eldest = first.value
    this.nodes.delete(eldest.id)
    this.grow(-eldest.size)
    if (eldest.dirty) this.flushWith(eldest)
  }

  /** The task closed: the cache's keys leave the thread's bound (nothing is flushed: a clean close flushed before). */
  close(): void {
    this.closed = true
    this.grow(-this.sizeBytes)
    this.nodes.clear()
    this.dirty.clear()
  }

  private flushWith(evicted: CacheNode | undefined): void {
    if (this.dirty.size === 0) return
    const entries: CacheNode[] = []
    if (evicted !== undefined) {
      entries.push(evicted)
      this.dirty.delete(evicted)
    }
    for (const node of this.dirty) entries.push(node)
    this.dirty.clear()
    for (const node of entries) node.dirty = false
    this.flushListener(entries)
    for (const node of entries)
      if (node.deleted && node !== evicted && !node.dirty && this.nodes.get(node.id) === node) {
        this.nodes.delete(node.id)
        this.grow(-node.size)
      }
  }

  private grow(delta: number): void {
    this.sizeBytes += delta
    this.thread.sizeBytes += delta
  }
}

/** A store that can sit behind the record cache (key-value, window, session): what a task does with it. */
export interface CachingStore {
  /** Its cache's flush listener: each changed key to the changelog, and to the store's own listener if one is set. */
  readonly flushed: (nodes: CacheNode[]) => void
  enableCaching(cache: NamedCache, context: () => RecordContext): void
  readonly cacheDirty: boolean
  flushCache(): void
  closeCache(): void
}

/**
 * What the key-value, window and session stores share behind the cache:
 * the cache once enabled, the record in hand, and the listener `L` their
 * writer sets for the flushed changes (Java's setFlushListener).
 */
export abstract class CachedStore<L> implements CachingStore {
  protected cache: NamedCache | undefined
  /** The record in hand, for the cache's entries. */
  protected context: (() => RecordContext) | undefined
  protected flushListener: L | undefined

  /** Where a change goes to the changelog. */
  protected abstract readonly logChange: (key: Buffer, value: Buffer | null, timestamp: number) => void

  /** The cache was flushed: each changed entry's latest value to the changelog, and to the listener with the one flushed before. */
  readonly flushed = (nodes: CacheNode[]): void => {
    for (const node of nodes) {
      const value = this.latest(node)
      const old = node.flushed
      node.flushed = value
      // Created and deleted since the last flush: Java forwards nothing, and with a listener logs nothing either
      // (without one, as a Processor API store, it writes through and logs the tombstone).
      if (value === null && old === null && this.flushListener) continue
      this.logChange(node.key, value, node.timestamp)
      if (this.flushListener) this.forwardFlushed(this.flushListener, node, value, old)
    }
  }

  /** A changed entry's value to flush: the cache's (it outlives a window the store has since expired). */
  protected latest(node: CacheNode): Buffer | null {
    return node.value
  }

  /** Hands a flushed change to the listener, deserialized as the store's kind has it. */
  protected abstract forwardFlushed(listener: L, node: CacheNode, value: Buffer | null, old: Buffer | null): void

  /** The store caches from here on (an active task's store with caching enabled); `context` gives the record in hand. @internal */
  enableCaching(cache: NamedCache, context: () => RecordContext): void {
    this.cache = cache
    this.context = context
  }

  /** Who takes the flushed changes; false when the store does not cache, and its writer forwards itself. @internal */
  setFlushListener(listener: L): boolean {
    if (!this.cache) return false
    this.flushListener = listener
    return true
  }

  /** Whether the cache holds changes not flushed yet. @internal */
  get cacheDirty(): boolean {
    return this.cache?.hasDirty() ?? false
  }

  /** Writes the cached changes on (a commit, a clean close, a revoke). @internal */
  flushCache(): void {
    this.cache?.flush()
  }

  /** The task closed: the cache's bytes are given back (a dirty close drops its changes, as the task's state is dropped). @internal */
  closeCache(): void {
    this.cache?.close()
    this.cache = undefined
    this.flushListener = undefined
  }
}
