// Snappy raw blocks and the xerial snappy-java stream Kafka's Java client
// writes. Written from the format description; pointers are into our own
// linear memory and the caller owns every region.
//
// Safety: all reads are checked against the input end and all writes against
// the output end before they happen; the 16-byte SIMD fast paths only run
// where both sides have room for the whole vector.

import {
  ERR_TRUNCATED,
  ERR_VARINT,
  ERR_MAGIC,
  ERR_LENGTH,
  ERR_OUTPUT_FULL,
  ERR_COMPRESSED,
} from './status';

// Offsets inside a fragment fit 16 bits, so the hash table holds u16.
const FRAGMENT: i32 = 1 << 16;
const MAX_TABLE_BITS: i32 = 14;
const HASH_TABLE: usize = memory.data(2 << MAX_TABLE_BITS, 16);
// The compressor's main loop needs this many readable bytes past `ip`
// (one 64-bit load at ip-1, and 16-byte literal copies ending at ip).
const INPUT_MARGIN: i32 = 15;
// Per fragment: worst case f + f/30 + 3 bytes plus a 15-byte vector overshoot.
const FRAGMENT_SLACK: i32 = 24;

const XERIAL_CHUNK: i32 = 32 * 1024;
const XERIAL_HEADER: i32 = 16;
// 82 53 4E 41 50 50 59 00 read as little-endian u64 / its first 4 bytes.
const XERIAL_MAGIC_LO: u32 = 0x414e5382;
const XERIAL_MAGIC_HI: u32 = 0x00595050;

// Swizzle masks: row o repeats bytes 0..o-1 (for copies with offset < 16).
const PATTERN_MASK: usize = memory.data<u8>([
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
  0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
  0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
  0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0,
  0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3,
  0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1,
  0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3, 4,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0,
], 16);
// Smallest multiple of o that is >= 16: once 16 pattern bytes are written,
// copying from that distance back is equivalent and never overlaps a vector.
const PATTERN_PERIOD: usize = memory.data<u8>([
  0, 16, 16, 18, 16, 20, 18, 21, 16, 18, 20, 22, 24, 26, 28, 30,
]);

// ---------------------------------------------------------------- bounds

// Bound for a single raw block: preamble + n + n/6 + slack (as Google's).
function rawBound64(n: i64): i64 {
  return 32 + n + n / 6;
}

export function snappyRawBound(srcLen: i32): i32 {
  if (srcLen < 0) return ERR_LENGTH;
  const b = rawBound64(srcLen);
  return b > i32.MAX_VALUE ? ERR_LENGTH : <i32>b;
}

export function snappyXerialBound(srcLen: i32): i32 {
  if (srcLen < 0) return ERR_LENGTH;
  const full = srcLen / XERIAL_CHUNK;
  const rest = srcLen % XERIAL_CHUNK;
  let b: i64 = XERIAL_HEADER + <i64>full * (4 + rawBound64(XERIAL_CHUNK));
  if (rest) b += 4 + rawBound64(rest);
  return b > i32.MAX_VALUE ? ERR_LENGTH : <i32>b;
}

// ---------------------------------------------------------------- compress

// @ts-ignore: decorator
@inline function hashIndex(x: u32, shift: u32): usize {
  return <usize>((x * 0x1e35a7bd) >> shift) << 1;
}

// Literal whose source has >= 15 readable bytes past its end (main loop).
// @ts-ignore: decorator
@inline function emitLiteralFast(op: usize, lit: usize, len: i32): usize {
  const n = len - 1;
  if (n < 60) {
    store<u8>(op, <u8>(n << 2));
    op += 1;
    if (len <= 16) {
      v128.store(op, v128.load(lit));
      return op + len;
    }
  } else if (n < 256) {
    store<u8>(op, 60 << 2);
    store<u8>(op, <u8>n, 1);
    op += 2;
  } else {
    // A fragment is at most 64 KiB, so n < 65536.
    store<u8>(op, 61 << 2);
    store<u16>(op, <u16>n, 1);
    op += 3;
  }
  if (len <= 64) {
    let k: i32 = 0;
    do {
      v128.store(op + k, v128.load(lit + k));
      k += 16;
    } while (k < len);
  } else {
    memory.copy(op, lit, len);
  }
  return op + len;
}

