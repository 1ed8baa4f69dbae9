import { arena, stage, wasm } from './wasm.js'

/** CRC-32C (Castagnoli), as record batches v2 use. Pass `crc` to continue a running value. */
export function crc32c(data: Uint8Array, crc = 0): number {
  arena.reset()
  return wasm.crc32c(crc, stage(data), data.length) >>> 0
}

/** CRC-32 (IEEE, zlib's), as legacy v0/v1 messages use. */
export function crc32(data: Uint8Array, crc = 0): number {
  arena.reset()
  return wasm.crc32(crc, stage(data), data.length) >>> 0
}
