// CRC-32C variants for the lab (bench/crc-lab/README.md): each export is
// (crc, ptr, len) -> crc like assembly/crc.ts's crc32c. Compiled on its own
// into bench/crc-lab/lab.wasm; nothing here is part of the package.

const CASTAGNOLI: u32 = 0x82f63b78;

// 16 tables of 256 u32: slicing by 16 (tables 0..15) and by 8 (0..7).
const tables = memory.data(16 * 256 * 4, 64);
// Shift operators for the multi-stream combine: 4 tables of 256 u32 each
// that map a CRC register to the register after STREAM zero bytes.
const shiftTables = memory.data(4 * 256 * 4, 64);
// Scratch for the sparse reduction (history + chunk) and its tail.
const SPARSE_HIST: usize = 224; // >= K = 209, a multiple of 16
let SPARSE_CHUNK: usize = 4096;
/** For the chunk sweep: bytes reduced between two history moves. */
export function setChunk(n: usize): void {
  SPARSE_CHUNK = n;
}
const scratch = memory.data(320 + 65536 + 320, 64);
const tailBuf = memory.data(512, 64);

function fillTables(): void {
  for (let i: u32 = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CASTAGNOLI : c >>> 1;
    store<u32>(tables + (<usize>i << 2), c);
  }
  for (let t: usize = 1; t < 16; t++) {
    for (let i: usize = 0; i < 256; i++) {
      const prev = load<u32>(tables + ((t - 1) << 10) + (i << 2));
      store<u32>(tables + (t << 10) + (i << 2), (prev >>> 8) ^ load<u32>(tables + ((<usize>(prev & 0xff)) << 2)));
    }
  }
}
fillTables();

// @ts-ignore: decorator
@inline function tab(t: usize, b: u32): u32 {
  return load<u32>(tables + (t << 10) + ((<usize>(b & 0xff)) << 2));
}
// @ts-ignore: decorator
@inline function tabAt(t: usize, p: usize): u32 {
  return load<u32>(tables + (t << 10) + ((<usize>load<u8>(p)) << 2));
}

// ---------------------------------------------------------------- reference

/** Bit at a time, no tables: the reference every variant is checked against. */
export function bitwise(crc: u32, ptr: usize, len: i32): u32 {
  crc = ~crc;
  for (let i: usize = 0; i < <usize>len; i++) {
    crc ^= load<u8>(ptr + i);
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ CASTAGNOLI : crc >>> 1;
  }
  return ~crc;
}

// Register (not inverted) over len bytes, one table lookup a byte.
// @ts-ignore: decorator
@inline function bytewiseReg(crc: u32, p: usize, end: usize): u32 {
  while (p < end) {
    crc = (crc >>> 8) ^ tab(0, crc ^ load<u8>(p));
    p++;
  }
  return crc;
}

// ------------------------------------------------------ slicing by 16 (today)

// @ts-ignore: decorator
@inline function slice16Reg(crc: u32, ptr: usize, len: usize): u32 {
  let p = ptr;
  const end = ptr + len;
  while (p + 16 <= end) {
    const a = load<u32>(p) ^ crc;
    crc = tab(15, a) ^ tab(14, a >>> 8) ^ tab(13, a >>> 16) ^ tab(12, a >>> 24);
    crc ^= tabAt(11, p + 4) ^ tabAt(10, p + 5) ^ tabAt(9, p + 6) ^ tabAt(8, p + 7);
    crc ^= tabAt(7, p + 8) ^ tabAt(6, p + 9) ^ tabAt(5, p + 10) ^ tabAt(4, p + 11);
    crc ^= tabAt(3, p + 12) ^ tabAt(2, p + 13) ^ tabAt(1, p + 14) ^ tabAt(0, p + 15);
    p += 16;
  }
  return bytewiseReg(crc, p, end);
}

/** assembly/crc.ts as it is today. */
export function slice16(crc: u32, ptr: usize, len: i32): u32 {
  return ~slice16Reg(~crc, ptr, <usize>len);
}