// Literal with exact reads and writes (fragment tails, tiny inputs).
function emitLiteralExact(op: usize, lit: usize, len: i32): usize {
  const n = len - 1;
  if (n < 60) {
    store<u8>(op, <u8>(n << 2));
    op += 1;
  } else if (n < 256) {
    store<u8>(op, 60 << 2);
    store<u8>(op, <u8>n, 1);
    op += 2;
  } else {
    store<u8>(op, 61 << 2);
    store<u16>(op, <u16>n, 1);
    op += 3;
  }
  memory.copy(op, lit, len);
  return op + len;
}

// @ts-ignore: decorator
@inline function emitCopy(op: usize, offset: u32, len: i32): usize {
  while (len >= 68) {
    store<u8>(op, (63 << 2) | 2);
    store<u16>(op, <u16>offset, 1);
    op += 3;
    len -= 64;
  }
  if (len > 64) {
    // Leave >= 4 for the last element.
    store<u8>(op, (59 << 2) | 2);
    store<u16>(op, <u16>offset, 1);
    op += 3;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    store<u8>(op, <u8>(1 | ((len - 4) << 2) | ((offset >> 8) << 5)));
    store<u8>(op, <u8>offset, 1);
    return op + 2;
  }
  store<u8>(op, <u8>(2 | ((len - 1) << 2)));
  store<u16>(op, <u16>offset, 1);
  return op + 3;
}

// Bytes equal at a and b (a < b), b running up to bEnd.
// @ts-ignore: decorator
@inline function matchLength(a: usize, b: usize, bEnd: usize): i32 {
  const b0 = b;
  while (b + 8 <= bEnd) {
    const x = load<u64>(b) ^ load<u64>(a);
    if (x) return <i32>(b - b0) + <i32>(ctz(x) >> 3);
    a += 8;
    b += 8;
  }
  while (b < bEnd && load<u8>(a) == load<u8>(b)) {
    a++;
    b++;
  }
  return <i32>(b - b0);
}

// One fragment (<= 64 KiB) as snappy elements; returns the new op.
function compressFragment(base: usize, len: i32, op: usize): usize {
  if (len < INPUT_MARGIN + 1) {
    return len > 0 ? emitLiteralExact(op, base, len) : op;
  }
  let bits: i32 = 8;
  while (bits < MAX_TABLE_BITS && (1 << bits) < len) bits++;
  memory.fill(HASH_TABLE, 0, <usize>2 << bits);
  const shift = <u32>(32 - bits);

  const ipEnd = base + len;
  const ipLimit = ipEnd - INPUT_MARGIN;
  let nextEmit = base;
  let ip = base + 1;
  let nextHash = hashIndex(load<u32>(ip), shift);

  // (AssemblyScript has no labelled breaks: flags leave the outer loop.)
  while (true) {
    // Scan for a 4-byte match; step grows after 32 misses so incompressible
    // input is skipped quickly.
    let skip: u32 = 32;
    let nextIp = ip;
    let candidate: usize = 0;
    let found = false;
    while (true) {
      ip = nextIp;
      const h = nextHash;
      nextIp = ip + (skip >> 5);
      skip++;
      if (nextIp > ipLimit) break;
      nextHash = hashIndex(load<u32>(nextIp), shift);
      candidate = base + <usize>load<u16>(HASH_TABLE + h);
      store<u16>(HASH_TABLE + h, <u16>(ip - base));
      if (load<u32>(ip) == load<u32>(candidate)) {
        found = true;
        break;
      }
    }
    if (!found) break;

    op = emitLiteralFast(op, nextEmit, <i32>(ip - nextEmit));

    // Emit copies while the byte right after a copy starts another match.
    let bytes: u64 = 0;
    let more = false;
    while (true) {
      const matched = 4 + matchLength(candidate + 4, ip + 4, ipEnd);
      const offset = <u32>(ip - candidate);
      ip += matched;
      op = emitCopy(op, offset, matched);
      nextEmit = ip;
      if (ip >= ipLimit) break;
      bytes = load<u64>(ip - 1);
      store<u16>(HASH_TABLE + hashIndex(<u32>bytes, shift), <u16>(ip - 1 - base));
      const h = hashIndex(<u32>(bytes >> 8), shift);
      candidate = base + <usize>load<u16>(HASH_TABLE + h);
      store<u16>(HASH_TABLE + h, <u16>(ip - base));
      if (<u32>(bytes >> 8) != load<u32>(candidate)) {
        more = true;
        break;
      }
    }
    if (!more) break;

    ip++;
    nextHash = hashIndex(<u32>(bytes >> 16), shift);
  }

  if (nextEmit < ipEnd) op = emitLiteralExact(op, nextEmit, <i32>(ipEnd - nextEmit));
  return op;
}

