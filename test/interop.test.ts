import { Buffer } from 'node:buffer'
import { crc32c as nativeCrc32c } from '@node-rs/crc32'
import { jsCRC32C as platformaticJsCrc32c } from '@platformatic/kafka'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CompressionName } from '../src/index.js'
import { kafkajs, platformatic, platformatic2, wafka, type PeerCodec } from '../bench/peers/index.js'
import { crc32cAsInstalled as platformaticCrc32cAsInstalled } from '../bench/peers/platformatic.js'
import { Prng } from '../bench/support/prng.js'
import { batchDifference, expectedBatch } from './support/compare-batch.js'
import { seedFromEnv } from './prng.js'
import { randomBatch } from './support/random-records.js'

/**
 * Byte-level agreement with independent implementations of RecordBatch v2:
 * what wafka encodes, KafkaJS and @platformatic/kafka decode to the same
 * records; what they encode, wafka decodes to the same records. Every
 * comparison is against the records the batch was made from.
 *
 * Randomized but replayable: the seed is printed; set WAFKA_INTEROP_SEED to
 * rerun one, WAFKA_INTEROP_ROUNDS to run more or fewer batches per direction.
 */

const seed = seedFromEnv('WAFKA_INTEROP_SEED')
const rounds = Number(process.env.WAFKA_INTEROP_ROUNDS ?? 600)
/** One round in this many carries 1 MiB values. */
const LARGE_EVERY = 125
const MAX_REPORTED = 5

console.log(`interop seed ${seed}, ${rounds} rounds a direction (replay: WAFKA_INTEROP_SEED=${seed})`)

beforeAll(async () => {
  for (const peer of [wafka, kafkajs, platformatic, platformatic2]) await peer.load()
})

/** Wire order survives only when neither side keeps headers in an object. */
const grouped = (a: PeerCodec, b: PeerCodec) => a.headerOrder === 'grouped' || b.headerOrder === 'grouped'

/**
 * Encodes `rounds` random batches with `encoder` (codecs in turn) and
 * decodes each with `decoder`; returns the first few disagreements.
 */
async function crossCheck(
  direction: number,
  encoder: PeerCodec,
  decoder: PeerCodec,
  codecs: readonly CompressionName[],
  checkCrc?: (batch: Buffer) => string | null,
): Promise<string[]> {
  const failures: string[] = []
  for (let round = 0; round < rounds && failures.length < MAX_REPORTED; round++) {
    const codec = codecs[round % codecs.length]
    const large = round % LARGE_EVERY === LARGE_EVERY - 1
    const { records, options } = randomBatch(Prng.derive(seed, direction * 1_000_000 + round), codec, encoder.encodes, large)
    const where = `seed ${seed} round ${round} (${codec}, ${records.length} records${large ? ', 1 MiB values' : ''})`
    try {
      const batch = await encoder.encode(records, options)
      const crcProblem = checkCrc?.(batch)
      if (crcProblem) {
        failures.push(`${where}: ${crcProblem}`)
        continue
      }
      const difference = batchDifference(await decoder.decode(batch), expectedBatch(records, options, grouped(encoder, decoder)))
      if (difference) failures.push(`${where}: ${difference}`)
    } catch (err) {
      failures.push(`${where}: threw ${(err as Error).stack}`)
    }
  }
  return failures
}

/** The CRC field of a batch (bytes 17-20) against a peer's CRC-32C of everything after it. */
function crcCheckedBy(peer: PeerCodec) {
  return (batch: Buffer): string | null => {
    const stored = batch.readUInt32BE(17)
    const computed = peer.crc32c(batch.subarray(21)) >>> 0
    return stored === computed ? null : `CRC field ${stored.toString(16)}, ${peer.name} computes ${computed.toString(16)}`
  }
}

