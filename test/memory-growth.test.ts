import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch } from '../src/public/codec.js'

// Its own file: vitest gives each file a fresh module, so wasm memory starts small here.
describe('wasm memory growth', () => {
  it('decodes externally decompressed batches that make memory grow mid-decode', async () => {
    const { loadCodecs } = await import('../src/index.js')
    await loadCodecs()
    // Each batch is larger than everything before it, so every decode grows memory
    // while laying out the decompressed copy.
    for (const compression of ['gzip', 'zstd'] as const) {
      for (let n = 1000; n < 40_000; n = Math.ceil(n * 1.3)) {
        const records = Array.from({ length: n }, (_, i) => ({ key: null, value: `v${i}`, timestamp: 1 }))
        const got = decodeRecordSet(encodeRecordBatch(records, { compression })).batches[0].records
        expect(got.length).toBe(n)
        expect(got[n - 1].value!.toString()).toBe(`v${n - 1}`)
      }
    }
  })
})