// Raw block into [op, opEnd); returns the new op, or 0 when out of room.
function compressBlock(src: usize, srcLen: i32, op: usize, opEnd: usize): usize {
  // Preamble: uncompressed length as varint.
  let v = <u32>srcLen;
  if (opEnd - op < 5) return 0;
  while (v >= 0x80) {
    store<u8>(op++, <u8>(v | 0x80));
    v >>= 7;
  }
  store<u8>(op++, <u8>v);
  let pos: i32 = 0;
  while (pos < srcLen) {
    const f = min(srcLen - pos, FRAGMENT);
    if (<i64>(opEnd - op) < <i64>f + f / 6 + FRAGMENT_SLACK) return 0;
    op = compressFragment(src + pos, f, op);
    pos += f;
  }
  return op;
}

/** Raw snappy block. Needs dstCap >= snappyRawBound(srcLen) (else may give ERR_OUTPUT_FULL). */
export function snappyCompressRaw(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  const op = compressBlock(src, srcLen, dst, dst + dstCap);
  return op ? <i32>(op - dst) : ERR_OUTPUT_FULL;
}

/** xerial snappy-java stream: header, then per 32 KiB of input a BE length + raw block. */
export function snappyCompressXerial(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  if (dstCap < XERIAL_HEADER) return ERR_OUTPUT_FULL;
  const opEnd = dst + dstCap;
  store<u32>(dst, XERIAL_MAGIC_LO);
  store<u32>(dst, XERIAL_MAGIC_HI, 4);
  store<u32>(dst, bswap<u32>(1), 8);
  store<u32>(dst, bswap<u32>(1), 12);
  let op = dst + XERIAL_HEADER;
  let pos: i32 = 0;
  while (pos < srcLen) {
    const n = min(srcLen - pos, XERIAL_CHUNK);
    if (opEnd - op < 4) return ERR_OUTPUT_FULL;
    const end = compressBlock(src + pos, n, op + 4, opEnd);
    if (!end) return ERR_OUTPUT_FULL;
    store<u32>(op, bswap<u32>(<u32>(end - op - 4)));
    op = end;
    pos += n;
  }
  return <i32>(op - dst);
}

// ---------------------------------------------------------------- decompress

// Set by readPreamble: where the block body starts.
let bodyStart: usize = 0;

// Uncompressed length of a raw block (0..2^32-1), or a negative status.
function readPreamble(ip: usize, ipEnd: usize): i64 {
  let v: u64 = 0;
  for (let i: u64 = 0; i < 5; i++) {
    if (ip >= ipEnd) return ERR_TRUNCATED;
    const b = <u64>load<u8>(ip++);
    v |= (b & 0x7f) << (7 * i);
    if (b < 0x80) {
      if (v > 0xffffffff) return ERR_VARINT;
      bodyStart = ip;
      return <i64>v;
    }
  }
  return ERR_VARINT;
}

