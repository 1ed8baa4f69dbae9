// Record set decoding: one call per entry (a v2 batch or a legacy message)
// validates lengths and checksums, decompresses when the codec lives in wasm,
// and writes an index TypeScript reads records from (layout.ts, X_*). Every
// read is checked against the entry's end: hostile bytes give a status, never
// a trap.
import { crc32, crc32c } from './crc';
import { loadI16BE, loadI32BE, loadI64BE } from './bytes';
import { decompressedSize, decompressesInWasm, decompressInto } from './compress';
import {
  B_ATTRIBUTES, B_BASE_OFFSET, B_BASE_SEQUENCE, B_BASE_TIMESTAMP, B_COUNT, B_CRC, B_LAST_OFFSET_DELTA,
  B_LEADER_EPOCH, B_MAGIC, B_MAX_TIMESTAMP, B_PRODUCER_EPOCH, B_PRODUCER_ID, B_RECORDS, CODEC_NONE, CODEC_ZSTD,
  D_ATTRIBUTES, D_BASE_OFFSET, D_BASE_SEQUENCE, D_BASE_TIMESTAMP, D_BATCH_SIZE, D_BATCH_START, D_BODY_LEN,
  D_BODY_START, D_COUNT, D_DATA_LEN, D_DATA_START, D_EXTERNAL, D_EXTERNAL_LEN, D_HEADERS, D_HEADERS_CAP,
  D_HEADERS_USED, D_IN, D_IN_LEN, D_INDEX, D_INDEX_CAP, D_LAST_OFFSET_DELTA, D_LEADER_EPOCH, D_MAGIC,
  D_MAX_DECOMPRESSED, D_MAX_TIMESTAMP, D_NEED_HEADERS, D_NEED_INDEX, D_NEED_SCRATCH, D_ORIGIN, D_POS,
  D_PRODUCER_EPOCH, D_PRODUCER_ID, D_SCRATCH, D_SCRATCH_CAP, D_VERIFY_CRC, DECODED_BATCH, DECODED_END,
  DECODED_EXTERNAL, DECODED_NEED_SPACE, H_KEY_LEN, H_KEY_PTR, H_SIZE, H_VALUE_LEN, H_VALUE_PTR, ORIGIN_EXTERNAL,
  ORIGIN_INPUT, ORIGIN_SCRATCH, X_HEADERS_COUNT, X_HEADERS_FIRST, X_KEY_LEN, X_KEY_OFF, X_OFFSET_DELTA, X_SIZE,
  X_TS_DELTA, X_VALUE_LEN, X_VALUE_OFF,
} from './layout';
import { ERR_CHECKSUM, ERR_CODEC, ERR_LENGTH, ERR_MAGIC, ERR_OUTPUT_FULL, ERR_RECORD, ERR_TRUNCATED, OK } from './status';
import { cur, curErr, readVarint, readVarlong, setCursor, setCursorEnd } from './varint';

/** Smallest legacy message after offset and size (v0), as Java checks it. */
const LEGACY_MIN_V0 = 14;
const LEGACY_MIN_V1 = 22;
/** Smallest v2 record: length, attributes, ts, offset, key, value, headers. */
const MIN_RECORD = 7;

/** Next entry of the record set at D_POS. */
export function decodeBatch(c: usize): i32 {
  const input = <usize>load<u32>(c, D_IN);
  const inLen = load<i32>(c, D_IN_LEN);
  const pos = load<i32>(c, D_POS);
  const remaining = inLen - pos;
  // A Fetch may cut the last entry short: whole entries only, no error.
  if (remaining < 12) return DECODED_END;
  const p = input + <usize>pos;
  const length = loadI32BE(p + 8);
  if (length < LEGACY_MIN_V0) return ERR_LENGTH;
  if (length > remaining - 12) return DECODED_END;
  const size = 12 + length;
  store<i32>(c, pos, D_BATCH_START);
  store<i32>(c, size, D_BATCH_SIZE);
  const magic = <i32>load<i8>(p + B_MAGIC);
  store<i32>(c, magic, D_MAGIC);
  if (magic == 2) return decodeV2(c, p, size);
  if (magic == 0 || magic == 1) return decodeLegacy(c, p, size, magic);
  return ERR_MAGIC;
}

