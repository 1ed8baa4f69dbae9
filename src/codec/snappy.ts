import { codecError, ERR_OUTPUT_FULL } from './status.js'
import { arena, memU8, stage, wasm } from './wasm.js'
import { compressInWasm } from './wasm-compress.js'

/** Decompressed data larger than this is refused unless the caller raises it. */
export const SNAPPY_DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024

/**
 * Snappy in the xerial snappy-java stream format, which the Java client
 * writes and every Kafka reader accepts.
 */
export function snappyCompress(data: Uint8Array): Uint8Array {
  return compressInWasm(data, wasm.snappyXerialBound(data.length), wasm.snappyCompressXerial, 'snappy compress')
}

/**
 * Kafka's snappy reading rules: xerial-framed (possibly several streams
 * joined) when the data starts with the xerial magic, else one raw block
 * (as librdkafka and KafkaJS write). Throws CorruptRecordError on bad data.
 */
export function snappyDecompress(data: Uint8Array, opts: { maxOutputBytes?: number } = {}): Uint8Array {
  const max = opts.maxOutputBytes ?? SNAPPY_DEFAULT_MAX_OUTPUT
  arena.reset()
  const src = stage(data)
  // Exact size first (bomb-checked in wasm), so nothing is reserved for
  // data that would be refused anyway.
  const size = wasm.snappyUncompressedLength(src, data.length)
  if (size < 0) throw codecError(size, 'snappy decompress')
  if (size > max) throw codecError(ERR_OUTPUT_FULL, `snappy decompress (${size} bytes, limit ${max})`)
  const dst = arena.alloc(size)
  const n = wasm.snappyDecompress(src, data.length, dst, size)
  if (n < 0) throw codecError(n, 'snappy decompress')
  return memU8().slice(dst, dst + n)
}
