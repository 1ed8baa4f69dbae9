import { Buffer } from 'node:buffer'
import type { RecordInput } from '../../public/codec.js'
import { Prng } from './prng.js'

/**
 * Benchmark inputs that look like what Kafka carries: JSON events with ids,
 * names, timestamps and amounts, so compressors see realistic redundancy
 * rather than noise or a repeated byte. Fixed seeds: every run and every
 * contender gets the same bytes.
 */

const EVENTS = ['page_view', 'click', 'add_to_cart', 'checkout', 'login', 'logout', 'search', 'refund']
const WORDS = ['alpha', 'bravo', 'cargo', 'delta', 'ember', 'fjord', 'gamma', 'harbor', 'indigo', 'juniper', 'kestrel', 'lumen']
const COUNTRIES = ['DE', 'US', 'BR', 'IN', 'JP', 'FR', 'NG', 'SE']

/** One JSON object of exactly `size` bytes (ASCII), padded inside a string field. */
export function jsonEvent(rng: Prng, size: number): string {
  if (size < 8) return String(rng.int(10 ** size)).padStart(size, '0')
  if (size < 60)
    return `{"v":"${rng
      .u32()
      .toString(36)
      .repeat(size)
      .slice(0, size - 8)}"}`
  let s = `{"id":${rng.int(1e9)},"user":"u${rng.int(1e6)}","event":"${rng.pick(EVENTS)}","ts":${1_700_000_000_000 + rng.int(1e9)}`
  const extras = [
    () => `,"amount":${(rng.int(100000) / 100).toFixed(2)}`,
    () => `,"country":"${rng.pick(COUNTRIES)}"`,
    () => `,"session":"${rng.u32().toString(16)}${rng.u32().toString(16)}"`,
    () => `,"tags":["${rng.pick(WORDS)}","${rng.pick(WORDS)}"]`,
    () => `,"ok":${rng.chance(0.9)}`,
  ]
  // Room for the closing `,"note":""}` (11 bytes).
  while (s.length < size - 11 - 40) s += extras[rng.int(extras.length)]()
  if (s.length > size - 11) s = `{"id":${rng.int(1e6)}`
  let note = ''
  while (note.length < size - 11 - s.length) note += `${rng.pick(WORDS)} `
  return `${s},"note":"${note.slice(0, size - 11 - s.length)}"}`
}

export type InputKind = 'buffers' | 'strings'

/** `count` records with 16-byte keys and `valueSize`-byte JSON values, as Buffers or as strings. */
export function benchRecords(count: number, valueSize: number, kind: InputKind): RecordInput[] {
  const rng = new Prng(0xbe7c4 + valueSize)
  const timestamp = 1_700_000_000_000
  const records: RecordInput[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const key = `user-${String(rng.int(1e11)).padStart(11, '0')}`
    const value = jsonEvent(rng, valueSize)
    records[i] =
      kind === 'strings'
        ? { key, value, timestamp: timestamp + i }
        : { key: Buffer.from(key), value: Buffer.from(value), timestamp: timestamp + i }
  }
  return records
}

/** The end-to-end (producer, consumer) benchmarks' messages: 16-byte keys, 100-byte JSON values. */
export const MESSAGE_KEY_BYTES = 16
export const MESSAGE_VALUE_BYTES = 100
/** Distinct pre-generated key/value pairs; message i uses pair i mod MESSAGE_POOL (a power of two). */
export const MESSAGE_POOL = 65_536

/** The MESSAGE_POOL key/value pairs, as Buffers. */
export function messagePool(): { keys: Buffer[]; values: Buffer[] } {
  const records = benchRecords(MESSAGE_POOL, MESSAGE_VALUE_BYTES, 'buffers')
  const keys = records.map((r) => r.key as Buffer)
  const values = records.map((r) => r.value as Buffer)
  if (keys[0].length !== MESSAGE_KEY_BYTES || values[0].length !== MESSAGE_VALUE_BYTES)
    throw new Error('bench data is not 16-byte keys and 100-byte values')
  return { keys, values }
}

/** `size` bytes of newline-separated JSON events of mixed sizes, like a log segment. */
export function jsonLines(size: number): Buffer {
  const rng = new Prng(0x150e1)
  const parts: string[] = []
  let length = 0
  while (length < size) {
    const line = `${jsonEvent(rng, 80 + rng.int(400))}\n`
    parts.push(line)
    length += line.length
  }
  return Buffer.from(parts.join('')).subarray(0, size)
}

/** Incompressible bytes, for the CRC. */
export function noise(size: number): Buffer {
  return new Prng(0xc3c).bytes(size)
}
