// Windowed keys in the bytes Java Kafka Streams writes to output topics
// (TimeWindowedSerializer and SessionWindowedSerializer), so a windowed
// table's output is readable on both sides:
//   time window:    inner key bytes, start (int64 BE)              — the end is start + the window size
//   session window: inner key bytes, end (int64 BE), start (int64 BE)
// Sessions put the end first: Java's session store ranges over keys by end
// time, and its output format is the store's key format. Empty bytes read as
// null, as Java's windowed deserializers do.
import { ConfigError } from '../errors.js'
import { type Serde, SerializationError } from './serdes.js'

/** A window's bounds in epoch milliseconds: [start, end) for time windows, [start, end] for sessions. */
export interface Window {
  readonly start: number
  readonly end: number
}

/** A key of a windowed aggregation: the grouping key and the window it counts in. */
export interface Windowed<K> {
  readonly key: K
  readonly window: Window
}

/**
 * A windowed key's serde, as Java's WindowedSerializer: it also writes the
 * inner key alone, which a sink partitions by (Java's
 * WindowedStreamPartitioner), so every window of a key goes to one partition.
 */
export interface WindowedSerde<K> extends Serde<Windowed<K>> {
  serializeBaseKey(topic: string, data: Windowed<K>): Buffer
}

export const isWindowedSerde = (s: Serde<any>): s is WindowedSerde<any> => typeof (s as WindowedSerde<any>).serializeBaseKey === 'function'

const TIMESTAMP_SIZE = 8
const MAX_MS = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * Java's Window refuses a negative start and an end before the start, so
 * no such key exists there: refused both ways here too. Timestamps are
 * numbers of milliseconds; past 2^53 a number no longer holds one exactly.
 */
function checkWindow(start: number, end: number, where: string): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) {
    throw new SerializationError(`a window's start and end must be integers of milliseconds below 2^53, got [${start}, ${end}] ${where}`)
  }
  if (start < 0) throw new SerializationError(`a window cannot start before 0, got ${start} ${where}`)
  if (end < start) throw new SerializationError(`a window cannot end (${end}) before it starts (${start}) ${where}`)
}

function toMs(long: bigint): number {
  // Out of range: a value checkWindow refuses, without losing its sign.
  return long > MAX_MS ? Infinity : long < -MAX_MS ? -Infinity : Number(long)
}

function innerBytes<K>(inner: Serde<K>, topic: string, data: Windowed<K>): Buffer {
  const bytes = inner.serialize(topic, data.key)
  // Java's windowed serializers fail the same way on a key its serde turns into null.
  if (bytes === null) throw new SerializationError(`a windowed key needs a non-null key; its serde wrote null for ${topic}`)
  return bytes
}

function keyOf<K>(inner: Serde<K>, topic: string, bytes: Buffer, trailer: number, kind: string): K {
  if (bytes.length < trailer) {
    throw new SerializationError(`${kind} needs at least ${trailer} bytes, the record in ${topic} has ${bytes.length}`)
  }
  return inner.deserialize(topic, bytes.subarray(0, bytes.length - trailer)) as K
}

export const WindowedSerdes = {
  /**
   * Keys of tumbling or hopping windows of `windowSizeMs`: the inner key's
   * bytes and the window start. The size is not written; reading computes
   * end = start + windowSizeMs, as Java's TimeWindowedDeserializer does.
   */
  timeWindowedSerdeFrom<K>(inner: Serde<K>, windowSizeMs: number): WindowedSerde<K> {
    if (!Number.isSafeInteger(windowSizeMs) || windowSizeMs <= 0) {
      throw new ConfigError(`timeWindowedSerdeFrom: windowSizeMs must be a positive integer, got ${windowSizeMs}`)
    }
    const kind = 'a time-windowed key'
    return {
      serializeBaseKey: (topic, data) => innerBytes(inner, topic, data),
      serialize(topic, data) {
        if (data === null) return null
        checkWindow(data.window.start, data.window.start + windowSizeMs, `for ${topic}`)
        const key = innerBytes(inner, topic, data)
        const out = Buffer.allocUnsafe(key.length + TIMESTAMP_SIZE)
        key.copy(out, 0)
        out.writeBigInt64BE(BigInt(data.window.start), key.length)
        return out
      },
      deserialize(topic, bytes) {
        if (bytes === null || bytes.length === 0) return null
        const key = keyOf(inner, topic, bytes, TIMESTAMP_SIZE, kind)
        const start = toMs(bytes.readBigInt64BE(bytes.length - TIMESTAMP_SIZE))
        const end = start + windowSizeMs
        checkWindow(start, end, `in a record of ${topic}`)
        return { key, window: { start, end } }
      },
    }
  },

  /** Keys of session windows: the inner key's bytes, then the session's end and start. */
  sessionWindowedSerdeFrom<K>(inner: Serde<K>): WindowedSerde<K> {
    const kind = 'a session-windowed key'
    return {
      serializeBaseKey: (topic, data) => innerBytes(inner, topic, data),
      serialize(topic, data) {
        if (data === null) return null
        checkWindow(data.window.start, data.window.end, `for ${topic}`)
        const key = innerBytes(inner, topic, data)
        const out = Buffer.allocUnsafe(key.length + 2 * TIMESTAMP_SIZE)
        key.copy(out, 0)
        out.writeBigInt64BE(BigInt(data.window.end), key.length)
        out.writeBigInt64BE(BigInt(data.window.start), key.length + TIMESTAMP_SIZE)
        return out
      },
      deserialize(topic, bytes) {
        if (bytes === null || bytes.length === 0) return null
        const key = keyOf(inner, topic, bytes, 2 * TIMESTAMP_SIZE, kind)
        const end = toMs(bytes.readBigInt64BE(bytes.length - 2 * TIMESTAMP_SIZE))
        const start = toMs(bytes.readBigInt64BE(bytes.length - TIMESTAMP_SIZE))
        checkWindow(start, end, `in a record of ${topic}`)
        return { key, window: { start, end } }
      },
    }
  },
} as const
