// LZ4 block format and the LZ4 frame subset Kafka uses (see
// src/protocol/spec/record-batch-v2.md). All pointers are into linear
// memory owned by the caller; every read is checked against the input end and
// every write against the output capacity, so hostile bytes give a status
// code, never a trap.

import { ERR_CHECKSUM, ERR_COMPRESSED, ERR_LENGTH, ERR_MAGIC, ERR_OUTPUT_FULL, ERR_TRUNCATED, ERR_UNSUPPORTED } from './status';
import { xxh32 } from './xxhash32';

// @ts-ignore: decorator
@inline const MINMATCH: usize = 4;
// The format requires the last 5 bytes to be literals and the last match to
// start at least 12 bytes before the end; decoders of other projects rely on it.
// @ts-ignore: decorator
@inline const LASTLITERALS: usize = 5;
// @ts-ignore: decorator
@inline const MFLIMIT: usize = 12;
// @ts-ignore: decorator
@inline const MAX_DISTANCE: usize = 65535;
// Acceleration 1: after 64 misses in a row the search step grows by one.
// @ts-ignore: decorator
@inline const SKIP_TRIGGER: u32 = 6;

// Positions relative to the start of the block being compressed: u16 for
// blocks up to 64 KiB (every Kafka frame block), which doubles the entries
// that fit the same 32 KiB of cache; u32 for larger raw blocks.
// @ts-ignore: decorator
@inline const HASH_LOG_U16: i32 = 14;
// @ts-ignore: decorator
@inline const HASH_LOG_U32: i32 = 13;
const hashTable = memory.data(32768, 16);

// @ts-ignore: decorator
@inline const FRAME_MAGIC: u32 = 0x184d2204;
// @ts-ignore: decorator
@inline const KAFKA_BLOCK: i32 = 65536;

// Table index for the 5 bytes at p (little-endian: the low 40 bits of the
// load). Five bytes tell apart far more sequences than four in low-entropy
// text, for better ratio at the same speed.
// @ts-ignore: decorator
@inline function hashAt(p: usize, shift: u64): usize {
  return <usize>(((load<u64>(p) << 24) * 889523592379) >>> shift);
}

// Bytes equal at `a` and `b`, counting from `a` up to `limit`.
// @ts-ignore: decorator
@inline function countEqual(a: usize, b: usize, limit: usize): usize {
  const start = a;
  while (a + 8 <= limit) {
    const diff = load<u64>(a) ^ load<u64>(b);
    if (diff) return a - start + <usize>(ctz<u64>(diff) >>> 3);
    a += 8;
    b += 8;
  }
  if (a + 4 <= limit && load<u32>(a) == load<u32>(b)) { a += 4; b += 4; }
  if (a + 2 <= limit && load<u16>(a) == load<u16>(b)) { a += 2; b += 2; }
  if (a < limit && load<u8>(a) == load<u8>(b)) a++;
  return a - start;
}

// Copies `n` bytes; 16-byte chunks may run up to 15 bytes past both ends when
// the caller says there is room, which saves a memmove call on short runs.
// @ts-ignore: decorator
@inline function copyLiterals(d: usize, s: usize, n: usize, room: bool): void {
  if (room && n <= 64) {
    const e = d + n;
    do {
      v128.store(d, v128.load(s));
      d += 16;
      s += 16;
    } while (d < e);
  } else {
    memory.copy(d, s, n);
  }
}

// ---------------------------------------------------------------------------
// Block compression

export function lz4CompressBlock(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  return compressBlock(src, srcLen, dst, dstCap);
}

/** Worst-case compressed size of one block of `srcLen` bytes. */
export function lz4BlockBound(srcLen: i32): i32 {
  if (srcLen < 0 || srcLen > 0x7e000000) return ERR_LENGTH;
  return srcLen + srcLen / 255 + 16;
}

function compressBlock(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  return srcLen <= 65536 ? compressWith<u16>(src, srcLen, dst, dstCap) : compressWith<u32>(src, srcLen, dst, dstCap);
}

// A table entry is only a hint: the 4 bytes it points at are compared before
// use. Entries always lie before ip (the table is cleared per block), so only
// the u32 variant has to check the distance.
// @ts-ignore: decorator
@inline function isMatch<T>(match: usize, ip: usize): bool {
  if (sizeof<T>() == 4 && ip - match > MAX_DISTANCE) return false;
  return load<u32>(match) == load<u32>(ip);
}