/** Indexes the records TypeScript decompressed into D_EXTERNAL. */
export function decodeExternal(c: usize): i32 {
  const ext = <usize>load<u32>(c, D_EXTERNAL);
  const len = load<i32>(c, D_EXTERNAL_LEN);
  if (load<i32>(c, D_MAGIC) == 2) return indexV2(c, ext, len, ext, ORIGIN_EXTERNAL);
  return indexLegacy(c, ext, len, ext, ORIGIN_EXTERNAL);
}

function finish(c: usize, origin: i32, originBase: usize, start: usize, len: i32): i32 {
  store<i32>(c, origin, D_ORIGIN);
  store<i32>(c, <i32>(start - originBase), D_DATA_START);
  store<i32>(c, len, D_DATA_LEN);
  store<i32>(c, load<i32>(c, D_BATCH_START) + load<i32>(c, D_BATCH_SIZE), D_POS);
  return DECODED_BATCH;
}

function decodeV2(c: usize, p: usize, size: i32): i32 {
  if (size < B_RECORDS) return ERR_LENGTH;
  const attributes = loadI16BE(p + B_ATTRIBUTES) & 0xffff;
  store<i32>(c, attributes, D_ATTRIBUTES);
  store<i32>(c, loadI32BE(p + B_LAST_OFFSET_DELTA), D_LAST_OFFSET_DELTA);
  store<i32>(c, loadI32BE(p + B_LEADER_EPOCH), D_LEADER_EPOCH);
  store<i32>(c, loadI16BE(p + B_PRODUCER_EPOCH), D_PRODUCER_EPOCH);
  store<i32>(c, loadI32BE(p + B_BASE_SEQUENCE), D_BASE_SEQUENCE);
  store<i64>(c, loadI64BE(p + B_BASE_OFFSET), D_BASE_OFFSET);
  store<i64>(c, loadI64BE(p + B_PRODUCER_ID), D_PRODUCER_ID);
  store<f64>(c, <f64>loadI64BE(p + B_BASE_TIMESTAMP), D_BASE_TIMESTAMP);
  store<f64>(c, <f64>loadI64BE(p + B_MAX_TIMESTAMP), D_MAX_TIMESTAMP);
  const count = loadI32BE(p + B_COUNT);
  store<i32>(c, count, D_COUNT);
  if (load<i32>(c, D_VERIFY_CRC) != 0) {
    if (crc32c(0, p + B_ATTRIBUTES, size - B_ATTRIBUTES) != <u32>loadI32BE(p + B_CRC)) return ERR_CHECKSUM;
  }
  if (count < 0) return ERR_LENGTH;

  const body = p + B_RECORDS;
  const bodyLen = size - B_RECORDS;
  const input = <usize>load<u32>(c, D_IN);
  store<i32>(c, <i32>(body - input), D_BODY_START);
  store<i32>(c, bodyLen, D_BODY_LEN);
  const codec = attributes & 7;
  if (codec == CODEC_NONE) return indexV2(c, body, bodyLen, input, ORIGIN_INPUT);
  if (codec > CODEC_ZSTD) return ERR_CODEC;
  if (!decompressesInWasm(codec)) return DECODED_EXTERNAL;
  const n = decompressToScratch(c, codec, body, bodyLen, false);
  if (n == SCRATCH_TOO_SMALL) return DECODED_NEED_SPACE;
  if (n < 0) return n;
  const scratch = <usize>load<u32>(c, D_SCRATCH);
  return indexV2(c, scratch, n, scratch, ORIGIN_SCRATCH);
}

/** decompressToScratch's answer when a larger scratch region, still under the limit, may fit. */
const SCRATCH_TOO_SMALL: i32 = -1000;

