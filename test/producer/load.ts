// Helpers for the producer's load tests (interop.test.ts, faults.test.ts):
// many concurrent sends with a bound on how long they may take, and the
// exact bytes a message becomes on the wire, to compare with what is read back.
import { Buffer } from 'node:buffer'
import { createHash } from 'node:crypto'
import type { Message, Producer, RecordMetadata } from '../../src/index.js'

/** Key, value and headers as the bytes a broker stores (strings as UTF-8), headers in wire order. */
export interface WireMessage {
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
}

const bytes = (b: string | Uint8Array | null | undefined): Buffer | null =>
  b === null || b === undefined ? null : typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b.buffer, b.byteOffset, b.length)

/** What a Message becomes on the wire (object headers: in for...in order, array values repeated). */
export function wireOf(m: Message): WireMessage {
  const headers: [string, Buffer | null][] = []
  const h = m.headers
  if (Array.isArray(h)) for (const [k, v] of h) headers.push([k, bytes(v)])
  else if (h) {
    for (const k in h) {
      const v = (h as Record<string, any>)[k]
      if (Array.isArray(v)) for (const item of v) headers.push([k, bytes(item)])
      else if (v !== undefined) headers.push([k, bytes(v)])
    }
  }
  return { key: bytes(m.key), value: bytes(m.value), headers }
}

/** A digest of every byte of key, value and headers, length-prefixed so that no two messages share one by accident. */
export function fingerprint(key: Buffer | null, value: Buffer | null, headers: readonly (readonly [string, Buffer | null])[]): string {
  const h = createHash('sha1')
  const part = (b: Buffer | null) => {
    if (b === null) h.update('N')
    else h.update(`B${b.length}:`).update(b)
  }
  part(key)
  part(value)
  h.update(`H${headers.length}`)
  for (const [k, v] of headers) {
    part(Buffer.from(k, 'utf8'))
    part(v)
  }
  return h.digest('base64')
}

export const hex = (b: Buffer | null, max = 48): string =>
  b === null ? 'null' : b.length > max ? `${b.subarray(0, max).toString('hex')}...(${b.length} bytes)` : b.toString('hex')

export const describeWire = (m: WireMessage): string =>
  `key=${hex(m.key)} value=${hex(m.value)} headers=[${m.headers.map(([k, v]) => `${JSON.stringify(k)}:${hex(v)}`).join(', ')}]`

export interface SendOutcome {
  /** Sends that resolved, rejected, or were still pending at the deadline. */
  resolved: number
  rejected: Array<{ chunk: number; error: unknown }>
  pending: number[]
  results: RecordMetadata[][]
  ms: number
}

/**
 * Sends `messages` to `topic` in chunks of `chunk`, keeping `window` sends
 * in flight (a new one starts as one settles, so sends start in message
 * order), and waits at most `deadlineMs` for all of them to settle.
 */
export async function sendAll(
  producer: Producer,
  topic: string,
  messages: Message[],
  opts: { chunk: number; window: number; deadlineMs: number; onProgress?: (sentMessages: number) => void },
): Promise<SendOutcome> {
  const started = Date.now()
  const chunks = Math.ceil(messages.length / opts.chunk)
  const settled = new Array<boolean>(chunks).fill(false)
  const out: SendOutcome = { resolved: 0, rejected: [], pending: [], results: new Array(chunks), ms: 0 }
  let next = 0
  let done = 0
  let finish!: () => void
  const all = new Promise<void>((resolve) => (finish = resolve))
  const start = () => {
    const c = next++
    const slice = messages.slice(c * opts.chunk, (c + 1) * opts.chunk)
    producer
      .send({ topic, messages: slice })
      .then(
        (r) => {
          out.resolved++
          out.results[c] = r
        },
        (error) => out.rejected.push({ chunk: c, error }),
      )
      .finally(() => {
        settled[c] = true
        done++
        opts.onProgress?.(Math.min(messages.length, done * opts.chunk))
        if (next < chunks) start()
        if (done === chunks) finish()
      })
  }
  for (let i = 0; i < Math.min(opts.window, chunks); i++) start()
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.deadlineMs)))])
  clearTimeout(timer)
  out.pending = settled.flatMap((s, i) => (s || i >= next ? [] : [i]))
  // Chunks never started (the window stalled) count as pending too.
  for (let i = next; i < chunks; i++) out.pending.push(i)
  out.ms = Date.now() - started
  return out
}
