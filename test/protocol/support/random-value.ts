import { Buffer } from 'node:buffer'
import type { Prng } from '../../../bench/support/prng.js'
import { inVersions, type Field, type Message, type Struct } from './spec.js'

/**
 * A random value for a message at one version, from the spec alone: `input`
 * is what a caller hands the encoder (some fields left out, absent-but-
 * ignorable fields set to junk that must be dropped, bytes sometimes in
 * pieces, unknown tagged fields), `expected` is what decoding must give back
 * (every field, those the version lacks at their defaults).
 */
export interface Generated {
  input: any
  expected: any
}

export interface RandomOptions {
  /** Add unknown tagged fields to structs in flexible versions. */
  unknownTags?: boolean
  /** Longest array generated; nested arrays are shorter. */
  maxItems?: number
}

const CHARS = ['a', 'b', 'z', 'A', '0', '-', '.', '_', ' ', 'é', 'ß', '日', '本', '🙂', '\u0000']
const UNKNOWN_TAG_CANDIDATES = [0, 1, 2, 3, 4, 5, 7, 11, 42, 127, 128, 300]

export function randomMessage(msg: Message, version: number, prng: Prng, options: RandomOptions = {}): Generated {
  return randomStruct(msg, msg.root, version, prng, 0, { unknownTags: true, maxItems: 3, ...options })
}

function randomStruct(msg: Message, struct: Struct, version: number, prng: Prng, depth: number, o: RandomOptions): Generated {
  const input: any = {}
  const expected: any = {}
  for (const f of struct.fields) {
    if (inVersions(f.versions, version)) {
      if (f.tag !== null && prng.chance(0.4)) {
        // A tagged field at its default is not written, and reads back as the default.
        expected[f.camel] = defaultValue(f)
        if (prng.chance(0.5)) input[f.camel] = defaultValue(f)
        continue
      }
      if (prng.chance(0.05) && (defaultValue(f) !== null || nullableAt(f, version))) {
        // Left out: written as the default (not a null default the version cannot write: ShareFetch's Records).
        expected[f.camel] = defaultValue(f)
        continue
      }
      const g = randomField(msg, f, version, prng, depth, o)
      input[f.camel] = g.input
      expected[f.camel] = g.expected
    } else {
      expected[f.camel] = defaultValue(f)
      if (f.ignorable && prng.chance(0.5)) input[f.camel] = randomField(msg, f, version, prng, depth, o).input
      else if (prng.chance(0.3)) input[f.camel] = defaultValue(f)
    }
  }
  if (o.unknownTags && version >= msg.flexibleFrom && prng.chance(0.3)) {
    const known = new Set(struct.fields.filter((f) => f.tag !== null && inVersions(f.versions, version)).map((f) => f.tag))
    const tags = UNKNOWN_TAG_CANDIDATES.filter((t) => !known.has(t) && prng.chance(0.2))
    if (tags.length > 0) {
      const unknown = tags.map((t): [number, Buffer] => [t, prng.bytes(prng.chance(0.1) ? 200 : prng.int(9))])
      input._unknownTags = unknown
      expected._unknownTags = unknown
    }
  }
  return { input, expected }
}

function nullableAt(f: Field, version: number): boolean {
  return inVersions(f.nullable, version)
}

function randomField(msg: Message, f: Field, version: number, prng: Prng, depth: number, o: RandomOptions): Generated {
  if (nullableAt(f, version) && prng.chance(0.2)) return { input: null, expected: null }
  if (f.array) {
    const n = prng.int((o.maxItems ?? 3) + 1 - Math.min(depth, 2))
    const items = Array.from({ length: Math.max(0, n) }, () =>
      f.struct ? randomStruct(msg, f.struct, version, prng, depth + 1, o) : randomScalar(f.type, prng),
    )
    return { input: items.map((g) => g.input), expected: items.map((g) => g.expected) }
  }
  if (f.struct) return randomStruct(msg, f.struct, version, prng, depth + 1, o)
  return randomScalar(f.type, prng)
}

export function randomScalar(type: string, prng: Prng): Generated {
  const same = (v: unknown): Generated => ({ input: v, expected: v })
  switch (type) {
    case 'bool':
      return same(prng.chance(0.5))
    case 'int8':
      return same(prng.between(-128, 127))
    case 'int16':
      return same(prng.between(-32768, 32767))
    case 'int32':
      return same(prng.pick([0, -1, 2147483647, -2147483648, prng.u32() | 0, prng.int(1000)]))
    case 'uint16':
      return same(prng.int(65536))
    case 'uint32':
      return same(prng.u32())
    case 'int64':
      return same(prng.pick([0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), BigInt.asIntN(64, (BigInt(prng.u32()) << 32n) | BigInt(prng.u32()))]))
    case 'float64':
      return same(prng.pick([0, -1.5, Math.PI, 1e300, -Infinity, (prng.next() - 0.5) * 1e9]))
    case 'uuid':
      return same(prng.bytes(16).toString('base64url'))
    case 'string': {
      let s = ''
      for (let n = prng.int(prng.chance(0.05) ? 300 : 13); n > 0; n--) s += prng.pick(CHARS)
      return same(s)
    }
    case 'bytes':
    case 'records': {
      const bytes = prng.bytes(prng.int(prng.chance(0.05) ? 500 : 20))
      if (prng.chance(0.25)) {
        // In pieces, written back to back.
        const cut = prng.int(bytes.length + 1)
        return { input: [bytes.subarray(0, cut), bytes.subarray(cut)], expected: bytes }
      }
      return same(bytes)
    }
  }
  throw new Error(`no random value for ${type}`)
}

/** A field's default, in decoded form. */
export function defaultValue(f: Field): unknown {
  const d = f.default
  if (d === 'empty') return f.array ? [] : Buffer.alloc(0)
  if (d === 'struct') return defaultStruct(f.struct!)
  return d
}

export function defaultStruct(s: Struct): any {
  return Object.fromEntries(s.fields.map((f) => [f.camel, defaultValue(f)]))
}
