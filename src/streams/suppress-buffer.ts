// A suppression buffer, as Java's InMemoryTimeOrderedKeyValueChangeBuffer:
// per key (its serde's bytes), the latest update (new and old value, and the
// value before the first buffered update, Java's "prior"), with the context
// of the record that made it, ordered by buffer time (then key bytes) for
// eviction. A key keeps the buffer time it was first put with. Changes are
// logged when the task commits (Java logs its dirty keys at commit): a
// buffered key as Java's v3 changelog record (header `v` = 3; value: the
// record context, prior, old and new values, then the buffer time), an
// evicted one as a tombstone; the record's timestamp is the clock's, as
// Java's (it gives none). Restores read v3 records (what Java 4.4 writes);
// the older versions Java still reads are refused here, with an error.
import type { Serde } from './serdes.js'

/** Java's ProcessorRecordContext, as the buffer keeps and logs it (no headers: wafka/streams does not carry them). */
export interface BufferedContext {
  timestamp: number
  offset: bigint
  topic: string
  partition: number
}

interface BufferValue {
  prior: Buffer | null
  old: Buffer | null
  new: Buffer | null
  context: BufferedContext
}

interface Entry {
  time: number
  key: Buffer
  value: BufferValue
}

/** What an eviction hands on: the key, its update and the context it was buffered with. */
export interface Eviction<K, V> {
  key: K
  value: V | null
  oldValue: V | null
  context: BufferedContext
}

export type LogBufferChange = (key: Buffer, value: Buffer | null, headers: Array<[string, Buffer]> | undefined) => void

const V3_HEADERS: Array<[string, Buffer]> = [['v', Buffer.from([3])]]
const NULL_SENTINEL = -1
const PRIOR_SENTINEL = -2

const same = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b))

export class TimeOrderedKeyValueBuffer<K, V> {
  private readonly entries = new Map<string, Entry>()
  private readonly dirty = new Set<string>()
  private minTime = Infinity
  private bytes = 0

  constructor(
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private readonly topic: string,
    private readonly logChange: LogBufferChange,
  ) {}

  numRecords(): number {
    return this.entries.size
  }

  /** Java's estimate of the buffer's memory: what maxBytes is held to. */
  bufferSize(): number {
    return this.bytes
  }

  /** The earliest buffer time held, Infinity when empty. */
  minTimestamp(): number {
    return this.minTime
  }

  put(time: number, key: K, value: V | null, oldValue: V | null, context: BufferedContext): void {
    const k = this.keySerde.serialize(this.topic, key)
    if (k === null) throw new TypeError(`suppression buffer ${this.name} takes no null key`)
    const id = k.toString('latin1')
    const old = this.serialize(oldValue)
    const buffered = this.entries.get(id)
    this.cleanPut(time, k, { prior: buffered ? buffered.value.prior : old, old, new: this.serialize(value), context })
    this.dirty.add(id)
  }

  /** While `predicate` holds, the entry of the earliest buffer time goes to `callback` and leaves the buffer. */
  evictWhile(predicate: () => boolean, callback: (eviction: Eviction<K, V>) => void): void {
    if (!predicate()) return
    const ordered = [...this.entries.values()].sort((a, b) => a.time - b.time || Buffer.compare(a.key, b.key))
    for (let i = 0; i < ordered.length && predicate(); i++) {
      const e = ordered[i]
      callback({
        key: this.keySerde.deserialize(this.topic, e.key) as K,
        value: this.deserialize(e.value.new),
        oldValue: this.deserialize(e.value.old),
        context: e.value.context,
      })
      const id = e.key.toString('latin1')
      this.entries.delete(id)
      this.dirty.add(id)
      this.bytes -= recordSize(e.key, e.value)
      this.minTime = i + 1 < ordered.length ? ordered[i + 1].time : Infinity
    }
  }

  /** Logs each key changed since the last commit: its buffered update, or a tombstone once evicted. */
  commit(): void {
    for (const id of this.dirty) {
      const e = this.entries.get(id)
      if (e) this.logChange(e.key, encode(e), V3_HEADERS)
      else this.logChange(Buffer.from(id, 'latin1'), null, undefined)
    }
    this.dirty.clear()
  }