/** Decompresses into the scratch region: the length, a status, or SCRATCH_TOO_SMALL. */
function decompressToScratch(c: usize, codec: i32, src: usize, len: i32, legacyLz4: bool): i32 {
  const scratchCap = load<i32>(c, D_SCRATCH_CAP);
  const limit = load<i32>(c, D_MAX_DECOMPRESSED);
  // Snappy states its size up front: ask for exactly that much.
  const known = decompressedSize(codec, src, len);
  if (known > limit) return ERR_OUTPUT_FULL;
  if (known > scratchCap) {
    store<i32>(c, known, D_NEED_SCRATCH);
    return SCRATCH_TOO_SMALL;
  }
  const cap = scratchCap < limit ? scratchCap : limit;
  const n = decompressInto(codec, src, len, <usize>load<u32>(c, D_SCRATCH), cap, legacyLz4);
  if (n == ERR_OUTPUT_FULL && cap < limit) {
    const grown = scratchCap > (limit >> 1) ? limit : scratchCap << 1;
    store<i32>(c, grown, D_NEED_SCRATCH);
    return SCRATCH_TOO_SMALL;
  }
  return n;
}

// @ts-ignore: decorator
@inline function putIndex(
  x: usize, tsDelta: f64, offsetDelta: i32, keyOff: i32, keyLen: i32, valueOff: i32, valueLen: i32,
  headersCount: i32, headersFirst: i32,
): void {
  store<f64>(x, tsDelta, X_TS_DELTA);
  store<i32>(x, offsetDelta, X_OFFSET_DELTA);
  store<i32>(x, keyOff, X_KEY_OFF);
  store<i32>(x, keyLen, X_KEY_LEN);
  store<i32>(x, valueOff, X_VALUE_OFF);
  store<i32>(x, valueLen, X_VALUE_LEN);
  store<i32>(x, headersCount, X_HEADERS_COUNT);
  store<i32>(x, headersFirst, X_HEADERS_FIRST);
}

/** Indexes the v2 records section [start, start+len). */
function indexV2(c: usize, start: usize, len: i32, originBase: usize, origin: i32): i32 {
  const count = load<i32>(c, D_COUNT);
  if (count > len / MIN_RECORD) return ERR_RECORD;
  if (count > load<i32>(c, D_INDEX_CAP)) {
    store<i32>(c, count, D_NEED_INDEX);
    return DECODED_NEED_SPACE;
  }
  const index = <usize>load<u32>(c, D_INDEX);
  const headers = <usize>load<u32>(c, D_HEADERS);
  const headersCap = load<i32>(c, D_HEADERS_CAP);
  const end = start + <usize>len;
  let used = 0;
  setCursor(start, end);
  for (let i = 0; i < count; i++) {
    const recordLen = readVarint();
    if (curErr != OK) return curErr;
    if (recordLen < 0 || <usize>recordLen > end - cur) return ERR_RECORD;
    const recordEnd = cur + <usize>recordLen;
    setCursorEnd(recordEnd);
    if (cur >= recordEnd) return ERR_RECORD;
    cur++; // attributes: unused
    const tsDelta = readVarlong();
    const offsetDelta = readVarint();
    const keyLen = readVarint();
    if (curErr != OK) return curErr;
    if (keyLen < -1 || (keyLen > 0 && <usize>keyLen > recordEnd - cur)) return ERR_RECORD;
    const keyOff = <i32>(cur - originBase);
    if (keyLen > 0) cur += <usize>keyLen;
    const valueLen = readVarint();
    if (curErr != OK) return curErr;
    if (valueLen < -1 || (valueLen > 0 && <usize>valueLen > recordEnd - cur)) return ERR_RECORD;
    const valueOff = <i32>(cur - originBase);
    if (valueLen > 0) cur += <usize>valueLen;
    const headersCount = readVarint();
    if (curErr != OK) return curErr;
    // Each header takes at least two bytes (key and value lengths).
    if (headersCount < 0 || <usize>headersCount > (recordEnd - cur) >> 1) return ERR_RECORD;
    if (headersCount > headersCap - used) {
      store<i32>(c, headersCap < 1024 ? 2048 : headersCap << 1, D_NEED_HEADERS);
      return DECODED_NEED_SPACE;
    }
    const first = used;
    for (let h = 0; h < headersCount; h++) {
      const hk = readVarint();
      if (curErr != OK) return curErr;
      if (hk < 0 || <usize>hk > recordEnd - cur) return ERR_RECORD;
      const hkOff = <i32>(cur - originBase);
      cur += <usize>hk;
      const hv = readVarint();
      if (curErr != OK) return curErr;
      if (hv < -1 || (hv > 0 && <usize>hv > recordEnd - cur)) return ERR_RECORD;
      const hvOff = <i32>(cur - originBase);
      if (hv > 0) cur += <usize>hv;
      const e = headers + <usize>used * H_SIZE;
      store<i32>(e, hkOff, H_KEY_PTR);
      store<i32>(e, hk, H_KEY_LEN);
      store<i32>(e, hvOff, H_VALUE_PTR);
      store<i32>(e, hv, H_VALUE_LEN);
      used++;
    }
    if (cur != recordEnd) return ERR_RECORD;
    setCursorEnd(end);
    putIndex(index + <usize>i * X_SIZE, <f64>tsDelta, offsetDelta, keyOff, keyLen, valueOff, valueLen, headersCount, first);
  }
  if (cur != end) return ERR_RECORD;
  store<i32>(c, used, D_HEADERS_USED);
  return finish(c, origin, originBase, start, len);
}

