import { codecError } from './status.js'
import { arena, memU8, stage } from './wasm.js'

/** A wasm compressor: input at `src`, output up to `cap` bytes at `dst`; the output's size, or a status below 0. */
type WasmCompressor = (src: number, length: number, dst: number, cap: number) => number

/**
 * The one call shape of every compressor in wasm: stage the input, reserve
 * `bound` bytes (the codec's worst case, or a status below 0), compress,
 * copy the output out of wasm memory.
 */
export function compressInWasm(data: Uint8Array, bound: number, compress: WasmCompressor, what: string): Uint8Array {
  if (bound < 0) throw codecError(bound, what)
  arena.reset()
  const src = stage(data)
  const dst = arena.alloc(bound)
  const n = compress(src, data.length, dst, bound)
  if (n < 0) throw codecError(n, what)
  return memU8().slice(dst, dst + n)
}
