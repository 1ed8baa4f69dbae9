import { Buffer } from 'node:buffer'

/**
 * How keys, values and header values get into wasm memory (and a producer's
 * staging buffer): the fastest way differs by runtime, so it is chosen once,
 * here, at load time — never per record. bench/copy-lab measures every
 * candidate per runtime and size (its REPORT.md says why these win):
 *
 * - Bytes: Uint8Array#set costs a fixed ~15–20 ns per call on Bun
 *   (JavaScriptCore), more than a plain loop moving 32 bytes; on Node and
 *   Deno set is as cheap as the loop even for a 16-byte key. Buffer#copy is
 *   no better than set anywhere, and 4–6× worse on Deno.
 * - Strings: short ASCII strings by a charCode loop everywhere (no call into
 *   the runtime's encoder); longer ones by Buffer#write on Node, by
 *   Buffer#utf8Write on Bun (write's argument parsing is half its cost
 *   there), and by TextEncoder#encodeInto on Deno, whose Buffer#write is a
 *   polyfill 1.5× slower than encodeInto.
 */

/** Copies src into dst at `at` (dst has room). */
export type CopyBytes = (dst: Uint8Array, at: number, src: Uint8Array) => void
/** Writes s as UTF-8 into dst at `at`, as TextEncoder does (lone surrogates as U+FFFD); dst has room for 3 bytes per UTF-16 unit. Returns the bytes written. */
export type WriteUtf8 = (dst: Buffer, at: number, s: string) => number

export type Runtime = 'node' | 'bun' | 'deno'

export const runtime: Runtime = 'Bun' in globalThis ? 'bun' : 'Deno' in globalThis ? 'deno' : 'node'

/** Below this many bytes, Bun's loop beats its Uint8Array#set. */
const LOOP_BYTES = 32
/** Strings up to this many UTF-16 units try the ASCII loop first. */
const LOOP_CHARS = 24

export function copyBySet(dst: Uint8Array, at: number, src: Uint8Array): void {
  dst.set(src, at)
}

export function copySmallByLoop(dst: Uint8Array, at: number, src: Uint8Array): void {
  const n = src.length
  if (n > LOOP_BYTES) {
    dst.set(src, at)
    return
  }
  for (let i = 0; i < n; i++) dst[at + i] = src[i]
}

/** Writes a short ASCII string byte by byte; -1 (nothing meaningful written) when s is long or not ASCII. */
function writeAscii(dst: Buffer, at: number, s: string): number {
  const n = s.length
  if (n > LOOP_CHARS) return -1
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) return -1
    dst[at + i] = c
  }
  return n
}

export function writeByBufferWrite(dst: Buffer, at: number, s: string): number {
  const n = writeAscii(dst, at, s)
  return n >= 0 ? n : dst.write(s, at, 'utf8')
}

/** Buffer#utf8Write: Bun's (and Node's) write without the encoding argument's parsing. */
interface Utf8Writer {
  utf8Write(s: string, offset: number, length?: number): number
}

export function writeByUtf8Write(dst: Buffer, at: number, s: string): number {
  const n = writeAscii(dst, at, s)
  return n >= 0 ? n : (dst as unknown as Utf8Writer).utf8Write(s, at, dst.length - at)
}

const encoder = new TextEncoder()

export function writeByEncodeInto(dst: Buffer, at: number, s: string): number {
  const n = writeAscii(dst, at, s)
  if (n >= 0) return n
  // A plain Uint8Array view: a Buffer's subarray goes through its species constructor.
  return encoder.encodeInto(s, new Uint8Array(dst.buffer, dst.byteOffset + at, dst.length - at)).written
}

const hasUtf8Write = typeof (Buffer.prototype as unknown as Partial<Utf8Writer>).utf8Write === 'function'

/** The byte copy for this runtime. */
export const copyBytes: CopyBytes = runtime === 'bun' ? copySmallByLoop : copyBySet

/** The string write for this runtime. */
export const writeUtf8: WriteUtf8 =
  runtime === 'deno' ? writeByEncodeInto : runtime === 'bun' && hasUtf8Write ? writeByUtf8Write : writeByBufferWrite