/** Key and value of the legacy message at m (size bytes from its offset field). */
let legacyKeyPtr: usize = 0;
let legacyKeyLen: i32 = 0;
let legacyValuePtr: usize = 0;
let legacyValueLen: i32 = 0;
let legacyTimestamp: i64 = -1;

/** Validates one legacy message and sets the legacy* fields. */
function parseLegacy(m: usize, size: i32, verifyCrc: bool): i32 {
  const magic = <i32>load<u8>(m + 16);
  if (magic > 1) return ERR_MAGIC;
  if (size - 12 < (magic == 1 ? LEGACY_MIN_V1 : LEGACY_MIN_V0)) return ERR_LENGTH;
  const end = m + <usize>size;
  if (verifyCrc && crc32(0, m + 16, size - 16) != <u32>loadI32BE(m + 12)) return ERR_CHECKSUM;
  let q = m + 18;
  legacyTimestamp = -1;
  if (magic == 1) {
    legacyTimestamp = loadI64BE(q);
    q += 8;
  }
  const keyLen = loadI32BE(q);
  q += 4;
  if (keyLen < -1 || (keyLen > 0 && <usize>keyLen > end - q)) return ERR_RECORD;
  legacyKeyPtr = q;
  legacyKeyLen = keyLen;
  if (keyLen > 0) q += <usize>keyLen;
  if (end - q < 4) return ERR_TRUNCATED;
  const valueLen = loadI32BE(q);
  q += 4;
  if (valueLen < -1 || (valueLen > 0 && <usize>valueLen > end - q)) return ERR_RECORD;
  legacyValuePtr = q;
  legacyValueLen = valueLen;
  if (valueLen > 0) q += <usize>valueLen;
  if (q != end) return ERR_RECORD;
  return OK;
}

