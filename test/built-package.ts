// Runs test files against the built package (dist/) instead of src/: a test's
// import of an entry point's source (src/index.ts, src/public/*.ts,
// src/kafkajs/index.ts, src/broker/index.ts) is answered with what
// package.json's "exports" ships for it. ESM: the built file, left to Node's
// own loader (not transformed by Vite). CJS: the built file loaded by Node's
// require(), as a CommonJS user loads it. Imports made from src/ itself are
// left alone.
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'

export type BuiltFormat = 'esm' | 'cjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const requireBuilt = createRequire(import.meta.url)
const cjsPrefix = '\0wafka-built-cjs:'

/** Each entry point's source and the name it is built under in dist/. */
export const entrySources: Record<string, string> = {
  'src/index.ts': 'index',
  'src/public/codec.ts': 'codec',
  'src/public/protocol.ts': 'protocol',
  'src/public/kafkajs.ts': 'kafkajs',
  'src/public/otel.ts': 'otel',
  'src/public/streams.ts': 'streams',
  'src/kafkajs/index.ts': 'kafkajs',
  'src/broker/index.ts': 'broker',
}

export const builtFile = (entry: string, format: BuiltFormat): string => `${root}dist/${entry}.${format === 'esm' ? 'js' : 'cjs'}`

export function builtPackage(format: BuiltFormat): Plugin {
  return {
    name: `wafka-built-package-${format}`,
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.') || !importer.startsWith(`${root}test/`)) return null
      const path = resolve(dirname(importer), source).replace(/\.js$/, '.ts')
      const entry = entrySources[path.slice(root.length)]
      if (!entry) return null
      return format === 'esm' ? { id: builtFile(entry, 'esm'), external: true } : `${cjsPrefix}${entry}`
    },
    load(id) {
      if (!id.startsWith(cjsPrefix)) return null
      const file = builtFile(id.slice(cjsPrefix.length), 'cjs')
      const names = Object.keys(requireBuilt(file)).filter((n) => n !== 'default')
      return [
        `import { createRequire } from 'node:module'`,
        `const m = createRequire(${JSON.stringify(file)})(${JSON.stringify(file)})`,
        `export default m`,
        `export const { ${names.join(', ')} } = m`,
      ].join('\n')
    },
  }
}
