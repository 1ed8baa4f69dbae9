// The codec benchmark's contenders and results: the bare-wasm contender does
// the same work as wafka (the same bytes out, the same records back), the
// @platformatic/kafka 2 peer reads wafka's batches, and the committed
// per-runtime results (bench/results/codec-<runtime>.*) hang together with the
// summary and the README table made from them.
import { Buffer } from 'node:buffer'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bareWasm, platformatic2, wafka } from '../bench/peers/index.js'
import { readmeBlock, RUNTIMES, summaryMarkdown, SUMMARY_END, SUMMARY_START, type CodecResults } from '../bench/support/codec-summary.js'
import { markdown } from '../bench/support/report.js'
import { benchRecords } from '../src/cli/bench/data.js'
import type { CompressionName } from '../src/index.js'

const root = join(import.meta.dirname, '..')

describe('the bare-wasm contender', () => {
  it.each([10, 100, 1024])('encodes 1,000 records of %i B values to the bytes wafka makes, and decodes them back', async (size) => {
    await wafka.load()
    const records = benchRecords(1000, size, 'buffers')
    for (const compression of ['none', 'lz4', 'snappy'] as CompressionName[]) {
      const ours = await wafka.encode(records, { compression })
      const bare = await bareWasm.encode(records, { compression })
      expect(Buffer.compare(bare, ours), compression).toBe(0)
      expect(await bareWasm.decodeAndTouch(ours)).toBe(await wafka.decodeAndTouch(ours))
      const back = await bareWasm.decode(bare)
      expect(back.records.map((r) => [r.key, r.value, r.timestamp])).toEqual(records.map((r) => [r.key, r.value, r.timestamp]))
    }
  })

  it('checks the CRC when it decodes, and computes the same CRC-32C as wafka', async () => {
    const batch = Buffer.from(await wafka.encode(benchRecords(10, 100, 'buffers'), { compression: 'none' }))
    expect(bareWasm.crc32c(batch)).toBe(wafka.crc32c(batch) >>> 0)
    batch[batch.length - 1] ^= 1
    expect(() => bareWasm.decodeAndTouch(batch)).toThrow(/decodeBatch returned -/)
  })
})

describe('@platformatic/kafka 2.12 as a peer', () => {
  it("reads wafka's batches to the same keys and values", async () => {
    const records = benchRecords(100, 100, 'buffers')
    for (const compression of platformatic2.codecs.filter((c) => c !== 'snappy')) {
      const decoded = await platformatic2.decode(await wafka.encode(records, { compression }))
      expect(
        decoded.records.map((r) => [r.key, r.value]),
        compression,
      ).toEqual(records.map((r) => [r.key, r.value]))
    }
  })
})

const resultsDir = join(root, 'bench', 'results')
const committed = Object.fromEntries(
  RUNTIMES.filter((r) => existsSync(join(resultsDir, `codec-${r}.json`))).map((r) => [
    r,
    JSON.parse(readFileSync(join(resultsDir, `codec-${r}.json`), 'utf8')) as CodecResults,
  ]),
)

describe('the committed codec results', () => {
  it('hold a result file set per runtime, each saying its runtime and version', () => {
    for (const runtime of RUNTIMES) {
      const results = committed[runtime]
      expect(results, runtime).toBeDefined()
      expect(results.runtime).toMatchObject({ name: runtime, version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
      expect(existsSync(join(resultsDir, `codec-${runtime}.svg`))).toBe(true)
      // The markdown is the JSON's, as bench/codec.ts writes both.
      expect(readFileSync(join(resultsDir, `codec-${runtime}.md`), 'utf8')).toBe(markdown(results, results.cases))
      // Every contender is in the same round as wafka: a ratio for each, wafka first.
      for (const c of results.cases) {
        expect(c.results[0].name).toBe('wafka')
        for (const r of c.results) expect(r.wafkaRatio).toBeGreaterThan(0)
      }
    }
  })

  it('show the native ceiling, @platformatic/kafka 2 and bare wasm beside wafka', () => {
    for (const runtime of RUNTIMES) {
      const names = new Set(committed[runtime].cases.flatMap((c) => c.results.map((r) => r.name)))
      for (const name of ['native ceiling (@node-rs/crc32)', 'native ceiling (lz4-napi, raw block)', '@platformatic/kafka 2', 'bare wasm'])
        expect(names, `${runtime}: ${name}`).toContain(name)
    }
  })

  it('are what bench/results/codec.md and the README codec table say', () => {
    expect(readFileSync(join(resultsDir, 'codec.md'), 'utf8')).toBe(summaryMarkdown(committed))
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    const block = readme.slice(readme.indexOf(SUMMARY_START), readme.indexOf(SUMMARY_END) + SUMMARY_END.length)
    expect(block).toBe(readmeBlock(committed))
  })
})