function decodeLegacy(c: usize, p: usize, size: i32, magic: i32): i32 {
  const verify = load<i32>(c, D_VERIFY_CRC) != 0;
  const status = parseLegacy(p, size, verify);
  if (status != OK) return status;
  const attributes = <i32>load<u8>(p + 17);
  store<i32>(c, attributes, D_ATTRIBUTES);
  store<i32>(c, -1, D_LEADER_EPOCH);
  store<i32>(c, -1, D_PRODUCER_EPOCH);
  store<i32>(c, -1, D_BASE_SEQUENCE);
  store<i64>(c, -1, D_PRODUCER_ID);
  store<i64>(c, loadI64BE(p), D_BASE_OFFSET);
  store<f64>(c, 0, D_BASE_TIMESTAMP);
  store<f64>(c, <f64>legacyTimestamp, D_MAX_TIMESTAMP);
  store<i32>(c, 0, D_HEADERS_USED);
  const input = <usize>load<u32>(c, D_IN);
  const codec = attributes & 7;
  if (codec == CODEC_NONE) {
    if (load<i32>(c, D_INDEX_CAP) < 1) {
      store<i32>(c, 1, D_NEED_INDEX);
      return DECODED_NEED_SPACE;
    }
    store<i32>(c, 1, D_COUNT);
    store<i32>(c, 0, D_LAST_OFFSET_DELTA);
    putIndex(
      <usize>load<u32>(c, D_INDEX), <f64>legacyTimestamp, 0, <i32>(legacyKeyPtr - input), legacyKeyLen,
      <i32>(legacyValuePtr - input), legacyValueLen, 0, 0,
    );
    return finish(c, ORIGIN_INPUT, input, p, size);
  }
  // A wrapper: its value is a compressed set of inner messages.
  if (codec >= CODEC_ZSTD) return ERR_CODEC;
  if (legacyValueLen < 0) return ERR_RECORD;
  store<i32>(c, <i32>(legacyValuePtr - input), D_BODY_START);
  store<i32>(c, legacyValueLen, D_BODY_LEN);
  if (!decompressesInWasm(codec)) return DECODED_EXTERNAL;
  const n = decompressToScratch(c, codec, legacyValuePtr, legacyValueLen, magic == 0);
  if (n == SCRATCH_TOO_SMALL) return DECODED_NEED_SPACE;
  if (n < 0) return n;
  const scratch = <usize>load<u32>(c, D_SCRATCH);
  return indexLegacy(c, scratch, n, scratch, ORIGIN_SCRATCH);
}

/** Indexes the inner messages of a legacy wrapper, decompressed at [start, start+len). */
function indexLegacy(c: usize, start: usize, len: i32, originBase: usize, origin: i32): i32 {
  const wrapperMagic = load<i32>(c, D_MAGIC);
  const wrapperOffset = load<i64>(c, D_BASE_OFFSET);
  const wrapperTimestamp = load<f64>(c, D_MAX_TIMESTAMP);
  const logAppendTime = wrapperMagic == 1 && (load<i32>(c, D_ATTRIBUTES) & 8) != 0;
  const verify = load<i32>(c, D_VERIFY_CRC) != 0;
  const index = <usize>load<u32>(c, D_INDEX);
  const indexCap = load<i32>(c, D_INDEX_CAP);
  const end = start + <usize>len;
  let q = start;
  let n = 0;
  let first: i64 = 0;
  let last: i64 = 0;
  while (q < end) {
    if (end - q < 12) return ERR_TRUNCATED;
    const offset = loadI64BE(q);
    const length = loadI32BE(q + 8);
    if (length < LEGACY_MIN_V0) return ERR_LENGTH;
    if (<usize>length > end - q - 12) return ERR_TRUNCATED;
    const size = 12 + length;
    const status = parseLegacy(q, size, verify);
    if (status != OK) return status;
    if ((load<u8>(q + 17) & 7) != 0) return ERR_RECORD; // nested compression
    if (n == 0) first = offset;
    const delta = offset - first;
    if (delta < i32.MIN_VALUE || delta > i32.MAX_VALUE) return ERR_RECORD;
    if (n >= indexCap) {
      store<i32>(c, len / (12 + LEGACY_MIN_V0) + 1, D_NEED_INDEX);
      return DECODED_NEED_SPACE;
    }
    putIndex(
      index + <usize>n * X_SIZE, logAppendTime ? wrapperTimestamp : <f64>legacyTimestamp, <i32>delta,
      <i32>(legacyKeyPtr - originBase), legacyKeyLen, <i32>(legacyValuePtr - originBase), legacyValueLen, 0, 0,
    );
    last = offset;
    n++;
    q += <usize>size;
  }
  // Magic 1 inner offsets are relative, the wrapper holds the last absolute
  // one; a wrapper offset of 0 (some librdkafka versions) keeps them as is.
  let base = first;
  if (wrapperMagic == 1 && wrapperOffset != 0) base = wrapperOffset - last + first;
  store<i64>(c, base, D_BASE_OFFSET);
  store<i32>(c, n, D_COUNT);
  store<i32>(c, <i32>(last - first), D_LAST_OFFSET_DELTA);
  store<f64>(c, 0, D_BASE_TIMESTAMP);
  return finish(c, origin, originBase, start, len);
}
