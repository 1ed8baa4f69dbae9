// The hash of KafkaJS's LegacyPartitioner (its default before 2.0). It was
// meant to be Java's murmur2 but is computed in JavaScript doubles instead of
// 32-bit ints: a product past 2^53 loses its low bits before `^` and `>>>`
// cut it to 32, and a key whose length is not a multiple of 4 has its last
// bytes mixed twice (once as a zero-padded word, once as the tail). Topics
// filled by it keep their keys in other partitions than Java's; migrants who
// must keep that placement need this exact arithmetic, quirks included.
import { utf8Scratch } from './utf8-scratch.js'

const SEED = 0x9747b28c
const M = 0x5bd1e995

/** KafkaJS's legacy murmur2 of `key`'s bytes (a string's UTF-8), signed 32-bit. */
export function kafkajsLegacyMurmur2(key: string | Uint8Array): number {
  if (typeof key !== 'string') return legacyHash(key, key.length)
  const bytes = utf8Scratch(key)
  return legacyHash(bytes.buffer, bytes.length)
}

function legacyHash(data: Uint8Array, length: number): number {
  let h = SEED ^ length
  const words = length & ~3
  for (let i = 0; i < words; i += 4) {
    h = mix(h, data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24))
  }
  const rest = length & 3
  if (rest > 0) {
    // KafkaJS's word loop runs to ceil(length / 4), reading zeros past the end.
    h = mix(h, data[words] | (rest > 1 ? data[words + 1] << 8 : 0) | (rest > 2 ? data[words + 2] << 16 : 0))
    if (rest === 3) h ^= data[words + 2] << 16
    if (rest >= 2) h ^= data[words + 1] << 8
    h ^= data[words]
    h *= M // a double again
  }
  h ^= h >>> 13
  h *= M
  return h ^ (h >>> 15)
}

/** One word into the hash, with double multiplications (`^` and `>>>` take them mod 2^32). */
function mix(h: number, word: number): number {
  let k = word * M
  k ^= k >>> 24
  k *= M
  return (h * M) ^ k
}
