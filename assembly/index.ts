// The one wasm module: every export TypeScript uses. Memory above heapBase()
// belongs to the TypeScript arena (src/codec/wasm.ts).

export { crc32c, crc32 } from './crc';

export function heapBase(): usize {
  return __heap_base;
}
export { varintWrite, varlongWrite, uvarintWrite, varintRead, varlongRead, uvarintRead, getLastReadLength } from './varint';
export { encodeRecords, sealBatch, encodeBatch } from './batch-encode';
export { decodeBatch, decodeExternal } from './batch-decode';
export { compressBound } from './compress';
export * from './snappy';
export * from './lz4';
export * from './xxhash32';
