/** A small seeded PRNG (mulberry32): tests print their seed so a failure can be replayed. */
export function prng(seed: number) {
  let s = seed >>> 0
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  return {
    next,
    int,
    bool: (p = 0.5): boolean => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)],
    bytes(n: number): Buffer {
      const b = Buffer.allocUnsafe(n)
      for (let i = 0; i < n; i++) b[i] = int(256)
      return b
    },
  }
}

export function seedFromEnv(name: string): number {
  const fromEnv = process.env[name]
  return fromEnv ? Number(fromEnv) : (Math.random() * 2 ** 32) >>> 0
}
