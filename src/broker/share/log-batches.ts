import type { Buffer } from 'node:buffer'
import type { PartitionLog } from '../partition-log.js'
import { StorageError } from '../storage/disk-io.js'

export interface LogBatch {
  baseOffset: number
  lastOffset: number
  control: boolean
  /** Written in a transaction by producerId (read_committed leaves out the aborted ones). */
  transactional: boolean
  producerId: bigint
  bytes: Buffer
}

const TRANSACTIONAL_FLAG = 0x10
const CONTROL_FLAG = 0x20
/** Where the producer id sits in a v2 batch header. */
const PRODUCER_ID_AT = 43
/** baseOffset (8) and batchLength (4) come before the length counts. */
const LOG_OVERHEAD = 12

/**
 * The log's record batches from the one holding `from` up to `upTo`
 * (exclusive), about `maxBytes` of them (always one): each with its offsets,
 * read from the headers, as share fetches acquire by batch. A read refused
 * (StorageError) throws when it is the first, else ends what is returned
 * (`refused` told).
 */
export function batchesBetween(
  log: PartitionLog,
  from: number,
  upTo: number,
  maxBytes: number,
  refused: (err: StorageError) => void = () => {},
): LogBatch[] {
  const out: LogBatch[] = []
  let next = from
  let bytes = 0
  while (next < upTo && (out.length === 0 || bytes < maxBytes)) {
    let chunks: Buffer[]
    try {
      chunks = log.read(next, Math.min(maxBytes - bytes, 0x7fffffff), upTo).chunks
    } catch (err) {
      // A read refused (a corrupt batch, StorageError) past what was read: those are served, the next call meets it first.
      if (!(out.length > 0 && err instanceof StorageError)) throw err
      refused(err)
      return out
    }
    let progressed = false
    for (const chunk of chunks)
      for (let at = 0; at + LOG_OVERHEAD <= chunk.length;) {
        const size = LOG_OVERHEAD + chunk.readInt32BE(at + 8)
        const baseOffset = Number(chunk.readBigInt64BE(at))
        const lastOffset = baseOffset + chunk.readInt32BE(at + 23)
        const attributes = chunk.readInt16BE(at + 21)
        const control = (attributes & CONTROL_FLAG) !== 0
        const transactional = (attributes & TRANSACTIONAL_FLAG) !== 0
        const producerId = chunk.readBigInt64BE(at + PRODUCER_ID_AT)
        if (baseOffset >= upTo) return out
        if (lastOffset >= next) {
          out.push({ baseOffset, lastOffset, control, transactional, producerId, bytes: chunk.subarray(at, at + size) })
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
