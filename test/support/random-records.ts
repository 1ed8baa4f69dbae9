import { Buffer } from 'node:buffer'
import type { Bytes, CompressionName } from '../../src/index.js'
import type { RecordInput } from '../../src/public/codec.js'
import type { PeerEncodeOptions } from '../../bench/peers/types.js'
import { Prng } from '../../bench/support/prng.js'

/**
 * Random record batches for interop tests: null, empty, unicode and binary
 * keys and values, repeated and null-valued headers, timestamps out of
 * order, now and then megabyte values. Header keys come partly from a small
 * pool so repeats happen, with integer-like ones among them because
 * object-keyed header APIs reorder those.
 */

export interface RandomBatchLimits {
  /** The encoder can write a batch of no records. */
  emptyBatch: boolean
  /** The encoder can write a null header value. */
  nullHeaderValues: boolean
  /** The encoder can write a chosen base offset. */
  baseOffset: boolean
}

export interface RandomBatch {
  records: RecordInput[]
  options: PeerEncodeOptions
  /** A round with a few 1 MiB values. */
  large: boolean
}

const HEADER_KEY_POOL = ['trace-id', 'content-type', 'ü', '𝄞 clef', '1', '42', '', 'k']
const MIB = 1024 * 1024

/** A valid string (no lone surrogates) mixing ASCII, Latin, CJK, astral and control characters. */
function makeText(rng: Prng, length: number): string {
  const codePoints = new Array<number>(length)
  for (let i = 0; i < length; i++) {
    const kind = rng.next()
    let cp: number
    if (kind < 0.6) cp = rng.between(0x20, 0x7e)
    else if (kind < 0.75) cp = rng.between(0xa0, 0x24f)
    else if (kind < 0.85) cp = rng.between(0x4e00, 0x9fff)
    else if (kind < 0.95) cp = rng.between(0x1f300, 0x1faff)
    else cp = rng.pick([0x00, 0x09, 0x0a, 0x1f, 0x7f, 0xfeff, 0xfffd, 0xffff, 0x10ffff])
    codePoints[i] = cp
  }
  let s = ''
  // In slices: an argument list has a size limit.
  for (let at = 0; at < length; at += 4096) s += String.fromCodePoint(...codePoints.slice(at, at + 4096))
  return s
}

// Strings are cut from one fixed block of random text: making every string
// character by character would cost more than the codecs under test.
let textPool: string | undefined

/** About `length` UTF-16 units of random text, never splitting a surrogate pair. */
export function randomString(rng: Prng, length: number): string {
  textPool ??= makeText(new Prng(0x7e47), 1 << 20)
  let start = rng.int(textPool.length - length - 1)
  if (isLowSurrogate(textPool.charCodeAt(start))) start++
  let end = start + length
  if (isLowSurrogate(textPool.charCodeAt(end))) end--
  return textPool.slice(start, Math.max(start, end))
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff
}

/** Mostly short, sometimes a few KiB, rarely tens of KiB. */
function randomLength(rng: Prng, short: number): number {
  const r = rng.next()
  if (r < 0.8) return rng.int(short + 1)
  if (r < 0.98) return rng.between(short, 4096)
  return rng.between(4096, 20000)
}

function randomBytes(rng: Prng, short: number, nullChance: number): Bytes {
  const r = rng.next()
  if (r < nullChance) return rng.chance(0.5) ? null : undefined
  if (r < nullChance + 0.05) return rng.chance(0.5) ? '' : Buffer.alloc(0)
  return rng.chance(0.4) ? randomString(rng, randomLength(rng, short)) : rng.bytes(randomLength(rng, short))
}

/** A megabyte that compresses well (text) or not at all (noise). */
function largeValue(rng: Prng): Buffer {
  if (rng.chance(0.5)) return rng.bytes(MIB)
  const line = Buffer.from(`{"seq":${rng.int(1e9)},"note":${JSON.stringify(randomString(rng, 40))}}\n`)
  const out = Buffer.alloc(MIB)
  for (let at = 0; at < MIB; at += line.length) line.copy(out, at)
  return out
}

function randomHeaders(rng: Prng, nullValues: boolean): Array<[string, Bytes]> | undefined {
  const count = rng.int(6)
  if (count === 0 && rng.chance(0.5)) return undefined
  const headers: Array<[string, Bytes]> = []
  for (let i = 0; i < count; i++) {
    const key = rng.chance(0.6) ? rng.pick(HEADER_KEY_POOL) : randomString(rng, rng.int(20))
    let value: Bytes
    const r = rng.next()
    if (r < 0.15 && nullValues) value = null
    else if (r < 0.55) value = randomString(rng, rng.int(40))
    else value = rng.bytes(rng.int(64))
    headers.push([key, value])
  }
  return headers
}

function randomBigint(rng: Prng, bits: number): bigint {
  return ((BigInt(rng.u32()) << 21n) | BigInt(rng.u32() >>> 11)) & ((1n << BigInt(bits)) - 1n)
}

export function randomBatch(seed: number, compression: CompressionName, limits: RandomBatchLimits, large: boolean): RandomBatch {
  const rng = new Prng(seed)
  const count = large ? rng.between(1, 3) : rng.between(limits.emptyBatch ? 0 : 1, 200)
  const base = 1_500_000_000_000 + rng.int(300_000_000_000)
  const records: RecordInput[] = []
  for (let i = 0; i < count; i++) {
    records.push({
      key: randomBytes(rng, 40, 0.15),
      value: large ? largeValue(rng) : randomBytes(rng, 300, 0.1),
      headers: randomHeaders(rng, limits.nullHeaderValues),
      // Out of order, so deltas go negative for encoders that keep the first record's time.
      timestamp: rng.chance(0.2) ? base : base + rng.int(2_000_000) - 1_000_000,
    })
  }
  const idempotent = rng.chance(0.6)
  const options: PeerEncodeOptions = {
    compression,
    producerId: idempotent ? randomBigint(rng, 50) : -1n,
    producerEpoch: idempotent ? rng.int(32768) : -1,
    baseSequence: idempotent ? rng.int(2 ** 31 - 201) : -1,
    transactional: idempotent && rng.chance(0.3),
  }
  if (limits.baseOffset && rng.chance(0.7)) options.baseOffset = randomBigint(rng, 52)
  return { records, options, large }
}
