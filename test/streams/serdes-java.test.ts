// wafka/streams' serdes against Java's (kafka-clients' Serdes and Kafka
// Streams 4.4's WindowedSerdes, through test/peers/java/RigSerdes.java): for
// a table of values with the awkward ones in it, our bytes are Java's bytes,
// Java reads our bytes back to what we read, we read Java's bytes (and bytes
// neither side wrote) as Java does, and what Java refuses we refuse.
import { beforeAll, describe, expect, it } from 'vitest'
import { type Serde, SerializationError, Serdes } from '../../src/streams/serdes.js'
import { type Windowed, WindowedSerdes } from '../../src/streams/windowed-serdes.js'
import { ConfigError } from '../../src/errors.js'
import { type JavaSerde, type JavaSerdeAnswer, type JavaValue, javaSerdes } from '../peers/java-streams.js'
import { requireKafka } from '../peers/kafka.js'
import { seedFromEnv } from '../prng.js'

const WINDOW = 60_000
const T0 = 1_733_318_400_000 // a realistic epoch-ms start

interface Case {
  name: string
  ours: Serde<any>
  java: JavaSerde
  values: any[]
  /** Byte strings read by both sides: what neither wrote, wrong sizes, truncations. */
  bytes: Buffer[]
}

const w = <K>(key: K, start: number, end: number): Windowed<K> => ({ key, window: { start, end } })
const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex')
const long = (n: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigInt64BE(n)
  return b
}
const cat = (...parts: Buffer[]) => Buffer.concat(parts)

