import { execFileSync, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { lz4CompressFrame, lz4DecompressFrame } from '../src/codec/lz4.js'
import * as S from '../src/codec/status.js'
import { arena, memU8, wasm } from '../src/codec/wasm.js'
import { CorruptRecordError } from '../src/errors.js'
import { Prng } from '../bench/support/prng.js'
import { seedFromEnv } from './prng.js'

// Peer: lz4-napi (Rust lz4_flex): frames (independent blocks, optional
// checksums) and raw blocks behind a 4-byte little-endian size. The lz4 CLI,
// where installed, adds linked blocks, content size and block sizes 5-7.
const require = createRequire(import.meta.url)
const napi = require('lz4-napi') as {
  compressFrameSync(b: Buffer, o?: { contentChecksum?: boolean; blockChecksums?: boolean }): Buffer
  decompressFrameSync(b: Buffer): Buffer
  compressSync(b: Buffer): Buffer
  uncompressSync(b: Uint8Array): Buffer
}
// Under CI the reference CLI must be there (.ci/run installs it): the interop tests run, and fail without it.
const hasLz4Cli = !!process.env.CI || spawnSync('lz4', ['--version']).status === 0

type Rnd = Prng
const MAGIC = [0x04, 0x22, 0x4d, 0x18]
const KAFKA_HEADER = [...MAGIC, 0x60, 0x40, 0x82]

// ---- helpers over the raw exports ----------------------------------------

function xxh32(data: Uint8Array, seed = 0): number {
  arena.reset()
  const p = arena.alloc(data.length)
  memU8().set(data, p)
  return wasm.xxh32(p, data.length, seed) >>> 0
}

function blockCompress(data: Uint8Array): Uint8Array {
  const bound = wasm.lz4BlockBound(data.length)
  arena.reset()
  const src = arena.alloc(data.length)
  const dst = arena.alloc(bound)
  memU8().set(data, src)
  const n = wasm.lz4CompressBlock(src, data.length, dst, bound)
  if (n < 0) throw new Error(`lz4CompressBlock: ${n}`)
  return memU8().slice(dst, dst + n)
}

const GUARD = 64

/** Runs a decoder export on data with dstCap; the bytes, or the status. Fails if anything past dstCap changed. */
function guarded(fn: (src: number, n: number, dst: number, cap: number) => number, data: Uint8Array, cap: number): Uint8Array | number {
  arena.reset()
  const src = arena.alloc(data.length)
  const dst = arena.alloc(cap + GUARD)
  const mem = memU8()
  mem.set(data, src)
  mem.fill(0xa5, dst + cap, dst + cap + GUARD)
  const n = fn(src, data.length, dst, cap)
  for (let i = cap; i < cap + GUARD; i++) if (mem[dst + i] !== 0xa5) throw new Error(`wrote past dstCap (${cap})`)
  if (n > cap) throw new Error(`returned ${n} > dstCap ${cap}`)
  return n < 0 ? n : mem.slice(dst, dst + n)
}

const blockDecode = (data: Uint8Array, cap: number) => guarded((s, n, d, c) => wasm.lz4DecompressBlock(s, n, d, c), data, cap)
const frameDecode = (data: Uint8Array, cap: number, legacy = false) =>
  guarded((s, n, d, c) => wasm.lz4DecompressFrame(s, n, d, c, legacy), data, cap)

function same(a: Uint8Array | number, b: Uint8Array): boolean {
  if (typeof a === 'number') return false
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
}

function concat(...parts: ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

const le32 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255]

interface FrameSpec {
  blocks: { data: Uint8Array; raw?: boolean }[]
  linked?: boolean
  blockChecksums?: boolean
  contentSize?: number
  contentChecksum?: number
  bd?: number
  flgExtra?: number
  hc?: number
}

/** Builds a frame by hand, with a correct header checksum unless `hc` is given. */
function buildFrame(spec: FrameSpec): Uint8Array {
  let flg = 0x40 | (spec.linked ? 0 : 0x20) | (spec.flgExtra ?? 0)
  if (spec.blockChecksums) flg |= 0x10
  if (spec.contentSize !== undefined) flg |= 0x08
  if (spec.contentChecksum !== undefined) flg |= 0x04
  const desc = [flg, spec.bd ?? 0x40]
  if (spec.contentSize !== undefined) desc.push(...le32(spec.contentSize), 0, 0, 0, 0)
  const hc = spec.hc ?? (xxh32(Uint8Array.from(desc)) >>> 8) & 0xff
  const parts: ArrayLike<number>[] = [MAGIC, desc, [hc]]
  for (const b of spec.blocks) {
    parts.push(le32((b.data.length | (b.raw ? 0x80000000 : 0)) >>> 0), b.data)
    if (spec.blockChecksums) parts.push(le32(xxh32(b.data)))
  }
  parts.push([0, 0, 0, 0])
  if (spec.contentChecksum !== undefined) parts.push(le32(spec.contentChecksum))
  return concat(...parts)
}

/** Splits a frame into its header fields and blocks (no validation: test input only). */
function parseFrame(f: Uint8Array): { flg: number; bd: number; blocks: { size: number; raw: boolean; data: Uint8Array }[] } {
  const flg = f[4]
  let p = flg & 0x08 ? 15 : 7
  const blocks = []
  for (;;) {
    const w = (f[p] | (f[p + 1] << 8) | (f[p + 2] << 16) | (f[p + 3] << 24)) >>> 0
    p += 4
    if (w === 0) break
    const size = w & 0x7fffffff
    blocks.push({ size, raw: w >>> 31 === 1, data: f.subarray(p, p + size) })
    p += size + (flg & 0x10 ? 4 : 0)
  }
  return { flg, bd: f[5], blocks }
}

function thrown(f: () => unknown): unknown {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}

function expectReason(f: () => unknown, reason: string): void {
  const e = thrown(f)
  expect(e).toBeInstanceOf(CorruptRecordError)
  expect((e as CorruptRecordError).reason).toBe(reason)
}

// ---- data ------------------------------------------------------------------

function randomBytes(n: number, r: Rnd): Uint8Array {
  const a = new Uint8Array(n)
  for (let i = 0; i < n; i++) a[i] = r.int(256)
  return a
}

// Kafka-ish payload: JSON records back to back.
function jsonRecords(n: number, r: Rnd): Uint8Array {
  const events = ['click', 'view', 'purchase', 'scroll', 'signup', 'logout']
  const parts: string[] = []
  let len = 0
  for (let i = 0; len < n; i++) {
    const s = JSON.stringify({
      id: 100000 + i,
      user: `user_${r.int(5000)}`,
      event: r.pick(events),
      ts: 1700000000000 + r.int(1e6),
      page: `/p/${r.int(10000)}`,
      ok: r.chance(0.9),
    })
    parts.push(s)
    len += s.length
  }
  return new TextEncoder().encode(parts.join('')).subarray(0, n)
}

// Four symbols: many short matches.
function lowEntropy(n: number, r: Rnd): Uint8Array {
  const a = new Uint8Array(n)
  for (let i = 0; i < n; i++) a[i] = 97 + r.int(4)
  return a
}

// Short periods exercise the overlapping match copies (offsets 1..20).
function periodic(n: number, r: Rnd): Uint8Array {
  const a = new Uint8Array(n)
  let i = 0
  while (i < n) {
    const p = 1 + r.int(20)
    const run = Math.min(n - i, 1 + r.int(400))
    for (let k = 0; k < run; k++) a[i + k] = k < p ? r.int(256) : a[i + k - p]
    i += run
  }
  return a
}

const kinds: Record<string, (n: number, r: Rnd) => Uint8Array> = {
  random: randomBytes,
  json: jsonRecords,
  lowEntropy,
  periodic,
  zeros: (n) => new Uint8Array(n),
}

const sizes = [
  0,
  1,
  2,
  3,
  4,
  5,
  11,
  12,
  13,
  14,
  15,
  16,
  17,
  18,
  19,
  20,
  31,
  32,
  33,
  48,
  63,
  64,
  65,
  100,
  255,
  256,
  270,
  1000,
  4095,
  4096,
  65535,
  65536,
  65537,
  100_000,
  131_072,
  131_073,
  300_000,
  1 << 20,
]

// Made with the reference lz4 CLI (v1.9.4, `lz4 -BD -B4 --content-size -BX`):
// linked 64 KiB blocks, block checksums, content size and content checksum.
// The content is linkedFixtureContent().
const LINKED_FIXTURE =
  'BCJNGFxA4CICAAAAAABPuwUAAP//////pWFienNua21nb3NnZXRuZmpobmh6Z3dlZGVob3RieG9xcnpxeHZiZWpsYWN0amxteXNy' +
  'aWpkZHhpZXFpYnJ4b3ZyeGRucXh5dnB6em92YW5pc290em92bHF0b2lnYWF5dnFhcXBzemh6cXVxdmR6bm9la2Z2d3RyenB0eW1m' +
  'cHV3ZW9tbmVnbG1lYWVhY3d6YmVrbXRqanVzdW51a29obnVjZ3Z2dWxqeGdqbXZrem9saW5od296dm1sc3lvcmVza3B3amhjcnR6' +
  'aWdic3l1dnpmemhua3N0cXNxcGh2bWRzbW9veHlkY2hua3h3bnhobXlydWl4enZhZXRjY3hocGd1c2JsemNjanVyaG1jbWxvZXVo' +
  'cnZhZXN4aHZxaWNjenNnbmJubHVldGVnZndhYXl4bW9zZW5icHN2Ym9qYnhoZWhqdXZ3dXN3cXNyaWtyaWdtcHJsc2d0bmxrdmRv' +
  'b3JxY2t5c25zaXpidGxmbWZ3em55ZW1lYnN0ZmFtcmlueWhvc2hjcWRvbHJ2dG91bnRwcHBydHN3d3JxZGd6ZnhhdG52aGVpc3Fp' +
  'Y2l5Y2RndGFzYXpuenBrdWhqcnRvdGpwZ2JrZnRlaWNpeXhwc3dhZmZrbGRsamFhcWxoYmx1d29zenppd3Z1eXNzaWh1aXRib3Bn' +
  'bHJ4aGFvbWJia2VydHV1dW55eG55eWl4dW1raG15dGl0dHFzcXZjdXhla3R1bmx5emRyZ29tb2tycHZjZndidmlxaXZmZG1wY3pi' +
  'cW5ldXlyYWVwZmhsZWNtcnlycm1qY2lvcXhiZ2Jtc3ljdXlsd3ZtYmd2ZGp1cmtudXNyaGV5dmptcXZjYmd4dnp1bGlqY21mY2lu' +
  'Z3F5emJ5dnN3bHV4dmlka2JhdWNmbGd5c2p6aWdwbnl2Ynd5dWFtZm5iZXZkZG94bHd5aWFhbXl3bW5zdGticmVkbW9hZ3pwdXdy' +
  'bHdsdGtjdmRkZmd1YW9pb2NjYnRnaHJvaG1rZXhodG1yd3dpdHByenVxamF2eHZocG5namt5eW90am9jZXJqb3Nlc2F6bmpwdGty' +
  'bGZqbGRmcHNpY3V5ZG9kdGV2anptcGltcW94ZGRqZGJrYXB5cHpicmh4dGJlenRzdWx5cmxwdHFjeXd4aHJ4bG1sbXBqbnllb2Jq' +
  'bm96dXRybHV4bWVod290eW1pbHBhbXFlaG9jb29kZXB0Z2tzY2pnc3dubmVvdWl5b2dveHh6dGNrdHVmYnZoZW5kd2lwdXJ0Zmt2' +
  'eGhqcmJweGlvZ3RnZWVpcm5uZnR2bGZpbnNkb3pucHlweHRjYXhyaHpkenh5ZGNsdG5vbW5xdHR0bmtoem5kd3poamNubGZxa3ps' +
  'cnljbmhieGNzZXFieWtmaXBnZmFkdXdpd3dzZ3FhY25nZmh1ZnRmcGlzb3dmbGxmd3F0b2F6dGhxdWloZW14eGZvcWxqaXZweHNu' +
  'cGRzdXp1dHBlenFtdGRlaWdwc3JybWxhZ2VhZG9mZG5vbmdoZXVpaWFra3d3eW5wa3Vma3Bic3BxZmFmbWR2cGhiY2Vkc3R4ZGRs' +
  'YnVsbHRla21ndGtzcWxhZ3NtbHNzZW9zZrAE////////////////////////////////////////////////////////////////' +
  '////////////////////////////////////////////////////////////////////////////////////////////////////' +
  '////////////////////////////////////////////////////////////////////////////////////////////////////' +
  '////////////////////////////////////////////////////////////////////////NFB2ZGRmZ86a2NYKAQAADyD9////' +
  '////////////////////////////////////////////////////////////////////////////////////////////////////' +
  '////////////////////////////////////////////////////////////////////////////////////////////////////' +
  '////////////////////////////////////////////////////////////////////////////////////////////////////' +
  '/////////////////////////////////////+hQbWNtbG91SS2y3QQAAP//////pWV1aHJ2YWVzeGh2cWljY3pzZ25ibmx1ZXRl' +
  'Z2Z3YWF5eG1vc2VuYnBzdmJvamJ4aGVoanV2d3Vzd3FzcmlrcmlnbXBybHNndG5sa3Zkb29ycWNreXNuc2l6YnRsZm1md3pueWVt' +
  'ZWJzdGZhbXJpbnlob3NoY3Fkb2xydnRvdW50cHBwcnRzd3dycWRnemZ4YXRudmhlaXNxaWNpeWNkZ3Rhc2F6bnpwa3VoanJ0b3Rq' +
  'cGdia2Z0ZWljaXl4cHN3YWZma2xkbGphYXFsaGJsdXdvc3p6aXd2dXlzc2lodWl0Ym9wZ2xyeGhhb21iYmtlcnR1dXVueXhueXlp' +
  'eHVta2hteXRpdHRxc3F2Y3V4ZWt0dW5seXpkcmdvbW9rcnB2Y2Z3YnZpcWl2ZmRtcGN6YnFuZXV5cmFlcGZobGVjbXJ5cnJtamNp' +
  'b3F4YmdibXN5Y3V5bHd2bWJndmRqdXJrbnVzcmhleXZqbXF2Y2JneHZ6dWxpamNtZmNpbmdxeXpieXZzd2x1eHZpZGtiYXVjZmxn' +
  'eXNqemlncG55dmJ3eXVhbWZuYmV2ZGRveGx3eWlhYW15d21uc3RrYnJlZG1vYWd6cHV3cmx3bHRrY3ZkZGZndWFvaW9jY2J0Z2hy' +
  'b2hta2V4aHRtcnd3aXRwcnp1cWphdnh2aHBuZ2preXlvdGpvY2Vyam9zZXNhem5qcHRrcmxmamxkZnBzaWN1eWRvZHRldmp6bXBp' +
  'bXFveGRkamRia2FweXB6YnJoeHRiZXp0c3VseXJscHRxY3l3eGhyeGxtbG1wam55ZW9iam5venV0cmx1eG1laHdvdHltaWxwYW1x' +
  'ZWhvY29vZGVwdGdrc2NqZ3N3bm5lb3VpeW9nb3h4enRja3R1ZmJ2aGVuZHdpcHVydGZrdnhoanJicHhpb2d0Z2VlaXJubmZ0dmxm' +
  'aW5zZG96bnB5cHh0Y2F4cmh6ZHp4eWRjbHRub21ucXR0dG5raHpuZHd6aGpjbmxmcWt6bHJ5Y25oYnhjc2VxYnlrZmlwZ2ZhZHV3' +
  'aXd3c2dxYWNuZ2ZodWZ0ZnBpc293ZmxsZndxdG9henRocXVpaGVteHhmb3Fsaml2cHhzbnBkc3V6dXRwZXpxbXRkZWlncHNycm1s' +
  'YWdlYWRvZmRub25naGV1aWlha2t3d3lucGt1ZmtwYnNwcWZhZm1kdnBoYmNlZHN0eGRkbGJ1bGx0ZWttZ3Rrc3FsYWdzbWxzc2Vv' +
  'c2ZhYnpzbmttZ29zZ2V0bmZqaG5oemd3ZWRlaG90YnhvcXJ6cXh2YmVqbGFjdGpsbXlzcmlqZGR4aWVxaWJyeG92cnhkbnF4eXZw' +
  'enpvdmFuaXNvdHpvdmxxdG9pZ2FheXZxYXFwc3poenF1cXZkem5vZWtmdnd0cnpwdHltZnB1d2VvbW5lZ2xtZWFlYWN3emJla210' +
  'amp1c3VudWtvaG51Y2d2dnVsanhnam12a3pvbGluaHdvenZtbHN5b3Jlc2twd2poY3J0emlnYnN5dXZ6ZnpobmtzdHFzcXBodm1k' +
  'c21vb3h5ZGNobmt4d254aG15cnVpeHp2YWV0Y2N4aHBndXNibHpjY2p1cmhtY21sb7AE////////////////////////////////' +
  '////////NlBqcHRrcqIWjEwAAAAARG152g=='
function linkedFixtureContent(): Uint8Array {
  const r = new Prng(7)
  const unit = new Uint8Array(1200)
  for (let i = 0; i < unit.length; i++) unit[i] = 97 + r.int(26)
  const data = new Uint8Array(140_000)
  for (let i = 0; i < data.length; i++) data[i] = unit[i % unit.length]
  return data
}

// ---- tests -----------------------------------------------------------------

describe('xxh32', () => {
  const te = new TextEncoder()
  const ramp = Uint8Array.from({ length: 1024 }, (_, i) => i & 255)
  // Checked against libxxhash 0.8.1.
  const vectors: [Uint8Array, number, number][] = [
    [te.encode(''), 0, 0x02cc5d05],
    [te.encode(''), 1, 0x0b2cb792],
    [te.encode('a'), 0, 0x550d7456],
    [te.encode('a'), 0x9e3779b1, 0x9e1633e4],
    [te.encode('abc'), 0, 0x32d153ff],
    [te.encode('abcd'), 1, 0xbe6e299f],
    [te.encode('0123456789abcdef'), 0, 0xc2c45b69],
    [te.encode('0123456789abcdefg'), 0x12345678, 0x7e36f02d],
    [te.encode('Nobody inspects the spammish repetition'), 0, 0xe2293b2f],
    [ramp, 0, 0x58654d5a],
    [concat(ramp, te.encode('xyz')), 0xffffffff, 0x69054ce5],
    [Uint8Array.from([0x60, 0x40]), 0, 0x301a8268],
    [Uint8Array.from([...MAGIC, 0x60, 0x40]), 0, 0xc8581a3a],
  ]
  it('matches known vectors', () => {
    for (const [data, seed, want] of vectors) expect(xxh32(data, seed), `len ${data.length} seed ${seed}`).toBe(want)
  })

  it("matches lz4-napi's content and block checksums at every length 0..300 and 1 MiB", () => {
    const r = new Prng(11)
    for (const n of [...Array.from({ length: 301 }, (_, i) => i), 1 << 20]) {
      const data = randomBytes(n, r)
      const f = napi.compressFrameSync(Buffer.from(data), { contentChecksum: true, blockChecksums: true })
      expect(f.readUInt32LE(f.length - 4), `content checksum, ${n} bytes`).toBe(xxh32(data))
      for (const b of parseFrame(f).blocks) {
        const at = b.data.byteOffset - f.byteOffset + b.size
        expect(f.readUInt32LE(at)).toBe(xxh32(b.data))
      }
    }
  })
})

describe('lz4 frame as Kafka writes it', () => {
  it('has the header 04 22 4D 18 60 40 82 and an end mark', () => {
    const r = new Prng(20)
    for (const n of [0, 1, 100, 70_000]) {
      const f = lz4CompressFrame(jsonRecords(n, r))
      expect([...f.subarray(0, 7)]).toEqual(KAFKA_HEADER)
      expect([...f.subarray(f.length - 4)]).toEqual([0, 0, 0, 0])
    }
    expect([...lz4CompressFrame(new Uint8Array(0))]).toEqual([...KAFKA_HEADER, 0, 0, 0, 0])
    expect((xxh32(Uint8Array.from([0x60, 0x40])) >>> 8) & 0xff).toBe(0x82)
  })

  it('cuts 64 KiB blocks and stores a block raw when compressing does not shrink it', () => {
    const r = new Prng(21)
    const noise = randomBytes(200_000, r)
    const f = lz4CompressFrame(noise)
    const { blocks } = parseFrame(f)
    expect(blocks.map((b) => [b.size, b.raw])).toEqual([
      [65536, true],
      [65536, true],
      [65536, true],
      [200_000 - 3 * 65536, true],
    ])
    expect(f.length).toBe(wasm.lz4FrameBound(200_000))
    const json = parseFrame(lz4CompressFrame(jsonRecords(200_000, r))).blocks
    expect(json.length).toBe(4)
    for (const b of json) expect(b.raw).toBe(false)
    // A block that compresses to its own size or more is stored raw (Kafka's rule).
    for (const n of [1, 5, 12, 13, 20]) expect(parseFrame(lz4CompressFrame(randomBytes(n, r))).blocks[0].raw).toBe(true)
  })

  it('reports a bound it keeps, and never writes past dstCap', () => {
    const r = new Prng(22)
    for (const n of [0, 1, 17, 1000, 65536, 65537, 200_000]) {
      for (const data of [randomBytes(n, r), jsonRecords(n, r), new Uint8Array(n)]) {
        const bound = wasm.lz4FrameBound(n)
        const exact = lz4CompressFrame(data).length
        expect(exact).toBeLessThanOrEqual(bound)
        for (const cap of [bound, exact, exact - 1, bound >> 1, 10, 0]) {
          if (cap < 0) continue
          const got = guarded((s, len, d, c) => wasm.lz4CompressFrame(s, len, d, c), data, cap)
          if (cap >= exact) expect(same(got, lz4CompressFrame(data))).toBe(true)
          else expect(got).toBe(S.ERR_OUTPUT_FULL)
        }
      }
    }
    expect(wasm.lz4FrameBound(-1)).toBe(S.ERR_LENGTH)
    expect(wasm.lz4FrameBound(0x7fff0000)).toBe(S.ERR_LENGTH)
  })

  it('compresses as well as lz4-napi on Kafka-ish data', () => {
    const data = jsonRecords(1 << 20, new Prng(23))
    const ours = lz4CompressFrame(data).length
    const theirs = napi.compressFrameSync(Buffer.from(data)).length
    expect(ours).toBeLessThan(data.length * 0.5)
    expect(ours).toBeLessThan(theirs * 1.05)
    expect(lz4CompressFrame(new Uint8Array(1 << 20)).length).toBeLessThan(5000)
  })
})

describe('lz4 round trips', () => {
  for (const [kind, gen] of Object.entries(kinds)) {
    it(`${kind}: 0 B .. 5 MiB, frames and blocks`, () => {
      const r = new Prng(30 + kind.length)
      for (const n of [...sizes, ...(kind === 'json' || kind === 'random' ? [5 << 20] : [])]) {
        const data = gen(n, r)
        const f = lz4CompressFrame(data)
        expect(same(lz4DecompressFrame(f), data), `frame ${kind} ${n}`).toBe(true)
        if (n <= 1 << 20) {
          const b = blockCompress(data)
          expect(b.length).toBeLessThanOrEqual(wasm.lz4BlockBound(n))
          expect(same(blockDecode(b, n), data), `block ${kind} ${n}`).toBe(true)
        }
      }
    })
  }

  it('decodes into exactly dstCap, and asks for more when it is short', () => {
    const r = new Prng(31)
    for (const data of [periodic(5000, r), jsonRecords(70_000, r), lowEntropy(3000, r)]) {
      const f = lz4CompressFrame(data)
      const b = blockCompress(data)
      expect(same(frameDecode(f, data.length), data)).toBe(true)
      expect(same(blockDecode(b, data.length), data)).toBe(true)
      for (const cap of [data.length - 1, data.length - 7, data.length >> 1, 0]) {
        expect(frameDecode(f, cap)).toBe(S.ERR_OUTPUT_FULL)
        expect(blockDecode(b, cap)).toBe(S.ERR_OUTPUT_FULL)
      }
      expect(same(frameDecode(f, data.length + 1000), data)).toBe(true)
    }
  })

  it('honours maxOutputBytes', () => {
    const data = jsonRecords(100_000, new Prng(32))
    const f = lz4CompressFrame(data)
    expect(same(lz4DecompressFrame(f, { maxOutputBytes: data.length }), data)).toBe(true)
    expectReason(() => lz4DecompressFrame(f, { maxOutputBytes: data.length - 1 }), 'too-large')
    expectReason(() => lz4DecompressFrame(lz4CompressFrame(new Uint8Array(5 << 20)), { maxOutputBytes: 1 << 20 }), 'too-large')
  })
})

describe('lz4 interop with lz4-napi', () => {
  it('our frames and blocks decode with lz4-napi', () => {
    const r = new Prng(40)
    for (const [kind, gen] of Object.entries(kinds)) {
      for (const n of [0, 1, 13, 100, 4096, 65536, 65537, 300_000, 1 << 20]) {
        const data = gen(n, r)
        expect(same(napi.decompressFrameSync(Buffer.from(lz4CompressFrame(data))), data), `frame ${kind} ${n}`).toBe(true)
        if (n > 0) {
          const b = Buffer.concat([Buffer.from(le32(n)), blockCompress(data)])
          expect(same(napi.uncompressSync(b), data), `block ${kind} ${n}`).toBe(true)
        }
      }
    }
  })

  it("lz4-napi's frames (with and without checksums) and blocks decode with ours", () => {
    const r = new Prng(41)
    for (const [kind, gen] of Object.entries(kinds)) {
      for (const n of [0, 1, 13, 100, 4096, 65536, 65537, 300_000, 1 << 20]) {
        const data = gen(n, r)
        const buf = Buffer.from(data)
        for (const opts of [
          undefined,
          { contentChecksum: true },
          { blockChecksums: true },
          { contentChecksum: true, blockChecksums: true },
        ]) {
          expect(same(lz4DecompressFrame(napi.compressFrameSync(buf, opts)), data), `frame ${kind} ${n} ${JSON.stringify(opts)}`).toBe(true)
        }
        const b = napi.compressSync(buf).subarray(4)
        expect(same(blockDecode(b, n), data), `block ${kind} ${n}`).toBe(true)
      }
    }
  })
})

describe('lz4 frame features', () => {
  const data = jsonRecords(150_000, new Prng(50))
  const kafka = lz4CompressFrame(data)
  const blocks = parseFrame(kafka).blocks.map((b) => ({ data: b.data, raw: b.raw }))

  it('skips a content size, verifies block and content checksums', () => {
    const f = buildFrame({ blocks, contentSize: data.length, blockChecksums: true, contentChecksum: xxh32(data) })
    expect(same(lz4DecompressFrame(f), data)).toBe(true)
    const badBlock = f.slice()
    const firstEnd = 15 + 4 + blocks[0].data.length
    badBlock[firstEnd] ^= 1
    expectReason(() => lz4DecompressFrame(badBlock), 'checksum')
    const badContent = f.slice()
    badContent[f.length - 1] ^= 0x80
    expectReason(() => lz4DecompressFrame(badContent), 'checksum')
    // A wrong content size is skipped, as the Java reader does.
    expect(same(lz4DecompressFrame(buildFrame({ blocks, contentSize: 3 })), data)).toBe(true)
  })

  it('accepts block sizes 64 KiB to 4 MiB and refuses a block past the declared size', () => {
    const big = jsonRecords(1 << 20, new Prng(51))
    const one = [{ data: blockCompress(big) }]
    expect(same(lz4DecompressFrame(buildFrame({ blocks: one, bd: 0x60 })), big)).toBe(true)
    expect(same(lz4DecompressFrame(buildFrame({ blocks: one, bd: 0x70 })), big)).toBe(true)
    expectReason(() => lz4DecompressFrame(buildFrame({ blocks: one, bd: 0x50 })), 'compressed')
    expect(same(lz4DecompressFrame(buildFrame({ blocks, bd: 0x50 })), data)).toBe(true)
    const rawBig = [{ data: big.subarray(0, 70_000), raw: true }]
    expect(same(lz4DecompressFrame(buildFrame({ blocks: rawBig, bd: 0x50 })), big.subarray(0, 70_000))).toBe(true)
    expectReason(() => lz4DecompressFrame(buildFrame({ blocks: rawBig, bd: 0x40 })), 'compressed')
  })

  it('refuses what Kafka does not use: other versions, reserved bits, dictionary ids, small block sizes', () => {
    const withFlg = (flg: number, bd = 0x40) => {
      const f = kafka.slice()
      f[4] = flg
      f[5] = bd
      f[6] = (xxh32(Uint8Array.from([flg, bd])) >>> 8) & 0xff
      return f
    }
    expect(same(lz4DecompressFrame(withFlg(0x60)), data)).toBe(true)
    for (const flg of [0x20, 0xa0, 0xe0, 0x62, 0x61]) expectReason(() => lz4DecompressFrame(withFlg(flg)), 'unsupported')
    for (const bd of [0x00, 0x10, 0x20, 0x30, 0xc0, 0x41, 0x48]) expectReason(() => lz4DecompressFrame(withFlg(0x60, bd)), 'unsupported')
  })

  it('refuses a wrong magic, a wrong header checksum, and reads only the first frame', () => {
    for (const magic of [
      [0x04, 0x22, 0x4d, 0x19],
      [0x50, 0x2a, 0x4d, 0x18],
      [0x18, 0x4d, 0x22, 0x04],
    ]) {
      expectReason(() => lz4DecompressFrame(concat(magic, kafka.subarray(4))), 'magic')
    }
    const badHc = kafka.slice()
    badHc[6] ^= 0x10
    expectReason(() => lz4DecompressFrame(badHc), 'checksum')
    expect(same(lz4DecompressFrame(concat(kafka, kafka)), data)).toBe(true)
    expect(same(lz4DecompressFrame(concat(kafka, [1, 2, 3])), data)).toBe(true)
  })

  it("accepts magic-0's broken header checksum only when asked", () => {
    // Old clients hashed the magic too: (xxh32(04 22 4D 18 60 40) >> 8) & 0xFF = 0x1A.
    const legacy = kafka.slice()
    legacy[6] = 0x1a
    expectReason(() => lz4DecompressFrame(legacy), 'checksum')
    expect(same(lz4DecompressFrame(legacy, { legacyHeaderChecksum: true }), data)).toBe(true)
    expect(same(lz4DecompressFrame(kafka, { legacyHeaderChecksum: true }), data)).toBe(true)
  })

  it('reports truncation at every cut of a frame', () => {
    const small = lz4CompressFrame(jsonRecords(3000, new Prng(52)))
    const full = buildFrame({ blocks: parseFrame(small).blocks, contentSize: 3000, blockChecksums: true, contentChecksum: 0 })
    for (const f of [small, full]) {
      for (let cut = 0; cut < f.length; cut++) {
        expect(frameDecode(f.subarray(0, cut), 10_000), `cut at ${cut} of ${f.length}`).toBe(S.ERR_TRUNCATED)
      }
    }
    expectReason(() => lz4DecompressFrame(small.subarray(0, small.length - 1)), 'truncated')
  })

  it('decodes linked blocks (hand-made: a match reaching into the previous block)', () => {
    const first = new TextEncoder().encode('0123456789abcdefghijklmnopqrstuvwxyz')
    // 0 literals, match offset 30 length 20; then 5 literals.
    const second = Uint8Array.from([0x0f, 30, 0, 1, 0x50, ...new TextEncoder().encode('VWXYZ')])
    const want = concat(first, first.subarray(6, 26), new TextEncoder().encode('VWXYZ'))
    const linked = buildFrame({ linked: true, blocks: [{ data: first, raw: true }, { data: second }] })
    expect(new TextDecoder().decode(lz4DecompressFrame(linked))).toBe(new TextDecoder().decode(want))
    const independent = buildFrame({ blocks: [{ data: first, raw: true }, { data: second }] })
    expectReason(() => lz4DecompressFrame(independent), 'compressed')
  })

  it('decodes linked blocks written by the reference lz4 (fixture)', () => {
    const f = Uint8Array.from(Buffer.from(LINKED_FIXTURE, 'base64'))
    expect(f[4]).toBe(0x5c) // linked, block checksums, content size, content checksum
    const want = linkedFixtureContent()
    expect(same(lz4DecompressFrame(f), want)).toBe(true)
    // It does reach back across blocks: read as independent blocks it fails.
    const { blocks } = parseFrame(f)
    expect(blocks.length).toBe(3)
    expectReason(() => lz4DecompressFrame(buildFrame({ blocks, blockChecksums: true })), 'compressed')
  })
})

describe('malformed lz4 blocks', () => {
  const lit = (s: string) => [...new TextEncoder().encode(s)]
  const cases: [string, number[], number][] = [
    ['empty block', [], S.ERR_COMPRESSED],
    ['offset 0', [0x40, ...lit('abcd'), 0, 0, 0x50, ...lit('hello')], S.ERR_COMPRESSED],
    ['offset before the output start', [0x40, ...lit('abcd'), 5, 0, 0x50, ...lit('hello')], S.ERR_COMPRESSED],
    ['offset far before the output start', [0x40, ...lit('abcd'), 0xff, 0xff, 0x50, ...lit('hello')], S.ERR_COMPRESSED],
    ['literals past the input', [0x50, ...lit('abc')], S.ERR_COMPRESSED],
    ['long literal length past the input', [0xf0, 0xff, 0xff, 0x10, ...lit('abc')], S.ERR_COMPRESSED],
    ['literal length bytes run out', [0xf0, 0xff, 0xff], S.ERR_COMPRESSED],
    ['offset cut short', [0x40, ...lit('abcd'), 4], S.ERR_COMPRESSED],
    ['ends after a match', [0x40, ...lit('abcd'), 4, 0], S.ERR_COMPRESSED],
    ['match length bytes run out', [0x4f, ...lit('abcd'), 4, 0, 0xff], S.ERR_COMPRESSED],
    ['match past the output', [0x4f, ...lit('abcd'), 4, 0, 0xff, 0xff, 0x10, 0x00], S.ERR_OUTPUT_FULL],
  ]
  for (const [name, bytes, want] of cases) {
    it(name, () => {
      // Room for the literals, so the damage is what gets reported.
      for (const cap of [10, 100, 500]) expect(blockDecode(Uint8Array.from(bytes), cap)).toBe(want)
      // With no room at all, asking for more comes first; the retry then finds the damage.
      if (bytes.length) expect([S.ERR_OUTPUT_FULL, want]).toContain(blockDecode(Uint8Array.from(bytes), 0))
    })
  }

  it('a run of 255s in a length field ends in an error, not a hang or an overflow', () => {
    const ones = new Uint8Array(1 << 22).fill(0xff)
    ones[0] = 0xf0
    expect(blockDecode(ones, 1 << 20)).toBe(S.ERR_COMPRESSED)
    const m = new Uint8Array(1 << 22).fill(0xff)
    m.set([0x1f, 0x61, 1, 0])
    expect(blockDecode(m, 1 << 20)).toBe(S.ERR_COMPRESSED)
    // Ended properly it is a ~1 GiB match: more output than there is room for.
    m[m.length - 1] = 0
    expect(blockDecode(m, 1 << 20)).toBe(S.ERR_OUTPUT_FULL)
  })

  it('a frame decoder error names the problem', () => {
    const bad = buildFrame({ blocks: [{ data: Uint8Array.from([0x40, 0x61, 0x62, 0x63, 0x64, 0, 0, 0x50, ...lit('hello')]) }] })
    expectReason(() => lz4DecompressFrame(bad), 'compressed')
  })
})

describe.runIf(hasLz4Cli)('lz4 interop with the reference lz4 CLI', () => {
  const data = concat(jsonRecords(600_000, new Prng(60)), periodic(300_000, new Prng(61)))
  const variants = [
    [],
    ['-BD'],
    ['-BX'],
    ['--content-size'],
    ['--no-frame-crc'],
    ['-B5'],
    ['-B6', '-BD'],
    ['-B7', '-BX', '--content-size'],
    ['-9'],
    ['-9', '-BD', '-BX'],
    ['-12', '-B4', '-BD'],
    ['--fast=5'],
  ]
  for (const opts of variants) {
    it(`reads lz4 ${opts.join(' ') || '(defaults)'}`, () => {
      const f = execFileSync('lz4', ['-c', '-q', ...opts], { input: data, maxBuffer: 1 << 26 })
      expect(same(lz4DecompressFrame(f), data)).toBe(true)
    })
  }
  it('lz4 -d reads our frames', () => {
    for (const d of [data, new Uint8Array(0), randomBytes(100_000, new Prng(62))]) {
      const out = execFileSync('lz4', ['-d', '-c', '-q'], { input: lz4CompressFrame(d), maxBuffer: 1 << 26 })
      expect(same(out, d)).toBe(true)
    }
  })
})

// ---- fuzz ------------------------------------------------------------------

const FUZZ_ITERATIONS = Number(process.env.WAFKA_LZ4_FUZZ_ITERATIONS ?? 30_000)
const fuzzSeed = seedFromEnv('WAFKA_LZ4_FUZZ_SEED')

describe(`lz4 fuzz (seed ${fuzzSeed}, replay with WAFKA_LZ4_FUZZ_SEED=${fuzzSeed})`, () => {
  function corpus(r: Rnd): Uint8Array[] {
    const out: Uint8Array[] = []
    for (const gen of Object.values(kinds)) {
      for (const n of [0, 5, 30, 200, 1000, 5000, 70_000]) {
        const d = gen(n, r)
        out.push(lz4CompressFrame(d))
        out.push(napi.compressFrameSync(Buffer.from(d), { blockChecksums: r.chance(0.5), contentChecksum: r.chance(0.5) }))
        const blocks = parseFrame(lz4CompressFrame(d)).blocks
        out.push(buildFrame({ blocks, linked: r.chance(0.5), contentSize: r.chance(0.5) ? n : undefined }))
      }
    }
    out.push(Uint8Array.from(Buffer.from(LINKED_FIXTURE, 'base64')))
    return out
  }

  function mutate(src: Uint8Array, r: Rnd, pool: Uint8Array[]): Uint8Array {
    let f: Uint8Array = src.slice()
    const rounds = 1 + r.int(3)
    for (let k = 0; k < rounds; k++) {
      const at = r.int(Math.max(1, f.length))
      switch (r.int(9)) {
        case 0: // flip a bit
          if (f.length) f[at] ^= 1 << r.int(8)
          break
        case 1: // random byte, biased to the interesting values
          if (f.length) f[at] = r.pick([0, 0xff, 0x0f, 0xf0, 0x80, r.int(256)])
          break
        case 2: // truncate
          f = f.slice(0, at)
          break
        case 3: // random tail
          f = concat(f, randomBytes(r.int(40), r))
          break
        case 4: // a block size field made large or small
          if (f.length >= 11) {
            const p = 7 + r.int(Math.min(f.length - 10, 64))
            f.set(le32(r.pick([0x7fffffff, 0x80000000, 0xffffffff, 65536, 65537, 1 << 22, r.int(1 << 20), r.int(64)]) >>> 0), p)
          }
          break
        case 5: // splice two frames
          f = concat(f.subarray(0, at), r.pick(pool).subarray(r.int(64)))
          break
        case 6: // delete or duplicate a run
          {
            const len = 1 + r.int(32)
            f = r.chance(0.5) ? concat(f.subarray(0, at), f.subarray(at + len)) : concat(f.subarray(0, at + len), f.subarray(at))
          }
          break
        case 7: // garbage after a valid header
          f = concat(KAFKA_HEADER, le32(r.int(300)), randomBytes(r.int(300), r))
          break
        default: // random FLG/BD
          if (f.length > 6) {
            f[4] = r.pick([0x60, 0x40, 0x70, 0x68, 0x64, 0x7c, r.int(256)])
            f[5] = r.pick([0x40, 0x50, 0x60, 0x70, r.int(256)])
          }
      }
    }
    // Usually re-sign the header so the damage reaches the blocks.
    if (f.length >= 7 && r.chance(0.8)) {
      const hl = f[4] & 0x08 ? 15 : 7
      if (f.length >= hl) f[hl - 1] = (xxh32(f.subarray(4, hl - 1)) >>> 8) & 0xff
    }
    return f
  }

  it(`${FUZZ_ITERATIONS} mutated or truncated frames decode or throw CorruptRecordError`, () => {
    console.log(`lz4 fuzz seed: ${fuzzSeed}`)
    const r = new Prng(fuzzSeed)
    const pool = corpus(r)
    let ok = 0
    let errors = 0
    for (let i = 0; i < FUZZ_ITERATIONS; i++) {
      const f = mutate(r.pick(pool), r, pool)
      try {
        const out = lz4DecompressFrame(f, { legacyHeaderChecksum: r.chance(0.2), maxOutputBytes: 1 << 20 })
        expect(out.length).toBeLessThanOrEqual(1 << 20)
        ok++
      } catch (err) {
        if (!(err instanceof CorruptRecordError)) {
          throw new Error(
            `seed ${fuzzSeed}, case ${i}: ${(err as Error)?.stack ?? err}\nframe: ${Buffer.from(f).toString('hex').slice(0, 400)}`,
          )
        }
        errors++
      }
    }
    console.log(`lz4 fuzz: ${ok} decoded, ${errors} typed errors`)
    expect(ok + errors).toBe(FUZZ_ITERATIONS)
    expect(errors).toBeGreaterThan(0)
  })

  it(`${FUZZ_ITERATIONS} mutated raw blocks stay inside dstCap`, () => {
    const r = new Prng(fuzzSeed ^ 0x1234)
    const blocks: Uint8Array[] = []
    for (const gen of Object.values(kinds)) for (const n of [1, 20, 300, 3000, 20_000]) blocks.push(blockCompress(gen(n, r)))
    for (let i = 0; i < FUZZ_ITERATIONS; i++) {
      const b = r.pick(blocks).slice()
      const flips = 1 + r.int(4)
      for (let k = 0; k < flips; k++) b[r.int(b.length)] = r.chance(0.5) ? r.int(256) : b[r.int(b.length)] ^ 0xff
      const cut = r.chance(0.2) ? b.subarray(0, r.int(b.length + 1)) : b
      const cap = r.int(30_000)
      let got: Uint8Array | number
      try {
        got = blockDecode(cut, cap)
      } catch (err) {
        throw new Error(`seed ${fuzzSeed}, block case ${i} (cap ${cap}): ${(err as Error)?.stack ?? err}`)
      }
      if (typeof got === 'number') expect([S.ERR_COMPRESSED, S.ERR_OUTPUT_FULL], `seed ${fuzzSeed}, block case ${i}`).toContain(got)
    }
  })
})
