import { Buffer } from 'node:buffer'
import type { CompressionName } from '../../index.js'
import { benchRecords, jsonLines, noise, type InputKind } from './data.js'
import type { Case, MeasureOptions } from './measure.js'
import type { PeerCodec } from './peer-codec.js'
import { decodeAndTouch as wafkaDecodeAndTouch } from './wafka-codec.js'

/**
 * The codec benchmark's cases (bench/codec.ts runs them with wafka and its
 * peers; `wafka bench codec` with wafka alone): CRC-32C, RecordBatch v2
 * encode and decode of 1,000 records, and LZ4 / snappy on 1 MiB of JSON
 * lines. The first contender of every case is wafka: ratios are taken
 * against it.
 */

/** A standalone compressor (bench/compressors.ts has the peers'). */
export interface Compressor {
  name: string
  compress(data: Buffer): Uint8Array
  decompress(data: Uint8Array): Uint8Array
}

/** --quick: one short run of every case (a smoke test, rough figures); full: three rounds. */
export const CODEC_TIMING: Record<'quick' | 'full', MeasureOptions> = {
  quick: { rounds: 1, time: 40, warmupTime: 10, warmupPass: 0 },
  full: { rounds: 3, time: 300, warmupTime: 100, warmupPass: 100 },
}

const KIB = 1024
const MIB = 1024 * KIB
const RECORDS = 1000
const VALUE_SIZES = [10, 100, KIB]
const CODECS: CompressionName[] = ['none', 'lz4', 'snappy', 'zstd', 'gzip']

const sizeName = (n: number) => (n >= MIB ? `${n / MIB} MiB` : n >= KIB ? `${n / KIB} KiB` : `${n} B`)

export function crcCases(contenders: Array<{ name: string; crc32c(data: Uint8Array): number }>): Case[] {
  return [KIB, 16 * KIB, MIB].map((size) => {
    const data = noise(size)
    return {
      group: 'CRC-32C',
      name: sizeName(size),
      unit: 'MB/s',
      perOp: size,
      repeat: Math.max(1, Math.round((64 * KIB) / size)),
      contenders: contenders.map((c) => ({ name: c.name, fn: () => c.crc32c(data) })),
    }
  })
}

export function encodeCases(peers: readonly PeerCodec[], kind: InputKind): Case[] {
  const cases: Case[] = []
  for (const size of VALUE_SIZES) {
    const records = benchRecords(RECORDS, size, kind)
    for (const compression of CODECS) {
      cases.push({
        group: `encode 1,000 records, ${kind} in`,
        name: `${sizeName(size)} values, ${compression}`,
        unit: 'records/s',
        perOp: RECORDS,
        contenders: peers
          .filter((p) => p.codecs.includes(compression))
          .map((p) => ({ name: p.name, fn: () => p.encode(records, { compression }) })),
      })
    }
  }
  return cases
}

/**
 * Every decoder reads the same bytes: the first peer's (wafka's) encoding,
 * except for snappy, where it is `snappyEncoder`'s: bench/codec.ts gives
 * @platformatic/kafka's raw snappy block, which @platformatic/kafka can read,
 * unlike the xerial framing wafka and the Java client write.
 */
export async function decodeCases(peers: readonly PeerCodec[], snappyEncoder: PeerCodec, notes: string[]): Promise<Case[]> {
  notes.push(
    'wafka checks each batch\'s CRC-32C when decoding, as the Java client does; KafkaJS and @platformatic/kafka never do. The "wafka, CRC unchecked" column is wafka with { verifyCrc: false }; its ratio is what the check costs.',
  )
  if (snappyEncoder !== peers[0])
    notes.push(
      `Decode inputs are the same bytes for every decoder: wafka's encoding, except snappy, which is ${snappyEncoder.name}'s raw-block encoding, since ${snappyEncoder.name} cannot read the xerial-framed snappy that wafka and the Java client write.`,
    )
  const cases: Case[] = []
  for (const size of VALUE_SIZES) {
    const records = benchRecords(RECORDS, size, 'buffers')
    const expectedBytes = RECORDS * (16 + size)
    for (const compression of CODECS) {
      const batch = await (compression === 'snappy' ? snappyEncoder : peers[0]).encode(records, { compression })
      const contenders = peers.filter((p) => p.codecs.includes(compression))
      for (const p of contenders) {
        const seen = await p.decodeAndTouch(batch)
        if (seen !== expectedBytes)
          throw new Error(`${p.name} decoded ${seen} key+value bytes of ${compression} batch, expected ${expectedBytes}`)
      }
      cases.push({
        group: 'decode 1,000 records, read key and value',
        name: `${sizeName(size)} values, ${compression}`,
        unit: 'records/s',
        perOp: RECORDS,
        contenders: [
          ...contenders.map((p) => ({ name: p.name, fn: () => p.decodeAndTouch(batch) })),
          { name: 'wafka, CRC unchecked', fn: () => wafkaDecodeAndTouch(batch, { verifyCrc: false }) },
        ],
      })
    }
  }
  return cases
}

/** Compress and decompress 1 MiB of JSON lines; each contender decompresses its own output, checked once here. */
export async function compressionCases(
  notes: string[],
  codec: string,
  ours: Compressor | null,
  theirs: Compressor[],
  note: string,
): Promise<Case[]> {
  if (!ours) {
    notes.push(`${codec}: skipped, wafka's ${codec} module was not available in this build.`)
    return []
  }
  notes.push(note)
  const data = jsonLines(MIB)
  const all = [ours, ...theirs]
  const cases: Case[] = [
    {
      group: codec,
      name: 'compress 1 MiB JSON lines',
      unit: 'MB/s',
      perOp: MIB,
      contenders: all.map((c) => ({ name: c.name, fn: () => c.compress(data) })),
    },
  ]
  const compressed = all.map((c) => c.compress(data))
  all.forEach((c, i) => {
    if (!Buffer.from(c.decompress(compressed[i])).equals(data)) throw new Error(`${c.name} ${codec} does not round trip`)
  })
  const ratios = all.map((c, i) => `${c.name} ${(data.length / compressed[i].length).toFixed(2)}`).join(', ')
  notes.push(`${codec} compression ratio on the 1 MiB of JSON lines: ${ratios}.`)
  cases.push({
    group: codec,
    name: 'decompress 1 MiB JSON lines',
    unit: 'MB/s',
    perOp: MIB,
    contenders: all.map((c, i) => ({ name: c.name, fn: () => c.decompress(compressed[i]) })),
  })
  return cases
}

/** wafka's own LZ4 (Kafka's frame format) and snappy (xerial-framed), as standalone compressors. */
export async function wafkaCompressors(): Promise<{ lz4: Compressor; snappy: Compressor }> {
  const lz4 = await import('../../codec/lz4.js')
  const snappy = await import('../../codec/snappy.js')
  return {
    lz4: { name: 'wafka', compress: (d) => lz4.lz4CompressFrame(d), decompress: (d) => lz4.lz4DecompressFrame(d) },
    snappy: { name: 'wafka', compress: (d) => snappy.snappyCompress(d), decompress: (d) => snappy.snappyDecompress(d) },
  }
}
