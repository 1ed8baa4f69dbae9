// CRC-32C (Castagnoli, record batches v2) and CRC-32 (IEEE, legacy
// messages), both reflected and table-driven, slicing by 16 bytes a step.
// Each needs 16 tables of 256 u32 (16 KiB), filled once at start-up.

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

function update(tables: usize, crc: u32, ptr: usize, len: i32): u32 {
  crc = ~crc;
  let p = ptr;
  const end = ptr + <usize>len;
  while (p + 16 <= end) {
    const a = load<u32>(p) ^ crc;
    const b = load<u32>(p, 4);
    const c = load<u32>(p, 8);
    const d = load<u32>(p, 12);
    crc =
      tab(tables, 15, a) ^ tab(tables, 14, a >>> 8) ^ tab(tables, 13, a >>> 16) ^ tab(tables, 12, a >>> 24) ^
      tab(tables, 11, b) ^ tab(tables, 10, b >>> 8) ^ tab(tables, 9, b >>> 16) ^ tab(tables, 8, b >>> 24) ^
      tab(tables, 7, c) ^ tab(tables, 6, c >>> 8) ^ tab(tables, 5, c >>> 16) ^ tab(tables, 4, c >>> 24) ^
      tab(tables, 3, d) ^ tab(tables, 2, d >>> 8) ^ tab(tables, 1, d >>> 16) ^ tab(tables, 0, d >>> 24);
    p += 16;
  }
  while (p < end) {
    crc = (crc >>> 8) ^ tab(tables, 0, crc ^ load<u8>(p));
    p++;
  }
  return ~crc;
}

/** CRC-32C of len bytes at ptr, continuing from crc (0 to start). */
export function crc32c(crc: u32, ptr: usize, len: i32): u32 {
  return update(crc32cTables, crc, ptr, len);
}

/** CRC-32 (IEEE) of len bytes at ptr, continuing from crc (0 to start). */
export function crc32(crc: u32, ptr: usize, len: i32): u32 {
  return update(crc32Tables, crc, ptr, len);
}
