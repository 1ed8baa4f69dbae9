import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import * as layout from '../src/codec/layout.js'
import * as status from '../src/codec/status.js'

function constants(path: string): Record<string, number> {
  const text = readFileSync(new URL(path, import.meta.url), 'utf8')
  const found: Record<string, number> = {}
  for (const m of text.matchAll(/export const (\w+)(?:: i32)? = (-?\d+);/g)) found[m[1]] = Number(m[2])
  return found
}

it('TypeScript mirrors every shared-memory layout constant of the wasm core', () => {
  const wasmSide = constants('../assembly/layout.ts')
  expect(Object.keys(wasmSide).length).toBeGreaterThan(50)
  const tsSide = Object.fromEntries(Object.entries(layout).filter(([, v]) => typeof v === 'number'))
  expect(tsSide).toEqual(wasmSide)
})

it('TypeScript mirrors every status code of the wasm core', () => {
  const wasmSide = constants('../assembly/status.ts')
  expect(Object.keys(wasmSide).length).toBeGreaterThan(8)
  for (const [name, value] of Object.entries(wasmSide)) expect((status as any)[name], name).toBe(value)
})