function compressWith<T>(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  const iend = src + <usize>srcLen;
  const oend = dst + <usize>dstCap;
  let op = dst;
  let anchor = src;

  if (<usize>srcLen > MFLIMIT) {
    // Small inputs get a small table: clearing it is the per-call fixed cost.
    let hashLog = 32 - <i32>clz<u32>(<u32>srcLen - 1);
    const maxLog = sizeof<T>() == 2 ? HASH_LOG_U16 : HASH_LOG_U32;
    if (hashLog > maxLog) hashLog = maxLog;
    const shift = <u64>(64 - hashLog);
    const table = hashTable;
    memory.fill(table, 0, sizeof<T>() << hashLog);

    const mflimitPlusOne = iend - MFLIMIT + 1;
    const matchLimit = iend - LASTLITERALS;
    let ip = src + 1;
    let forwardH = hashAt(ip, shift);

    for (;;) {
      // Find a match; skip faster the longer nothing is found.
      let match: usize = 0;
      let forwardIp = ip;
      let step: usize = 1;
      let searchNb: u32 = 1 << SKIP_TRIGGER;
      do {
        const h = forwardH;
        ip = forwardIp;
        forwardIp += step;
        step = <usize>(searchNb++ >>> SKIP_TRIGGER);
        if (forwardIp > mflimitPlusOne) break;
        match = src + <usize>load<T>(table + (h << alignof<T>()));
        forwardH = hashAt(forwardIp, shift);
        store<T>(table + (h << alignof<T>()), <T>(ip - src));
        if (isMatch<T>(match, ip)) break;
      } while (true);
      if (forwardIp > mflimitPlusOne) break;

      // Extend backwards over bytes the hash probe skipped.
      while (ip > anchor && match > src && load<u8>(ip - 1) == load<u8>(match - 1)) {
        ip--;
        match--;
      }

      // Room for the token, literal length bytes, literals, an offset, one
      // match length byte and the last literals.
      const litLen = ip - anchor;
      if (litLen + litLen / 255 + 9 > oend - op) return ERR_OUTPUT_FULL;
      let token = op++;
      let code: u32;
      if (litLen >= 15) {
        code = 0xf0;
        let n = litLen - 15;
        while (n >= 255) {
          store<u8>(op++, 255);
          n -= 255;
        }
        store<u8>(op++, <u8>n);
      } else {
        code = <u32>litLen << 4;
      }
      copyLiterals(op, anchor, litLen, oend - op >= litLen + 16 && iend - anchor >= litLen + 16);
      op += litLen;

      for (;;) {
        store<u16>(op, <u16>(ip - match));
        op += 2;
        const ml = countEqual(ip + MINMATCH, match + MINMATCH, matchLimit);
        ip += ml + MINMATCH;
        if ((ml + 240) / 255 + 6 > oend - op) return ERR_OUTPUT_FULL;
        if (ml >= 15) {
          code |= 15;
          let n = ml - 15;
          while (n >= 255) {
            store<u8>(op++, 255);
            n -= 255;
          }
          store<u8>(op++, <u8>n);
        } else {
          code |= <u32>ml;
        }
        store<u8>(token, <u8>code);
        anchor = ip;
        if (ip >= mflimitPlusOne) break;

        store<T>(table + (hashAt(ip - 2, shift) << alignof<T>()), <T>(ip - 2 - src));
        // A match right after a match needs no literals: chain it.
        const h = hashAt(ip, shift) << alignof<T>();
        match = src + <usize>load<T>(table + h);
        store<T>(table + h, <T>(ip - src));
        if (isMatch<T>(match, ip)) {
          token = op++;
          code = 0;
          continue;
        }
        break;
      }
      if (anchor >= mflimitPlusOne) break;
      ip = anchor + 1;
      forwardH = hashAt(ip, shift);
    }
  }

  // Last literals.
  const lastRun = iend - anchor;
  if (lastRun + 1 + (lastRun + 240) / 255 > oend - op) return ERR_OUTPUT_FULL;
  if (lastRun >= 15) {
    store<u8>(op++, 0xf0);
    let n = lastRun - 15;
    while (n >= 255) {
      store<u8>(op++, 255);
      n -= 255;
    }
    store<u8>(op++, <u8>n);
  } else {
    store<u8>(op++, <u8>(lastRun << 4));
  }
  memory.copy(op, anchor, lastRun);
  op += lastRun;
  return <i32>(op - dst);
}

// ---------------------------------------------------------------------------
// Block decompression

export function lz4DecompressBlock(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  return decodeBlock(src, srcLen, dst, dstCap, dst);
}

// Per offset 1-7: the largest multiple of it that is <= 8, as nibbles. Storing
// an 8-byte pattern at that stride keeps the repetition period intact.
// @ts-ignore: decorator
@inline const PATTERN_STEPS: u32 = 0x76586880;

