import type { Buffer } from 'node:buffer'
import { sealBatchCrc } from './batch-header.js'
import { B_BASE_SEQUENCE, B_PRODUCER_EPOCH, B_PRODUCER_ID } from './layout.js'

/**
 * Rewrites an encoded v2 batch's producer id, epoch and base sequence, and
 * its CRC (which covers them): how a producer re-sequences batches it must
 * resend under a new epoch, without encoding the records again.
 */
export function restampBatch(batch: Buffer, producerId: bigint, producerEpoch: number, baseSequence: number): void {
  batch.writeBigInt64BE(producerId, B_PRODUCER_ID)
  batch.writeInt16BE(producerEpoch, B_PRODUCER_EPOCH)
  batch.writeInt32BE(baseSequence, B_BASE_SEQUENCE)
  sealBatchCrc(batch)
}
