// Java Kafka Streams' Murmur3.hash128 (MurmurHash3 x64 128-bit, seed 104729):
// a foreign-key join hashes the left row's serialized value with it, and a
// response whose hash is not the row's current one is stale. The two 64-bit
// halves come back as Java writes them into a SubscriptionWrapper: 16 bytes,
// each half big-endian.
const MASK = (1n << 64n) - 1n
const C1 = 0x87c37b91114253d5n
const C2 = 0x4cf5ad432745937fn
const SEED = 104729n

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & MASK
const mul = (a: bigint, b: bigint) => (a * b) & MASK

function fmix64(h: bigint): bigint {
  h ^= h >> 33n
  h = mul(h, 0xff51afd7ed558ccdn)
  h ^= h >> 33n
  h = mul(h, 0xc4ceb9fe1a85ec53n)
  return h ^ (h >> 33n)
}

/** Little-endian bytes [from, from + n) of `data` as an unsigned 64-bit value. */
function le(data: Uint8Array, from: number, n: number): bigint {
  let v = 0n
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(data[from + i])
  return v
}

/** Java's Murmur3.hash128(data): h1 then h2, 8 bytes big-endian each. */
export function murmur3Hash128(data: Uint8Array): Buffer {
  let h1 = SEED
  let h2 = SEED
  const blocks = data.length >> 4
  for (let i = 0; i < blocks; i++) {
    let k1 = le(data, i * 16, 8)
    let k2 = le(data, i * 16 + 8, 8)
    k1 = mul(rotl(mul(k1, C1), 31n), C2)
    h1 = ((mul(rotl(h1 ^ k1, 27n) + h2, 5n) + 0x52dce729n) & MASK) as bigint
    k2 = mul(rotl(mul(k2, C2), 33n), C1)
    h2 = ((mul(rotl(h2 ^ k2, 31n) + h1, 5n) + 0x38495ab5n) & MASK) as bigint
  }
  const tail = blocks * 16
  const rest = data.length - tail
  if (rest > 8) h2 ^= mul(rotl(mul(le(data, tail + 8, rest - 8), C2), 33n), C1)
  if (rest > 0) h1 ^= mul(rotl(mul(le(data, tail, Math.min(rest, 8)), C1), 31n), C2)
  const len = BigInt(data.length)
  h1 ^= len
  h2 ^= len
  h1 = (h1 + h2) & MASK
  h2 = (h2 + h1) & MASK
  h1 = fmix64(h1)
  h2 = fmix64(h2)
  h1 = (h1 + h2) & MASK
  h2 = (h2 + h1) & MASK
  const out = Buffer.alloc(16)
  out.writeBigUInt64BE(h1, 0)
  out.writeBigUInt64BE(h2, 8)
  return out
}
