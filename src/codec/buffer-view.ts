import { Buffer } from 'node:buffer'

/**
 * A Buffer over part of an ArrayBuffer. Buffer.from(arrayBuffer, offset,
 * length) skips the argument juggling of Buffer#subarray (about half its cost
 * here), and decoding makes two of these per record. A typed-array subclass
 * would be cheaper still, but its instances are not Buffers to
 * assert.deepStrictEqual, and users compare values that way.
 */
export function bufferView(buffer: ArrayBufferLike, byteOffset: number, length: number): Buffer {
  return Buffer.from(buffer as ArrayBuffer, byteOffset, length)
}
