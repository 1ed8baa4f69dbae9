// Random producer workloads: keyed messages (keys recur, as real keys do)
// with null and empty keys and values, unicode strings, binary Buffers and
// headers in both KafkaJS forms, every message told apart by its bytes.
import { Buffer } from 'node:buffer'
import type { Message } from '../../src/index.js'
import { Prng } from '../../bench/support/prng.js'
import { randomString } from '../support/random-records.js'
import { fingerprint, wireOf, type WireMessage } from './load.js'

const HEADER_KEYS = ['trace-id', 'content-type', 'ü', '𝄞 clef', '42', '', 'k', 'x-😀']

/** Keys recur (so keyed records share partitions): a pool of unicode strings and binary Buffers. */
function keyPool(rng: Prng): Array<string | Buffer> {
  return Array.from({ length: 4000 }, (_, i) => {
    const r = rng.next()
    if (r < 0.4) return `user-${i}`
    if (r < 0.75) return `${randomString(rng, rng.between(1, 24))}#${i}`
    return Buffer.concat([rng.bytes(rng.between(0, 20)), Buffer.from([i & 0xff, i >> 8])])
  })
}

function randomValue(rng: Prng): string | Buffer | null {
  const r = rng.next()
  if (r < 0.08) return null
  if (r < 0.09) return rng.chance(0.5) ? '' : Buffer.alloc(0)
  const length = rng.chance(0.01) ? rng.between(1000, 8000) : rng.int(160)
  if (r < 0.5) return randomString(rng, length)
  if (r < 0.6) return JSON.stringify({ n: rng.int(1e9), s: randomString(rng, rng.int(30)) })
  return rng.bytes(length)
}

function randomHeaders(rng: Prng): Message['headers'] {
  const r = rng.next()
  if (r < 0.35) return undefined
  if (r < 0.4) return [] // present but empty
  const count = rng.between(1, 4)
  const list: Array<[string, string | Buffer | null]> = []
  for (let i = 0; i < count; i++) {
    // No NUL in header names: librdkafka keeps them as C strings, so kcat would print them cut short.
    const key = rng.chance(0.7) ? rng.pick(HEADER_KEYS) : randomString(rng, rng.int(16)).replaceAll('\0', '\u2400')
    const v = rng.next()
    list.push([key, v < 0.15 ? null : v < 0.6 ? randomString(rng, rng.int(40)) : rng.bytes(rng.int(48))])
  }
  if (r < 0.55) {
    // KafkaJS's object form: a repeated key takes an array.
    const obj: Record<string, string | Buffer | null | Array<string | Buffer | null>> = {}
    for (const [k, v] of list) {
      const prev = obj[k]
      obj[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
    }
    return obj as Message['headers']
  }
  return list
}

export interface Workload {
  messages: Message[]
  wire: WireMessage[]
  /** fingerprint -> index in messages: every message is told apart by its bytes. */
  index: Map<string, number>
}

export function workload(caseSeed: number, count: number): Workload {
  const rng = new Prng(caseSeed)
  const keys = keyPool(rng)
  const messages: Message[] = []
  const wire: WireMessage[] = []
  const index = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    const k = rng.next()
    const key = k < 0.1 ? (rng.chance(0.5) ? null : undefined) : k < 0.11 ? (rng.chance(0.5) ? '' : Buffer.alloc(0)) : rng.pick(keys)
    const m: Message = { key, value: randomValue(rng), headers: randomHeaders(rng) }
    let w = wireOf(m)
    let fp = fingerprint(w.key, w.value, w.headers)
    if (index.has(fp)) {
      // Same bytes as an earlier message (nulls and empties repeat): a header makes it unique.
      const headers = Array.isArray(m.headers) ? [...m.headers] : []
      m.headers = [...(headers as Array<[string, string | Buffer | null]>), ['n', `${i}`]]
      w = wireOf(m)
      fp = fingerprint(w.key, w.value, w.headers)
    }
    index.set(fp, i)
    messages.push(m)
    wire.push(w)
  }
  return { messages, wire, index }
}