const CASES: Case[] = [
  {
    name: 'String',
    ours: Serdes.String(),
    java: 'String',
    values: [
      '',
      'hello',
      'ünïcödé',
      '日本語のテキスト',
      '😀 and 𝄞', // surrogate pairs: 4-byte UTF-8
      '\u0000 nul \u007f del \u0080',
      '\uFEFF bom',
      '\uD800', // lone high surrogate
      '\uDC00', // lone low surrogate
      'a\uD83Db', // lone high in the middle
      '\uDC00\uD800', // a pair the wrong way round: two lone ones
      '\uD83D\uDE00\uD83D', // a pair then a lone high at the end
      'x'.repeat(10_000),
      null,
    ],
    bytes: [
      Buffer.alloc(0),
      hex('c3 a9'),
      hex('f0 9f 98 80'),
      hex('ef bb bf 41'), // a BOM stays a character
      hex('ff'), // never valid
      hex('c3'), // truncated 2-byte sequence
      hex('e6 97'), // truncated 3-byte sequence
      hex('f0 9f 98'), // truncated 4-byte sequence
      hex('c0 af'), // overlong '/'
      hex('e0 80 af'), // overlong 3-byte
      hex('ed a0 80'), // an encoded surrogate (CESU-8)
      hex('ed a0 bd ed b8 80'), // a surrogate pair encoded as two 3-byte sequences
      hex('f4 90 80 80'), // past U+10FFFF
      hex('f0 80 80 ed a0 80'),
      hex('80 bf 41'), // continuation bytes with no lead
      hex('e2 82 41'), // a lead, a continuation, then ASCII
      hex('f8 88 80 80 80'), // a 5-byte form
    ],
  },
  {
    name: 'Long',
    ours: Serdes.Long(),
    java: 'Long',
    values: [0n, 1n, -1n, 255n, -256n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 1n, 1_733_318_400_000n, null],
    bytes: [hex('00 00 00 00 00 00 00 2a'), hex('ff ff ff ff ff ff ff fe'), Buffer.alloc(0), Buffer.alloc(7), Buffer.alloc(9)],
  },
  {
    name: 'Integer',
    ours: Serdes.Integer(),
    java: 'Integer',
    values: [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 65_536, -65_537, null],
    bytes: [hex('80 00 00 00'), hex('7f ff ff ff'), Buffer.alloc(0), Buffer.alloc(3), Buffer.alloc(5)],
  },
  {
    name: 'Double',
    ours: Serdes.Double(),
    java: 'Double',
    values: [
      0,
      -0,
      NaN,
      Infinity,
      -Infinity,
      Number.MIN_VALUE,
      -Number.MIN_VALUE,
      Number.MAX_VALUE,
      Math.PI,
      -1.5,
      2 ** 53 + 2,
      1e-310,
      null,
    ],
    bytes: [
      hex('7f f8 00 00 00 00 00 00'), // the canonical NaN
      hex('7f f0 00 00 00 00 00 01'), // a signalling NaN with a payload
      hex('ff f8 00 00 00 00 00 00'), // a negative quiet NaN
      hex('80 00 00 00 00 00 00 00'), // -0
      Buffer.alloc(0),
      Buffer.alloc(4),
    ],
  },
  {
    name: 'ByteArray',
    ours: Serdes.ByteArray(),
    java: 'ByteArray',
    values: [Buffer.alloc(0), hex('00'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), null],
    bytes: [Buffer.alloc(0), hex('de ad be ef')],
  },
  {
    name: 'time-windowed String',
    ours: WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), WINDOW),
    java: { windowed: 'time', inner: 'String', windowSize: WINDOW },
    values: [
      w('a', 0, WINDOW),
      w('', T0, T0 + WINDOW),
      w('ünïcödé 😀', T0 + 5 * WINDOW, T0 + 6 * WINDOW),
      w('k', Number.MAX_SAFE_INTEGER - WINDOW, Number.MAX_SAFE_INTEGER),
      null,
    ],
    bytes: [
      Buffer.alloc(0), // null, as Java reads empty bytes
      Buffer.alloc(8), // an empty key in the window from 0
      cat(Buffer.from('key'), long(BigInt(T0))),
      Buffer.alloc(7), // shorter than a timestamp
      cat(Buffer.from('neg'), long(-1n)), // a negative start: no such window
    ],
  },
  {
    name: 'time-windowed Long',
    ours: WindowedSerdes.timeWindowedSerdeFrom(Serdes.Long(), 1000),
    java: { windowed: 'time', inner: 'Long', windowSize: 1000 },
    values: [w(-1n, 5000, 6000), w(2n ** 63n - 1n, T0, T0 + 1000)],
    bytes: [cat(long(42n), long(3000n)), cat(Buffer.alloc(3), long(0n))], // an inner key of 3 bytes: Long refuses it
  },
  {
    name: 'session-windowed String',
    ours: WindowedSerdes.sessionWindowedSerdeFrom(Serdes.String()),
    java: { windowed: 'session', inner: 'String' },
    values: [w('a', 0, 0), w('user-1', 1000, 5000), w('😀', T0, T0 + 3_600_000), w('', T0, T0), null],
    bytes: [
      Buffer.alloc(0),
      Buffer.alloc(16),
      cat(Buffer.from('s'), long(20n), long(10n)), // end 20, start 10
      cat(Buffer.from('s'), long(10n), long(20n)), // end before start: no such window
      Buffer.alloc(15),
    ],
  },
  {
    name: 'session-windowed Integer',
    ours: WindowedSerdes.sessionWindowedSerdeFrom(Serdes.Integer()),
    java: { windowed: 'session', inner: 'Integer' },
    values: [w(-(2 ** 31), 7, 9), w(0, T0, T0 + 1)],
    bytes: [cat(hex('00 00 00 07'), long(9n), long(7n))],
  },
]

/** A value as JavaValue (windowed keys flattened), so tables compare with toEqual. */
function asJava(v: any): JavaValue {
  if (v === null) return null
  if (typeof v === 'object' && !Buffer.isBuffer(v)) return { key: asJava(v.key), start: v.window.start, end: v.window.end }
  return v
}

/** Ours, the same way Java answers: the bytes, the value, or the error. */
function ourAnswer(f: () => Buffer | null | unknown, op: 'serialize' | 'deserialize'): JavaSerdeAnswer | { ourError: string } {
  try {
    const r = f()
    return op === 'serialize' ? { bytes: r as Buffer | null } : { value: asJava(r) }
  } catch (e) {
    return { ourError: `${(e as Error).name}: ${(e as Error).message}` }
  }
}

/** Java's answer with its error reduced to "refused", ours likewise: what must agree is whether each side refuses. */
const outcome = (a: JavaSerdeAnswer | { ourError: string }) => ('error' in a || 'ourError' in a ? 'refused' : a)

// Object.is semantics for doubles (NaN equals NaN, -0 is not 0), as toEqual has them.
const same = (a: unknown, b: unknown) => {
  try {
    expect(a).toEqual(b)
    return true
  } catch {
    return false
  }
}