// Match copy for offsets < 8; writes up to 7 bytes past op + ml.
// @ts-ignore: decorator
@inline function copyShortOffset(op: usize, match: usize, offset: usize, ml: usize): void {
  if (offset >= 4) {
    // The second 4 bytes read what the first store wrote.
    store<u32>(op, load<u32>(match));
    store<u32>(op, load<u32>(match, 4), 4);
  } else {
    for (let i: usize = 0; i < 8; i++) store<u8>(op + i, load<u8>(match + i));
  }
  const pattern = load<u64>(op);
  const step = <usize>((PATTERN_STEPS >>> (<u32>offset << 2)) & 0xf);
  for (let p = step; p < ml; p += step) store<u64>(op + p, pattern);
}

// Decodes one block to dst. `low` is the lowest address a match may reach
// (dst for an independent block, the frame's output start for linked ones).
function decodeBlock(src: usize, srcLen: i32, dst: usize, dstCap: i32, low: usize): i32 {
  if (srcLen <= 0) return ERR_COMPRESSED;
  let ip = src;
  const iend = src + <usize>srcLen;
  let op = dst;
  const oend = dst + <usize>dstCap;

  for (;;) {
    if (ip >= iend) return ERR_COMPRESSED;
    const token = <usize>load<u8>(ip++);
    let ll = token >>> 4;
    let ml = token & 15;

    // Short literals and a short match, far from both ends: fixed-size wild
    // copies, and the offset is the only field left to check.
    if (ll != 15 && ml != 15 && iend - ip >= 16 && oend - op >= 48) {
      v128.store(op, v128.load(ip));
      ip += ll;
      op += ll;
      const offset = <usize>load<u16>(ip);
      ip += 2;
      if (offset - 1 >= op - low) return ERR_COMPRESSED;
      const match = op - offset;
      ml += MINMATCH;
      if (offset >= 16) {
        v128.store(op, v128.load(match));
        v128.store(op, v128.load(match, 16), 16);
      } else if (offset >= 8) {
        store<u64>(op, load<u64>(match));
        store<u64>(op, load<u64>(match, 8), 8);
        store<u64>(op, load<u64>(match, 16), 16);
      } else {
        copyShortOffset(op, match, offset, ml);
      }
      op += ml;
      continue;
    }

    // General sequence: every length checked.
    if (ll == 15) {
      let b: usize;
      do {
        if (ip >= iend) return ERR_COMPRESSED;
        b = <usize>load<u8>(ip++);
        ll += b;
      } while (b == 255 && ll <= <usize>srcLen);
    }
    if (ll > iend - ip) return ERR_COMPRESSED;
    if (ll > oend - op) return ERR_OUTPUT_FULL;
    copyLiterals(op, ip, ll, oend - op >= ll + 16 && iend - ip >= ll + 16);
    ip += ll;
    op += ll;
    if (ip == iend) break;

    if (iend - ip < 2) return ERR_COMPRESSED;
    const offset = <usize>load<u16>(ip);
    ip += 2;
    if (offset - 1 >= op - low) return ERR_COMPRESSED;
    if (ml == 15) {
      let b: usize;
      do {
        if (ip >= iend) return ERR_COMPRESSED;
        b = <usize>load<u8>(ip++);
        ml += b;
      } while (b == 255 && ml < 0x7fff0000);
      if (b == 255) return ERR_COMPRESSED;
    }
    ml += MINMATCH;
    if (ml > oend - op) return ERR_OUTPUT_FULL;
    let match = op - offset;
    if (oend - op >= ml + 16) {
      const e = op + ml;
      if (offset >= 16) {
        do {
          v128.store(op, v128.load(match));
          op += 16;
          match += 16;
        } while (op < e);
      } else if (offset >= 8) {
        do {
          store<u64>(op, load<u64>(match));
          op += 8;
          match += 8;
        } while (op < e);
      } else {
        copyShortOffset(op, match, offset, ml);
      }
      op = e;
    } else if (offset >= ml) {
      memory.copy(op, match, ml);
      op += ml;
    } else {
      // Overlapping copy near the end of the output: byte by byte, exact.
      const e = op + ml;
      while (op < e) store<u8>(op++, load<u8>(match++));
    }
  }
  return <i32>(op - dst);
}

// ---------------------------------------------------------------------------
// Frames

/** Worst-case size of a frame written by lz4CompressFrame for srcLen bytes. */
export function lz4FrameBound(srcLen: i32): i32 {
  if (srcLen < 0) return ERR_LENGTH;
  // Header, every block stored raw behind its 4-byte size, end mark.
  const bound = <i64>7 + <i64>srcLen + (<i64>4 * ((<i64>srcLen + KAFKA_BLOCK - 1) / KAFKA_BLOCK)) + 4;
  return bound > <i64>i32.MAX_VALUE ? ERR_LENGTH : <i32>bound;
}

