// CRC-32C (Castagnoli, record batches v2) and CRC-32 (IEEE, legacy
// messages), both reflected. Below SPARSE_MIN bytes: tables, slicing by 16
// bytes a step (16 tables of 256 u32 each, filled once at start-up), which
// tops out near 4 GB/s (about half the SSE4.2 instruction). From SPARSE_MIN
// up: a table-free reduction by a sparse multiple of the polynomial with wasm
// SIMD, 14-16 GB/s from 16 KiB (2x the instruction); bench/crc-lab/REPORT.md
// has the per-size tables and why.

const CASTAGNOLI: u32 = 0x82f63b78;
const IEEE: u32 = 0xedb88320;

const crc32cTables = memory.data(16 * 256 * 4, 64);
const crc32Tables = memory.data(16 * 256 * 4, 64);

function fillTables(tables: usize, poly: u32): void {
  for (let i: u32 = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    store<u32>(tables + (<usize>i << 2), c);
  }
  for (let t: usize = 1; t < 16; t++) {
    for (let i: usize = 0; i < 256; i++) {
      const prev = load<u32>(tables + ((t - 1) << 10) + (i << 2));
      store<u32>(tables + (t << 10) + (i << 2), (prev >>> 8) ^ load<u32>(tables + ((<usize>(prev & 0xff)) << 2)));
    }
  }
}

fillTables(crc32cTables, CASTAGNOLI);
fillTables(crc32Tables, IEEE);

// Table t, entry of byte b.
// @ts-ignore: decorator
@inline function tab(tables: usize, t: usize, b: u32): u32 {
  return load<u32>(tables + (t << 10) + ((<usize>(b & 0xff)) << 2));
}

// Table t, entry of the byte at p: a byte load is cheaper than shift and mask.
// @ts-ignore: decorator
@inline function tabAt(tables: usize, t: usize, p: usize): u32 {
  return load<u32>(tables + (t << 10) + ((<usize>load<u8>(p)) << 2));
}

// The register (not inverted) after len bytes at ptr.
// @ts-ignore: decorator
@inline function sliced(tables: usize, crc: u32, ptr: usize, len: usize): u32 {
  let p = ptr;
  const end = ptr + len;
  while (p + 16 <= end) {
    // Only the first four lookups depend on the running CRC; folding the
    // other twelve in as separate groups keeps them off its dependency chain
    // (measured 3.1 vs 2.2 GB/s for one long XOR expression).
    const a = load<u32>(p) ^ crc;
    crc = tab(tables, 15, a) ^ tab(tables, 14, a >>> 8) ^ tab(tables, 13, a >>> 16) ^ tab(tables, 12, a >>> 24);
    crc ^= tabAt(tables, 11, p + 4) ^ tabAt(tables, 10, p + 5) ^ tabAt(tables, 9, p + 6) ^ tabAt(tables, 8, p + 7);
    crc ^= tabAt(tables, 7, p + 8) ^ tabAt(tables, 6, p + 9) ^ tabAt(tables, 5, p + 10) ^ tabAt(tables, 4, p + 11);
    crc ^= tabAt(tables, 3, p + 12) ^ tabAt(tables, 2, p + 13) ^ tabAt(tables, 1, p + 14) ^ tabAt(tables, 0, p + 15);
    p += 16;
  }
  while (p < end) {
    crc = (crc >>> 8) ^ tab(tables, 0, crc ^ load<u8>(p));
    p++;
  }
  return crc;
}

// The sparse reduction. Adding a multiple of P to the message leaves its CRC
// unchanged. With M(y) = y^K + y^a + y^b + y^c + y^d + 1 a multiple of P in
// y = x^8, clearing a byte by M moved to its place xors it into the bytes
// o = K-a, K-b, K-c, K-d and K places later; run front to back, the reduced
// byte is E[p] = W[p] ^ E[p-o1] ^ ... ^ E[p-o5], and only the last K..K+15
// bytes stay, which go through the tables. Each term is one unaligned
// 16-byte load from the history: no tables, no carry-less multiply. The
// smallest offset is kept above ~150 bytes: a load straddling stores only a
// few steps old stalls on store forwarding (65 bytes ran at 2/3 the speed).
// A reflected CRC's register is the next 4 message bytes, so the start
// register is xored into the first 4.
//
// The threshold: the reduction's fixed costs (history reset, and its last
// K..K+15 bytes back through the tables) make it lose below ~600 bytes; the
// REPORT's sweep on Node has it 1.14x the instruction at 512 B (tables 1.19x)
// and 1.28x at 640 B (tables 1.16x), and ahead at every size from there.
const SPARSE_MIN: i32 = 640;
const HISTORY: usize = 304; // >= the largest K, a multiple of 16
const CHUNK: usize = 4096; // reduced bytes between two history moves: scratch and data stay in L1
const TAIL_MAX: usize = 320; // K + 15 rounded up to 16, for both multiples
const scratch = memory.data(<i32>(HISTORY + CHUNK), 64);
const tailBuffer = memory.data(<i32>TAIL_MAX, 64);