  /** A changelog record written back (a null value removes the key). @internal */
  restore(key: Buffer, value: Buffer | null, _timestamp: number, headers: Array<[string, Buffer | null]> = []): void {
    const id = key.toString('latin1')
    if (value === null) {
      const e = this.entries.get(id)
      if (!e) return
      this.entries.delete(id)
      this.bytes -= recordSize(e.key, e.value)
      if (e.time === this.minTime) this.minTime = [...this.entries.values()].reduce((m, x) => Math.min(m, x.time), Infinity)
      return
    }
    const version = headers.filter(([h]) => h === 'v').pop()?.[1]
    if (!version || version.length !== 1 || version[0] !== 3)
      throw new RangeError(
        `a changelog record of suppression buffer ${this.name} is not in Java's v3 format (header v=${version ? `[${[...version]}]` : 'absent'}): older Kafka Streams versions' buffers are not read`,
      )
    const { time, value: v } = decode(value, this.name)
    this.cleanPut(time, key, v)
  }

  /** Replaces a key's update, keeping the buffer time it was first put with. */
  private cleanPut(time: number, key: Buffer, value: BufferValue): void {
    // As Java's BufferValue: a prior equal to the old value is the old value (written once, counted once).
    if (same(value.prior, value.old)) value.prior = value.old
    const id = key.toString('latin1')
    const had = this.entries.get(id)
    if (had) {
      this.bytes += recordSize(key, value) - recordSize(key, had.value)
      had.value = value
      return
    }
    this.entries.set(id, { time, key, value })
    this.minTime = Math.min(this.minTime, time)
    this.bytes += recordSize(key, value)
  }

  private serialize(v: V | null): Buffer | null {
    return v === null || v === undefined ? null : this.valueSerde.serialize(this.topic, v)
  }

  private deserialize(b: Buffer | null): V | null {
    return b === null ? null : (this.valueSerde.deserialize(this.topic, b) as V)
  }
}

/** Java's computeRecordSize: 8 (the time), the key, prior, old (when not the prior), new, and the context's estimate. */
function recordSize(key: Buffer, v: BufferValue): number {
  const old = v.old !== null && v.prior !== v.old ? v.old.length : 0
  // ProcessorRecordContext.residentMemorySizeEstimate: timestamp, offset, the topic's chars, partition (no headers here).
  const context = 8 + 8 + v.context.topic.length + 4
  return 8 + key.length + (v.prior?.length ?? 0) + old + (v.new?.length ?? 0) + context
}

/** Java's BufferValue.serialize with the buffer time after it (its v3 changelog value). */
function encode(e: Entry): Buffer {
  const { prior, old, new: next, context } = e.value
  const topic = Buffer.from(context.topic, 'utf8')
  const parts: Buffer[] = []
  const head = Buffer.alloc(8 + 8 + 4)
  head.writeBigInt64BE(BigInt(context.timestamp), 0)
  head.writeBigInt64BE(context.offset, 8)
  head.writeInt32BE(topic.length, 16)
  parts.push(head, topic, int32(context.partition), int32(0))
  const sized = (b: Buffer | null) => (b === null ? parts.push(int32(NULL_SENTINEL)) : parts.push(int32(b.length), b))
  sized(prior)
  if (old === null) parts.push(int32(NULL_SENTINEL))
  else if (same(prior, old)) parts.push(int32(PRIOR_SENTINEL))
  else parts.push(int32(old.length), old)
  sized(next)
  const time = Buffer.alloc(8)
  time.writeBigInt64BE(BigInt(e.time))
  parts.push(time)
  return Buffer.concat(parts)
}

function decode(b: Buffer, store: string): { time: number; value: BufferValue } {
  let at = 0
  const need = (n: number) => {
    if (at + n > b.length) throw new RangeError(`a changelog record of suppression buffer ${store} ends early (${b.length} bytes)`)
  }
  const long = () => (need(8), (at += 8), b.readBigInt64BE(at - 8))
  const int = () => (need(4), (at += 4), b.readInt32BE(at - 4))
  const bytes = (n: number) => (need(n), (at += n), Buffer.from(b.subarray(at - n, at)))
  const nullable = (n: number) => (n === NULL_SENTINEL ? null : bytes(n))
  const timestamp = Number(long())
  const offset = long()
  const topic = bytes(int()).toString('utf8')
  const partition = int()
  const headers = int()
  // Java's own context headers (from input records' headers): read past, not kept.
  for (let i = 0; headers > 0 && i < headers; i++) {
    bytes(int())
    nullable(int())
  }
  const prior = nullable(int())
  const oldLength = int()
  const old = oldLength === PRIOR_SENTINEL ? prior : nullable(oldLength)
  const next = nullable(int())
  const time = Number(long())
  return { time, value: { prior, old, new: next, context: { timestamp, offset, topic, partition } } }
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}
