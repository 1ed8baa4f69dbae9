import { Buffer } from 'node:buffer'

/**
 * A copy of a batch a log will keep, in memory of its own. Buffer.from()
 * would carve a small one from Node's shared 8 KiB pool, beside whatever else
 * was allocated then (other topics' batches, a request's bytes): one batch
 * kept (an internal topic's, a compacted key) then keeps the whole slab and
 * every deleted batch in it reachable. Under franz-go's ETL load that left
 * hundreds of MB of array buffers after every topic was deleted
 * (bench/results/broker-load.md).
 */
export function storedCopy(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length)
  out.set(bytes)
  return out
}
