// One mutation of a request frame, for the fuzz tests: bytes flipped, cut
// short, trailing garbage, a lying size, or a length field made absurd.
import { Buffer } from 'node:buffer'
import type { Prng } from '../../bench/support/prng.js'

export function mutate(rng: Prng, frame: Buffer): Buffer {
  const out = Buffer.from(frame)
  const kind = rng.between(0, 9)
  if (kind <= 5) {
    // Flip a few bytes after the size (header and body).
    for (let n = rng.between(1, 4); n > 0; n--) out[rng.between(4, out.length - 1)] = rng.between(0, 255)
    return out
  }
  if (kind === 6) {
    // Cut short, the size saying so.
    const cut = out.subarray(0, rng.between(5, out.length - 1))
    cut.writeInt32BE(cut.length - 4, 0)
    return cut
  }
  if (kind === 7) {
    // Trailing garbage, the size saying so.
    const extra = Buffer.alloc(rng.between(1, 64), rng.between(0, 255))
    const longer = Buffer.concat([out, extra])
    longer.writeInt32BE(longer.length - 4, 0)
    return longer
  }
  if (kind === 8) {
    // A size that lies.
    out.writeInt32BE(rng.pick([0, 1, 3, -1, out.length + 100, 0x7fffffff]), 0)
    return out
  }
  // A length or count field in the body made huge or negative.
  const at = rng.between(12, Math.max(12, out.length - 4))
  out.writeInt32BE(rng.pick([-1, -2, 0x7fffffff, 0x10000]), at)
  return out
}