// Slicing by 16 with two u64 loads and shifts in place of 12 byte loads.
// @ts-ignore: decorator
@inline function slice16wReg(crc: u32, ptr: usize, len: usize): u32 {
  let p = ptr;
  const end = ptr + len;
  while (p + 16 <= end) {
    const lo = load<u64>(p) ^ <u64>crc;
    const hi = load<u64>(p, 8);
    const a = <u32>lo;
    const b = <u32>(lo >>> 32);
    const c = <u32>hi;
    const d = <u32>(hi >>> 32);
    crc = tab(15, a) ^ tab(14, a >>> 8) ^ tab(13, a >>> 16) ^ tab(12, a >>> 24);
    crc ^= tab(11, b) ^ tab(10, b >>> 8) ^ tab(9, b >>> 16) ^ tab(8, b >>> 24);
    crc ^= tab(7, c) ^ tab(6, c >>> 8) ^ tab(5, c >>> 16) ^ tab(4, c >>> 24);
    crc ^= tab(3, d) ^ tab(2, d >>> 8) ^ tab(1, d >>> 16) ^ tab(0, d >>> 24);
    p += 16;
  }
  return bytewiseReg(crc, p, end);
}

export function slice16w(crc: u32, ptr: usize, len: i32): u32 {
  return ~slice16wReg(~crc, ptr, <usize>len);
}

// ------------------------------------- N interleaved slicing-by-8 streams

// The register after STREAM zero bytes, as a linear map of 4 table lookups.
const STREAM: usize = 256;
function fillShift(): void {
  // Column images: shift of each single-bit register, by running zeros.
  for (let byte: usize = 0; byte < 4; byte++) {
    for (let v: u32 = 0; v < 256; v++) {
      let c = v << (<u32>byte * 8);
      for (let i: usize = 0; i < STREAM; i++) c = (c >>> 8) ^ tab(0, c);
      store<u32>(shiftTables + (byte << 10) + (<usize>v << 2), c);
    }
  }
}
fillShift();

// @ts-ignore: decorator
@inline function shiftStream(c: u32): u32 {
  return (
    load<u32>(shiftTables + ((<usize>(c & 0xff)) << 2)) ^
    load<u32>(shiftTables + 1024 + ((<usize>((c >>> 8) & 0xff)) << 2)) ^
    load<u32>(shiftTables + 2048 + ((<usize>((c >>> 16) & 0xff)) << 2)) ^
    load<u32>(shiftTables + 3072 + ((<usize>(c >>> 24)) << 2))
  );
}

// One slicing-by-8 step of register c over the 8 bytes at p.
// @ts-ignore: decorator
@inline function step8(c: u32, p: usize): u32 {
  const w = load<u64>(p) ^ <u64>c;
  const a = <u32>w;
  const b = <u32>(w >>> 32);
  return (
    (tab(7, a) ^ tab(6, a >>> 8) ^ tab(5, a >>> 16) ^ tab(4, a >>> 24)) ^
    (tab(3, b) ^ tab(2, b >>> 8) ^ tab(1, b >>> 16) ^ tab(0, b >>> 24))
  );
}

/** Two streams of STREAM bytes a block, combined per block. */
export function streams2(crc: u32, ptr: usize, len: i32): u32 {
  let c = ~crc;
  let p = ptr;
  const end = ptr + <usize>len;
  while (p + 2 * STREAM <= end) {
    let c1: u32 = 0;
    const stop = p + STREAM;
    while (p < stop) {
      c = step8(c, p);
      c1 = step8(c1, p + STREAM);
      p += 8;
    }
    c = shiftStream(c) ^ c1;
    p += STREAM;
  }
  return ~slice16Reg(c, p, end - p);
}

/** Three streams of STREAM bytes a block, combined per block. */
export function streams3(crc: u32, ptr: usize, len: i32): u32 {
  let c = ~crc;
  let p = ptr;
  const end = ptr + <usize>len;
  while (p + 3 * STREAM <= end) {
    let c1: u32 = 0;
    let c2: u32 = 0;
    const stop = p + STREAM;
    while (p < stop) {
      c = step8(c, p);
      c1 = step8(c1, p + STREAM);
      c2 = step8(c2, p + 2 * STREAM);
      p += 8;
    }
    c = shiftStream(shiftStream(c) ^ c1) ^ c2;
    p += 2 * STREAM;
  }
  return ~slice16Reg(c, p, end - p);
}

/** Four streams of STREAM bytes a block, combined per block. */
export function streams4(crc: u32, ptr: usize, len: i32): u32 {
  let c = ~crc;
  let p = ptr;
  const end = ptr + <usize>len;
  while (p + 4 * STREAM <= end) {
    let c1: u32 = 0;
    let c2: u32 = 0;
    let c3: u32 = 0;
    const stop = p + STREAM;
    while (p < stop) {
      c = step8(c, p);
      c1 = step8(c1, p + STREAM);
      c2 = step8(c2, p + 2 * STREAM);
      c3 = step8(c3, p + 3 * STREAM);
      p += 8;
    }
    c = shiftStream(shiftStream(shiftStream(c) ^ c1) ^ c2) ^ c3;
    p += 3 * STREAM;
  }
  return ~slice16Reg(c, p, end - p);
}