export function lz4CompressFrame(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  if (dstCap < 11) return ERR_OUTPUT_FULL;
  // Magic, FLG 0x60 (v01, independent blocks), BD 0x40 (64 KiB), HC 0x82.
  store<u32>(dst, FRAME_MAGIC);
  store<u8>(dst, 0x60, 4);
  store<u8>(dst, 0x40, 5);
  store<u8>(dst, 0x82, 6);
  let op = dst + 7;
  const oend = dst + <usize>dstCap;
  let ip = src;
  const iend = src + <usize>srcLen;
  while (ip < iend) {
    const bl = <i32>min<usize>(iend - ip, <usize>KAFKA_BLOCK);
    // Keep 4 bytes for the block size and 4 for the end mark.
    const room = <i32>(oend - op) - 8;
    if (room < 0) return ERR_OUTPUT_FULL;
    // Kafka stores a block raw unless compressing makes it smaller.
    const cap = min<i32>(bl - 1, room);
    const r = compressBlock(ip, bl, op + 4, cap);
    if (r > 0) {
      store<u32>(op, <u32>r);
      op += 4 + <usize>r;
    } else {
      if (bl > room) return ERR_OUTPUT_FULL;
      store<u32>(op, <u32>bl | 0x80000000);
      memory.copy(op + 4, ip, <usize>bl);
      op += 4 + <usize>bl;
    }
    ip += <usize>bl;
  }
  store<u32>(op, 0);
  op += 4;
  return <i32>(op - dst);
}

export function lz4DecompressFrame(src: usize, srcLen: i32, dst: usize, dstCap: i32, legacyHeaderChecksum: bool): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  if (srcLen < 4) return ERR_TRUNCATED;
  if (load<u32>(src) != FRAME_MAGIC) return ERR_MAGIC;
  if (srcLen < 7) return ERR_TRUNCATED;
  const flg = <u32>load<u8>(src, 4);
  const bd = <u32>load<u8>(src, 5);
  // Version 01; reserved bit and dictionary id must be 0.
  if ((flg >>> 6) != 1 || (flg & 0x03) != 0) return ERR_UNSUPPORTED;
  const linked = (flg & 0x20) == 0;
  const blockChecksums = (flg & 0x10) != 0;
  const hasContentSize = (flg & 0x08) != 0;
  const contentChecksum = (flg & 0x04) != 0;
  const bsId = (bd >>> 4) & 7;
  if ((bd & 0x8f) != 0 || bsId < 4) return ERR_UNSUPPORTED;
  const maxBlock = <usize>1 << (8 + 2 * bsId);
  const headerLen: i32 = hasContentSize ? 15 : 7;
  if (srcLen < headerLen) return ERR_TRUNCATED;
  if (!legacyHeaderChecksum) {
    const hc = (xxh32(src + 4, headerLen - 5, 0) >>> 8) & 0xff;
    if (hc != <u32>load<u8>(src + <usize>headerLen - 1)) return ERR_CHECKSUM;
  }

  let ip = src + <usize>headerLen;
  const iend = src + <usize>srcLen;
  let op = dst;
  const oend = dst + <usize>dstCap;
  for (;;) {
    if (iend - ip < 4) return ERR_TRUNCATED;
    const word = load<u32>(ip);
    ip += 4;
    if (word == 0) break;
    const size = <usize>(word & 0x7fffffff);
    if (size > maxBlock) return ERR_COMPRESSED;
    if (size > iend - ip) return ERR_TRUNCATED;
    if (blockChecksums) {
      if (iend - ip - size < 4) return ERR_TRUNCATED;
      if (xxh32(ip, <i32>size, 0) != load<u32>(ip + size)) return ERR_CHECKSUM;
    }
    const room = oend - op;
    if (word & 0x80000000) {
      if (size > room) return ERR_OUTPUT_FULL;
      memory.copy(op, ip, size);
      op += size;
    } else {
      // A block never decodes to more than the frame's block size, so running
      // out of output with more room than that is corruption, not a small dst.
      const cap = min<usize>(room, maxBlock);
      const r = decodeBlock(ip, <i32>size, op, <i32>cap, linked ? dst : op);
      if (r < 0) return r == ERR_OUTPUT_FULL && room > maxBlock ? ERR_COMPRESSED : r;
      op += <usize>r;
    }
    ip += size;
    if (blockChecksums) ip += 4;
  }
  if (contentChecksum) {
    if (iend - ip < 4) return ERR_TRUNCATED;
    if (xxh32(dst, <i32>(op - dst), 0) != load<u32>(ip)) return ERR_CHECKSUM;
  }
  return <i32>(op - dst);
}
