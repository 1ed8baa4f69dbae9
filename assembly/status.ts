// Status codes returned by every wasm export. Non-negative results are
// byte counts or record counts; negative ones name what was wrong with the
// input. src/codec/status.ts maps them to typed errors: keep both in sync.

export const OK: i32 = 0;
/** The input ends before a length or field it announces. */
export const ERR_TRUNCATED: i32 = -1;
/** A CRC-32C / CRC-32 / xxHash32 check failed. */
export const ERR_CHECKSUM: i32 = -2;
/** A varint runs past 5 bytes (int32) or 10 bytes (int64). */
export const ERR_VARINT: i32 = -3;
/** Magic byte is not 0, 1 or 2 (or an LZ4/snappy frame magic is wrong). */
export const ERR_MAGIC: i32 = -4;
/** A length or count is negative where it may not be, or inconsistent. */
export const ERR_LENGTH: i32 = -5;
/** Record framing does not add up (record length mismatch, bytes left over). */
export const ERR_RECORD: i32 = -6;
/** The output region is too small; the caller may grow it and call again. */
export const ERR_OUTPUT_FULL: i32 = -7;
/** Compressed data is malformed. */
export const ERR_COMPRESSED: i32 = -8;
/** A frame uses a feature this reader does not support (flags, block size). */
export const ERR_UNSUPPORTED: i32 = -9;
/** The compression codec id is unknown. */
export const ERR_CODEC: i32 = -10;