// ------------------------------------------- sparse-multiple reduction
//
// M(y) = y^209 + y^144 + y^54 + y^39 + y^14 + 1, y = x^8, is a multiple of
// the Castagnoli polynomial (sparse-search.c found it; lab.mjs checks it).
// Adding a multiple of P to the message leaves its CRC unchanged, so each
// byte E[p] of the message, cleared by adding M shifted to its place, lands
// on the bytes 65, 155, 170, 195 and 209 places later (209 - each lower
// exponent). Run front to back, the reduced byte is
//   E[p] = W[p] ^ E[p-65] ^ E[p-155] ^ E[p-170] ^ E[p-195] ^ E[p-209]
// and only the last >= 209 bytes are left, which go through the tables. The
// smallest offset, 65, is above 16: a vector of 16 reduced bytes depends
// only on vectors already stored. The CRC's start register is xored into the
// first 4 bytes (a reflected CRC's register is the next 4 message bytes).
const O1: usize = 65;
const O2: usize = 155;
const O3: usize = 170;
const O4: usize = 195;
const O5: usize = 209;
// Below this the tables alone win (lab.mjs --sweep measures where).
let SPARSE_MIN: i32 = 512;

/** For the sweep: the length from which the sparse variants reduce (at least
 *  the multiple's span plus a vector, else there is no bulk). */
export function setSparseMin(n: i32): void {
  SPARSE_MIN = n < 320 ? 320 : n;
}

// @ts-ignore: decorator
@inline function hist(q: usize): v128 {
  return v128.xor(
    v128.xor(v128.load(q - O1), v128.load(q - O2)),
    v128.xor(v128.xor(v128.load(q - O3), v128.load(q - O4)), v128.load(q - O5)),
  );
}

/** The sparse reduction, 16 bytes a step (wasm SIMD). */
export function sparse(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16(crc, ptr, len);
  const n = <usize>len;
  // bulk: a multiple of 16, leaving a tail of 209..224 bytes
  const bulk = (n - O5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + SPARSE_HIST; // E[p] lives at h + (p - chunk start)
  memory.fill(scratch, 0, SPARSE_HIST);
  let inject = i32x4.replace_lane(i32x4.splat(0), 0, ~crc);
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    // first vector of the buffer carries the start register
    v128.store(q, v128.xor(v128.xor(v128.load(p), inject), hist(q)));
    inject = i32x4.splat(0);
    q += 16;
    p += 16;
    while (q < stop) {
      v128.store(q, v128.xor(v128.load(p), hist(q)));
      q += 16;
      p += 16;
    }
    memory.copy(scratch, stop - SPARSE_HIST, SPARSE_HIST);
  }
  // Tail: W ^ the bulk's contributions; reading past the bulk reads zeros.
  memory.fill(h, 0, 256);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), hist(h + i)));
  }
  return ~slice16Reg(0, tailBuf, tail);
}

/** The same reduction 8 bytes a step with i64 (no SIMD). */
export function sparse64(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16(crc, ptr, len);
  const n = <usize>len;
  const bulk = (n - O5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + SPARSE_HIST;
  memory.fill(scratch, 0, SPARSE_HIST);
  let inject = <u64>~crc;
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    while (q < stop) {
      store<u64>(
        q,
        load<u64>(p) ^ inject ^ load<u64>(q - O1) ^ load<u64>(q - O2) ^ load<u64>(q - O3) ^ load<u64>(q - O4) ^ load<u64>(q - O5),
      );
      inject = 0;
      q += 8;
      p += 8;
    }
    memory.copy(scratch, stop - SPARSE_HIST, SPARSE_HIST);
  }
  memory.fill(h, 0, 256);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), hist(h + i)));
  }
  return ~slice16Reg(0, tailBuf, tail);
}


/** The SIMD reduction, four vectors (64 bytes) a loop turn: the smallest
 *  offset, 65, is above 64, so the four are independent of each other. */