// The densest element is a 3-byte copy of 64 bytes, so a body of n bytes
// yields at most n * 64 / 3: lets a size query reject bombs before any
// memory is reserved for them.
// @ts-ignore: decorator
@inline function plausible(ulen: i64, bodyLen: usize): bool {
  return ulen * 3 <= <i64>bodyLen * 64;
}

// Decode the elements in [ip, ipEnd) to exactly [dst, dst + ulen).
function decodeBody(ip: usize, ipEnd: usize, dst: usize, ulen: i32): i32 {
  let op = dst;
  const opEnd = dst + ulen;
  while (ip < ipEnd) {
    const tag = <u32>load<u8>(ip++);
    const kind = tag & 3;
    if (kind == 0) {
      let len = <usize>(tag >> 2) + 1;
      if (len <= 16) {
        if (ipEnd - ip >= 16 && opEnd - op >= 16) {
          v128.store(op, v128.load(ip));
          ip += len;
          op += len;
          continue;
        }
      } else if (len > 60) {
        const extra = len - 60;
        if (ipEnd - ip < extra) return ERR_TRUNCATED;
        let n: usize = load<u8>(ip);
        if (extra > 1) n |= <usize>load<u8>(ip, 1) << 8;
        if (extra > 2) n |= <usize>load<u8>(ip, 2) << 16;
        if (extra > 3) n |= <usize>load<u8>(ip, 3) << 24;
        ip += extra;
        // n + 1 may wrap at 2^32; compare n against the room instead.
        if (n >= opEnd - op) return ERR_COMPRESSED;
        len = n + 1;
      }
      if (len > ipEnd - ip) return ERR_TRUNCATED;
      if (len > opEnd - op) return ERR_COMPRESSED;
      if (len <= 64 && ipEnd - ip >= 64 && opEnd - op >= 64) {
        let k: usize = 0;
        do {
          v128.store(op + k, v128.load(ip + k));
          k += 16;
        } while (k < len);
      } else {
        memory.copy(op, ip, len);
      }
      ip += len;
      op += len;
      continue;
    }

    let len: usize;
    let offset: usize;
    if (kind == 1) {
      if (ip >= ipEnd) return ERR_TRUNCATED;
      len = ((tag >> 2) & 7) + 4;
      offset = ((tag >> 5) << 8) | <u32>load<u8>(ip);
      ip += 1;
    } else if (kind == 2) {
      if (ipEnd - ip < 2) return ERR_TRUNCATED;
      len = (tag >> 2) + 1;
      offset = load<u16>(ip);
      ip += 2;
    } else {
      if (ipEnd - ip < 4) return ERR_TRUNCATED;
      len = (tag >> 2) + 1;
      offset = load<u32>(ip);
      ip += 4;
    }
    if (offset == 0 || offset > op - dst) return ERR_COMPRESSED;
    if (len > opEnd - op) return ERR_COMPRESSED;
    const from = op - offset;
    if (opEnd - op >= 64) {
      // len <= 64, so vector stores stay inside the output.
      if (offset >= 16) {
        // Straight-line for len <= 32 (most copies): fewer mispredicts.
        v128.store(op, v128.load(from));
        v128.store(op, v128.load(from, 16), 16);
        if (len > 32) {
          v128.store(op, v128.load(from, 32), 32);
          v128.store(op, v128.load(from, 48), 48);
        }
      } else {
        // Build 16 bytes of the repeating pattern, then copy from a
        // multiple of the period that is >= 16 back.
        const pat = i8x16.swizzle(v128.load(from), v128.load(PATTERN_MASK + (offset << 4)));
        v128.store(op, pat);
        if (len > 16) {
          const period = <usize>load<u8>(PATTERN_PERIOD + offset);
          let k: usize = 16;
          do {
            v128.store(op + k, v128.load(op + k - period));
            k += 16;
          } while (k < len);
        }
      }
    } else {
      for (let k: usize = 0; k < len; k++) store<u8>(op + k, load<u8>(from + k));
    }
    op += len;
  }
  return op == opEnd ? ulen : ERR_COMPRESSED;
}

