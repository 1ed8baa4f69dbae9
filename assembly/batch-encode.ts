// RecordBatch v2 encoding: TypeScript stages N records (bytes in memory plus
// a 32-byte descriptor each, see layout.ts) and one call frames every record,
// compresses the section when the codec lives in wasm, writes the 61-byte
// header and the CRC-32C.
import { crc32c } from './crc';
import { storeI16BE, storeI32BE, storeI64BE } from './bytes';
import { compressInto, compressBound } from './compress';
import {
  B_ATTRIBUTES, B_BASE_OFFSET, B_BASE_SEQUENCE, B_BASE_TIMESTAMP, B_COUNT, B_CRC, B_LAST_OFFSET_DELTA,
  B_LEADER_EPOCH, B_LENGTH, B_MAGIC, B_MAX_TIMESTAMP, B_PRODUCER_EPOCH, B_PRODUCER_ID, B_RECORDS,
  CODEC_NONE, E_ATTRIBUTES, E_BASE_OFFSET, E_BASE_SEQUENCE, E_BASE_TIMESTAMP, E_COUNT, E_LAST_OFFSET_DELTA,
  E_LEADER_EPOCH, E_MAX_TIMESTAMP, E_OUT, E_OUT_CAP, E_PRODUCER_EPOCH, E_PRODUCER_ID, E_RECORDS, E_RECORDS_LEN,
  E_OFFSET_DELTAS, E_SCRATCH, E_SCRATCH_CAP, H_KEY_LEN, H_KEY_PTR, H_SIZE, H_VALUE_LEN, H_VALUE_PTR, R_HEADERS_COUNT,
  R_HEADERS_PTR, R_KEY_LEN, R_KEY_PTR, R_SIZE, R_TS_DELTA, R_VALUE_LEN, R_VALUE_PTR,
} from './layout';
import { ERR_CODEC, ERR_OUTPUT_FULL } from './status';
import { sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from './varint';

// Small copies dominate (16-byte keys, 100-byte values): a word loop beats
// memory.copy's call overhead below ~64 bytes.
// @ts-ignore: decorator
@inline function copyBytes(dst: usize, src: usize, n: i32): void {
  if (n <= 64) {
    let i = 0;
    for (; i + 8 <= n; i += 8) store<u64>(dst + <usize>i, load<u64>(src + <usize>i));
    for (; i < n; i++) store<u8>(dst + <usize>i, load<u8>(src + <usize>i));
  } else {
    memory.copy(dst, src, <usize>n);
  }
}

// @ts-ignore: decorator
@inline function sizeOfBytes(len: i32): i32 {
  return len < 0 ? 1 : sizeOfVarint(len) + len;
}

/**
 * Frames `count` staged records at `out` (at most `cap` bytes). Record i's
 * offset delta is i, or the i-th i32 at `deltas` when that is not 0 (a
 * compacted batch keeps its records' offsets). Returns the bytes written or
 * ERR_OUTPUT_FULL.
 */
export function encodeRecords(records: usize, count: i32, out: usize, cap: i32, deltas: usize): i32 {
  let p = out;
  const end = out + <usize>cap;
  for (let i = 0; i < count; i++) {
    const r = records + <usize>i * R_SIZE;
    const offsetDelta = deltas == 0 ? i : load<i32>(deltas + (<usize>i << 2));
    const tsDelta = <i64>load<f64>(r, R_TS_DELTA);
    const keyLen = load<i32>(r, R_KEY_LEN);
    const valueLen = load<i32>(r, R_VALUE_LEN);
    const headers = <usize>load<u32>(r, R_HEADERS_PTR);
    const headerCount = load<i32>(r, R_HEADERS_COUNT);

    let size = 1 + sizeOfVarlong(tsDelta) + sizeOfVarint(offsetDelta) + sizeOfBytes(keyLen) + sizeOfBytes(valueLen) + sizeOfVarint(headerCount);
    for (let h = 0; h < headerCount; h++) {
      const e = headers + <usize>h * H_SIZE;
      size += sizeOfBytes(load<i32>(e, H_KEY_LEN)) + sizeOfBytes(load<i32>(e, H_VALUE_LEN));
    }
    if (<usize>size + 5 > end - p) return ERR_OUTPUT_FULL;

    p = writeVarint(p, size);
    store<u8>(p++, 0); // record attributes: unused
    p = writeVarlong(p, tsDelta);
    p = writeVarint(p, offsetDelta);
    p = writeVarint(p, keyLen);
    if (keyLen > 0) {
      copyBytes(p, <usize>load<u32>(r, R_KEY_PTR), keyLen);
      p += <usize>keyLen;
    }
    p = writeVarint(p, valueLen);
    if (valueLen > 0) {
      copyBytes(p, <usize>load<u32>(r, R_VALUE_PTR), valueLen);
      p += <usize>valueLen;
    }
    p = writeVarint(p, headerCount);
    for (let h = 0; h < headerCount; h++) {
      const e = headers + <usize>h * H_SIZE;
      const hk = load<i32>(e, H_KEY_LEN);
      const hv = load<i32>(e, H_VALUE_LEN);
      p = writeVarint(p, hk);
      if (hk > 0) {
        copyBytes(p, <usize>load<u32>(e, H_KEY_PTR), hk);
        p += <usize>hk;
      }
      p = writeVarint(p, hv);
      if (hv > 0) {
        copyBytes(p, <usize>load<u32>(e, H_VALUE_PTR), hv);
        p += <usize>hv;
      }
    }
  }
  return <i32>(p - out);
}

/**
 * Writes the batch header in front of a records section of `bodyLen` bytes
 * already at out+61, and the CRC-32C. Returns the batch size.
 */
export function sealBatch(params: usize, bodyLen: i32): i32 {
  const out = <usize>load<u32>(params, E_OUT);
  const size = B_RECORDS + bodyLen;
  storeI64BE(out + B_BASE_OFFSET, load<i64>(params, E_BASE_OFFSET));
  storeI32BE(out + B_LENGTH, size - 12);
  storeI32BE(out + B_LEADER_EPOCH, load<i32>(params, E_LEADER_EPOCH));
  store<u8>(out + B_MAGIC, 2);
  storeI16BE(out + B_ATTRIBUTES, load<i32>(params, E_ATTRIBUTES));
  storeI32BE(out + B_LAST_OFFSET_DELTA, load<i32>(params, E_LAST_OFFSET_DELTA));
  storeI64BE(out + B_BASE_TIMESTAMP, load<i64>(params, E_BASE_TIMESTAMP));
  storeI64BE(out + B_MAX_TIMESTAMP, load<i64>(params, E_MAX_TIMESTAMP));
  storeI64BE(out + B_PRODUCER_ID, load<i64>(params, E_PRODUCER_ID));
  storeI16BE(out + B_PRODUCER_EPOCH, load<i32>(params, E_PRODUCER_EPOCH));
  storeI32BE(out + B_BASE_SEQUENCE, load<i32>(params, E_BASE_SEQUENCE));
  storeI32BE(out + B_COUNT, load<i32>(params, E_COUNT));
  storeI32BE(out + B_CRC, <i32>crc32c(0, out + B_ATTRIBUTES, size - B_ATTRIBUTES));
  return size;
}

/**
 * Encodes a whole batch in one call when the codec lives in wasm (none, lz4,
 * snappy). For gzip and zstd it stages the uncompressed records section at
 * E_SCRATCH, sets E_RECORDS_LEN and returns ERR_CODEC: TypeScript compresses
 * it into out+61 and calls sealBatch.
 */
export function encodeBatch(params: usize): i32 {
  const codec = load<i32>(params, E_ATTRIBUTES) & 7;
  const records = <usize>load<u32>(params, E_RECORDS);
  const count = load<i32>(params, E_COUNT);
  const out = <usize>load<u32>(params, E_OUT);
  const outCap = load<i32>(params, E_OUT_CAP);
  const deltas = <usize>load<u32>(params, E_OFFSET_DELTAS);
  if (codec == CODEC_NONE) {
    const n = encodeRecords(records, count, out + B_RECORDS, outCap - B_RECORDS, deltas);
    if (n < 0) return n;
    store<i32>(params, n, E_RECORDS_LEN);
    return sealBatch(params, n);
  }
  const scratch = <usize>load<u32>(params, E_SCRATCH);
  const n = encodeRecords(records, count, scratch, load<i32>(params, E_SCRATCH_CAP), deltas);
  if (n < 0) return n;
  store<i32>(params, n, E_RECORDS_LEN);
  if (compressBound(codec, n) < 0) return ERR_CODEC;
  if (compressBound(codec, n) > outCap - B_RECORDS) return ERR_OUTPUT_FULL;
  const c = compressInto(codec, scratch, n, out + B_RECORDS, outCap - B_RECORDS);
  if (c < 0) return c;
  return sealBatch(params, c);
}