export function sparseX4(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16(crc, ptr, len);
  const n = <usize>len;
  const bulk = (n - O5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + SPARSE_HIST;
  memory.fill(scratch, 0, SPARSE_HIST);
  let inject = i32x4.replace_lane(i32x4.splat(0), 0, ~crc);
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    v128.store(q, v128.xor(v128.xor(v128.load(p), inject), hist(q)));
    inject = i32x4.splat(0);
    q += 16;
    p += 16;
    while (q + 64 <= stop) {
      const a = v128.xor(v128.load(p), hist(q));
      const b = v128.xor(v128.load(p, 16), hist(q + 16));
      const c = v128.xor(v128.load(p, 32), hist(q + 32));
      const d = v128.xor(v128.load(p, 48), hist(q + 48));
      v128.store(q, a);
      v128.store(q, b, 16);
      v128.store(q, c, 32);
      v128.store(q, d, 48);
      q += 64;
      p += 64;
    }
    while (q < stop) {
      v128.store(q, v128.xor(v128.load(p), hist(q)));
      q += 16;
      p += 16;
    }
    memory.copy(scratch, stop - SPARSE_HIST, SPARSE_HIST);
  }
  memory.fill(h, 0, 256);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), hist(h + i)));
  }
  return ~slice16Reg(0, tailBuf, tail);
}


// A second Castagnoli multiple with a larger smallest offset:
// y^290 + y^136 + y^113 + y^107 + y^32 + 1, byte offsets 154, 177, 183,
// 258 and 290. The load 65 bytes back in sparse() straddles two stores only
// four steps old, still in the store buffer (a store-forwarding stall); 154
// bytes back they have retired. Costs a longer table tail (290..305 bytes).
const B1: usize = 154;
const B2: usize = 177;
const B3: usize = 183;
const B4: usize = 258;
const B5: usize = 290;
const B_HIST: usize = 304; // >= 290, a multiple of 16

// @ts-ignore: decorator
@inline function histB(q: usize): v128 {
  return v128.xor(
    v128.xor(v128.load(q - B1), v128.load(q - B2)),
    v128.xor(v128.xor(v128.load(q - B3), v128.load(q - B4)), v128.load(q - B5)),
  );
}

/** The SIMD reduction by the y^290 multiple. */
export function sparseB(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16(crc, ptr, len);
  const n = <usize>len;
  const bulk = (n - B5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + B_HIST;
  memory.fill(scratch, 0, B_HIST);
  let inject = i32x4.replace_lane(i32x4.splat(0), 0, ~crc);
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    v128.store(q, v128.xor(v128.xor(v128.load(p), inject), histB(q)));
    inject = i32x4.splat(0);
    q += 16;
    p += 16;
    while (q < stop) {
      v128.store(q, v128.xor(v128.load(p), histB(q)));
      q += 16;
      p += 16;
    }
    memory.copy(scratch, stop - B_HIST, B_HIST);
  }
  memory.fill(h, 0, 320);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), histB(h + i)));
  }
  return ~slice16Reg(0, tailBuf, tail);
}

/** sparseB four vectors a loop turn. */
export function sparseBX4(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16(crc, ptr, len);
  const n = <usize>len;
  const bulk = (n - B5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + B_HIST;
  memory.fill(scratch, 0, B_HIST);
  let inject = i32x4.replace_lane(i32x4.splat(0), 0, ~crc);
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    v128.store(q, v128.xor(v128.xor(v128.load(p), inject), histB(q)));
    inject = i32x4.splat(0);
    q += 16;
    p += 16;
    while (q + 64 <= stop) {
      const a = v128.xor(v128.load(p), histB(q));
      const b = v128.xor(v128.load(p, 16), histB(q + 16));
      const c = v128.xor(v128.load(p, 32), histB(q + 32));
      const d = v128.xor(v128.load(p, 48), histB(q + 48));
      v128.store(q, a);
      v128.store(q, b, 16);
      v128.store(q, c, 32);
      v128.store(q, d, 48);
      q += 64;
      p += 64;
    }
    while (q < stop) {
      v128.store(q, v128.xor(v128.load(p), histB(q)));
      q += 16;
      p += 16;
    }
    memory.copy(scratch, stop - B_HIST, B_HIST);
  }
  memory.fill(h, 0, 320);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), histB(h + i)));
  }
  return ~slice16Reg(0, tailBuf, tail);
}

// ------------------------------------------ CRC-32 (IEEE), legacy messages
//
// The same reduction for the IEEE polynomial (0x04C11DB7, reflected
// 0xEDB88320) with its own sparse multiple, y^274 + y^93 + y^75 + y^19 +
// y^11 + 1 (sparse-search.c with -DPOLY=0x04C11DB7u): byte offsets 181,
// 199, 255, 263 and 274.
const IEEE: u32 = 0xedb88320;
const ieeeTables = memory.data(16 * 256 * 4, 64);
function fillIeee(): void {
  for (let i: u32 = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ IEEE : c >>> 1;
    store<u32>(ieeeTables + (<usize>i << 2), c);
  }
  for (let t: usize = 1; t < 16; t++) {
    for (let i: usize = 0; i < 256; i++) {
      const prev = load<u32>(ieeeTables + ((t - 1) << 10) + (i << 2));
      store<u32>(ieeeTables + (t << 10) + (i << 2), (prev >>> 8) ^ load<u32>(ieeeTables + ((<usize>(prev & 0xff)) << 2)));
    }
  }
}
fillIeee();

