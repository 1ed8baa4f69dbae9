import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

/** The methods src/codec/wasm-exports.ts declares, with their parameter counts. */
function declared(): Record<string, number> {
  const text = readFileSync(new URL('../src/codec/wasm-exports.ts', import.meta.url), 'utf8')
  const found: Record<string, number> = {}
  for (const m of text.matchAll(/^ {2}(\w+)\(([^)]*)\): \w+$/gm)) found[m[1]] = m[2].trim() === '' ? 0 : m[2].split(',').length
  return found
}

it('WasmExports declares every function the wasm core exports, with its parameter count', () => {
  const module = new WebAssembly.Module(readFileSync(new URL('../dist/wafka.wasm', import.meta.url)))
  const instance = new WebAssembly.Instance(module, { env: { abort() {} } })
  const exported: Record<string, number> = {}
  for (const e of WebAssembly.Module.exports(module))
    if (e.kind === 'function') exported[e.name] = (instance.exports[e.name] as (...a: unknown[]) => unknown).length
  expect(Object.keys(exported).length).toBeGreaterThan(20)
  expect(declared()).toEqual(exported)
  expect(
    WebAssembly.Module.exports(module)
      .filter((e) => e.kind === 'memory')
      .map((e) => e.name),
  ).toEqual(['memory'])
})