// @ts-ignore: decorator
@inline function terms(q: usize, o1: usize, o2: usize, o3: usize, o4: usize, o5: usize): v128 {
  return v128.xor(
    v128.xor(v128.load(q - o1), v128.load(q - o2)),
    v128.xor(v128.xor(v128.load(q - o3), v128.load(q - o4)), v128.load(q - o5)),
  );
}

// The bulk's step is bound by its loads (six per 16 bytes, one store). Each
// multiple has two offsets a whole number of vectors apart (CRC-32C: 258 and
// 290, two vectors; CRC-32: 199 and 263, four), so the farther term is the
// nearer one loaded `lag` steps earlier: kept in registers, one load fewer.
// o1..o3 are loaded; oa is loaded and kept, ob = oa + 16 * lag.
// @ts-ignore: decorator
@inline function reduced(
  tables: usize,
  crc: u32,
  ptr: usize,
  len: usize,
  o1: usize,
  o2: usize,
  o3: usize,
  oa: usize,
  lag: i32,
): u32 {
  const ob = oa + 16 * <usize>lag;
  // Cleared bytes move up to K (the largest offset) ahead: the bulk stops K short of the end.
  const bulk = (len - max(o3, ob)) & ~(<usize>15);
  const tail = len - bulk;
  const h = scratch + HISTORY; // E[p] at h + (p - chunk start)
  memory.fill(scratch, 0, HISTORY);
  // E before the message is zero, so are the rotation's first values.
  let r1 = i32x4.splat(0);
  let r2 = r1;
  let r3 = r1;
  let r4 = r1;
  let p = ptr;
  let q = h;
  const bulkEnd = ptr + bulk;
  let w = v128.xor(v128.load(p), i32x4.replace_lane(i32x4.splat(0), 0, crc));
  for (;;) {
    const stop = h + min(CHUNK, bulkEnd - p);
    while (q < stop) {
      const near = v128.load(q - oa);
      const far = lag == 2 ? r2 : r4;
      const loaded = v128.xor(v128.xor(v128.load(q - o1), v128.load(q - o2)), v128.load(q - o3));
      v128.store(q, v128.xor(v128.xor(w, loaded), v128.xor(near, far)));
      if (lag == 4) {
        r4 = r3;
        r3 = r2;
      }
      r2 = r1;
      r1 = near;
      q += 16;
      p += 16;
      w = v128.load(p);
    }
    memory.copy(scratch, q - HISTORY, HISTORY);
    if (p >= bulkEnd) break;
    q = h;
  }
  // The tail takes the bulk's contributions only: past the bulk the history
  // reads zeros (tail offsets i - o stay below TAIL_MAX), so tail bytes add
  // nothing to each other.
  memory.fill(h, 0, TAIL_MAX);
  memory.copy(tailBuffer, bulkEnd, tail);
  for (let i: usize = 0; i < tail; i += 16) {
    v128.store(tailBuffer + i, v128.xor(v128.load(tailBuffer + i), terms(h + i, o1, o2, o3, oa, ob)));
  }
  return sliced(tables, 0, tailBuffer, tail);
}

/** CRC-32C of len bytes at ptr, continuing from crc (0 to start). */
export function crc32c(crc: u32, ptr: usize, len: i32): u32 {
  // y^290 + y^136 + y^113 + y^107 + y^32 + 1 (found by bench/crc-lab/sparse-search.c):
  // offsets 290 - 136, 290 - 113, 290 - 107, then 290 - 32 and 290 (= 258 + 2 vectors).
  if (len >= SPARSE_MIN) return ~reduced(crc32cTables, ~crc, ptr, <usize>len, 154, 177, 183, 258, 2);
  return ~sliced(crc32cTables, ~crc, ptr, <usize>len);
}

/** CRC-32 (IEEE) of len bytes at ptr, continuing from crc (0 to start). */
export function crc32(crc: u32, ptr: usize, len: i32): u32 {
  // y^274 + y^93 + y^75 + y^19 + y^11 + 1: offsets 181, 255, 274, then 199 and 263 (= 199 + 4 vectors).
  if (len >= SPARSE_MIN) return ~reduced(crc32Tables, ~crc, ptr, <usize>len, 181, 255, 274, 199, 4);
  return ~sliced(crc32Tables, ~crc, ptr, <usize>len);
}