// @ts-ignore: decorator
@inline function itab(t: usize, b: u32): u32 {
  return load<u32>(ieeeTables + (t << 10) + ((<usize>(b & 0xff)) << 2));
}
// @ts-ignore: decorator
@inline function itabAt(t: usize, p: usize): u32 {
  return load<u32>(ieeeTables + (t << 10) + ((<usize>load<u8>(p)) << 2));
}

export function bitwiseIeee(crc: u32, ptr: usize, len: i32): u32 {
  crc = ~crc;
  for (let i: usize = 0; i < <usize>len; i++) {
    crc ^= load<u8>(ptr + i);
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ IEEE : crc >>> 1;
  }
  return ~crc;
}

// @ts-ignore: decorator
@inline function slice16IeeeReg(crc: u32, ptr: usize, len: usize): u32 {
  let p = ptr;
  const end = ptr + len;
  while (p + 16 <= end) {
    const a = load<u32>(p) ^ crc;
    crc = itab(15, a) ^ itab(14, a >>> 8) ^ itab(13, a >>> 16) ^ itab(12, a >>> 24);
    crc ^= itabAt(11, p + 4) ^ itabAt(10, p + 5) ^ itabAt(9, p + 6) ^ itabAt(8, p + 7);
    crc ^= itabAt(7, p + 8) ^ itabAt(6, p + 9) ^ itabAt(5, p + 10) ^ itabAt(4, p + 11);
    crc ^= itabAt(3, p + 12) ^ itabAt(2, p + 13) ^ itabAt(1, p + 14) ^ itabAt(0, p + 15);
    p += 16;
  }
  while (p < end) {
    crc = (crc >>> 8) ^ itab(0, crc ^ load<u8>(p));
    p++;
  }
  return crc;
}

/** assembly/crc.ts's crc32 as it is today. */
export function slice16Ieee(crc: u32, ptr: usize, len: i32): u32 {
  return ~slice16IeeeReg(~crc, ptr, <usize>len);
}

const I1: usize = 181;
const I2: usize = 199;
const I3: usize = 255;
const I4: usize = 263;
const I5: usize = 274;
const IEEE_HIST: usize = 288; // >= 274, a multiple of 16

// @ts-ignore: decorator
@inline function histIeee(q: usize): v128 {
  return v128.xor(
    v128.xor(v128.load(q - I1), v128.load(q - I2)),
    v128.xor(v128.xor(v128.load(q - I3), v128.load(q - I4)), v128.load(q - I5)),
  );
}

/** CRC-32 (IEEE) by its sparse multiple, 16 bytes a step. */
export function sparseIeee(crc: u32, ptr: usize, len: i32): u32 {
  if (len < SPARSE_MIN) return slice16Ieee(crc, ptr, len);
  const n = <usize>len;
  const bulk = (n - I5) & ~(<usize>15);
  const tail = n - bulk;
  const h = scratch + IEEE_HIST;
  memory.fill(scratch, 0, IEEE_HIST);
  let inject = i32x4.replace_lane(i32x4.splat(0), 0, ~crc);
  let p = ptr;
  const bulkEnd = ptr + bulk;
  while (p < bulkEnd) {
    let chunk = bulkEnd - p;
    if (chunk > SPARSE_CHUNK) chunk = SPARSE_CHUNK;
    const stop = h + chunk;
    let q = h;
    v128.store(q, v128.xor(v128.xor(v128.load(p), inject), histIeee(q)));
    inject = i32x4.splat(0);
    q += 16;
    p += 16;
    while (q < stop) {
      v128.store(q, v128.xor(v128.load(p), histIeee(q)));
      q += 16;
      p += 16;
    }
    memory.copy(scratch, stop - IEEE_HIST, IEEE_HIST);
  }
  memory.fill(h, 0, 320);
  memory.copy(tailBuf, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuf + i, v128.xor(v128.load(tailBuf + i), histIeee(h + i)));
  }
  return ~slice16IeeeReg(0, tailBuf, tail);
}

// ------------------------------------------------------------- harness

/** Where the host copies test data: a 3 MiB arena past the data above. */
export function arena(): usize {
  const need: i32 = 64; // pages: 4 MiB
  if (memory.size() < need) memory.grow(need - memory.size());
  return 1 << 20;
}
