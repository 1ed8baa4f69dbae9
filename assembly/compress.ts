// The codecs that live in wasm, behind one dispatch so the batch encoder and
// decoder stay codec-agnostic. gzip and zstd are done by TypeScript.
import { CODEC_LZ4, CODEC_SNAPPY } from './layout';
import { lz4CompressFrame, lz4DecompressFrame, lz4FrameBound } from './lz4';
import { snappyCompressXerial, snappyDecompress, snappyUncompressedLength, snappyXerialBound } from './snappy';
import { ERR_CODEC } from './status';

/** Worst-case compressed size, or ERR_CODEC when the codec is not in wasm. */
export function compressBound(codec: i32, len: i32): i32 {
  if (codec == CODEC_LZ4) return lz4FrameBound(len);
  if (codec == CODEC_SNAPPY) return snappyXerialBound(len);
  return ERR_CODEC;
}

export function compressInto(codec: i32, src: usize, len: i32, dst: usize, cap: i32): i32 {
  if (codec == CODEC_LZ4) return lz4CompressFrame(src, len, dst, cap);
  if (codec == CODEC_SNAPPY) return snappyCompressXerial(src, len, dst, cap);
  return ERR_CODEC;
}

/** True when the codec is decompressed in wasm. */
export function decompressesInWasm(codec: i32): bool {
  return codec == CODEC_LZ4 || codec == CODEC_SNAPPY;
}

/**
 * Decompresses into dst (cap bytes). ERR_OUTPUT_FULL means grow and retry;
 * legacyLz4 accepts the broken LZ4 header checksum of magic-0 data.
 */
export function decompressInto(codec: i32, src: usize, len: i32, dst: usize, cap: i32, legacyLz4: bool): i32 {
  if (codec == CODEC_LZ4) return lz4DecompressFrame(src, len, dst, cap, legacyLz4);
  if (codec == CODEC_SNAPPY) return snappyDecompress(src, len, dst, cap);
  return ERR_CODEC;
}

/** The decompressed size when the format states it (snappy), else -1; a status when malformed. */
export function decompressedSize(codec: i32, src: usize, len: i32): i32 {
  if (codec == CODEC_SNAPPY) return snappyUncompressedLength(src, len);
  return -1;
}