describe.skipIf(!requireKafka())("wafka/streams' serdes against Java's", () => {
  const serialized = new Map<Case, JavaSerdeAnswer[]>()
  const readBack = new Map<Case, JavaSerdeAnswer[]>()
  const readRaw = new Map<Case, JavaSerdeAnswer[]>()

  // One JVM for every request of the file.
  beforeAll(async () => {
    const requests = CASES.flatMap((c) => [
      ...c.values.map((value) => ({ op: 'serialize' as const, serde: c.java, value: asJava(value) })),
      ...c.values.map((value) => ({ op: 'deserialize' as const, serde: c.java, bytes: c.ours.serialize('rig', value) })),
      ...c.bytes.map((bytes) => ({ op: 'deserialize' as const, serde: c.java, bytes })),
    ])
    const answers = await javaSerdes(requests)
    let at = 0
    for (const c of CASES) {
      serialized.set(c, answers.slice(at, (at += c.values.length)))
      readBack.set(c, answers.slice(at, (at += c.values.length)))
      readRaw.set(c, answers.slice(at, (at += c.bytes.length)))
    }
  }, 120_000)

  it.each(CASES.map((c) => [c.name, c] as const))('%s: every value serializes to the bytes Java writes', (_name, c) => {
    const java = serialized.get(c)!
    const diffs = c.values.flatMap((v, i) => {
      const ours = c.ours.serialize('rig', v)
      const theirs = java[i]
      if ('error' in theirs) return [`${JSON.stringify(asJava(v), big)}: Java refused it (${theirs.error}: ${theirs.message})`]
      const equal =
        ours === null || !('bytes' in theirs) || theirs.bytes === null ? ours === (theirs as any).bytes : ours.equals(theirs.bytes)
      return equal
        ? []
        : [`${JSON.stringify(asJava(v), big)}: ours ${ours?.toString('hex')}, Java ${(theirs as any).bytes?.toString('hex')}`]
    })
    expect(diffs).toEqual([])
  })

  it.each(CASES.map((c) => [c.name, c] as const))('%s: Java reads our bytes back to the value we read', (_name, c) => {
    const java = readBack.get(c)!
    const diffs = c.values.flatMap((v, i) => {
      const ours = asJava(c.ours.deserialize('rig', c.ours.serialize('rig', v)))
      const theirs = java[i]
      return 'value' in theirs && same(theirs.value, ours)
        ? []
        : [`${JSON.stringify(asJava(v), big)}: we read ${JSON.stringify(ours, big)}, Java ${JSON.stringify(theirs, big)}`]
    })
    expect(diffs).toEqual([])
  })

  it('a value round-trips through our serde unchanged unless Java changes it too (lone surrogates become "?")', () => {
    const changed = CASES.flatMap((c) =>
      c.values
        .map((v) => [asJava(v), asJava(c.ours.deserialize('rig', c.ours.serialize('rig', v)))] as const)
        .filter(([a, b]) => !same(a, b))
        .map(([a, b]) => `${c.name}: ${JSON.stringify(a, big)} -> ${JSON.stringify(b, big)}`),
    )
    expect(changed).toEqual([
      'String: "\\ud800" -> "?"',
      'String: "\\udc00" -> "?"',
      'String: "a\\ud83db" -> "a?b"',
      'String: "\\udc00\\ud800" -> "??"',
      'String: "😀\\ud83d" -> "😀?"',
    ])
  })

  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: bytes neither side wrote read as Java reads them, refused where Java refuses',
    (_name, c) => {
      const java = readRaw.get(c)!
      const rows = c.bytes.map((b, i) => ({
        bytes: b.toString('hex'),
        ours: outcome(ourAnswer(() => c.ours.deserialize('rig', b), 'deserialize')),
        java: outcome(java[i]),
      }))
      const diffs = rows.filter((r) => !same(r.ours, r.java)).map((r) => JSON.stringify(r, big))
      expect(diffs).toEqual([])
      // Each refusal of ours is a SerializationError.
      for (const b of c.bytes) {
        try {
          c.ours.deserialize('rig', b)
        } catch (e) {
          expect(e, b.toString('hex')).toBeInstanceOf(SerializationError)
        }
      }
    },
  )

  it('a Java-written double reads as the same double (payload NaNs included), and ours writes NaN as Java does', () => {
    const c = CASES.find((x) => x.name === 'Double')!
    const java = readRaw.get(c)!
    c.bytes.forEach((b, i) => {
      const theirs = java[i]
      if ('value' in theirs) {
        const ours = c.ours.deserialize('rig', b)
        expect(ours).toEqual(theirs.value)
        // What Java writes for any NaN is 0x7ff8000000000000 (doubleToLongBits).
        if (Number.isNaN(ours)) expect(c.ours.serialize('rig', ours)!.toString('hex')).toBe('7ff8000000000000')
      }
    })
  })

  it('malformed UTF-8 reads as Java reads it: every string of up to 3 bytes from an alphabet of boundary bytes, and random longer ones', async () => {
    // Bytes at the edges of UTF-8's ranges: ASCII, continuations, each kind of lead, the never-valid ones.
    const alphabet = [
      0x00, 0x41, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xf8, 0xff,
    ]
    const inputs: Buffer[] = []
    for (const a of alphabet) {
      inputs.push(Buffer.from([a]))
      for (const b of alphabet) {
        inputs.push(Buffer.from([a, b]))
        for (const c of alphabet) inputs.push(Buffer.from([a, b, c]))
      }
    }
    const seed = seedFromEnv('WAFKA_UTF8_SEED')
    let x = seed
    const next = () => {
      // mulberry32
      x = (x + 0x6d2b79f5) >>> 0
      let t = Math.imul(x ^ (x >>> 15), 1 | x)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
    }
    for (let i = 0; i < 3000; i++) {
      inputs.push(Buffer.from(Array.from({ length: 4 + Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)])))
    }
    const java = await javaSerdes(inputs.map((bytes) => ({ op: 'deserialize', serde: 'String', bytes })))
    const string = Serdes.String()
    const diffs = inputs
      .map((b, i) => ({ bytes: b.toString('hex'), ours: string.deserialize('t', b), java: (java[i] as { value: string }).value }))
      .filter((r) => r.ours !== r.java)
    expect(diffs.slice(0, 10), `seed ${seed} (WAFKA_UTF8_SEED replays it); ${diffs.length} of ${inputs.length} differ`).toEqual([])
  }, 120_000)

  it('a windowed key whose inner serde writes null, or a window Java cannot hold, is refused on both sides', async () => {
    const time = WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), WINDOW)
    const session = WindowedSerdes.sessionWindowedSerdeFrom(Serdes.String())
    const timeJ: JavaSerde = { windowed: 'time', inner: 'String', windowSize: WINDOW }
    const sessionJ: JavaSerde = { windowed: 'session', inner: 'String' }
    const cases: Array<[Serde<any>, JavaSerde, Windowed<string | null>]> = [
      [time, timeJ, w(null, 0, WINDOW)],
      [session, sessionJ, w(null, 0, 10)],
      [time, timeJ, w('k', -WINDOW, 0)],
      [session, sessionJ, w('k', -5, 10)],
      [session, sessionJ, w('k', 10, 5)],
    ]
    const java = await javaSerdes(cases.map(([, serde, value]) => ({ op: 'serialize', serde, value: asJava(value) })))
    expect(java.map((a) => ('error' in a ? 'refused' : a))).toEqual(cases.map(() => 'refused'))
    for (const [ours, , value] of cases) expect(() => ours.serialize('rig', value)).toThrow(SerializationError)
  }, 60_000)
})