describe('wafka encodes, peers decode', () => {
  it(`KafkaJS reads every codec it has (${kafkajs.codecs.join(', ')})`, async () => {
    expect(await crossCheck(1, wafka, kafkajs, kafkajs.codecs, crcCheckedBy(kafkajs))).toEqual([])
  })

  // Not snappy: @platformatic/kafka reads only raw snappy blocks, and wafka
  // writes the xerial framing the Java client writes (its wasm traps on it).
  const platformaticReads = platformatic.codecs.filter((c) => c !== 'snappy')
  it(`@platformatic/kafka reads ${platformaticReads.join(', ')}`, async () => {
    expect(await crossCheck(2, wafka, platformatic, platformaticReads, crcCheckedBy(platformatic))).toEqual([])
  })

  // 2.x (the benchmark's second @platformatic/kafka column) has the same record codec and the same snappy limit.
  const platformatic2Reads = platformatic2.codecs.filter((c) => c !== 'snappy')
  it(`@platformatic/kafka 2 reads ${platformatic2Reads.join(', ')}`, async () => {
    expect(await crossCheck(8, wafka, platformatic2, platformatic2Reads, crcCheckedBy(platformatic2))).toEqual([])
  })

  it(`wafka reads back every codec (${wafka.codecs.join(', ')})`, async () => {
    expect(await crossCheck(3, wafka, wafka, wafka.codecs)).toEqual([])
  })
})

describe('peers encode, wafka decodes', () => {
  // wafka's decoder checks each batch's CRC, so these check the peers' CRCs too.
  it(`from KafkaJS (${kafkajs.codecs.join(', ')})`, async () => {
    expect(await crossCheck(4, kafkajs, wafka, kafkajs.codecs)).toEqual([])
  })

  it(`from @platformatic/kafka (${platformatic.codecs.join(', ')})`, async () => {
    expect(await crossCheck(5, platformatic, wafka, platformatic.codecs)).toEqual([])
  })

  it(`from @platformatic/kafka 2 (${platformatic2.codecs.join(', ')})`, async () => {
    expect(await crossCheck(9, platformatic2, wafka, platformatic2.codecs)).toEqual([])
  })
})

describe('crc32c', () => {
  const implementations: Array<[string, (data: Uint8Array) => number]> = [
    ['KafkaJS', kafkajs.crc32c],
    ['@platformatic/kafka (wasm)', platformatic.crc32c],
    ['@platformatic/kafka (as installed)', platformaticCrc32cAsInstalled],
    ['@platformatic/kafka (JS fallback)', platformaticJsCrc32c],
    ['@node-rs/crc32', (data) => nativeCrc32c(data)],
  ]

  it('agrees with every peer on random buffers of every alignment', () => {
    const rng = new Prng(Prng.derive(seed, 6_000_000))
    const failures: string[] = []
    for (let i = 0; i < 600 && failures.length < MAX_REPORTED; i++) {
      const length = rng.chance(0.9) ? rng.int(2049) : rng.int(300_000)
      const offset = rng.int(16)
      // A view at an odd offset into a larger buffer, as record data often is.
      const data = rng.bytes(offset + length).subarray(offset)
      const ours = wafka.crc32c(data) >>> 0
      for (const [name, crc] of implementations) {
        const theirs = crc(data) >>> 0
        if (theirs !== ours)
          failures.push(`${length} bytes at offset ${offset}: wafka ${ours.toString(16)}, ${name} ${theirs.toString(16)}`)
      }
    }
    expect(failures).toEqual([])
  })

  it('continues a running value as @node-rs/crc32 does', async () => {
    const { crc32c } = await import('../src/public/codec.js')
    const rng = new Prng(Prng.derive(seed, 7_000_000))
    for (let i = 0; i < 100; i++) {
      const a = rng.bytes(rng.int(5000))
      const b = rng.bytes(rng.int(5000))
      const whole = nativeCrc32c(Buffer.concat([a, b]))
      expect(crc32c(b, crc32c(a)) >>> 0).toBe(whole)
      expect(crc32c(b, nativeCrc32c(a)) >>> 0).toBe(nativeCrc32c(b, crc32c(a)))
    }
  })
})
