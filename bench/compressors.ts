import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import * as lz4Napi from 'lz4-napi'
import { wafkaCompressors } from '../src/cli/bench/codec-cases.js'
import { lz4Compress, lz4Decompress, snappyCompress, snappyDecompress } from '@platformatic/wasm-utils'

/**
 * Standalone LZ4 (Kafka's frame format) and snappy implementations to time
 * wafka's against: the native ceiling (lz4-napi, Rust), snappy-wasm (Rust),
 * and the ones the peer clients use.
 */

import type { Compressor } from '../src/cli/bench/codec-cases.js'
export type { Compressor }

const require = createRequire(import.meta.url)
const snappyWasm: { compress_raw(d: Uint8Array): Uint8Array; decompress_raw(d: Uint8Array): Uint8Array } = require('snappy-wasm')
// kafkajs-lz4 wraps the `lz4` package; kafkajs-snappy wraps its own copy of snappyjs.
const nodeLz4: { encode(d: Buffer): Buffer; decode(d: Buffer): Buffer } = createRequire(require.resolve('kafkajs-lz4'))('lz4')
const snappyjs: { compress(d: Buffer): Buffer; uncompress(d: Buffer): Buffer } = createRequire(require.resolve('kafkajs-snappy'))(
  'snappyjs',
)

const asBuffer = (d: Uint8Array): Buffer => (Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength))

/** wafka's own (src/cli/bench/codec-cases.ts: the same ones `wafka bench codec` times). */
export async function wafkaLz4(): Promise<Compressor | null> {
  return (await wafkaCompressors()).lz4
}

export async function wafkaSnappy(): Promise<Compressor | null> {
  return (await wafkaCompressors()).snappy
}

export const lz4Peers: Compressor[] = [
  { name: 'lz4-napi', compress: (d) => lz4Napi.compressFrameSync(d), decompress: (d) => lz4Napi.decompressFrameSync(asBuffer(d)) },
  // Not Kafka's format (no frame, no checksums): the native ceiling for the LZ4 work itself.
  { name: 'lz4-napi, raw block', compress: (d) => lz4Napi.compressSync(d), decompress: (d) => lz4Napi.uncompressSync(d) },
  { name: '@platformatic/kafka', compress: (d) => lz4Compress(d), decompress: (d) => lz4Decompress(asBuffer(d)) },
  { name: 'KafkaJS (kafkajs-lz4)', compress: (d) => nodeLz4.encode(d), decompress: (d) => nodeLz4.decode(asBuffer(d)) },
]

export const snappyPeers: Compressor[] = [
  { name: 'snappy-wasm', compress: (d) => snappyWasm.compress_raw(d), decompress: (d) => snappyWasm.decompress_raw(d) },
  { name: '@platformatic/kafka', compress: (d) => snappyCompress(d), decompress: (d) => snappyDecompress(asBuffer(d)) },
  { name: 'KafkaJS (kafkajs-snappy)', compress: (d) => snappyjs.compress(d), decompress: (d) => snappyjs.uncompress(asBuffer(d)) },
]
