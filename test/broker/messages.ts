// Messages that exercise every byte a record carries: null, empty, binary
// and unicode keys and values, repeated and null-valued headers in order,
// explicit timestamps. Deterministic (seeded), so a failure replays.
import { Buffer } from 'node:buffer'
import { Prng } from '../../bench/support/prng.js'

export interface TestMessage {
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
  timestamp: number
}

const TEXT = ['', 'a', 'ü', '𝄞 clef', '日本語', 'line\nbreak', '\u0000nul']

function bytes(rng: Prng, max: number): Buffer {
  const b = Buffer.alloc(rng.between(1, max))
  for (let i = 0; i < b.length; i++) b[i] = rng.between(0, 255)
  return b
}

function field(rng: Prng, i: number): Buffer | null {
  switch (i % 5) {
    case 0:
      return null
    case 1:
      return Buffer.alloc(0)
    case 2:
      return Buffer.from(TEXT[rng.between(0, TEXT.length - 1)] + i, 'utf8')
    default:
      return bytes(rng, i % 7 === 0 ? 20_000 : 200)
  }
}

export function testMessages(seed: number, count: number, opts: { nullHeaderValues?: boolean } = {}): TestMessage[] {
  const rng = new Prng(seed)
  const t0 = 1_700_000_000_000
  return Array.from({ length: count }, (_, i) => {
    const headers: [string, Buffer | null][] = []
    for (let h = 0; h < i % 4; h++)
      headers.push([h === 2 ? 'dup' : `h${h}`, h === 1 && opts.nullHeaderValues !== false ? null : bytes(rng, 30)])
    if (i % 4 === 3) headers.push(['dup', Buffer.from('again')])
    // A message without a key is told apart by a header.
    if (i % 11 === 0) headers.push(['n', Buffer.from(String(i))])
    // Keys are unique so each message can be found again; values vary freely.
    const key = i % 11 === 0 ? null : Buffer.concat([Buffer.from(`${i}:`), field(rng, i + 2) ?? Buffer.alloc(0)])
    return { key, value: field(rng, i * 3 + 1), headers, timestamp: t0 + rng.between(0, 1_000_000) }
  })
}

export const describeMessage = (m: { key: Buffer | null; value: Buffer | null; headers: [string, Buffer | null][] }): string =>
  JSON.stringify({
    key: m.key?.toString('hex') ?? null,
    value: m.value?.toString('hex') ?? null,
    headers: m.headers.map(([k, v]) => [k, v?.toString('hex') ?? null]),
  })
