import type { Buffer } from 'node:buffer'
import type { PartitionLog } from '../partition-log.js'

export interface LogBatch {
  baseOffset: number
  lastOffset: number
  control: boolean
  bytes: Buffer
}

const CONTROL_FLAG = 0x20
/** baseOffset (8) and batchLength (4) come before the length counts. */
const LOG_OVERHEAD = 12

/**
 * The log's record batches from the one holding `from` up to `upTo`
 * (exclusive), about `maxBytes` of them (always one): each with its offsets,
 * read from the headers, as share fetches acquire by batch.
 */
export function batchesBetween(log: PartitionLog, from: number, upTo: number, maxBytes: number): LogBatch[] {
  const out: LogBatch[] = []
  let next = from
  let bytes = 0
  while (next < upTo && (out.length === 0 || bytes < maxBytes)) {
    const { chunks } = log.read(next, Math.min(maxBytes - bytes, 0x7fffffff), upTo)
    let progressed = false
    for (const chunk of chunks)
      for (let at = 0; at + LOG_OVERHEAD <= chunk.length;) {
        const size = LOG_OVERHEAD + chunk.readInt32BE(at + 8)
        const baseOffset = Number(chunk.readBigInt64BE(at))
        const lastOffset = baseOffset + chunk.readInt32BE(at + 23)
        const control = (chunk.readInt16BE(at + 21) & CONTROL_FLAG) !== 0
        if (baseOffset >= upTo) return out
        if (lastOffset >= next) {
          out.push({ baseOffset, lastOffset, control, bytes: chunk.subarray(at, at + size) })
          bytes += size
          next = lastOffset + 1
          progressed = true
        }
        at += size
      }
    if (!progressed) break
  }
  return out
}
