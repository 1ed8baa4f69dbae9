/**
 * A small seeded generator (a 32-bit multiply-xorshift counter), so a
 * randomized test or a benchmark's data can be made again from its seed.
 * Not for anything that needs unpredictability.
 */
export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let z = this.state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return (z ^ (z >>> 14)) >>> 0
  }

  /** In [0, 1). */
  next(): number {
    return this.u32() / 4294967296
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]
  }

  /** Random bytes, made four at a time (in a buffer of their own, not a pooled slice). */
  bytes(n: number): Buffer {
    const words = new Uint32Array((n + 3) >>> 2)
    for (let i = 0; i < words.length; i++) words[i] = this.u32()
    return Buffer.from(words.buffer, 0, n)
  }

  /** A seed for a sub-generator, so each round can be replayed on its own. */
  static derive(seed: number, index: number): number {
    return new Prng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0).u32()
  }
}
