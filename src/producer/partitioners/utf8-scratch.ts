// A string key's UTF-8 bytes, written into one buffer kept between calls, so
// hashing a non-ASCII key allocates nothing. TextEncoder.encodeInto measured
// faster here than Buffer#write (about 70 vs 100 ns for 16 characters).

const encoder = new TextEncoder()
/** Keys needing more than this get a buffer of their own, so one huge key does not pin memory. */
const KEEP_LIMIT = 64 * 1024

export interface EncodedKey {
  readonly buffer: Uint8Array
  readonly length: number
}

const scratch = { buffer: new Uint8Array(256), length: 0 }

/**
 * `s` as UTF-8, lone surrogates as U+FFFD (EF BF BD) — the bytes the record
 * encoder writes for the key, which are the bytes to hash. Valid until the
 * next call.
 */
export function utf8Scratch(s: string): EncodedKey {
  // UTF-8 never takes more than 3 bytes per UTF-16 code unit.
  const most = s.length * 3
  if (most > scratch.buffer.length) {
    if (most > KEEP_LIMIT) {
      const bytes = encoder.encode(s)
      return { buffer: bytes, length: bytes.length }
    }
    let size = scratch.buffer.length
    while (size < most) size *= 2
    scratch.buffer = new Uint8Array(size)
  }
  scratch.length = encoder.encodeInto(s, scratch.buffer).written
  return scratch
}
