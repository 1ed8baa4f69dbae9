import { codecError, ERR_OUTPUT_FULL } from './status.js'
import { arena, memU8, stage, wasm } from './wasm.js'
import { compressInWasm } from './wasm-compress.js'

/** Decompressed data larger than this is refused unless the caller raises it. */
export const LZ4_DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024

/**
 * LZ4 frame exactly as Kafka's Java client writes it: 64 KiB independent
 * blocks, no checksums but the header's.
 */
export function lz4CompressFrame(data: Uint8Array): Uint8Array {
  return compressInWasm(data, wasm.lz4FrameBound(data.length), wasm.lz4CompressFrame, 'lz4 compress')
}

/**
 * Decompresses one LZ4 frame. `legacyHeaderChecksum` accepts the wrong header
 * checksum that Kafka writes in magic-0 message sets. Throws CorruptRecordError
 * on bad data or output past `maxOutputBytes`.
 */
export function lz4DecompressFrame(data: Uint8Array, opts: { legacyHeaderChecksum?: boolean; maxOutputBytes?: number } = {}): Uint8Array {
  const max = opts.maxOutputBytes ?? LZ4_DEFAULT_MAX_OUTPUT
  const legacy = opts.legacyHeaderChecksum ?? false
  let cap = Math.min(max, outputBound(data))
  for (;;) {
    arena.reset()
    const src = stage(data)
    const dst = arena.alloc(cap)
    const n = wasm.lz4DecompressFrame(src, data.length, dst, cap, legacy)
    if (n >= 0) return memU8().slice(dst, dst + n)
    if (n !== ERR_OUTPUT_FULL) throw codecError(n, 'lz4 decompress')
    if (cap >= max) throw codecError(n, `lz4 decompress (limit ${max} bytes)`)
    cap = Math.min(max, Math.max(cap * 2, 1024))
  }
}

/**
 * An upper bound of the decompressed size from the block headers alone, so
 * valid frames decode in one call: a raw block is its size, a compressed one
 * at most the block maximum and at most 255 bytes per input byte (a
 * match-length byte). Malformed frames get a guess; wasm finds the error.
 */
function outputBound(d: Uint8Array): number {
  const guess = Math.max(65536, d.length * 4)
  if (d.length < 7) return 0
  const flg = d[4]
  const maxBlock = 1 << (8 + 2 * ((d[5] >> 4) & 7))
  const checksum = flg & 0x10 ? 4 : 0
  let p = flg & 0x08 ? 15 : 7
  let bound = 0
  while (p + 4 <= d.length) {
    const word = (d[p] | (d[p + 1] << 8) | (d[p + 2] << 16) | (d[p + 3] << 24)) >>> 0
    p += 4
    if (word === 0) return bound
    const size = word & 0x7fffffff
    bound += word & 0x80000000 ? size : Math.min(maxBlock, size * 255 + 64)
    p += size + checksum
  }
  return guess
}
