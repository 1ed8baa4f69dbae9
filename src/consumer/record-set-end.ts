import type { Buffer } from 'node:buffer'
import {
  BatchWalker,
  LOG_OVERHEAD,
  batchBaseOffset,
  batchCompression,
  batchLastOffset,
  batchLeaderEpoch,
  batchMagic,
  batchSize,
} from '../codec/batch-header.js'
import { B_LAST_OFFSET_DELTA, CODEC_ZSTD } from '../codec/layout.js'

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
  const walk = walker.start(records)
  while (walk.next()) {
    let last: bigint
    if (batchMagic(records, walk.at) === 2) {
      last = batchLastOffset(records, walk.at)
      lastEpoch = batchLeaderEpoch(records, walk.at)
    } else {
      last = batchBaseOffset(records, walk.at)
      lastEpoch = -1
    }
    if (last + 1n > nextOffset) nextOffset = last + 1n
  }
  return { nextOffset, lastEpoch }
}

/**
 * When a record set holds no whole entry but the start of one: the size
 * that entry claims (header included). Undefined when the first entry is
 * whole, or too short even to say.
 */
export function truncatedClaim(records: Buffer): number | undefined {
  if (records.length < LOG_OVERHEAD) return undefined
  const claimed = batchSize(records, 0)
  return claimed > records.length ? claimed : undefined
}

/**
 * Whether a record set holds a zstd-compressed v2 batch, from the entry
 * headers alone (legacy messages have no zstd): its whole batches, and the
 * header of one cut short at the end.
 */
export function holdsZstd(records: Buffer): boolean {
  const walk = walker.start(records)
  while (walk.next()) if (isZstd(records, walk.at)) return true
  return walk.stopped === 'truncated' && walk.end + B_LAST_OFFSET_DELTA <= records.length && isZstd(records, walk.end)
}

function isZstd(records: Buffer, at: number): boolean {
  return batchMagic(records, at) === 2 && batchCompression(records, at) === CODEC_ZSTD
}

// Walks are synchronous: one walker serves them all.
const walker = new BatchWalker()
