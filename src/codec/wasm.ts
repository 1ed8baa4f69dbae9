import { Buffer } from 'node:buffer'
import bytes from '../../dist/wafka.wasm'
import { WafkaError } from '../errors.js'
import type { WasmExports } from './wasm-exports.js'

/**
 * The wasm core, instantiated once and synchronously: the bytes are inlined
 * in the bundle, so Node, Deno and Bun load it alike with no file lookups.
 * It is compiled on first use, not on import (compiling is about a tenth of
 * wafka's import time): `wasm` forwards to the instance, and the arena (which
 * every operation starts with) makes sure there is one.
 */
let exports: WasmExports | undefined
let memory: WebAssembly.Memory
let base = 0
const PAGE = 65536

function instantiate(): WasmExports {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    env: {
      // Only reachable through a bug in the core: every input is bounds-checked.
      abort(): never {
        throw new WafkaError('wafka wasm core aborted: this is a bug in wafka, please report it')
      },
    },
  })
  exports = instance.exports as unknown as WasmExports
  memory = exports.memory
  base = exports.heapBase()
  arena.top = base
  refresh()
  return exports
}

// A call through the proxy costs a trap, and calls are per operation (a batch, a block), never per record.
export const wasm = new Proxy({} as WasmExports, { get: (_, name: keyof WasmExports) => (exports ?? instantiate())[name] })

let buffer: ArrayBuffer
let u8: Uint8Array
let i32: Int32Array
let f64: Float64Array
let view: DataView
let nodeBuffer: Buffer

// Only arena.alloc grows memory (the core never allocates), so views are
// refreshed there and nowhere else: reading memory.buffer is not free.
let capacity = 0

function refresh(): void {
  buffer = memory.buffer
  capacity = buffer.byteLength
  u8 = new Uint8Array(buffer)
  i32 = new Int32Array(buffer)
  f64 = new Float64Array(buffer)
  view = new DataView(buffer)
  nodeBuffer = Buffer.from(buffer)
}

/** Views over wasm memory; growth replaces them, so fetch them again after any alloc. */
export function memU8(): Uint8Array {
  return u8
}
export function memI32(): Int32Array {
  return i32
}
export function memF64(): Float64Array {
  return f64
}
/** A Buffer over wasm memory, for the runtime's native string writes. */
export function memBuffer(): Buffer {
  return nodeBuffer
}
export function memView(): DataView {
  return view
}

/**
 * A bump allocator over the memory above the module's static data. Each
 * operation resets it and lays out what it needs; memory only ever grows,
 * to the high-water mark of the largest operation.
 *
 * Regions start at staggered offsets modulo 4 KiB: on some CPUs (AMD Zen
 * here) memory.copy runs ~20x slower when its destination sits just past its
 * source modulo 4 KiB, which is what raw LZ4 blocks and stored records do
 * between regions.
 */
export const arena = {
  top: 0,
  regions: 0,
  reset(): void {
    if (exports === undefined) instantiate()
    this.top = base
    this.regions = 0
  },
  /** A region of `size` bytes, 64-aligned. */
  alloc(size: number): number {
    if (exports === undefined) instantiate()
    const ptr = ((this.top + 4095) & ~4095) + ((this.regions++ * 1088) & 4095)
    const end = ptr + size
    if (end > capacity) {
      if (end > 0xffff_0000) throw new WafkaError(`wafka needs ${end} bytes of wasm memory, past the 4 GiB limit`)
      memory.grow(Math.ceil((end - capacity) / PAGE))
      refresh()
    }
    this.top = end
    return ptr
  },
}

/** Copies `data` into a fresh arena region and returns its address. */
export function stage(data: Uint8Array): number {
  const ptr = arena.alloc(data.length)
  memU8().set(data, ptr)
  return ptr
}
