// Varints as record batches use them: zigzag-encoded signed values in LEB128
// groups of 7 bits (protobuf's sint32/sint64). Writers take and return a
// position; readers work on the cursor below, so the record decoder can keep
// its state in globals instead of returning tuples.
import { ERR_TRUNCATED, ERR_VARINT, OK } from './status';

/** Read cursor: next byte, end of readable input, first error seen. */
export let cur: usize = 0;
export let curEnd: usize = 0;
export let curErr: i32 = OK;

// @ts-ignore: decorator
@inline export function setCursor(ptr: usize, end: usize): void {
  cur = ptr;
  curEnd = end;
  curErr = OK;
}

// @ts-ignore: decorator
@inline export function setCursorEnd(end: usize): void {
  curEnd = end;
}

// @ts-ignore: decorator
@inline export function sizeOfUvarint(v: u32): i32 {
  return (38 - <i32>clz<u32>(v | 1)) / 7;
}

// @ts-ignore: decorator
@inline export function sizeOfUvarlong(v: u64): i32 {
  return (70 - <i32>clz<u64>(v | 1)) / 7;
}

// @ts-ignore: decorator
@inline export function zigzag32(v: i32): u32 {
  return <u32>((v << 1) ^ (v >> 31));
}

// @ts-ignore: decorator
@inline export function zigzag64(v: i64): u64 {
  return <u64>((v << 1) ^ (v >> 63));
}

// @ts-ignore: decorator
@inline export function sizeOfVarint(v: i32): i32 {
  return sizeOfUvarint(zigzag32(v));
}

// @ts-ignore: decorator
@inline export function sizeOfVarlong(v: i64): i32 {
  return sizeOfUvarlong(zigzag64(v));
}

// @ts-ignore: decorator
@inline export function writeUvarint(p: usize, v: u32): usize {
  while (v >= 0x80) {
    store<u8>(p++, <u8>(v | 0x80));
    v >>>= 7;
  }
  store<u8>(p++, <u8>v);
  return p;
}

// @ts-ignore: decorator
@inline export function writeUvarlong(p: usize, v: u64): usize {
  while (v >= 0x80) {
    store<u8>(p++, <u8>(v | 0x80));
    v >>>= 7;
  }
  store<u8>(p++, <u8>v);
  return p;
}

// @ts-ignore: decorator
@inline export function writeVarint(p: usize, v: i32): usize {
  return writeUvarint(p, zigzag32(v));
}

// @ts-ignore: decorator
@inline export function writeVarlong(p: usize, v: i64): usize {
  return writeUvarlong(p, zigzag64(v));
}

function readUvarintSlow(): u32 {
  let result: u32 = 0;
  for (let shift: u32 = 0; shift < 35; shift += 7) {
    if (cur >= curEnd) {
      curErr = ERR_TRUNCATED;
      return 0;
    }
    const b = <u32>load<u8>(cur++);
    result |= (b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
  curErr = ERR_VARINT;
  return 0;
}

function readUvarlongSlow(): u64 {
  let result: u64 = 0;
  for (let shift: u64 = 0; shift < 70; shift += 7) {
    if (cur >= curEnd) {
      curErr = ERR_TRUNCATED;
      return 0;
    }
    const b = <u64>load<u8>(cur++);
    result |= (b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
  curErr = ERR_VARINT;
  return 0;
}

/** Reads an unsigned varint at the cursor; on error sets curErr and returns 0. */
// @ts-ignore: decorator
@inline export function readUvarint(): u32 {
  if (cur < curEnd) {
    const b = <u32>load<u8>(cur);
    if (b < 0x80) {
      cur++;
      return b;
    }
  }
  return readUvarintSlow();
}

// @ts-ignore: decorator
@inline export function readVarint(): i32 {
  const u = readUvarint();
  return <i32>(u >>> 1) ^ -(<i32>(u & 1));
}

// @ts-ignore: decorator
@inline export function readVarlong(): i64 {
  let u: u64;
  if (cur < curEnd && load<u8>(cur) < 0x80) {
    u = <u64>load<u8>(cur++);
  } else {
    u = readUvarlongSlow();
  }
  return <i64>(u >>> 1) ^ -(<i64>(u & 1));
}

// Exported forms for TypeScript (tests and the protocol layer's rare uses).

/** Writes v as a zigzag varint at p; returns the byte count. */
export function varintWrite(p: usize, v: i32): i32 {
  return <i32>(writeVarint(p, v) - p);
}

export function varlongWrite(p: usize, v: i64): i32 {
  return <i32>(writeVarlong(p, v) - p);
}

export function uvarintWrite(p: usize, v: u32): i32 {
  return <i32>(writeUvarint(p, v) - p);
}

/** Bytes consumed by the last *Read call, or a negative status. */
export let lastReadLength: i32 = 0;

export function varintRead(p: usize, len: i32): i32 {
  setCursor(p, p + <usize>len);
  const v = readVarint();
  lastReadLength = curErr != OK ? curErr : <i32>(cur - p);
  return v;
}

export function varlongRead(p: usize, len: i32): i64 {
  setCursor(p, p + <usize>len);
  const v = readVarlong();
  lastReadLength = curErr != OK ? curErr : <i32>(cur - p);
  return v;
}

export function uvarintRead(p: usize, len: i32): u32 {
  setCursor(p, p + <usize>len);
  const v = readUvarint();
  lastReadLength = curErr != OK ? curErr : <i32>(cur - p);
  return v;
}

export function getLastReadLength(): i32 {
  return lastReadLength;
}