describe('values no Java type holds', () => {
  it('Serdes.Integer refuses fractions and values past int32; Serdes.Long refuses numbers and values past int64', () => {
    for (const v of [1.5, 2 ** 31, -(2 ** 31) - 1, NaN, Infinity])
      expect(() => Serdes.Integer().serialize('t', v)).toThrow(SerializationError)
    for (const v of [2n ** 63n, -(2n ** 63n) - 1n]) expect(() => Serdes.Long().serialize('t', v)).toThrow(/past int64/)
    expect(() => Serdes.Long().serialize('t', 5 as unknown as bigint)).toThrow(/takes a bigint/)
  })

  it('a time-windowed serde needs a positive integer window size', () => {
    for (const size of [0, -1, 1.5, NaN]) expect(() => WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), size)).toThrow(ConfigError)
  })

  it('window timestamps past 2^53 are refused, not rounded', () => {
    const session = WindowedSerdes.sessionWindowedSerdeFrom(Serdes.String())
    expect(() => session.serialize('t', w('k', 0, 2 ** 53))).toThrow(SerializationError)
    expect(() => session.deserialize('t', cat(Buffer.from('k'), long(2n ** 60n), long(0n)))).toThrow(SerializationError)
  })
})

/** JSON.stringify's replacer for bigints and Buffers. */
function big(_k: string, v: unknown) {
  return typeof v === 'bigint' ? `${v}n` : v
}
