import { Buffer } from 'node:buffer'
import { externalCodecs } from '../codec/compression.js'
import { lz4CompressFrame, lz4DecompressFrame } from '../codec/lz4.js'
import { snappyCompress, snappyDecompress } from '../codec/snappy.js'

/** KafkaJS's compression ids: the record batch attribute values. */
export const CompressionTypes = { None: 0, GZIP: 1, Snappy: 2, LZ4: 3, ZSTD: 4 } as const
export type CompressionTypes = (typeof CompressionTypes)[keyof typeof CompressionTypes]

/** A codec as KafkaJS's registry holds it: a factory of `{ compress(encoder), decompress(buffer) }`. */
export type CompressionCodec = () => {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>
  decompress(buffer: Buffer): Promise<Buffer>
}

const LIMIT = 64 * 1024 * 1024
const codec =
  (compress: (b: Uint8Array) => Uint8Array, decompress: (b: Uint8Array) => Uint8Array): CompressionCodec =>
  () => ({
    compress: async ({ buffer }) => Buffer.from(compress(buffer)),
    decompress: async (buffer) => Buffer.from(decompress(buffer)),
  })

/**
 * KafkaJS's codec registry. KafkaJS has only GZIP built in and users put
 * Snappy, LZ4 and ZSTD codecs (kafkajs-snappy, ...) here; wafka has all four
 * built in, registered here by default, and its engine always uses its own
 * (the bytes on the wire are the same): a codec a program puts in is
 * accepted so the program runs unchanged.
 */
export const CompressionCodecs: Record<number, CompressionCodec | undefined> = {
  [CompressionTypes.GZIP]: codec(
    (b) => externalCodecs[1]!.compress(b),
    (b) => externalCodecs[1]!.decompress(b, LIMIT),
  ),
  [CompressionTypes.Snappy]: codec(snappyCompress, snappyDecompress),
  [CompressionTypes.LZ4]: codec(lz4CompressFrame, lz4DecompressFrame),
  [CompressionTypes.ZSTD]: codec(
    (b) => externalCodecs[4]!.compress(b),
    (b) => externalCodecs[4]!.decompress(b, LIMIT),
  ),
}
