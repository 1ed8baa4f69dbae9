import { codecError } from './status.js'
import { arena, memU8, stage, wasm } from './wasm.js'

// Single values across the wasm boundary: for tests and the rare caller that
// has one number. Batches do their varints inside wasm.

function written(fn: (ptr: number) => number): Uint8Array {
  arena.reset()
  const ptr = arena.alloc(16)
  const n = fn(ptr)
  return memU8().slice(ptr, ptr + n)
}

function read<T>(bytes: Uint8Array, fn: (ptr: number, len: number) => T, what: string): { value: T; length: number } {
  arena.reset()
  const value = fn(stage(bytes), bytes.length)
  const length = wasm.getLastReadLength()
  if (length < 0) throw codecError(length, `reading a ${what}`)
  return { value, length }
}

/** Zigzag varint (record fields). */
export const encodeVarint = (v: number): Uint8Array => written((p) => wasm.varintWrite(p, v))
export const decodeVarint = (bytes: Uint8Array) => read(bytes, (p, n) => wasm.varintRead(p, n), 'varint')
/** Zigzag varlong (timestamp deltas). */
export const encodeVarlong = (v: bigint): Uint8Array => written((p) => wasm.varlongWrite(p, BigInt.asIntN(64, v)))
export const decodeVarlong = (bytes: Uint8Array) => read(bytes, (p, n) => wasm.varlongRead(p, n), 'varlong')
/** Unsigned varint (flexible protocol versions). */
export const encodeUvarint = (v: number): Uint8Array => written((p) => wasm.uvarintWrite(p, v | 0))
export const decodeUvarint = (bytes: Uint8Array) => read(bytes, (p, n) => wasm.uvarintRead(p, n) >>> 0, 'unsigned varint')
