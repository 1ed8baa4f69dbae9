import { Buffer } from 'node:buffer'
import { crc32c } from './crc.js'

/**
 * Rewrites an encoded v2 batch's producer id, epoch and base sequence, and
 * its CRC (which covers them): how a producer re-sequences batches it must
 * resend under a new epoch, without encoding the records again.
 */
export function restampBatch(batch: Buffer, producerId: bigint, producerEpoch: number, baseSequence: number): void {
  batch.writeBigInt64BE(producerId, 43)
  batch.writeInt16BE(producerEpoch, 51)
  batch.writeInt32BE(baseSequence, 53)
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17)
}
