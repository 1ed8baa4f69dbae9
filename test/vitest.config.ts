import { readFileSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

// The bundle inlines dist/wafka.wasm (esbuild's binary loader); tests load
// the same bytes the same way, so they exercise the built module.
export default defineConfig({
  plugins: [
    {
      name: 'wasm-bytes',
      enforce: 'pre',
      load(id) {
        if (!id.endsWith('.wasm')) return null
        const b64 = readFileSync(id).toString('base64')
        return `export default Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0))`
      },
    },
  ],
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
