// Node module hooks for a child process that runs wafka's TypeScript sources
// (test/streams/eos-child.ts): a relative `./x.js` import resolves to `./x.ts`
// when only that exists, a .ts file is stripped of its types by esbuild, and
// dist/wafka.wasm is its bytes (as the bundle and test/vitest.config.ts load it).
// Registered by `node --import ./test/streams/ts-register.mjs`.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (err) {
    if (specifier.startsWith('.') && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context)
    throw err
  }
}

export async function load(url, context, next) {
  if (url.startsWith('file:') && url.endsWith('.wasm')) {
    const b64 = (await readFile(fileURLToPath(url))).toString('base64')
    return { format: 'module', source: `export default Uint8Array.from(atob('${b64}'), (c) => c.charCodeAt(0))`, shortCircuit: true }
  }
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context)
  const file = fileURLToPath(url)
  const { code } = await transform(await readFile(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file })
  return { format: 'module', source: code, shortCircuit: true }
}
