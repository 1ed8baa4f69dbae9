/**
 * What the wasm core exports (assembly/index.ts), as JavaScript sees it: a
 * pointer (usize) or an i32/u32 is a number (a u32 comes back as a signed
 * i32: `>>> 0` it), an i64 a bigint, a bool parameter takes a boolean.
 * Results that are sizes are negative statuses (status.ts) on failure.
 */
export interface WasmExports {
  memory: WebAssembly.Memory
  /** Where the TypeScript arena starts: memory above it is free for the arena. */
  heapBase(): number

  // crc.ts: the checksum of len bytes at ptr, continuing from crc (0 to start).
  crc32c(crc: number, ptr: number, len: number): number
  crc32(crc: number, ptr: number, len: number): number

  // varint.ts: writes return the byte count; reads set getLastReadLength().
  varintWrite(p: number, v: number): number
  varlongWrite(p: number, v: bigint): number
  uvarintWrite(p: number, v: number): number
  varintRead(p: number, len: number): number
  varlongRead(p: number, len: number): bigint
  uvarintRead(p: number, len: number): number
  /** Bytes consumed by the last *Read call, or a negative status. */
  getLastReadLength(): number

  // batch-encode.ts: params is an E_* table (layout.ts); results are sizes or statuses.
  encodeRecords(records: number, count: number, out: number, cap: number, deltas: number): number
  sealBatch(params: number, bodyLen: number): number
  encodeBatch(params: number): number

  // batch-decode.ts: c is a D_* context; results are DECODED_* or statuses.
  decodeBatch(c: number): number
  decodeExternal(c: number): number

  // compress.ts: worst-case compressed size, or ERR_CODEC for a codec not in wasm.
  compressBound(codec: number, len: number): number

  // snappy.ts
  snappyRawBound(srcLen: number): number
  snappyXerialBound(srcLen: number): number
  snappyCompressRaw(src: number, srcLen: number, dst: number, dstCap: number): number
  snappyCompressXerial(src: number, srcLen: number, dst: number, dstCap: number): number
  snappyDecompressRaw(src: number, srcLen: number, dst: number, dstCap: number): number
  snappyUncompressedLength(src: number, srcLen: number): number
  snappyDecompress(src: number, srcLen: number, dst: number, dstCap: number): number

  // lz4.ts
  lz4CompressBlock(src: number, srcLen: number, dst: number, dstCap: number): number
  lz4BlockBound(srcLen: number): number
  lz4DecompressBlock(src: number, srcLen: number, dst: number, dstCap: number): number
  lz4FrameBound(srcLen: number): number
  lz4CompressFrame(src: number, srcLen: number, dst: number, dstCap: number): number
  lz4DecompressFrame(src: number, srcLen: number, dst: number, dstCap: number, legacyHeaderChecksum: boolean): number

  // xxhash32.ts
  xxh32(ptr: number, len: number, seed: number): number
}