/** Raw snappy block into dst; returns the uncompressed length or a status. */
export function snappyDecompressRaw(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  const ipEnd = src + srcLen;
  const ulen = readPreamble(src, ipEnd);
  if (ulen < 0) return <i32>ulen;
  if (ulen > <i64>dstCap) return ERR_OUTPUT_FULL;
  if (!plausible(ulen, ipEnd - bodyStart)) return ERR_COMPRESSED;
  return decodeBody(bodyStart, ipEnd, dst, <i32>ulen);
}

// @ts-ignore: decorator
@inline function isXerialMagic(p: usize): bool {
  return load<u32>(p) == XERIAL_MAGIC_LO && load<u32>(p, 4) == XERIAL_MAGIC_HI;
}

// Walks a xerial stream; decodes when dst != 0, else only sums preambles.
// Chunk lengths are int32 BE; the magic where a length is expected starts a
// concatenated stream (snappy-java's reading rule).
function xerial(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  let ip = src + XERIAL_HEADER;
  const ipEnd = src + srcLen;
  if (srcLen < XERIAL_HEADER) return ERR_TRUNCATED;
  let total: i64 = 0;
  while (ip < ipEnd) {
    if (ipEnd - ip < 4) return ERR_TRUNCATED;
    if (load<u32>(ip) == XERIAL_MAGIC_LO) {
      if (ipEnd - ip < <usize>XERIAL_HEADER) return ERR_TRUNCATED;
      if (load<u32>(ip, 4) != XERIAL_MAGIC_HI) return ERR_MAGIC;
      ip += XERIAL_HEADER;
      continue;
    }
    const clen = <i32>bswap<u32>(load<u32>(ip));
    ip += 4;
    if (clen < 0) return ERR_LENGTH;
    if (<usize>clen > ipEnd - ip) return ERR_TRUNCATED;
    const chunkEnd = ip + clen;
    const ulen = readPreamble(ip, chunkEnd);
    if (ulen < 0) return <i32>ulen;
    if (!plausible(ulen, chunkEnd - bodyStart)) return ERR_COMPRESSED;
    if (dst) {
      if (ulen > <i64>dstCap - total) return ERR_OUTPUT_FULL;
      const r = decodeBody(bodyStart, chunkEnd, dst + <usize>total, <i32>ulen);
      if (r < 0) return r;
    }
    total += ulen;
    if (total > i32.MAX_VALUE) return ERR_LENGTH;
    ip = chunkEnd;
  }
  return <i32>total;
}

/** Exact decompressed size of a xerial stream or raw block, or a status. */
export function snappyUncompressedLength(src: usize, srcLen: i32): i32 {
  if (srcLen < 0) return ERR_LENGTH;
  if (srcLen >= 8 && isXerialMagic(src)) return xerial(src, srcLen, 0, 0);
  const ulen = readPreamble(src, src + srcLen);
  if (ulen < 0) return <i32>ulen;
  if (!plausible(ulen, src + srcLen - bodyStart)) return ERR_COMPRESSED;
  return ulen > i32.MAX_VALUE ? ERR_LENGTH : <i32>ulen;
}

/** Kafka reading rules: xerial stream(s) if the magic leads, else one raw block. */
export function snappyDecompress(src: usize, srcLen: i32, dst: usize, dstCap: i32): i32 {
  if (srcLen < 0 || dstCap < 0) return ERR_LENGTH;
  if (srcLen >= 8 && isXerialMagic(src)) {
    // dst == 0 means "size only" inside xerial(); a real dst is never 0
    // (static data lives there), but keep the contract explicit.
    if (dst == 0) return ERR_LENGTH;
    return xerial(src, srcLen, dst, dstCap);
  }
  return snappyDecompressRaw(src, srcLen, dst, dstCap);
}
