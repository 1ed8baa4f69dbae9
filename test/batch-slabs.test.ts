import { describe, expect, it } from 'vitest'
import { batchBuffer, releaseBatch } from '../src/codec/batch-slabs.js'

const SLAB = 256 * 1024
const PART = SLAB / 8 // the largest batch carved from a slab: 8 fill one exactly

/** Batches from one slab of their own (the first carve after a full slab starts the next one). */
function fullSlab(fill: number): Buffer[] {
  let parts = [batchBuffer(PART)]
  // Carve until a batch starts a slab, then take the whole of that slab.
  while (parts[0].byteOffset !== 0) parts = [batchBuffer(PART)]
  for (let i = 1; i < 8; i++) parts.push(batchBuffer(PART))
  for (const p of parts) p.fill(fill)
  return parts
}

describe('encoded batches carved from slabs', () => {
  it('share a slab until it is full, then start another', () => {
    const parts = fullSlab(1)
    expect(new Set(parts.map((p) => p.buffer)).size).toBe(1)
    expect(parts.map((p) => p.byteOffset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * PART))
    expect(batchBuffer(PART).buffer).not.toBe(parts[0].buffer)
  })

  it('reuse a slab once every batch of it is given back', () => {
    const parts = fullSlab(2)
    for (const p of parts) releaseBatch(p)
    const next = fullSlab(3)
    expect(next[0].buffer).toBe(parts[0].buffer)
  })

  it('never reuse a slab while one of its batches is held, and leave that batch intact', () => {
    const parts = fullSlab(4)
    for (const p of parts.slice(1)) releaseBatch(p)
    const held = parts[0]
    const later = [...fullSlab(5), ...fullSlab(6), ...fullSlab(7)]
    expect(later.some((p) => p.buffer === held.buffer)).toBe(false)
    expect(held.every((b) => b === 4)).toBe(true)
  })

  it('count a batch given back twice once, so a held neighbour is not overwritten', () => {
    const parts = fullSlab(8)
    releaseBatch(parts[1])
    releaseBatch(parts[1])
    for (const p of parts.slice(2)) releaseBatch(p)
    // parts[0] is still held: 7 of 8 released, whatever the repeats.
    const later = [...fullSlab(9), ...fullSlab(10)]
    expect(later.some((p) => p.buffer === parts[0].buffer)).toBe(false)
    expect(parts[0].every((b) => b === 8)).toBe(true)
  })

  it('give batches larger than a slab part buffers of their own, and ignore them when given back', () => {
    const big = batchBuffer(PART + 1)
    expect(big.byteOffset).toBe(0)
    expect(big.length).toBe(PART + 1)
    releaseBatch(big)
    releaseBatch(Buffer.alloc(10))
  })
})
