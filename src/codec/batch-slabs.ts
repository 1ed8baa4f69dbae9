/**
 * Where encoded batches live once copied out of wasm memory. Batches up to
 * 32 KiB are carved from 256 KiB slabs (as Node pools small Buffers): one
 * allocation for many batches instead of a fresh one each. A slab whose
 * batches were all given back (releaseBatch: the producer, once a batch sent
 * once is acknowledged) is used again, so a producer in the steady state
 * neither allocates nor page-faults for its batches; a slab with a batch never
 * given back is left to the GC.
 */
const SLAB = 256 * 1024
const LARGEST = SLAB >> 3
/** Spare slabs kept for reuse (4 MiB). */
const KEEP = 16

interface Slab {
  readonly bytes: Buffer
  /** Where the batches carved from it and not given back start (a second give-back of one is ignored). */
  readonly live: Set<number>
}

/** Keyed by the slab's memory: an entry goes with its slab once nothing else holds it. */
const slabs = new WeakMap<ArrayBufferLike, Slab>()
const spare: Slab[] = []
let current: Slab | null = null
let used = 0

/** A buffer of `size` bytes for an encoded batch (its contents are the caller's to write). */
export function batchBuffer(size: number): Buffer {
  // allocUnsafe, not allocUnsafeSlow: the same fresh memory on Node and Deno (past Node's pool size), but
  // Bun's allocUnsafeSlow costs 2-6x its allocUnsafe for 1 MiB (bench/copy-lab/results/bun.md, copy out).
  if (size > LARGEST) return Buffer.allocUnsafe(size)
  if (current === null || used + size > SLAB) {
    if (current !== null && current.live.size === 0) keep(current)
    current = spare.pop() ?? newSlab()
    used = 0
  }
  const out = current.bytes.subarray(used, used + size)
  current.live.add(used)
  used = (used + size + 7) & ~7
  return out
}

/**
 * Gives back a batch from batchBuffer() that nothing will read again: not a
 * request queued on a socket, not a retry. Anything else is ignored.
 */
export function releaseBatch(batch: Buffer): void {
  const slab = slabs.get(batch.buffer)
  if (slab === undefined || !slab.live.delete(batch.byteOffset)) return
  if (slab.live.size === 0 && slab !== current) keep(slab)
}

function keep(slab: Slab): void {
  if (spare.length < KEEP) spare.push(slab)
}

function newSlab(): Slab {
  const slab = { bytes: Buffer.allocUnsafeSlow(SLAB), live: new Set<number>() }
  slabs.set(slab.bytes.buffer, slab)
  return slab
}
