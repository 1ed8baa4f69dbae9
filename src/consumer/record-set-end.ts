import type { Buffer } from 'node:buffer'

export interface RecordSetEnd {
  /** The offset after the last whole entry (the next fetch's offset); `from` when there is none. */
  nextOffset: bigint
  /** The leader epoch of the last whole v2 batch, -1 for none or legacy messages. */
  lastEpoch: number
}

/**
 * Where a fetched record set ends, from its entry headers alone (no decode,
 * no CRC): a v2 batch ends at baseOffset + lastOffsetDelta; a legacy entry's
 * offset is its (last inner) offset. A partial entry at the end is ignored,
 * as is everything after a header too short or too long to trust — the full
 * decode reports those when user code takes the records.
 */
export function recordSetEnd(records: Buffer, from: bigint): RecordSetEnd {
  let nextOffset = from
  let lastEpoch = -1
  let pos = 0
  while (pos + 17 <= records.length) {
    const size = records.readInt32BE(pos + 8)
    if (size < 5 || pos + 12 + size > records.length) break
    const magic = records[pos + 16]
    let last: bigint
    if (magic === 2) {
      if (size < 49) break
      last = records.readBigInt64BE(pos) + BigInt(records.readInt32BE(pos + 23))
      lastEpoch = records.readInt32BE(pos + 12)
    } else {
      last = records.readBigInt64BE(pos)
      lastEpoch = -1
    }
    if (last + 1n > nextOffset) nextOffset = last + 1n
    pos += 12 + size
  }
  return { nextOffset, lastEpoch }
}

/**
 * When a record set holds no whole entry but the start of one: the size
 * that entry claims (header included). Undefined when the first entry is
 * whole, or too short even to say.
 */
export function truncatedClaim(records: Buffer): number | undefined {
  if (records.length < 12) return undefined
  const claimed = 12 + records.readInt32BE(8)
  return claimed > records.length ? claimed : undefined
}

/**
 * Whether a record set holds a zstd-compressed v2 batch, from the entry
 * headers alone (legacy messages have no zstd). Headers too short to read
 * end the walk, as in recordSetEnd.
 */
export function holdsZstd(records: Buffer): boolean {
  let pos = 0
  while (pos + 23 <= records.length) {
    const size = records.readInt32BE(pos + 8)
    if (size < 5) return false
    if (records[pos + 16] === 2 && (records[pos + 22] & 7) === ZSTD) return true
    pos += 12 + size
  }
  return false
}

const ZSTD = 4
