import { Buffer } from 'node:buffer'
import type { Bytes, HeadersInput } from '../../src/index.js'
import type { RecordInput } from '../../src/public/codec.js'
import type { HeaderPair } from './types.js'

/** wafka's "Bytes" as a Buffer (strings as UTF-8), or null for null/undefined. */
export function toBuffer(v: Bytes): Buffer | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return Buffer.from(v, 'utf8')
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)
}

/** Like toBuffer, but leaves strings alone for libraries that write them natively. */
export function toBufferOrString(v: Bytes): Buffer | string | null {
  return typeof v === 'string' ? v : toBuffer(v)
}

export function timestampMillis(ts: RecordInput['timestamp'], now: number): number {
  if (ts === undefined || ts === null) return now
  if (typeof ts === 'number') return ts
  return ts instanceof Date ? ts.getTime() : Number(ts)
}

/** Headers in the order given, repeats kept: an object's arrays are spread in place. */
export function headerEntries(headers: HeadersInput | undefined): Array<readonly [string, Bytes]> {
  if (headers === undefined || headers === null) return []
  if (Array.isArray(headers)) return headers as Array<readonly [string, Bytes]>
  const out: Array<readonly [string, Bytes]> = []
  const object = headers as Record<string, Bytes | Bytes[]>
  for (const key of Object.keys(object)) {
    const v = object[key]
    if (Array.isArray(v)) for (const item of v) out.push([key, item])
    else if (v !== undefined) out.push([key, v])
  }
  return out
}

/** KafkaJS-shaped headers: a key seen more than once maps to an array, in first-seen order. */
export function groupHeaders<V>(pairs: ReadonlyArray<readonly [string, V]>): Record<string, V | V[]> {
  // No prototype, so a key such as "__proto__" is kept as a plain property.
  const out: Record<string, V | V[]> = Object.create(null)
  for (const [key, value] of pairs) {
    if (!(key in out)) out[key] = value
    else {
      const prev = out[key]
      if (Array.isArray(prev)) prev.push(value)
      else out[key] = [prev as V, value]
    }
  }
  return out
}

/** Back from KafkaJS-shaped headers to pairs, in the object's own key order. */
export function ungroupHeaders(object: Record<string, Buffer | null | Array<Buffer | null>>): HeaderPair[] {
  const out: HeaderPair[] = []
  for (const key of Object.keys(object)) {
    const v = object[key]
    if (Array.isArray(v)) for (const item of v) out.push([key, item])
    else out.push([key, v])
  }
  return out
}

/**
 * The order a library that keeps headers in an object puts them in: what
 * `headerOrder: 'grouped'` means, applied to pairs.
 */
export function groupedOrder<V>(pairs: ReadonlyArray<readonly [string, V]>): Array<[string, V]> {
  const grouped = groupHeaders(pairs)
  const out: Array<[string, V]> = []
  for (const key of Object.keys(grouped)) {
    const v = grouped[key]
    if (Array.isArray(v)) for (const item of v) out.push([key, item])
    else out.push([key, v as V])
  }
  return out
}
