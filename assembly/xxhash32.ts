// xxHash32, as used by the LZ4 frame format (header, block and content
// checksums). One-shot over a region of linear memory.

// @ts-ignore: decorator
@inline const P1: u32 = 0x9e3779b1;
// @ts-ignore: decorator
@inline const P2: u32 = 0x85ebca77;
// @ts-ignore: decorator
@inline const P3: u32 = 0xc2b2ae3d;
// @ts-ignore: decorator
@inline const P4: u32 = 0x27d4eb2f;
// @ts-ignore: decorator
@inline const P5: u32 = 0x165667b1;

// @ts-ignore: decorator
@inline function round(acc: u32, lane: u32): u32 {
  return rotl<u32>(acc + lane * P2, 13) * P1;
}

export function xxh32(ptr: usize, len: i32, seed: u32): u32 {
  let p = ptr;
  const end = ptr + <usize>(len < 0 ? 0 : len);
  let h: u32;
  if (len >= 16) {
    let v1 = seed + P1 + P2;
    let v2 = seed + P2;
    let v3 = seed;
    let v4 = seed - P1;
    const limit = end - 16;
    do {
      v1 = round(v1, load<u32>(p));
      v2 = round(v2, load<u32>(p, 4));
      v3 = round(v3, load<u32>(p, 8));
      v4 = round(v4, load<u32>(p, 12));
      p += 16;
    } while (p <= limit);
    h = rotl<u32>(v1, 1) + rotl<u32>(v2, 7) + rotl<u32>(v3, 12) + rotl<u32>(v4, 18);
  } else {
    h = seed + P5;
  }
  h += <u32>len;
  while (end - p >= 4) {
    h = rotl<u32>(h + load<u32>(p) * P3, 17) * P4;
    p += 4;
  }
  while (p < end) {
    h = rotl<u32>(h + <u32>load<u8>(p) * P5, 11) * P1;
    p++;
  }
  h ^= h >>> 15;
  h *= P2;
  h ^= h >>> 13;
  h *= P3;
  h ^= h >>> 16;
  return h;
}
