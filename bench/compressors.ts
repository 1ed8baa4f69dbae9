import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import * as zlib from 'node:zlib'
import { wafkaCompressors } from '../src/cli/bench/codec-cases.js'
import { externalCodecs } from '../src/codec/compression.js'
import { lz4Compress, lz4Decompress, snappyCompress, snappyDecompress } from '@platformatic/wasm-utils'
import { optional } from './support/runtime.js'

/**
 * Standalone LZ4 (Kafka's frame format), snappy, gzip and zstd
 * implementations to time wafka's against: the native ceiling (lz4-napi,
 * Rust), snappy-wasm (Rust), node:zlib, and the ones the peer clients use.
 * Native modules that a runtime cannot load are left out, and the run's
 * notes say so (support/runtime.ts's absences).
 */

import type { Compressor } from '../src/cli/bench/codec-cases.js'
export type { Compressor }

const require = createRequire(import.meta.url)
const snappyWasm: { compress_raw(d: Uint8Array): Uint8Array; decompress_raw(d: Uint8Array): Uint8Array } = require('snappy-wasm')
const lz4Napi = optional(
  'lz4-napi',
  (): {
    compressFrameSync(d: Uint8Array): Buffer
    decompressFrameSync(d: Buffer): Buffer
    compressSync(d: Uint8Array): Buffer
    uncompressSync(d: Uint8Array): Buffer
  } => require('lz4-napi'),
)
// kafkajs-lz4 wraps the `lz4` package (a pre-Node-API addon Bun and Deno cannot load); kafkajs-snappy its own copy of snappyjs.
const nodeLz4 = optional(
  'KafkaJS LZ4 (kafkajs-lz4 on the native `lz4` addon)',
  (): { encode(d: Buffer): Buffer; decode(d: Buffer): Buffer } => createRequire(require.resolve('kafkajs-lz4'))('lz4'),
)
const snappyjs: { compress(d: Buffer): Buffer; uncompress(d: Buffer): Buffer } = createRequire(require.resolve('kafkajs-snappy'))(
  'snappyjs',
)

const asBuffer = (d: Uint8Array): Buffer => (Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength))
const present = (c: Compressor | false | undefined): c is Compressor => !!c
/** The peers this runtime can load, in order. */
const loaded = (list: Array<Compressor | false | undefined>): Compressor[] => list.filter(present)

/** wafka's own (src/cli/bench/codec-cases.ts: the same ones `wafka bench codec` times). */
export async function wafkaLz4(): Promise<Compressor | null> {
  return (await wafkaCompressors()).lz4
}

export async function wafkaSnappy(): Promise<Compressor | null> {
  return (await wafkaCompressors()).snappy
}

/** The name the native LZ4 block API goes by in the tables: not Kafka's format, the ceiling for the LZ4 work itself. */
export const LZ4_NATIVE_CEILING = 'native ceiling (lz4-napi, raw block)'

export const lz4Peers: Compressor[] = loaded([
  lz4Napi && {
    name: 'lz4-napi',
    compress: (d) => lz4Napi.compressFrameSync(d),
    decompress: (d) => lz4Napi.decompressFrameSync(asBuffer(d)),
  },
  lz4Napi && { name: LZ4_NATIVE_CEILING, compress: (d) => lz4Napi.compressSync(d), decompress: (d) => lz4Napi.uncompressSync(d) },
  { name: '@platformatic/kafka', compress: (d) => lz4Compress(d), decompress: (d) => lz4Decompress(asBuffer(d)) },
  nodeLz4 && { name: 'KafkaJS (kafkajs-lz4)', compress: (d) => nodeLz4.encode(d), decompress: (d) => nodeLz4.decode(asBuffer(d)) },
])

export const snappyPeers: Compressor[] = [
  { name: 'snappy-wasm', compress: (d) => snappyWasm.compress_raw(d), decompress: (d) => snappyWasm.decompress_raw(d) },
  { name: '@platformatic/kafka', compress: (d) => snappyCompress(d), decompress: (d) => snappyDecompress(asBuffer(d)) },
  { name: 'KafkaJS (kafkajs-snappy)', compress: (d) => snappyjs.compress(d), decompress: (d) => snappyjs.uncompress(asBuffer(d)) },
]

const LIMIT = 64 << 20

/** wafka's gzip and zstd (outside the wasm module: node:zlib, or for zstd where node:zlib lacks it, a wasm build). */
export function wafkaZlib(codec: 'gzip' | 'zstd'): Compressor {
  const ext = externalCodecs[codec === 'gzip' ? 1 : 4]!
  return { name: 'wafka', compress: (d) => ext.compress(d, codec === 'zstd' ? 3 : undefined), decompress: (d) => ext.decompress(d, LIMIT) }
}

const z = zlib as typeof zlib & { zstdCompressSync?(d: Uint8Array): Buffer; zstdDecompressSync?(d: Uint8Array): Buffer }

/** node:zlib itself, where this runtime has the codec (zstd: Node >= 22.15, Bun, Deno). */
export const zlibPeers: Record<'gzip' | 'zstd', Compressor[]> = {
  gzip: [{ name: 'node:zlib', compress: (d) => z.gzipSync(d), decompress: (d) => z.gunzipSync(d) }],
  zstd:
    typeof z.zstdCompressSync === 'function'
      ? [{ name: 'node:zlib', compress: (d) => z.zstdCompressSync!(d), decompress: (d) => z.zstdDecompressSync!(d) }]
      : [],
}
